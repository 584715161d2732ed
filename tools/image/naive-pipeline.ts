/**
 * The naive baseline the benchmarks compare against: what one would write first with
 * sharp and the npm blurhash package. Two full decodes per image (one per resize) plus a
 * metadata read, and the npm encoder's per-pixel `Math.cos`/`Math.pow`.
 */
import { encode } from 'blurhash';
import sharp from 'sharp';
import { phashFromGrey32 } from './phash.js';

export interface NaiveResult {
  width: number;
  height: number;
  phash: string;
  blurhash: string;
}

export async function naiveAnalyse(bytes: Buffer): Promise<NaiveResult> {
  const meta = await sharp(bytes).metadata();
  const grey = await sharp(bytes).rotate().greyscale().resize(32, 32, { fit: 'fill' }).raw().toBuffer();
  const phash = phashFromGrey32(new Uint8Array(grey.buffer, grey.byteOffset, 32 * 32));
  const rgba = await sharp(bytes).rotate().resize(32, 32, { fit: 'fill' }).ensureAlpha().raw().toBuffer();
  const blurhash = encode(new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.length), 32, 32, 4, 3);
  const swap = (meta.orientation ?? 1) >= 5;
  return { width: (swap ? meta.height : meta.width) ?? 0, height: (swap ? meta.width : meta.height) ?? 0, phash, blurhash };
}
