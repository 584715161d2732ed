/**
 * The naive baselines the benchmarks compare against: what one would write first with
 * sharp and the npm blurhash package.
 * - `naiveAnalyse` (the issue's baseline): a metadata read and one sharp resize per hash
 *   (libvips shrinks on load), and the npm encoder's per-pixel `Math.cos`/`Math.pow`. Its
 *   phash is not api-behaviour.md's: libvips' greyscale and resampler are not Pillow's.
 * - `naiveExactAnalyse`: the same hashes as the build, written plainly: one full decode,
 *   then the reference JS of pixels.ts and pil-resize.ts, and npm `blurhash`.
 */
import { encode } from 'blurhash';
import sharp from 'sharp';
import { phashFromGrey32 } from './phash.js';
import { referenceGridFeatures } from './pixel-pass.js';

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

export async function naiveExactAnalyse(bytes: Buffer): Promise<NaiveResult> {
  const { data, info } = await sharp(bytes, { pages: 1 }).rotate().raw().toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  const { grey32, thumb } = referenceGridFeatures({ data: new Uint8Array(data.buffer, data.byteOffset, data.length), width, height, channels });
  const phash = phashFromGrey32(grey32);
  const rgba = new Uint8ClampedArray(32 * 32 * 4).fill(255);
  for (let i = 0; i < 32 * 32; i++) rgba.set(thumb.subarray(i * 3, i * 3 + 3), i * 4);
  return { width, height, phash, blurhash: encode(rgba, 32, 32, 4, 3) };
}
