/**
 * The naive baselines the benchmarks compare against: what one would write first with
 * sharp and the npm blurhash package.
 * - `naiveAnalyse` (the images bench's baseline): a metadata read and one sharp resize per hash
 *   (libvips shrinks on load), and the npm encoder's per-pixel `Math.cos`/`Math.pow`. Its
 *   phash is not the specification's: libvips' greyscale and resampler are not Pillow's.
 * - `naiveExactAnalyse`: the same hashes as the build, written plainly: one full decode,
 *   then the reference JS of pixels.ts and pil-resize.ts, and npm `blurhash`.
 * - `fullDecodeOnly` and `streamedDecodeOnly`: not pipelines but floors. Any pipeline that
 *   computes the specification's phash decodes every pixel of the first frame (Pillow resizes
 *   the full-resolution image; a decoder that shrinks on load gives other pixels, hence other
 *   hashes). `fullDecodeOnly` decodes them into one buffer, as sharp hands pixels to
 *   JavaScript, and does nothing else. `streamedDecodeOnly` has libvips decode them all but
 *   keep only the last row, so no frame-sized buffer is ever filled: the decoder's own work.
 *   When the naive pipeline takes less than twice a floor's time, a pipeline bound by that
 *   floor cannot be 2× as fast as the naive one.
 * - `reducedCopies` + `encodeOnly`: the renditions' floor. Each image's copies are reduced
 *   beforehand, untimed; then only the WebP encodes are timed, with the build's settings. No
 *   way of making the copies costs less than encoding them, so encodes ÷ (a build without
 *   renditions + encodes) is the least share of a cold build renditions can have.
 */
import { encode } from 'blurhash';
import sharp from 'sharp';
import { releaseFrame } from '../image/decode.js';
import { RENDITION_SETTINGS, renditionWidths } from '../image/renditions.js';
import { phashFromGrey32 } from '../image/phash.js';
import { referenceGridFeatures } from '../image/pixel-pass.js';

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

/** Every pixel of the first frame decoded to memory, and nothing else (see the module comment). */
export async function fullDecodeOnly(bytes: Buffer): Promise<number> {
  const pixels = await sharp(bytes, { pages: 1 }).raw().toBuffer();
  return pixels.length;
}

/**
 * `fullDecodeOnly` with each frame freed as soon as it is decoded (decode.ts `releaseFrame`, as
 * the build does), not when V8 next collects: the same decoder work without the collections
 * that sharp's frames, counted as memory outside V8's heap, otherwise force. On Node 20, which
 * cannot free a frame early, the same as `fullDecodeOnly`.
 */
export async function fullDecodeFreed(bytes: Buffer): Promise<number> {
  const pixels = await sharp(bytes, { pages: 1 }).raw().toBuffer();
  const length = pixels.length;
  releaseFrame({ data: pixels, width: 0, height: 0, channels: 0 });
  return length;
}

/**
 * Every pixel of the first frame decoded, only the last row kept (see the module comment).
 * libvips reads sequentially, so reaching the last row reads every row before it (a cut JPEG
 * fails here, although its first row alone decodes: tested); the first row alone costs a
 * fraction of the last, the whole frame into memory more. Should a decoder skip work for rows it is
 * not asked for, this floor is only lower, which keeps "floor ÷ naive < 2" a valid bound.
 */
export async function streamedDecodeOnly(bytes: Buffer): Promise<number> {
  const { width, height, pageHeight } = await sharp(bytes).metadata();
  const lastRow = (pageHeight ?? height!) - 1;
  const row = await sharp(bytes, { pages: 1 }).extract({ left: 0, top: lastRow, width: width!, height: 1 }).raw().toBuffer();
  return row.length;
}

/** An image's renditions as raw pixels, before encoding. */
export type ReducedCopies = { data: Buffer; width: number; height: number; channels: 3 | 4 }[];

/** The raw copies the build would encode for an image (renditionWidths, the build's kernel), made without timing. */
export async function reducedCopies(bytes: Buffer): Promise<ReducedCopies> {
  const { data, info } = await sharp(bytes, { pages: 1 }).rotate().raw().toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } };
  const copies: ReducedCopies = [];
  for (const width of renditionWidths(info.width)) {
    const copy = await sharp(data, raw).resize({ width, kernel: RENDITION_SETTINGS.kernel }).raw().toBuffer({ resolveWithObject: true });
    copies.push({ data: copy.data, width: copy.info.width, height: copy.info.height, channels: copy.info.channels as 3 | 4 });
  }
  return copies;
}

/** Only the WebP encodes of an image's copies, one after another, with the build's settings. */
export async function encodeOnly(copies: ReducedCopies): Promise<number> {
  const { quality, alphaQuality, effort, smartSubsample } = RENDITION_SETTINGS;
  let bytes = 0;
  for (const copy of copies) {
    bytes += (await sharp(copy.data, { raw: copy }).webp({ quality, alphaQuality, effort, smartSubsample }).toBuffer()).length;
  }
  return bytes;
}
