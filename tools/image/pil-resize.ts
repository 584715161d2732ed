/**
 * Pillow's LANCZOS resize of an 8-bit single-channel ("L") image, reproduced bit for bit
 * (Pillow 9+ `libImaging/Resample.c`): the phash definition is "what imagehash.phash
 * computes", and imagehash resizes with Pillow. Any other resampler (libvips' lanczos3,
 * a box filter) moves 32x32 grey levels by one or two steps, which flips hash bits whose
 * DCT coefficient sits near the median.
 *
 * What has to match Pillow exactly:
 * - support scaled by the downscale factor, window bounds rounded with `(int)(x + 0.5)`;
 * - weights normalised in double, then converted to 22-bit fixed point with round-half-away;
 * - horizontal pass first, its result clipped to 8 bits, then the vertical pass.
 */

const PRECISION_BITS = 32 - 8 - 2;
const ONE = 1 << PRECISION_BITS;
const HALF = 1 << (PRECISION_BITS - 1);
const CLIP_LIMIT = ONE * 256;
const LANCZOS_SUPPORT = 3;

function sinc(x: number): number {
  if (x === 0) return 1;
  const px = x * Math.PI;
  return Math.sin(px) / px;
}

function lanczos(x: number): number {
  return x >= -3 && x < 3 ? sinc(x) * sinc(x / 3) : 0;
}

/** Fixed-point weights for one axis: output i reads `taps[i*ksize .. +count[i]]` from `start[i]`. */
export interface AxisCoefficients {
  ksize: number;
  start: Int32Array;
  count: Int32Array;
  taps: Int32Array;
}

/** Pillow's `precompute_coeffs` + `normalize_coeffs_8bpc` for the full box (0..inSize). */
function axisCoefficients(inSize: number, outSize: number): AxisCoefficients {
  const scale = inSize / outSize;
  const filterScale = Math.max(scale, 1);
  const support = LANCZOS_SUPPORT * filterScale;
  const ksize = Math.ceil(support) * 2 + 1;
  const start = new Int32Array(outSize);
  const count = new Int32Array(outSize);
  const taps = new Int32Array(outSize * ksize);
  const weights = new Float64Array(ksize);
  const ss = 1 / filterScale;
  for (let xx = 0; xx < outSize; xx++) {
    const center = (xx + 0.5) * scale;
    const xmin = Math.max(0, Math.trunc(center - support + 0.5));
    const xmax = Math.min(inSize, Math.trunc(center + support + 0.5)) - xmin;
    let ww = 0;
    for (let x = 0; x < xmax; x++) {
      const w = lanczos((x + xmin - center + 0.5) * ss);
      weights[x] = w;
      ww += w;
    }
    for (let x = 0; x < xmax; x++) {
      const k = ww !== 0 ? weights[x]! / ww : weights[x]!;
      taps[xx * ksize + x] = k < 0 ? Math.trunc(-0.5 + k * ONE) : Math.trunc(0.5 + k * ONE);
    }
    start[xx] = xmin;
    count[xx] = xmax;
  }
  return { ksize, start, count, taps };
}

// The corpus repeats sizes (and the output is always 32), so weights are worth keeping.
const cache = new Map<string, AxisCoefficients>();
export function lanczosCoefficients(inSize: number, outSize: number): AxisCoefficients {
  const key = `${inSize}>${outSize}`;
  let c = cache.get(key);
  if (!c) {
    if (cache.size > 512) cache.clear();
    c = axisCoefficients(inSize, outSize);
    cache.set(key, c);
  }
  return c;
}

const clip8 = (v: number): number => (v >= CLIP_LIMIT ? 255 : v <= 0 ? 0 : v >> PRECISION_BITS);

/**
 * Pillow's horizontal pass (to `outW` columns, clipped to 8 bits) of every row of an "L" image
 * stored row-major in `src`. Pillow resamples only the rows its vertical pass reads; the
 * others do not change its result, and the texture map (pixels.ts) reads them all.
 */
export function pilHorizontalPass(src: Uint8Array, width: number, rows: number, outW: number): Uint8Array {
  if (src.length < width * rows) throw new Error(`pilHorizontalPass: ${src.length} bytes for ${width}x${rows}`);
  const mid = new Uint8Array(outW * rows);
  const { ksize, start, count, taps } = lanczosCoefficients(width, outW);
  for (let y = 0; y < rows; y++) {
    const rowBase = y * width;
    for (let xx = 0; xx < outW; xx++) {
      const base = rowBase + start[xx]!;
      const n = count[xx]!;
      const k0 = xx * ksize;
      let ss = HALF;
      for (let x = 0; x < n; x++) ss += src[base + x]! * taps[k0 + x]!;
      mid[y * outW + xx] = clip8(ss);
    }
  }
  return mid;
}

/**
 * Pillow's vertical pass: `mid` holds rows `rowOffset..` of the horizontally resampled
 * image, `midW` bytes each; returns `vert.start.length` rows.
 */
export function pilVerticalPass(mid: Uint8Array, midW: number, rowOffset: number, vert: AxisCoefficients): Uint8Array {
  const outH = vert.start.length;
  const out = new Uint8Array(midW * outH);
  const { ksize, start, count, taps } = vert;
  for (let yy = 0; yy < outH; yy++) {
    const y0 = start[yy]! - rowOffset;
    const n = count[yy]!;
    const k0 = yy * ksize;
    for (let xx = 0; xx < midW; xx++) {
      let ss = HALF;
      for (let y = 0; y < n; y++) ss += mid[(y0 + y) * midW + xx]! * taps[k0 + y]!;
      out[yy * midW + xx] = clip8(ss);
    }
  }
  return out;
}

/**
 * Pillow's LANCZOS resize of an "L" image to 32x32, one pass per axis that changes size (as
 * Pillow skips the other): `mid` is the horizontal pass (read again for the texture map).
 * Pure arithmetic, so the gallery runs it in the browser on a picture it never uploads.
 */
export function pilResizeTo32(grey: Uint8Array, width: number, height: number): { mid: Uint8Array; grey32: Uint8Array } {
  const mid = width === 32 ? grey : pilHorizontalPass(grey, width, height, 32);
  const grey32 = height === 32 ? mid.slice(0, 32 * 32) : pilVerticalPass(mid, 32, 0, lanczosCoefficients(height, 32));
  return { mid, grey32 };
}
