/**
 * One content image → its sha256 and measured features, doing as little as possible: an
 * unchanged file (stat cache) with known features is not read at all, a file whose bytes are
 * already known is read and hashed but not decoded, and only new bytes are decoded (their pixels
 * then go to `onDecoded`, the build's renditions, before they are dropped). Every
 * failure becomes a problem naming the image; analyse-content.ts runs this for each pair.
 */
import type { analyseImage } from '../image/analyse-image.js';
import { releaseFrame } from '../image/decode.js';
import { describeUnsupported, detectFormat } from '../image/format.js';
import { type CachedFeatures, type FeatureSource, THUMB_BYTES } from './cache/feature-cache.js';
import { sha256Of } from '../shared/manifest.js';
import { error, type Problem } from '../shared/problems.js';
import { readContentFileSync, type ContentPair, unreadableProblem } from './scan-content.js';
import type { DecodedSource } from './renditions.js';

export type ImageOutcome = { ok: true; sha256: string; features: CachedFeatures; decoded: boolean } | { ok: false; problem: Problem; retryAlone?: boolean };

/** What one image analysis needs from the run that calls it; `counters` is added to. */
export interface ImageFileContext {
  cache: FeatureSource;
  analyse: typeof analyseImage;
  limits: { maxFileBytes: number; maxPixels: number; maxFrames: number; maxTotalPixels: number; timeoutMs: number };
  counters: { hashed: number; timings: { readHashMs: number; decodeMs: number; pixelsMs: number; blurhashMs: number } };
  /** Given each image decoded, with its pixels, before they are dropped (the build's renditions: renditions.ts). */
  onDecoded?: (source: DecodedSource) => Promise<void>;
}

/** A content image's bytes and their sha256, as readImageBytes read them. */
export type ImageBytes = { ok: true; bytes: Buffer; hash: string };

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

/**
 * Reads a content image and records its sha256 in the stat cache (counted in `counters`): its
 * bytes and hash, or the problem that kept them out of reach. analyseImageFile uses it, and
 * analyse-content.ts to learn, before any decode, which new-stat images hold known bytes.
 */
export function readImageBytes(image: ContentPair['image'], ctx: ImageFileContext): ImageBytes | { ok: false; problem: Problem } {
  const { cache, limits, counters } = ctx;
  const readStart = performance.now();
  let read: ReturnType<typeof readContentFileSync>;
  try {
    read = readContentFileSync(image.abs, limits.maxFileBytes);
  } catch (cause) {
    return { ok: false, problem: unreadableProblem(cause, image.rel) };
  }
  if (!read.ok) {
    return { ok: false, problem: read.reason === 'too-large' ? tooLargeProblem(read.size, limits.maxFileBytes, image.rel) : error('not-a-file', 'is not a regular file: replace it with the image itself', image.rel) };
  }
  const hash = sha256Of(read.bytes);
  counters.hashed++;
  counters.timings.readHashMs += performance.now() - readStart;
  cache.setImageHash(image.rel, image, hash);
  return { ok: true, bytes: read.bytes, hash };
}

const tooLargeProblem = (size: number, maxFileBytes: number, file: string): Problem => error('file-too-large', `is ${mb(size)}, over the ${mb(maxFileBytes)} limit: export it smaller`, file);

/**
 * `alone`: no other decode runs at the same time (a retry), so a libvips failure is final.
 * `read`: the image's bytes as readImageBytes already read them in this run, so that they are
 * not read and hashed again.
 */
export async function analyseImageFile(pair: ContentPair, alone: boolean, ctx: ImageFileContext, read?: ImageBytes): Promise<ImageOutcome> {
  const { image } = pair;
  const { cache, limits, counters } = ctx;
  // Checked before the cache too: a lowered limit applies to images measured under the old one.
  if (image.size > limits.maxFileBytes) return { ok: false, problem: tooLargeProblem(image.size, limits.maxFileBytes, image.rel) };
  const knownHash = cache.imageHash(image.rel, image);
  const knownFeatures = knownHash ? cache.featuresOf(knownHash) : undefined;
  if (knownHash && knownFeatures) return { ok: true, sha256: knownHash, features: knownFeatures, decoded: false };
  const got = read ?? readImageBytes(image, ctx);
  if (!got.ok) return got;
  const { bytes, hash } = got;
  const hit = cache.featuresOf(hash);
  if (hit) return { ok: true, sha256: hash, features: hit, decoded: false };
  const format = detectFormat(bytes);
  if (!format) {
    return { ok: false, problem: error('unsupported-format', `is ${describeUnsupported(bytes)}, not a supported image: convert it to PNG, JPEG, GIF, WebP or AVIF`, image.rel) };
  }
  const result = await ctx.analyse(bytes, { maxPixels: limits.maxPixels, maxFrames: limits.maxFrames, maxTotalPixels: limits.maxTotalPixels, timeoutMs: limits.timeoutMs });
  // libvips keeps one error buffer for all threads: under concurrent decodes a failure can
  // lose its message ("Unknown error") and so its classification (truncated vs undecodable).
  // Such failures are analysed once more, alone, after the others.
  if (!result.ok) return { ok: false, problem: error(result.code, result.message, image.rel), retryAlone: !alone && result.code === 'undecodable' };
  if (result.thumb.rgb.length !== THUMB_BYTES) throw new Error(`analyseImage returned a ${result.thumb.rgb.length}-byte thumbnail for ${image.rel}`);
  counters.timings.decodeMs += result.timings.decodeMs;
  counters.timings.pixelsMs += result.timings.pixelsMs;
  counters.timings.blurhashMs += result.timings.blurhashMs;
  const features: CachedFeatures = {
    format: result.format,
    ext: result.ext,
    mime: result.mime,
    width: result.width,
    height: result.height,
    phash: result.phash,
    blurhash: result.blurhash,
    animated: result.animated,
    thumb: result.thumb.rgb,
    texture: result.texture,
  };
  cache.setFeatures(hash, features);
  await ctx.onDecoded?.({ sha256: hash, bytes, width: result.width, animated: result.animated, pixels: result.pixels });
  // Nothing reads the frame any more (the renditions have been reduced from it): freed now.
  releaseFrame(result.pixels);
  return { ok: true, sha256: hash, features, decoded: true };
}
