import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { referencePairs } from '../../tools/testing/search-reference.js';
import { type Hash64, hammingDistance, pairsBySegments, pairsWithinDistance, parseHash } from './multi-index.js';

const hash64 = fc.record({ hi: fc.nat({ max: 0xffffffff }), lo: fc.nat({ max: 0xffffffff }) });

/** Hashes that cluster: random bit flips of a few bases, so many pairs are within small distances. */
const clusteredHashes = fc
  .tuple(fc.array(hash64, { minLength: 1, maxLength: 4 }), fc.array(fc.tuple(fc.nat(), fc.array(fc.integer({ min: 0, max: 63 }), { maxLength: 12 })), { minLength: 2, maxLength: 60 }))
  .map(([bases, variants]) =>
    variants.map(([pick, bits]) => {
      const h = { ...bases[pick % bases.length]! };
      for (const bit of bits) {
        if (bit < 32) h.hi = (h.hi ^ (1 << bit)) >>> 0;
        else h.lo = (h.lo ^ (1 << (bit - 32))) >>> 0;
      }
      return h;
    }),
  );

describe('pairsWithinDistance (multi-index hashing)', () => {
  it('finds exactly the pairs the all-pairs loop finds, at every threshold', () => {
    fc.assert(
      fc.property(clusteredHashes, fc.integer({ min: 0, max: 16 }), (hashes: Hash64[], threshold) => {
        expect(pairsWithinDistance(hashes, threshold)).toEqual(referencePairs(hashes, threshold));
      }),
      { numRuns: 300 },
    );
  });

  it('finds the same pairs with any segment count, i.e. with search radius 0 to 4 per segment', () => {
    fc.assert(
      fc.property(clusteredHashes, fc.integer({ min: 0, max: 16 }), fc.integer({ min: 4, max: 32 }), (hashes: Hash64[], threshold, segments) => {
        expect(pairsBySegments(hashes, threshold, segments)).toEqual(referencePairs(hashes, threshold));
      }),
      { numRuns: 300 },
    );
  });

  it('reports identical hashes (distance 0) and each pair once', () => {
    const h = parseHash('ffffffff00000000')!;
    const pairs = pairsWithinDistance([h, h, h], 3);
    expect(pairs).toEqual([
      { i: 0, j: 1, distance: 0 },
      { i: 0, j: 2, distance: 0 },
      { i: 1, j: 2, distance: 0 },
    ]);
  });

  it('rejects a threshold outside 0..31', () => {
    expect(() => pairsWithinDistance([], 32)).toThrow(/0\.\.31/);
    expect(() => pairsWithinDistance([], 1.5)).toThrow(/whole number/);
    expect(() => pairsBySegments([], 3, 3)).toThrow(/segmentCount must be a whole number 4\.\.32/);
  });
});

describe('hash helpers', () => {
  it('parses 16 hex digits and refuses anything else', () => {
    expect(parseHash('0123456789abcdef')).toEqual({ hi: 0x01234567, lo: 0x89abcdef });
    expect(parseHash('0123456789ABCDEF')).toEqual({ hi: 0x01234567, lo: 0x89abcdef });
    expect(parseHash('0123456789abcde')).toBeNull();
    expect(parseHash('0123456789abcdeg')).toBeNull();
  });

  it('counts differing bits across both halves', () => {
    expect(hammingDistance(parseHash('0000000000000000')!, parseHash('ffffffffffffffff')!)).toBe(64);
    expect(hammingDistance(parseHash('8000000000000001')!, parseHash('0000000000000000')!)).toBe(2);
  });
});
