import { KIND_LIST, type Posting } from './posting-codec.js';

/**
 * Sets of ranks as bitsets (bit r of word r >>> 5): OR over a word's prefix expansions
 * and AND across query words are then word-wide operations, and no match is ever scored.
 */
export function orPosting(bits: Uint32Array, posting: Posting): void {
  if (posting.kind === KIND_LIST) {
    const ranks = posting.ranks;
    for (let i = 0; i < ranks.length; i++) {
      const rank = ranks[i]!;
      bits[rank >>> 5]! |= 1 << (rank & 31);
    }
  } else {
    const other = posting.bits;
    for (let i = 0; i < other.length; i++) bits[i]! |= other[i]!;
  }
}

/** `target &= other`; returns whether any bit is left. */
export function andInto(target: Uint32Array, other: Uint32Array): boolean {
  let any = 0;
  for (let i = 0; i < target.length; i++) {
    const word = target[i]! & other[i]!;
    target[i] = word;
    any |= word;
  }
  return any !== 0;
}

/** Set bits of a 32-bit word (the SWAR popcount). */
function bitCount(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/**
 * The set ranks of a bitset in ascending order, read in place: `size` of them, `at(k)` the k-th
 * (0 ≤ k < size). A cursor remembers the word it stopped in, so a run of nearby k (a page, in
 * either direction) costs one walk to it, started from the end; for positions anywhere (a
 * shuffle) list them with `ranksOf`. Valid while `bits` is unchanged. A sorted first page of a
 * search matching 40k of 100k records listed all 40k ranks to read 25 of them: the largest
 * part of a cold process's first search.
 */
export function rankSelector(bits: Uint32Array): { size: number; at(k: number): number } {
  let size = 0;
  for (let i = 0; i < bits.length; i++) if (bits[i] !== 0) size += bitCount(bits[i]!);
  // The cursor: word `word`, and `before` = the set bits of the words before it.
  let word = bits.length;
  let before = size;
  return {
    size,
    at(k) {
      while (before > k) before -= bitCount(bits[--word]!);
      while (before + bitCount(bits[word]!) <= k) before += bitCount(bits[word++]!);
      let w = bits[word]!;
      for (let skip = k - before; skip > 0; skip--) w &= w - 1;
      return word * 32 + 31 - Math.clz32(w & -w);
    },
  };
}

/**
 * The set ranks, ascending, in an array of exactly their number: a counting pass first, then
 * one filling pass: a scratch array of one slot per record would be fresh memory, paid page by
 * page on a cold process's first search, far more than reading the bitset twice.
 */
export function ranksOf(bits: Uint32Array): Uint32Array {
  let count = 0;
  for (let i = 0; i < bits.length; i++) if (bits[i] !== 0) count += bitCount(bits[i]!);
  const ranks = new Uint32Array(count);
  let at = 0;
  for (let i = 0; i < bits.length; i++) {
    let word = bits[i]!;
    while (word !== 0) {
      const lowest = word & -word;
      ranks[at++] = i * 32 + 31 - Math.clz32(lowest);
      word ^= lowest;
    }
  }
  return ranks;
}
