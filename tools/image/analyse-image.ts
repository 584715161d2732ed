/**
 * Everything the catalogue measures from one image, from its bytes: format (magic bytes),
 * upright size, phash (the specification), blurhash (4x3), and the 32x32 thumbnail and texture
 * map used to confirm near-duplicates. One decode per image; the rest is plain JS on the pixels, which the
 * result hands on (the build reduces its renditions from them: renditions.ts).
 */
import type { ImageExt } from '../../functions/core/record.js';
import { blurhashFromThumb } from './thumb-blurhash.js';
import { decodeFirstFrame } from './decode.js';
import { ACCEPTED_FORMATS_TEXT, describeUnsupported, detectFormat, frameLayout, type ImageFormat } from './format.js';
import { isTruncated } from './truncation.js';
import { phashFromGrey32 } from './phash.js';
import { gridFeatures } from './pixel-pass.js';
import type { RawImage } from './pixels.js';

export { detectFormat } from './format.js';

/** Bump whenever any output (phash, blurhash, thumb, sizes, failure codes) can change: the build cache keys on it. */
export const FEATURE_VERSION = 'image-6';

/** Limits when the caller sets none; the build sets its own (`LIMITS` in tools/catalogue/analyse-content.ts: 30 s per decode). */
const DEFAULT_MAX_PIXELS = 50_000_000;
const DEFAULT_MAX_FRAMES = 1_000;
const DEFAULT_MAX_TOTAL_PIXELS = 200_000_000;
const DEFAULT_TIMEOUT_MS = 10_000;
/** Side of the thumbnail near-duplicate confirmation compares (tools/dupes/compare/). */
const THUMB_SIZE = 32;

export interface ImageAnalysis {
  ok: true;
  format: ImageFormat;
  ext: ImageExt;
  mime: string;
  /** Upright (after EXIF orientation); the canvas a viewer draws every frame on (format.ts `frameLayout`). */
  width: number;
  height: number;
  /** 16 lowercase hex digits, the specification's definition. */
  phash: string;
  /** 4x3 components. */
  blurhash: string;
  /** Upright, flattened on white, aspect ignored; packed RGB. */
  thumb: { width: 32; height: 32; rgb: Uint8Array };
  /** 32x32 texture map (pixels.ts `bandDeviations`): what near-duplicate confirmation compares beside the thumbnail. */
  texture: Uint8Array;
  animated: boolean;
  /** The decoded first frame, upright (decode.ts): what a still image's renditions are reduced from. */
  pixels: RawImage;
  /** Decode; the pixel pass (greyscale, Lanczos, thumbnail sums) + DCT; the blurhash. */
  timings: { decodeMs: number; pixelsMs: number; blurhashMs: number };
}

export interface ImageFailure {
  ok: false;
  code: 'unsupported-format' | 'undecodable' | 'truncated' | 'too-many-pixels' | 'too-many-frames' | 'timeout';
  message: string;
}

export interface AnalyseOptions {
  /** Pixels of the canvas (width × height), what a viewer allocates for one frame. */
  maxPixels?: number;
  /** Frames of an animation. */
  maxFrames?: number;
  /** Pixels decoded to show every frame: canvas pixels × frames. */
  maxTotalPixels?: number;
  timeoutMs?: number;
}

/**
 * The limits a viewer's decode must stay within, checked from the container before any
 * decode: frame count, canvas pixels, canvas pixels × frames. Null when within them.
 */
function layoutFailure(bytes: Buffer, format: ImageFormat, options: AnalyseOptions): { failure: ImageFailure | null; frames: number; canvas: { width: number; height: number } | null } {
  const { frames, canvas } = frameLayout(bytes, format);
  const maxFrames = options.maxFrames ?? DEFAULT_MAX_FRAMES;
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  const maxTotal = options.maxTotalPixels ?? DEFAULT_MAX_TOTAL_PIXELS;
  const fail = (code: ImageFailure['code'], message: string) => ({ failure: { ok: false as const, code, message }, frames, canvas });
  if (frames > maxFrames) return fail('too-many-frames', `the animation has ${frames.toLocaleString('en')} frames, more than the ${maxFrames.toLocaleString('en')} limit; cut frames or convert it to a video`);
  if (canvas !== null) {
    const pixels = canvas.width * canvas.height;
    const size = `${canvas.width}×${canvas.height}`;
    if (pixels > maxPixels) return fail('too-many-pixels', `its canvas is ${size} (${pixels.toLocaleString('en')} pixels, what a viewer allocates whatever the frames' size), more than the ${maxPixels.toLocaleString('en')} limit; crop the canvas to the picture or scale it down`);
    if (pixels * frames > maxTotal) {
      return fail('too-many-pixels', `showing its ${frames.toLocaleString('en')} frames on a ${size} canvas decodes ${(pixels * frames).toLocaleString('en')} pixels, more than the ${maxTotal.toLocaleString('en')} limit; use fewer frames or a smaller canvas`);
    }
  }
  return { failure: null, frames, canvas };
}

export async function analyseImage(bytes: Buffer, options: AnalyseOptions = {}): Promise<ImageAnalysis | ImageFailure> {
  if (bytes.length === 0) return { ok: false, code: 'truncated', message: 'the file is empty (0 bytes); re-export or re-download the image' };
  const info = detectFormat(bytes);
  if (!info) {
    return { ok: false, code: 'unsupported-format', message: `this looks like ${describeUnsupported(bytes)}; the catalogue accepts ${ACCEPTED_FORMATS_TEXT}: convert it to one of those` };
  }
  const layout = layoutFailure(bytes, info.format, options);
  if (layout.failure) return layout.failure;
  const t0 = performance.now();
  const limits = { maxPixels: options.maxPixels ?? DEFAULT_MAX_PIXELS, timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS };
  const decoded = await decodeFirstFrame(bytes, limits);
  if (!decoded.ok) return decoded;
  // Only the first frame is decoded, and a PNG, GIF, WebP or AVIF whose first frame is whole
  // decodes although the file is cut after it (a lost IEND or trailer, later frames of an
  // animation): the file's own structure tells (truncation.ts). A cut JPEG fails its decode.
  if (info.format !== 'jpeg' && isTruncated(bytes, info.format)) {
    return { ok: false, code: 'truncated', message: `the file is truncated (its ${info.format.toUpperCase()} structure goes on past the end of the file); re-export or re-download the image` };
  }
  // The decoded frame, upright; the canvas when the decoder reported something else (a frame).
  const { canvas } = layout;
  const fitsCanvas = canvas === null || (decoded.image.width === canvas.width && decoded.image.height === canvas.height) || (decoded.image.width === canvas.height && decoded.image.height === canvas.width);
  const { width, height } = fitsCanvas ? decoded.image : canvas;
  const t1 = performance.now();
  // The hash is defined on the full-resolution frame: every pixel goes through Pillow's
  // greyscale and Lanczos (pixel-pass.ts), never a reduced decode.
  const { grey32, thumb, texture } = gridFeatures(decoded.image);
  const phash = phashFromGrey32(grey32);
  const t2 = performance.now();
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
    texture,
    animated: layout.frames > 1,
    pixels: decoded.image,
    timings: { decodeMs: t1 - t0, pixelsMs: t2 - t1, blurhashMs: t3 - t2 },
  };
}
