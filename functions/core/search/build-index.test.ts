import fc from 'fast-check';
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { buildSearchIndex, extendSearchIndex, indexContents } from './build-index.js';
import { SEARCH_OPTIONS, type IndexedDoc } from './search-options.js';
import type { SearchDoc } from './search-types.js';

const WORDS = ['smug', 'smuggest', 'frog', 'café', 'CAFE', 'naïve', 'pepe', 'rain', 'sad', 'a', '42', 'x1', 'über', 'feels', 'good', 'man'];

function miniSearchOf(docs: SearchDoc[]): MiniSearch<IndexedDoc> {
  const miniSearch = new MiniSearch<IndexedDoc>(SEARCH_OPTIONS);
  miniSearch.addAll(docs.map((doc, rank) => ({ id: rank, tags: doc.tags, description: doc.description })));
  return miniSearch;
}

const docArbitrary = fc.record({
  tags: fc.option(fc.array(fc.constantFrom(...WORDS), { maxLength: 4 }), { nil: null }),
  description: fc.option(fc.array(fc.constantFrom(...WORDS), { maxLength: 8 }).map((words) => words.join(' ')), { nil: null }),
});

describe('reading MiniSearch’s index', () => {
  it('gives, for every term and field, exactly the docs MiniSearch’s own exact search finds', () => {
    fc.assert(
      fc.property(fc.array(docArbitrary, { maxLength: 60 }), (docs) => {
        const miniSearch = miniSearchOf(docs);
        const { fieldIds, terms } = indexContents(miniSearch);
        expect(new Set(terms.map(([term]) => term)).size).toBe(miniSearch.termCount);
        for (const [term, byField] of terms) {
          for (const [field, fieldId] of Object.entries(fieldIds)) {
            const found = miniSearch.search(term, { fields: [field], prefix: false, fuzzy: false }).map((r) => Number(r.id)).sort((a, b) => a - b);
            expect(byField.get(fieldId) ?? [], `${term} in ${field}`).toEqual(found);
          }
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('extending an index with appended docs', () => {
  it('gives byte for byte the index built from scratch, for any documents and any split', () => {
    fc.assert(
      fc.property(fc.array(docArbitrary, { maxLength: 40 }), fc.nat(), (docs, at) => {
        const known = at % (docs.length + 1);
        const extended = extendSearchIndex(buildSearchIndex(docs.slice(0, known)), docs);
        expect(JSON.stringify(extended)).toBe(JSON.stringify(buildSearchIndex(docs)));
      }),
      { numRuns: 300 },
    );
  });

  it('also when the added docs turn postings from lists into bitmaps (thousands of docs)', () => {
    const docs: SearchDoc[] = Array.from({ length: 2500 }, (_, i) => ({
      tags: i % 7 === 0 ? null : [WORDS[i % WORDS.length]!],
      description: i % 5 === 0 ? null : `${WORDS[(i * 5) % WORDS.length]} w${i % 97}`,
    }));
    // From doc 1000 on, every second doc is tagged 'frog': that posting is a list in the index of
    // the first 1000 docs and a bitmap in the whole one.
    for (let i = 1000; i < docs.length; i += 2) docs[i] = { ...docs[i]!, tags: ['frog'] };
    for (const known of [0, 1, 1000, 1999, 2499, 2500]) {
      expect(JSON.stringify(extendSearchIndex(buildSearchIndex(docs.slice(0, known)), docs)), `known = ${known}`).toBe(JSON.stringify(buildSearchIndex(docs)));
    }
  });

  it('refuses an index of more docs than it is given', () => {
    const docs: SearchDoc[] = [{ tags: ['smug'], description: null }, { tags: null, description: 'frog' }];
    expect(() => extendSearchIndex(buildSearchIndex(docs), docs.slice(0, 1))).toThrow(/cannot be the start of 1 docs/);
  });
});
