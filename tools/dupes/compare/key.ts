/** The second candidate key, from the thumbnail: it finds copies whose phash moved beyond the threshold. */
import { BYTES, SIDE } from './lab.js';

/** The key's 8×8 block sums and their sorted copy, reused: a full search keys every item. */
const BLOCKS = new Int32Array(64);
const SORTED = new Int32Array(64);

/**
 * The second candidate key: 64 bits, one per 4×4-pixel block of the thumbnail, set when the
 * block's mean grey is above the median block. Coarser than the phash and so steadier under
 * a copy's edits (a flat cartoon's DCT coefficients sit close to their median, so its phash
 * moves far). It cannot tell look-alike drawings apart: its candidates meet the layout check.
 */
export function thumbKey(rgb: Uint8Array): { hi: number; lo: number } {
  if (rgb.length < BYTES) throw new RangeError(`thumbnails must be 32×32 RGB (${BYTES} bytes), got ${rgb.length}`);
  // Grey (Pillow's weights, ×1000) summed per block, four pixels of a row at a time.
  BLOCKS.fill(0);
  for (let r = 0, i = 0; r < SIDE; r++) {
    const row = (r >> 2) << 3;
    for (let b = 0; b < 8; b++, i += 12) {
      BLOCKS[row + b]! += 299 * (rgb[i]! + rgb[i + 3]! + rgb[i + 6]! + rgb[i + 9]!) + 587 * (rgb[i + 1]! + rgb[i + 4]! + rgb[i + 7]! + rgb[i + 10]!) + 114 * (rgb[i + 2]! + rgb[i + 5]! + rgb[i + 8]! + rgb[i + 11]!);
    }
  }
  SORTED.set(BLOCKS);
  SORTED.sort();
  const median = (SORTED[31]! + SORTED[32]!) / 2;
  let hi = 0;
  let lo = 0;
  for (let k = 0; k < 32; k++) if (BLOCKS[k]! > median) hi |= 1 << k;
  for (let k = 0; k < 32; k++) if (BLOCKS[k + 32]! > median) lo |= 1 << k;
  return { hi: hi >>> 0, lo: lo >>> 0 };
}

/** Thumbnail key distance (bits) up to which a pair is a candidate, whatever its phash distance. */
export const THUMB_KEY_RADIUS = 2;
