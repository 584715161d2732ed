/**
 * Random order without shuffling the whole result set: a partial Fisher–Yates that only
 * draws the first `end` positions (swaps kept in a sparse map), so page 1 of a 100k-record
 * catalogue costs `limit` draws. With a seeded generator the order is a pure function of
 * (seed, result set): page 2 continues page 1 with no repeats.
 */

/** Draw count above which shuffledSlice uses a dense permutation array instead of a sparse swap map. */
const DENSE_FROM = 2048;

/** A uniform number in [0, 1). */
export type RandomSource = () => number;

/** cyrb53-style 2×32-bit string hash; also used for ETags (not a security boundary). */
export function hashString(text: string, seed = 0): [number, number] {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return [h1 >>> 0, h2 >>> 0];
}

/** sfc32 seeded from the text: small, fast, and good enough statistically for a shuffle. */
export function seededRandom(seedText: string): RandomSource {
  let [a, b] = hashString(seedText, 1);
  let [c, d] = hashString(seedText, 2);
  const next = (): number => {
    a |= 0; b |= 0; c |= 0; d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next(); // mix the seed state
  return next;
}

/**
 * Positions `start..end-1` of a random permutation of `0..size-1` (end clamped to size).
 * Deterministic for a deterministic `random`.
 */
export function shuffledSlice(size: number, start: number, end: number, random: RandomSource): number[] {
  const stop = Math.min(end, size);
  if (start >= stop) return [];
  const out: number[] = [];
  if (stop > DENSE_FROM) {
    // Deep pages: a dense array is cheaper than a map with that many swaps.
    const order = new Uint32Array(size);
    for (let i = 0; i < size; i++) order[i] = i;
    for (let i = 0; i < stop; i++) {
      const j = i + Math.floor(random() * (size - i));
      const atJ = order[j]!;
      order[j] = order[i]!;
      order[i] = atJ;
      if (i >= start) out.push(atJ);
    }
    return out;
  }
  const swapped = new Map<number, number>();
  for (let i = 0; i < stop; i++) {
    const j = i + Math.floor(random() * (size - i));
    const atJ = swapped.get(j) ?? j;
    if (i >= start) out.push(atJ);
    if (j !== i) swapped.set(j, swapped.get(i) ?? i);
  }
  return out;
}
