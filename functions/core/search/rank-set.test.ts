import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packNumbers } from '../packed-numbers.js';
import { loadSearchIndex } from './load-index.js';
import { encodePosting } from './posting-codec.js';
import { rankSelector, ranksOf } from './rank-set.js';
import { SEARCH_INDEX_FORMAT } from './search-types.js';

describe('ranksOf', () => {
  it('lists the set bits, ascending, in an array of exactly their number', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 40 }), (words) => {
        const bits = Uint32Array.from(words);
        const expected: number[] = [];
        words.forEach((word, i) => {
          for (let b = 0; b < 32; b++) if ((word >>> b) & 1) expected.push(i * 32 + b);
        });
        expect([...ranksOf(bits)]).toEqual(expected);
      }),
    );
  });

  it('lets a first query allocate only its bitsets and its answer, not a slot per record', () => {
    const docCount = 1_000_000;
    const field = (ranks: number[]) => ({ postings: encodePosting(ranks, docCount), offsets: packNumbers([0], 1), offsetWidth: 1 });
    const index = loadSearchIndex({ format: SEARCH_INDEX_FORMAT, docCount, terms: 'frog', tags: field([1, 5, 999_999]), description: field([5]) });
    const before = process.memoryUsage().arrayBuffers;
    expect([...index.match('frog', 'all')]).toEqual([1, 5, 999_999]);
    // Two bitsets of a million bits are 250 KB; a rank list of a million slots would be 4 MB.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1_000_000);
  });
});

describe('rankSelector', () => {
  it('reads the k-th set bit in place, whatever order the positions are asked in', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(0), fc.constant(0xffffffff), fc.integer({ min: 0, max: 0xffffffff })), { maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 60 }),
        (words, asked) => {
          const bits = Uint32Array.from(words);
          const ranks = [...ranksOf(bits)];
          const selector = rankSelector(bits);
          expect(selector.size).toBe(ranks.length);
          if (ranks.length === 0) return;
          // Runs down (a newest-first page), runs up, then positions anywhere, on one cursor.
          const order = [...ranks.keys()].reverse().concat([...ranks.keys()], asked.map((k) => k % ranks.length));
          expect(order.map((k) => selector.at(k))).toEqual(order.map((k) => ranks[k]));
        },
      ),
    );
  });
});
