/**
 * Every pair of 64-bit hashes within a Hamming distance, without comparing all pairs.
 *
 * Multi-index hashing (Norouzi et al.): split the 64 bits into m segments and index each
 * segment's value in a table. Two hashes within `threshold` bits differ in at most
 * ⌊threshold / m⌋ bits of some segment (pigeonhole), so probing each hash's segment values
 * within that radius finds every such pair. For n = 100k spread hashes this is tens of
 * millions of cheap operations instead of 5·10⁹ comparisons.
 */

/** A 64-bit hash as two unsigned 32-bit halves (JS bit operations are 32-bit). */
export interface Hash64 {
  hi: number;
  lo: number;
}

export interface HashPair {
  /** Indexes into the input, i < j. */
  i: number;
  j: number;
  distance: number;
}

const HEX16 = /^[0-9a-f]{16}$/i;

export function parseHash(hex: string): Hash64 | null {
  if (!HEX16.test(hex)) return null;
  return { hi: Number.parseInt(hex.slice(0, 8), 16) >>> 0, lo: Number.parseInt(hex.slice(8), 16) >>> 0 };
}

export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

export const hammingDistance = (a: Hash64, b: Hash64): number => popcount32((a.hi ^ b.hi) >>> 0) + popcount32((a.lo ^ b.lo) >>> 0);

/** The low `bits` bits of x, unsigned. Not a closure in segmentValue: esbuild's kept names wrap one per call. */
function mask(x: number, bits: number): number {
  return bits === 32 ? x >>> 0 : (x & ((1 << bits) - 1)) >>> 0;
}

/** Bits [start, start + length) of the hash, counted from the most significant; length ≤ 32. */
function segmentValue(hi: number, lo: number, start: number, length: number): number {
  const end = start + length;
  if (end <= 32) return mask(hi >>> (32 - end), length);
  if (start >= 32) return mask(lo >>> (64 - end), length);
  const loBits = end - 32;
  // Multiplication instead of << keeps values up to 2^32 exact (a shift would wrap to int32).
  return mask(hi, 32 - start) * 2 ** loBits + (loBits === 32 ? lo >>> 0 : lo >>> (32 - loBits));
}

/** Segment boundaries: `count` segments as equal as possible (64 = 7·9 + 1 → one 10-bit segment). */
function segmentLayout(count: number): { start: number; length: number }[] {
  const layout: { start: number; length: number }[] = [];
  let start = 0;
  for (let k = 0; k < count; k++) {
    const length = Math.floor(64 / count) + (k < 64 % count ? 1 : 0);
    layout.push({ start, length });
    start += length;
  }
  return layout;
}

/** Every bit mask of `length` bits with at most `radius` bits set (the keys probed around a value). */
function masksWithin(length: number, radius: number): number[] {
  const masks = [0];
  let frontier = [0];
  for (let bits = 1; bits <= radius; bits++) {
    const next: number[] = [];
    for (const mask of frontier) {
      // Extend only above the highest set bit, so each mask is made once.
      const from = mask === 0 ? 0 : 32 - Math.clz32(mask);
      for (let b = from; b < length; b++) next.push(mask | (1 << b));
    }
    masks.push(...next);
    frontier = next;
  }
  return masks;
}

const choose = (n: number, k: number): number => (k === 0 ? 1 : (choose(n, k - 1) * (n - k + 1)) / k);

/**
 * How many segments: more segments mean shorter keys (more hashes per bucket), fewer mean a
 * larger search radius per segment (more keys to probe). Estimated work per hash is
 * segments × probes × (1 + hashes per bucket); keys stay ≤ 16 bits (a 64k-entry table).
 */
function chooseSegmentCount(n: number, threshold: number): number {
  let best = 4;
  let bestCost = Number.POSITIVE_INFINITY;
  for (let m = 4; m <= Math.max(4, threshold + 1); m++) {
    const length = Math.ceil(64 / m);
    const radius = Math.floor(threshold / m);
    let probes = 0;
    for (let k = 0; k <= radius; k++) probes += choose(length, k);
    const cost = m * probes * (1 + n / 2 ** Math.floor(64 / m));
    if (cost < bestCost) {
      best = m;
      bestCost = cost;
    }
  }
  return best;
}

function checkThreshold(threshold: number): void {
  if (!Number.isInteger(threshold) || threshold < 0 || threshold > 31) throw new RangeError(`threshold must be a whole number 0..31, got ${threshold}`);
}

/**
 * All pairs (i < j) with Hamming distance ≤ threshold, each once, sorted by (i, j).
 *
 * m = threshold + 1 segments give radius 0 (exact segment matches); for catalogue-sized
 * inputs fewer, longer segments probed at radius 1–2 do less work, so m is chosen per call.
 * threshold must be a whole number 0..31.
 */
export function pairsWithinDistance(hashes: readonly Hash64[], threshold: number): HashPair[] {
  checkThreshold(threshold);
  return pairsBySegments(hashes, threshold, chooseSegmentCount(hashes.length, threshold));
}

/**
 * The same pairs found with `segmentCount` (4..32) segments, each probed within
 * ⌊threshold / segmentCount⌋ bits (pigeonhole): the count changes only the work, never the answer.
 */
export function pairsBySegments(hashes: readonly Hash64[], threshold: number, segmentCount: number): HashPair[] {
  checkThreshold(threshold);
  if (!(Number.isInteger(segmentCount) && segmentCount >= 4 && segmentCount <= 32)) throw new RangeError(`segmentCount must be a whole number 4..32, got ${segmentCount}`);
  const n = hashes.length;
  const m = segmentCount;
  const radius = Math.floor(threshold / m);
  const layout = segmentLayout(m);
  const segments = new Uint32Array(m * n);
  const his = new Uint32Array(n);
  const los = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const h = hashes[i]!;
    his[i] = h.hi;
    los[i] = h.lo;
    for (let k = 0; k < m; k++) segments[k * n + i] = segmentValue(h.hi, h.lo, layout[k]!.start, layout[k]!.length);
  }
  const pairs: HashPair[] = [];
  const members = new Int32Array(n);
  for (let k = 0; k < m; k++) {
    const base = k * n;
    const size = 2 ** layout[k]!.length;
    // Counting sort by segment value: bucket v holds members[start[v] .. start[v + 1]), indexes ascending.
    const start = new Int32Array(size + 1);
    for (let i = 0; i < n; i++) start[segments[base + i]! + 1]!++;
    for (let v = 0; v < size; v++) start[v + 1]! += start[v]!;
    const fill = start.slice(0, size);
    for (let i = 0; i < n; i++) members[fill[segments[base + i]!]!++] = i;
    const masks = Int32Array.from(masksWithin(layout[k]!.length, radius));
    // Bucket against bucket, each unordered pair of buckets once (w ≥ v): half the probes of
    // probing around every hash, and no member compared with itself or twice.
    for (let v = 0; v < size; v++) {
      const vStart = start[v]!;
      const vEnd = start[v + 1]!;
      if (vStart === vEnd) continue;
      for (let q = 0; q < masks.length; q++) {
        const w = v ^ masks[q]!;
        if (w < v) continue;
        const wEnd = start[w + 1]!;
        for (let p = vStart; p < vEnd; p++) {
          const a = members[p]!;
          const hi = his[a]!;
          const lo = los[a]!;
          // Within one bucket, each pair once: the members after this one.
          for (let r = w === v ? p + 1 : start[w]!; r < wEnd; r++) {
            const b = members[r]!;
            const distance = popcount32((hi ^ his[b]!) >>> 0) + popcount32((lo ^ los[b]!) >>> 0);
            if (distance > threshold) continue;
            const i = a < b ? a : b;
            const j = a < b ? b : a;
            // Report a pair only from the first segment where it is within the radius: once.
            let seenEarlier = false;
            for (let s = 0; s < k && !seenEarlier; s++) seenEarlier = popcount32((segments[s * n + i]! ^ segments[s * n + j]!) >>> 0) <= radius;
            if (!seenEarlier) pairs.push({ i, j, distance });
          }
        }
      }
    }
  }
  return pairs.sort((a, b) => a.i - b.i || a.j - b.j);
}
