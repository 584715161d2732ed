import fc from 'fast-check';
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { digitsFor, packNumbers } from '../packed-numbers.js';
import { buildSearchIndex } from './build-index.js';
import { encodePosting } from './posting-codec.js';
import { SEARCH_OPTIONS, type IndexedDoc } from './search-options.js';
import { SEARCH_INDEX_FORMAT, type FieldPostings, type SearchDoc, type SearchIndexData } from './search-types.js';

/** The previous implementation: a real MiniSearch instance with SEARCH_OPTIONS, its postings re-encoded. */
function viaMiniSearch(docs: SearchDoc[]): SearchIndexData {
  const miniSearch = new MiniSearch<IndexedDoc>(SEARCH_OPTIONS);
  miniSearch.addAll(docs.map((doc, rank) => ({ id: rank, tags: doc.tags, description: doc.description })));
  const plain = miniSearch.toJSON();
  const rankOf = plain.documentIds as Record<string, number>;
  const entries = [...plain.index].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const encodeField = (fieldId: string): FieldPostings => {
    const segments = entries.map(([, fields]) => {
      const data = fields[fieldId];
      const ranks = data === undefined ? [] : Object.keys(data).map((shortId) => rankOf[shortId]!).sort((a, b) => a - b);
      return encodePosting(ranks, docs.length);
    });
    const offsets: number[] = [];
    let offset = 0;
    for (const segment of segments) {
      offsets.push(offset);
      offset += segment.length;
    }
    const offsetWidth = digitsFor(offset);
    return { postings: segments.join(''), offsets: packNumbers(offsets, offsetWidth), offsetWidth };
  };
  return {
    format: SEARCH_INDEX_FORMAT,
    docCount: docs.length,
    terms: entries.map(([term]) => term).join(' '),
    tags: encodeField(String(plain.fieldIds.tags)),
    description: encodeField(String(plain.fieldIds.description)),
  };
}

describe('buildSearchIndex', () => {
  it('yields the same index as a MiniSearch instance on accents, repeats, nulls and shared words', () => {
    const docs: SearchDoc[] = [
      { tags: ['smug', 'classic'], description: 'A smug frog, smug again' },
      { tags: null, description: null },
      { tags: ['Café', 'café'], description: 'Crème brûlée — ÉTÉ 2021' },
      { tags: [], description: '   ' },
      { tags: ['frog'], description: 'frog frog FROG' },
      { tags: ['ｆｕｌｌ', 'x'], description: 'ﬁne déjà-vu 42' },
    ];
    const built = buildSearchIndex(docs);
    expect(built).toEqual(viaMiniSearch(docs));
    expect(built.terms.split(' ')).toContain('smug');
  });

  it('matches a MiniSearch instance on random catalogues (bitmaps and lists)', () => {
    const word = fc.constantFrom('frog', 'smug', 'Pepe', 'sad', 'é', 'a1', 'ñu', 'x', 'feels-good', '');
    const doc = fc.record({
      tags: fc.option(fc.array(word, { maxLength: 4 }), { nil: null }),
      description: fc.option(fc.array(word, { maxLength: 6 }).map((w) => w.join(' ')), { nil: null }),
    });
    fc.assert(fc.property(fc.array(doc, { maxLength: 60 }), (docs) => {
      expect(buildSearchIndex(docs)).toEqual(viaMiniSearch(docs));
    }), { numRuns: 150 });
  });
});
