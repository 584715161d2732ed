import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { referenceMatch } from '../../../tools/testing/search-reference.js';
import { buildSearchIndex, loadSearchIndex, type SearchDoc, type SearchField } from './search-index.js';
import { openSearchIndex } from './load-index.js';
import { storeSearchIndex } from './stored-index.js';
import { escapeForSource, unescapeFromSource } from '../source-text.js';

/** A tiny alphabet (with case and accent variants) so random words often share prefixes and sit one edit apart. */
const letter = fc.constantFrom('a', 'b', 'c', 'd', 'A', 'á', 'Ç', 'é');
const word = fc.string({ unit: letter, minLength: 1, maxLength: 6 });
const separator = fc.constantFrom(' ', '-', ', ', '!', ' 🐸 ');
const text = fc.array(fc.tuple(word, separator), { maxLength: 6 }).map((parts) => parts.map(([w, s]) => w + s).join(''));
const doc: fc.Arbitrary<SearchDoc> = fc.record({
  tags: fc.option(fc.array(fc.oneof(word, text), { minLength: 1, maxLength: 3 }), { nil: null }),
  description: fc.option(text, { nil: null }),
});
const field = fc.constantFrom<SearchField>('all', 'description');

describe('match agrees with a brute-force reference of the rules', () => {
  it('on random small corpora and queries', () => {
    fc.assert(
      fc.property(fc.array(doc, { maxLength: 40 }), fc.array(fc.oneof(text, word), { minLength: 1, maxLength: 8 }), field, (docs, queries, searched) => {
        const index = loadSearchIndex(JSON.parse(JSON.stringify(buildSearchIndex(docs))));
        for (const query of queries) {
          const expected = referenceMatch(docs, query, searched);
          expect([...index.match(query, searched)], `query ${JSON.stringify(query)} (${searched})`).toEqual(expected);
          expect([...index.matchByRelevance(query, searched)].sort((a, b) => a - b)).toEqual(expected);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('also from the stored form (catalogue.ts), whatever the piece size', () => {
    fc.assert(
      fc.property(fc.array(doc, { maxLength: 40 }), fc.array(fc.oneof(text, word), { minLength: 1, maxLength: 8 }), field, fc.integer({ min: 1, max: 24 }), (docs, queries, searched, maxPiece) => {
        // Escaped and unescaped as the catalogue does it: terms may hold non-ASCII letters.
        const pieces: string[] = [];
        const stored = storeSearchIndex(buildSearchIndex(docs), maxPiece, (text) => pieces.push(escapeForSource(text)) - 1);
        const index = openSearchIndex(JSON.parse(JSON.stringify(stored)), (i) => unescapeFromSource(pieces[i]!));
        for (const query of queries) {
          const expected = referenceMatch(docs, query, searched);
          expect([...index.match(query, searched)], `query ${JSON.stringify(query)} (${searched})`).toEqual(expected);
          expect([...index.matchByRelevance(query, searched)].sort((a, b) => a - b)).toEqual(expected);
        }
      }),
      { numRuns: 300 },
    );
  });
});
