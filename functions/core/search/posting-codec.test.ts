import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KIND_BITMAP, KIND_LIST, decodeBitmap, decodePosting, encodeBitmapPosting, encodePosting, postingCount, segmentKind } from './posting-codec.js';

/** Expands a decoded posting to a plain sorted array, whatever its kind. */
function ranksOf(text: string, docCount: number): number[] {
  const posting = decodePosting(text, 0, docCount);
  if (posting.kind === KIND_LIST) return [...posting.ranks];
  const ranks: number[] = [];
  for (let rank = 0; rank < docCount; rank++) if (posting.bits[rank >>> 5]! & (1 << (rank & 31))) ranks.push(rank);
  return ranks;
}

const rankSets = fc.integer({ min: 1, max: 3000 }).chain((docCount) =>
  fc.tuple(fc.constant(docCount), fc.uniqueArray(fc.integer({ min: 0, max: docCount - 1 }), { maxLength: docCount }).map((a) => a.sort((x, y) => x - y))),
);

describe('posting codec', () => {
  it('round-trips any sorted rank set, whichever encoding it picks', () => {
    fc.assert(
      fc.property(rankSets, ([docCount, ranks]) => {
        const text = encodePosting(ranks, docCount);
        expect(ranksOf(text, docCount)).toEqual(ranks);
        expect(postingCount(text, 0)).toBe(ranks.length);
      }),
    );
  });

  it('makes a bitmap from its bits as encodePosting makes it from the ranks, or leaves it to encodePosting', () => {
    fc.assert(
      fc.property(rankSets, ([docCount, ranks]) => {
        const bits = new Uint32Array(Math.ceil(docCount / 32));
        for (const rank of ranks) bits[rank >>> 5]! |= 1 << (rank & 31);
        const segment = encodeBitmapPosting(bits, ranks.length, docCount);
        const expected = encodePosting(ranks, docCount);
        if (segment !== null) expect(segment).toBe(expected);
        // Dense sets are the ones it makes (a bitmap costs about a character per six records).
        if (docCount >= 64 && ranks.length > docCount / 5) expect(segment).not.toBeNull();
        expect(segmentKind(expected, 0)).toBe(decodePosting(expected, 0, docCount).kind);
      }),
    );
  });

  it('decodes a bitmap alike with Node\'s base64 decoder and without it', () => {
    // Dense sets (every rank kept with probability ≥ 1/2), so each one is stored as a bitmap.
    const denseSets = fc.integer({ min: 50, max: 3000 }).chain((docCount) => fc.tuple(fc.constant(docCount), fc.array(fc.boolean(), { minLength: docCount, maxLength: docCount })));
    fc.assert(
      fc.property(denseSets, ([docCount, kept]) => {
        const ranks = kept.flatMap((keep, rank) => (keep || rank % 2 === 0 ? [rank] : []));
        const text = encodePosting(ranks, docCount);
        const posting = decodePosting(text, 0, docCount);
        expect(posting.kind).toBe(KIND_BITMAP);
        const chars = Math.ceil((Math.ceil(docCount / 8) * 4) / 3);
        const portable = new Uint32Array(Math.ceil(docCount / 32));
        decodeBitmap(text, text.length - chars, chars, portable, true);
        expect(portable).toEqual(posting.kind === KIND_BITMAP ? posting.bits : null);
      }),
    );
  });

  it('uses a bitmap for a dense term and a list for a rare one', () => {
    const dense = Array.from({ length: 500 }, (_, i) => i * 2);
    expect(decodePosting(encodePosting(dense, 1000), 0, 1000).kind).toBe(KIND_BITMAP);
    expect(decodePosting(encodePosting([3, 700], 1000), 0, 1000).kind).toBe(KIND_LIST);
  });

  it('writes only JSON- and JS-safe ASCII characters', () => {
    const text = encodePosting([0, 31, 32, 1023, 1024, 99_999], 100_000) + encodePosting([5], 10);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('rejects corrupt data with a message saying to rebuild', () => {
    expect(() => decodePosting('"A', 0, 10)).toThrow(/corrupt.*rebuild/);
  });
});
