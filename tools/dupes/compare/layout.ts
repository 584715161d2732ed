/** The cheap gates before the colour comparison: the aspect ratio and the grey layout over 2×2-pixel blocks. */
import { SIDE } from './lab.js';

/** Same shape: |ln(aspect a / aspect b)|. Resizing keeps the aspect to a pixel's rounding. */
export function aspectDifference(a: { width: number; height: number }, b: { width: number; height: number }): number {
  return Math.abs(Math.log(a.width / a.height) - Math.log(b.width / b.height));
}

/** Grey (Pillow's weights, ×1000) of a packed RGB thumbnail, summed over 2×2-pixel blocks, row by row. */
function greyBlocks(rgb: Uint8Array): Int32Array {
  const side = SIDE >> 1;
  const out = new Int32Array(side * side);
  let i = 0;
  for (let r = 0; r < SIDE; r++) {
    const row = (r >> 1) * side;
    for (let c = 0; c < SIDE; c++, i += 3) {
      const k = row + (c >> 1);
      out[k] = out[k]! + 299 * rgb[i]! + 587 * rgb[i + 1]! + 114 * rgb[i + 2]!;
    }
  }
  return out;
}

/**
 * The thumbnail's layout: grey over 2×2-pixel blocks (16×16), less its mean, over its standard
 * deviation, so that a brightness, contrast or (nearly) gamma edit leaves it as it is.
 */
export function thumbLayout(rgb: Uint8Array): Float32Array {
  const blocks = greyBlocks(rgb);
  let mean = 0;
  for (const v of blocks) mean += v;
  mean /= blocks.length;
  let variance = 0;
  for (const v of blocks) variance += (v - mean) ** 2;
  const sd = Math.sqrt(variance / blocks.length) || 1;
  const out = new Float32Array(blocks.length);
  for (let k = 0; k < blocks.length; k++) out[k] = (blocks[k]! - mean) / sd;
  return out;
}

/** Mean absolute difference of two layouts (standard deviations). */
export function layoutDifference(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let k = 0; k < a.length; k++) sum += Math.abs(a[k]! - b[k]!);
  return sum / a.length;
}
