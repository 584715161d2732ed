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

/**
 * How one axis of `size` source pixels is shared among `n` thumbnail cells, by area. In units
 * of 1/n pixel, source pixel x covers [x*n, x*n + n) and cell i covers [i*size, (i+1)*size),
 * so every weight is a whole number: the length of the overlap, 0..n. Each cell's weights add
 * up to `size`, and each pixel's to `n`. A pixel on a cell border is split between the two
 * cells, so a cell's colour depends on where the picture is, not on which whole pixels its
 * borders happen to round to: a copy resized to any scale gets the same cells (up to the
 * resampler's blur), where a box average over whole pixels moved each border by up to one
 * source pixel, and a cartoon outline with it.
 *
 * `first[i]`..`end[i]` is cell i's pixel range; `head[i]` the weight of its first pixel,
 * `tail[i]` that of its last (both equal to the one weight when the range is one pixel);
 * every pixel in between has weight n.
 */
export interface CellWeights {
  first: Int32Array;
  end: Int32Array;
  head: Int32Array;
  tail: Int32Array;
}

export function cellWeights(size: number, n: number): CellWeights {
  const w: CellWeights = { first: new Int32Array(n), end: new Int32Array(n), head: new Int32Array(n), tail: new Int32Array(n) };
  for (let i = 0; i < n; i++) {
    const lo = i * size;
    const hi = (i + 1) * size;
    const first = Math.floor(lo / n);
    const last = Math.ceil(hi / n) - 1;
    w.first[i] = first;
    w.end[i] = last + 1;
    w.head[i] = Math.min(hi, (first + 1) * n) - lo;
    w.tail[i] = hi - Math.max(lo, last * n);
  }
  return w;
}

/** The weight of source pixel x in cell i (x in cell i's range). */
export const weightIn = (w: CellWeights, i: number, x: number, n: number): number =>
  x === w.first[i] ? w.head[i]! : x === w.end[i]! - 1 ? w.tail[i]! : n;

/**
 * Area-average downscale of flattened RGB to `outW`x`outH`, aspect ignored: each source pixel
 * counts in a cell in proportion to the part of it the cell covers, on both axes
 * (`cellWeights`). This thumbnail feeds the blurhash and the near-duplicate confirmation,
 * neither of which is specified down to the resampler, and one pass over the pixels is
 * cheaper than a second sharp resize. Sums are whole numbers below 2^53 (255 · width ·
 * height at most), so the order of the additions cannot change them: the WebAssembly pass
 * adds in another order and gets the same bytes.
 */
export function areaThumbnail(rgb: Uint8Array, width: number, height: number, outW = 32, outH = 32): Uint8Array {
  const xs = cellWeights(width, outW);
  const ys = cellWeights(height, outH);
  const sums = new Float64Array(outW * outH * 3);
  for (let oy = 0; oy < outH; oy++) {
    for (let y = ys.first[oy]!; y < ys.end[oy]!; y++) {
      const wy = weightIn(ys, oy, y, outH);
      const row = y * width * 3;
      for (let ox = 0; ox < outW; ox++) {
        let r = 0;
        let g = 0;
        let b = 0;
        for (let x = xs.first[ox]!; x < xs.end[ox]!; x++) {
          const wx = weightIn(xs, ox, x, outW);
          const s = row + x * 3;
          r += wx * rgb[s]!;
          g += wx * rgb[s + 1]!;
          b += wx * rgb[s + 2]!;
        }
        const o = (oy * outW + ox) * 3;
        sums[o] = sums[o]! + wy * r;
        sums[o + 1] = sums[o + 1]! + wy * g;
        sums[o + 2] = sums[o + 2]! + wy * b;
      }
    }
  }
  return cellAverages(sums, width, height);
}

/**
 * Per-cell weighted sums of RGB (`cellWeights` on each axis) → the thumbnail: each sum
 * divided by its cell's total weight (width · height in those units, the same for every
 * cell), rounded half up. Shared by areaThumbnail and the WebAssembly pass.
 */
export function cellAverages(sums: ArrayLike<number>, width: number, height: number): Uint8Array {
  const out = new Uint8Array(sums.length);
  const total = width * height;
  for (let i = 0; i < sums.length; i++) out[i] = Math.round(sums[i]! / total);
  return out;
}

/**
 * The texture map near-duplicate confirmation compares (tools/dupes): for each of 32 bands of
 * rows and each of the 32 columns of Pillow's horizontal Lanczos pass (`mid`, `rows` rows of
 * 32 bytes: the pass the phash already makes), the standard deviation of the column over the
 * band's rows, times 2, rounded, at most 255. The horizontal pass averages each row over a
 * cell's width, so pixel noise (JPEG, dithering) mostly cancels while a pattern the size of a
 * few pixels (dots, snow, stripes) stays: what a 32×32 thumbnail, an average, cannot show.
 */
export function bandDeviations(mid: Uint8Array, rows: number): Uint8Array {
  const out = new Uint8Array(32 * 32);
  for (let band = 0; band < 32; band++) {
    const y0 = Math.min(rows - 1, Math.floor((band * rows) / 32));
    const y1 = Math.max(y0 + 1, Math.floor(((band + 1) * rows) / 32));
    const n = y1 - y0;
    for (let x = 0; x < 32; x++) {
      let sum = 0;
      let squares = 0;
      for (let at = y0 * 32 + x, end = y1 * 32; at < end; at += 32) {
        const v = mid[at]!;
        sum += v;
        squares += v * v;
      }
      const mean = sum / n;
      out[band * 32 + x] = Math.min(255, Math.round(2 * Math.sqrt(Math.max(0, squares / n - mean * mean))));
    }
  }
  return out;
}
