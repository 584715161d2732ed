/** The second candidate key, from the thumbnail: it finds copies whose phash moved beyond the threshold. */
import { greyBlocks } from './layout.js';

/**
 * The second candidate key: 64 bits, one per 4×4-pixel block of the thumbnail, set when the
 * block's mean grey is above the median block. Coarser than the phash and so steadier under
 * a copy's edits (a flat cartoon's DCT coefficients sit close to their median, so its phash
 * moves far). It cannot tell look-alike drawings apart: its candidates meet the layout check.
 */
export function thumbKey(rgb: Uint8Array): { hi: number; lo: number } {
  const blocks = greyBlocks(rgb, 2);
  const sorted = blocks.slice().sort();
  const median = (sorted[31]! + sorted[32]!) / 2;
  let hi = 0;
  let lo = 0;
  for (let k = 0; k < 32; k++) if (blocks[k]! > median) hi |= 1 << k;
  for (let k = 0; k < 32; k++) if (blocks[k + 32]! > median) lo |= 1 << k;
  return { hi: hi >>> 0, lo: lo >>> 0 };
}

/** Thumbnail key distance (bits) up to which a pair is a candidate, whatever its phash distance. */
export const THUMB_KEY_RADIUS = 2;
