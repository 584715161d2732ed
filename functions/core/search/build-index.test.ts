import fc from 'fast-check';
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { buildSearchIndex, indexContents, updateSearchIndex } from './build-index.js';
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

/** The previous ranks of `docs` when they are the first `known` docs, then new ones. */
const appended = (docs: readonly SearchDoc[], known: number) => docs.map((_, rank) => (rank < known ? rank : -1));

describe('updating an index with the docs that changed', () => {
  it('gives byte for byte the index built from scratch, for any documents and any split', () => {
    fc.assert(
      fc.property(fc.array(docArbitrary, { maxLength: 40 }), fc.nat(), (docs, at) => {
        const known = at % (docs.length + 1);
        const updated = updateSearchIndex(buildSearchIndex(docs.slice(0, known)), docs, appended(docs, known));
        expect(JSON.stringify(updated)).toBe(JSON.stringify(buildSearchIndex(docs)));
      }),
      { numRuns: 300 },
    );
  });

  it('also after docs are removed, edited, inserted anywhere or reordered', () => {
    const change = fc.oneof(
      fc.record({ op: fc.constant('remove' as const), at: fc.nat() }),
      fc.record({ op: fc.constant('edit' as const), at: fc.nat(), doc: docArbitrary }),
      fc.record({ op: fc.constant('insert' as const), at: fc.nat(), doc: docArbitrary }),
      fc.record({ op: fc.constant('swap' as const), at: fc.nat(), with: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(docArbitrary, { maxLength: 40 }), fc.array(change, { maxLength: 8 }), (before, changes) => {
        // Each doc with its rank in `before`, -1 once it is new or edited.
        const docs = before.map((doc, rank) => ({ doc, rank }));
        for (const c of changes) {
          const at = docs.length === 0 ? 0 : c.at % docs.length;
          if (c.op === 'insert') docs.splice(c.at % (docs.length + 1), 0, { doc: c.doc, rank: -1 });
          else if (docs.length === 0) continue;
          else if (c.op === 'remove') docs.splice(at, 1);
          else if (c.op === 'edit') docs[at] = { doc: c.doc, rank: -1 };
          else {
            const other = c.with % docs.length;
            [docs[at], docs[other]] = [docs[other]!, docs[at]!];
          }
        }
        const now = docs.map((entry) => entry.doc);
        const updated = updateSearchIndex(buildSearchIndex(before), now, docs.map((entry) => entry.rank));
        expect(JSON.stringify(updated)).toBe(JSON.stringify(buildSearchIndex(now)));
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
      expect(JSON.stringify(updateSearchIndex(buildSearchIndex(docs.slice(0, known)), docs, appended(docs, known))), `known = ${known}`).toBe(JSON.stringify(buildSearchIndex(docs)));
    }
    // And back: removing them turns the bitmap into a list again.
    expect(JSON.stringify(updateSearchIndex(buildSearchIndex(docs), docs.slice(0, 1000), appended(docs.slice(0, 1000), 1000)))).toBe(JSON.stringify(buildSearchIndex(docs.slice(0, 1000))));
  });

  it('keeps the segments a change leaves alone byte for byte, as the doc count crosses a bitmap byte', () => {
    // 'frog' in every second of the first 400 docs is a bitmap none of the changes touches; the record count runs across several multiples of 8.
    const docs: SearchDoc[] = Array.from({ length: 420 }, (_, i) => ({ tags: i < 400 && i % 2 === 0 ? ['frog', `t${i % 50}`] : [`t${i % 50}`], description: `w${i % 97} common` }));
    for (let known = 400; known < 420; known++) {
      const now = docs.slice(0, known + 1);
      expect(JSON.stringify(updateSearchIndex(buildSearchIndex(docs.slice(0, known)), now, appended(now, known))), `add at ${known}`).toBe(JSON.stringify(buildSearchIndex(now)));
      const fewer = docs.slice(0, known);
      expect(JSON.stringify(updateSearchIndex(buildSearchIndex(now), fewer, appended(fewer, known))), `remove at ${known}`).toBe(JSON.stringify(buildSearchIndex(fewer)));
      const edited = now.map((doc, rank) => (rank === known >> 1 ? { tags: ['toad'], description: null } : doc));
      const ranks = now.map((_, rank) => (rank === known >> 1 ? -1 : rank));
      expect(JSON.stringify(updateSearchIndex(buildSearchIndex(now), edited, ranks)), `edit at ${known}`).toBe(JSON.stringify(buildSearchIndex(edited)));
    }
  }, 60_000);

  it('refuses a previous rank out of range or claimed twice', () => {
    const docs: SearchDoc[] = [{ tags: ['smug'], description: null }, { tags: null, description: 'frog' }];
    expect(() => updateSearchIndex(buildSearchIndex(docs.slice(0, 1)), docs, [0, 1])).toThrow(/previous rank 1 of doc 1/);
    expect(() => updateSearchIndex(buildSearchIndex(docs), docs, [0, 0])).toThrow(/previous rank 0 of doc 1/);
  });
});
