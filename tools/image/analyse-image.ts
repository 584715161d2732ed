/**
 * Everything the catalogue measures from one image, from its bytes: format (magic bytes),
 * upright size, phash (api-behaviour.md), blurhash (4x3) and the 32x32 thumbnail used to
 * confirm near-duplicates. One decode per image; the rest is plain JS on the pixels.
 */
import type { ImageExt } from '../../functions/core/record.js';
import { blurhashFromThumb } from './thumb-blurhash.js';
import { decodeFirstFrame } from './decode.js';
import { ACCEPTED_FORMATS_TEXT, describeUnsupported, detectFormat, isAnimated, type ImageFormat } from './format.js';
import { headerSize } from './header-size.js';
import { boxThumbnail, flattenToRgb, pilGreyFromRgb } from './pixels.js';
import { phashFromGrey } from './phash.js';

export { detectFormat } from './format.js';
export type { ImageFormatInfo } from './format.js';

/** Bump whenever any output (phash, blurhash, thumb, sizes, failure codes) can change: the build cache keys on it. */
export const FEATURE_VERSION = 'image-1';

export const DEFAULT_MAX_PIXELS = 50_000_000;
export const DEFAULT_TIMEOUT_MS = 10_000;
export const THUMB_SIZE = 32;

export interface ImageAnalysis {
  ok: true;
  format: ImageFormat;
  ext: ImageExt;
  mime: string;
  /** Upright (after EXIF orientation). */
  width: number;
  height: number;
  /** 16 lowercase hex digits, api-behaviour.md's definition. */
  phash: string;
  /** 4x3 components. */
  blurhash: string;
  /** Upright, flattened on white, aspect ignored; packed RGB. */
  thumb: { width: 32; height: 32; rgb: Uint8Array };
  animated: boolean;
  timings: { decodeMs: number; phashMs: number; blurhashMs: number };
}

export interface ImageFailure {
  ok: false;
  code: 'unsupported-format' | 'undecodable' | 'truncated' | 'too-many-pixels' | 'timeout';
  message: string;
}

export interface AnalyseOptions {
  maxPixels?: number;
  timeoutMs?: number;
  /**
   * Always hash from the full-resolution decode (Pillow-exact for every size). Default
   * false: images with more than EXACT_MAX_PIXELS pixels (and both sides above
   * REDUCED_DECODE_SIZE) are decoded reduced to 192x192 first, which moves about one
   * such image in ten by 2 bits (README: "phash: exact and reduced paths").
   */
  exactPhash?: boolean;
  /** Tuning (benchmarks): the reduced decode's size, default REDUCED_DECODE_SIZE. */
  reducedSize?: number;
  /** Tuning (benchmarks): images with at most this many pixels always take the exact path. */
  exactMaxPixels?: number;
}

/**
 * The reduced decode's size: 6x the hash's 32, so Pillow's Lanczos still does the last 6x.
 * Chosen by measurement (README "phash: exact and reduced paths"): 256 moves 8.8% of
 * large images' hashes by 2 bits at 1.85x the naive pipeline's speed, 192 10.8% at 2.1x,
 * 128 16% at 2.6x; the issue asks for 2x.
 */
export const REDUCED_DECODE_SIZE = 192;
/** Up to this many pixels the exact path (full decode, JS greyscale + Lanczos, ~14 ns/pixel) is cheap enough. */
export const EXACT_MAX_PIXELS = 512 * 512;

/** Whether this image takes the reduced decode (both sides above the reduced size, and many pixels). */
export function usesReducedDecode(width: number, height: number, options: AnalyseOptions = {}): boolean {
  const size = options.reducedSize ?? REDUCED_DECODE_SIZE;
  return !options.exactPhash && Math.min(width, height) > size && width * height > (options.exactMaxPixels ?? EXACT_MAX_PIXELS);
}

export async function analyseImage(bytes: Buffer, options: AnalyseOptions = {}): Promise<ImageAnalysis | ImageFailure> {
  const info = detectFormat(bytes);
  if (!info) {
    return { ok: false, code: 'unsupported-format', message: `this looks like ${describeUnsupported(bytes)}; the catalogue accepts ${ACCEPTED_FORMATS_TEXT}: convert it to one of those` };
  }
  const t0 = performance.now();
  const stored = headerSize(bytes, info.format);
  const reduce = stored !== null && usesReducedDecode(stored.width, stored.height, options);
  const limits = { maxPixels: options.maxPixels ?? DEFAULT_MAX_PIXELS, timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS };
  const decoded = await decodeFirstFrame(bytes, limits, reduce ? (options.reducedSize ?? REDUCED_DECODE_SIZE) : undefined);
  if (!decoded.ok) return decoded;
  const { width, height } = decoded;
  const { width: pw, height: ph } = decoded.image;
  const rgb = flattenToRgb(decoded.image);
  const t1 = performance.now();
  const phash = phashFromGrey(pilGreyFromRgb(rgb, pw, ph), pw, ph);
  const t2 = performance.now();
  const thumb = boxThumbnail(rgb, pw, ph, THUMB_SIZE, THUMB_SIZE);
  const blurhash = blurhashFromThumb(thumb);
  const t3 = performance.now();
  return {
    ok: true,
    ...info,
    width,
    height,
    phash,
    blurhash,
    thumb: { width: THUMB_SIZE, height: THUMB_SIZE, rgb: thumb },
    animated: isAnimated(bytes, info.format),
    timings: { decodeMs: t1 - t0, phashMs: t2 - t1, blurhashMs: t3 - t2 },
  };
}
