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

/**
 * The set ranks, ascending. One pass into `scratch` (≥ 32 × bits.length long, reused
 * across queries) then one copy: a popcount pre-pass to size the answer would read the
 * bitset twice, which shows in a cold process where this loop is not yet optimised.
 */
export function ranksOf(bits: Uint32Array, scratch: Uint32Array): Uint32Array {
  let at = 0;
  for (let i = 0; i < bits.length; i++) {
    let word = bits[i]!;
    while (word !== 0) {
      const lowest = word & -word;
      scratch[at++] = i * 32 + 31 - Math.clz32(lowest);
      word ^= lowest;
    }
  }
  return scratch.slice(0, at);
}
