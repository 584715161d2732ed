/**
 * Per-pixel work on decoded frames: flattening transparency onto white, Pillow's
 * greyscale conversion, and the 32x32 colour thumbnail. Decoded pixels arrive from sharp
 * as packed 8-bit samples with 1 (grey), 2 (grey+alpha), 3 (RGB) or 4 (RGBA) channels.
 */

export interface RawImage {
  data: Uint8Array;
  width: number;
  height: number;
  channels: number;
}

/**
 * Flattened RGB, one byte per sample: alpha composited onto white with
 * `(c*a + 255*(255-a) + 127) / 255` (integer, round half up), so invisible pixels count
 * as the white a viewer sees. Opaque RGB input is returned as is (no copy).
 */
export function flattenToRgb(img: RawImage): Uint8Array {
  const { data, width, height, channels } = img;
  const n = width * height;
  if (channels === 3) return data.subarray(0, n * 3);
  const out = new Uint8Array(n * 3);
  if (channels === 4) {
    for (let i = 0, s = 0, o = 0; i < n; i++, s += 4, o += 3) {
      const a = data[s + 3]!;
      if (a === 255) {
        out[o] = data[s]!;
        out[o + 1] = data[s + 1]!;
        out[o + 2] = data[s + 2]!;
      } else {
        const bg = 255 * (255 - a) + 127;
        out[o] = ((data[s]! * a + bg) / 255) | 0;
        out[o + 1] = ((data[s + 1]! * a + bg) / 255) | 0;
        out[o + 2] = ((data[s + 2]! * a + bg) / 255) | 0;
      }
    }
  } else if (channels === 2 || channels === 1) {
    for (let i = 0, s = 0, o = 0; i < n; i++, s += channels, o += 3) {
      const a = channels === 2 ? data[s + 1]! : 255;
      const v = a === 255 ? data[s]! : ((data[s]! * a + 255 * (255 - a) + 127) / 255) | 0;
      out[o] = v;
      out[o + 1] = v;
      out[o + 2] = v;
    }
  } else {
    throw new Error(`flattenToRgb: unexpected ${channels} channels`);
  }
  return out;
}

/** Pillow's `convert('L')`: ITU-R 601 luma in 16-bit fixed point, `(R*19595 + G*38470 + B*7471 + 0x8000) >> 16`. */
export function pilGreyFromRgb(rgb: Uint8Array, width: number, height: number): Uint8Array {
  const n = width * height;
  const out = new Uint8Array(n);
  for (let i = 0, s = 0; i < n; i++, s += 3) {
    out[i] = (rgb[s]! * 19595 + rgb[s + 1]! * 38470 + rgb[s + 2]! * 7471 + 0x8000) >>> 16;
  }
  return out;
}

/** Source index range [start, end) feeding output cell i of n, never empty (tiny images repeat pixels). */
export function cellRanges(size: number, n: number): Int32Array {
  const r = new Int32Array(n * 2);
  for (let i = 0; i < n; i++) {
    const start = Math.min(size - 1, Math.floor((i * size) / n));
    r[i * 2] = start;
    r[i * 2 + 1] = Math.max(start + 1, Math.floor(((i + 1) * size) / n));
  }
  return r;
}

/**
 * Area-average downscale of flattened RGB to `outW`x`outH`, aspect ignored. A plain box
 * average: this thumbnail feeds the blurhash and the near-duplicate confirmation, neither
 * of which is specified down to the resampler, and one pass over the pixels is the cheapest
 * downscale there is (cheaper than a second sharp resize).
 */
export function boxThumbnail(rgb: Uint8Array, width: number, height: number, outW = 32, outH = 32): Uint8Array {
  const xs = cellRanges(width, outW);
  const ys = cellRanges(height, outH);
  const sums = new Float64Array(outW * outH * 3);
  for (let oy = 0; oy < outH; oy++) {
    const y0 = ys[oy * 2]!;
    const y1 = ys[oy * 2 + 1]!;
    for (let y = y0; y < y1; y++) {
      const row = y * width * 3;
      for (let ox = 0; ox < outW; ox++) {
        let r = 0;
        let g = 0;
        let b = 0;
        const x1 = xs[ox * 2 + 1]!;
        for (let s = row + xs[ox * 2]! * 3, e = row + x1 * 3; s < e; s += 3) {
          r += rgb[s]!;
          g += rgb[s + 1]!;
          b += rgb[s + 2]!;
        }
        const o = (oy * outW + ox) * 3;
        sums[o] = sums[o]! + r;
        sums[o + 1] = sums[o + 1]! + g;
        sums[o + 2] = sums[o + 2]! + b;
      }
    }
  }
  return cellAverages(sums, xs, ys);
}

/**
 * Per-cell sums of RGB (`cellRanges` on each axis) → the thumbnail: each sum divided by its
 * cell's pixel count, rounded half up. Shared by boxThumbnail and the WebAssembly pass.
 */
export function cellAverages(sums: ArrayLike<number>, xs: Int32Array, ys: Int32Array): Uint8Array {
  const outW = xs.length / 2;
  const outH = ys.length / 2;
  const out = new Uint8Array(outW * outH * 3);
  for (let oy = 0; oy < outH; oy++) {
    const rows = ys[oy * 2 + 1]! - ys[oy * 2]!;
    for (let ox = 0; ox < outW; ox++) {
      const count = rows * (xs[ox * 2 + 1]! - xs[ox * 2]!);
      const o = (oy * outW + ox) * 3;
      out[o] = Math.round(sums[o]! / count);
      out[o + 1] = Math.round(sums[o + 1]! / count);
      out[o + 2] = Math.round(sums[o + 2]! / count);
    }
  }
  return out;
}
