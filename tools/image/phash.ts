/**
 * The 64-bit DCT perceptual hash of the specification, equal to Python
 * `imagehash.phash(image)` (hash_size 8, highfreq_factor 4) for opaque images:
 * Pillow greyscale → Pillow LANCZOS 32x32 → scipy `dct` (type II, unnormalised) along
 * axis 0 then axis 1 → top-left 8x8 → bit where coefficient > median → row-major hex.
 */
import { pilResizeTo32 } from './pil-resize.js';
import { flattenToRgb, pilGreyFromRgb, type RawImage } from './pixels.js';

const N = 32;
const K = 8;

/** cos(pi*k*(2n+1)/(2N)) for k < 8, n < 32. scipy's factor 2 is kept so values match its scale. */
const COS = (() => {
  const t = new Float64Array(K * N);
  for (let k = 0; k < K; k++) for (let n = 0; n < N; n++) t[k * N + n] = 2 * Math.cos((Math.PI * k * (2 * n + 1)) / (2 * N));
  return t;
})();

/** Top-left 8x8 of scipy's `dct(dct(x, axis=0), axis=1)` for a 32x32 block, row-major. */
function dctLowFrequencies(grey32: Uint8Array): Float64Array {
  // Axis 0 (down each column), only the 8 lowest frequencies are ever read.
  const cols = new Float64Array(K * N);
  for (let k = 0; k < K; k++) {
    for (let x = 0; x < N; x++) {
      let s = 0;
      for (let y = 0; y < N; y++) s += grey32[y * N + x]! * COS[k * N + y]!;
      cols[k * N + x] = s;
    }
  }
  const out = new Float64Array(K * K);
  for (let k = 0; k < K; k++) {
    for (let j = 0; j < K; j++) {
      let s = 0;
      for (let x = 0; x < N; x++) s += cols[k * N + x]! * COS[j * N + x]!;
      out[k * K + j] = s;
    }
  }
  return out;
}

/** numpy.median of 64 values: mean of the two middle ones. */
function median(values: Float64Array): number {
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length / 2;
  return (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The hash of an already resized 32x32 Pillow-greyscale block. */
export function phashFromGrey32(grey32: Uint8Array): string {
  if (grey32.length !== N * N) throw new Error(`phashFromGrey32: expected ${N * N} bytes, got ${grey32.length}`);
  const coefs = dctLowFrequencies(grey32);
  const med = median(coefs);
  let hex = '';
  for (let nibble = 0; nibble < 16; nibble++) {
    let v = 0;
    for (let b = 0; b < 4; b++) v = (v << 1) | (coefs[nibble * 4 + b]! > med ? 1 : 0);
    hex += v.toString(16);
  }
  return hex;
}

/** Number of differing bits between two 16-hex-digit hashes. */
export function hammingDistance(a: string, b: string): number {
  let d = 0;
  for (let i = 0; i < 16; i += 8) {
    let x = (parseInt(a.slice(i, i + 8), 16) ^ parseInt(b.slice(i, i + 8), 16)) >>> 0;
    while (x) {
      x &= x - 1;
      d++;
    }
  }
  return d;
}

/**
 * The hash of a decoded frame in plain JS (flatten on white, Pillow greyscale, Pillow LANCZOS
 * to 32x32): the build's arithmetic without its WebAssembly pass, for the gallery's browser.
 */
export function phashOfFrame(image: RawImage): string {
  const grey = pilGreyFromRgb(flattenToRgb(image), image.width, image.height);
  return phashFromGrey32(pilResizeTo32(grey, image.width, image.height).grey32);
}
