import { greyBlocks } from './layout.js';

/**
 * The second candidate key: 64 bits, one per 4×4-pixel block of the thumbnail, set when the
 * block's mean grey is above the median block. Coarser than the phash and so steadier: the
 * phash of a flat cartoon moves up to 16–22 bits under JPEG q40, WebP, a 150% resize, +15%
 * brightness or a 3% crop (its DCT coefficients sit close to their median), while this key
 * keeps all but a few of the benchmark's planted copies within THUMB_KEY_RADIUS. It cannot
 * tell look-alike drawings apart at all: its candidates go through the layout check.
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
