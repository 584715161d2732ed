/**
 * Renditions: small WebP copies of an image for grids, previews and detail views. One copy per
 * width of RENDITION_SETTINGS.widths that the image reaches, and one at its own width when it
 * falls between them (renditionWidths; never upscaled); upright, sRGB, metadata stripped; an
 * animated source gives an animated WebP with every frame.
 *
 * The settings were chosen by measurement (`npm run bench -- --only renditions`, figures in
 * tools/bench/README.md): size against SSIM to the same-size Lanczos reduction of the source.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type Sharp from 'sharp';
import { decodeFirstFrame, releaseFrame } from './decode.js';
import type { RawImage } from './pixels.js';

export interface RenditionSettings {
  widths: readonly number[];
  quality: number;
  alphaQuality: number;
  effort: number;
  smartSubsample: boolean;
  /** libvips' reduction kernel (sharp's `resize({ kernel })`). */
  kernel: 'nearest' | 'linear' | 'cubic' | 'mitchell' | 'lanczos2' | 'lanczos3';
}

/** Each setting was chosen by measurement: tools/image/README.md, "Renditions", and `npm run bench -- --only renditions`. */
export const RENDITION_SETTINGS: RenditionSettings = {
  /** Cards are shown about 200 CSS px wide: 256 for 1× screens, 512 for denser ones; no larger copy pays for its CPU. */
  widths: [256, 512],
  /** WebP quality: where each step up starts costing a third more bytes for little SSIM. */
  quality: 75,
  /** Alpha plane quality: stickers' edges stay clean well below 100. */
  alphaQuality: 80,
  /** libwebp effort 0–6: encoding is most of a rendition's cost, and higher efforts save few bytes for it. */
  effort: 0,
  /** libwebp's sharp-YUV conversion (better chroma at colour edges): slower and larger for no visible gain. */
  smartSubsample: false,
  /** Reduction kernel: linear (a triangle filter spanning the reduction factor: averages, no ringing), cheaper than lanczos3 and barely softer. */
  kernel: 'linear',
};

/**
 * Identifies the bytes the encoder makes: how copies are made ('webp-2': still images reduced
 * from the decoded frame), the settings and the encoder (sharp bundles its libvips/libwebp, so
 * its version names them). Read from sharp's package.json beside its entry
 * point (sharp 0.35 no longer exports `sharp/package.json`), so that a build that encodes
 * nothing does not import sharp.
 */
export function renditionEncoderKey(settings: RenditionSettings = RENDITION_SETTINGS): string {
  const entry = createRequire(import.meta.url).resolve('sharp'); // <package>/lib/index.js
  const { version } = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string };
  return `webp-2 sharp-${version} ${JSON.stringify(settings)}`;
}

export interface EncodedRendition {
  width: number;
  /** Of one frame, for an animated image. */
  height: number;
  bytes: Buffer;
}

/**
 * The widths an image of `width` upright pixels gets copies at: each width it reaches, and, when
 * it is narrower than the largest but wider than the copies it has, one at its own width (never
 * upscaled): otherwise a dense phone showing an image between two widths takes the original
 * (PNG, GIF), which Lighthouse's uses-responsive-images and modern-image-formats fail.
 */
export function renditionWidths(width: number, settings: RenditionSettings = RENDITION_SETTINGS): number[] {
  const widths = settings.widths.filter((w) => w <= width);
  const smaller = widths.at(-1);
  if (smaller !== undefined && smaller < width && width < settings.widths.at(-1)!) widths.push(width);
  return widths;
}

let sharpLoaded: Promise<typeof Sharp> | undefined;
const loadSharp = (): Promise<typeof Sharp> => (sharpLoaded ??= import('sharp').then((module) => module.default));

/**
 * What renditions are made from: a still image's upright first frame as the analysis decodes it
 * (`pixels`, analyse-image.ts: one decode per image), or the source bytes (an animated image's
 * frames, or a still image the analysis did not decode in this build).
 */
export interface RenditionInput {
  bytes: Buffer;
  /** Upright. */
  width: number;
  animated: boolean;
  /** decodeFirstFrame's pixels of `bytes`, when the caller has them. */
  pixels?: RawImage;
}

/**
 * Encodes the renditions of an image, smallest first. A still image's copies are reduced from
 * its decoded first frame, decoded here only when the caller does not hand it over, by the same
 * decodeFirstFrame: the bytes are the same either way, so a rendition's URL does not depend on
 * what the cache held. The image was analysed already, so a failure is an error of the
 * decoder or encoder, and is thrown.
 */
export async function encodeRenditions(input: RenditionInput, limits: { maxPixels: number; timeoutMs: number }, settings: RenditionSettings = RENDITION_SETTINGS): Promise<EncodedRendition[]> {
  const widths = renditionWidths(input.width, settings);
  if (widths.length === 0) return [];
  const sharp = await loadSharp();
  const webp = { quality: settings.quality, alphaQuality: settings.alphaQuality, effort: settings.effort, smartSubsample: settings.smartSubsample };
  let still = input.animated ? undefined : input.pixels;
  if (!input.animated && still === undefined) {
    const decoded = await decodeFirstFrame(input.bytes, limits);
    if (!decoded.ok) throw new Error(`an analysed image no longer decodes: ${decoded.message}`);
    still = decoded.image;
  }
  const out: EncodedRendition[] = [];
  try {
    for (const width of widths) {
      // An animated source keeps every frame (one decode per width: shrink-on-load keeps it cheap).
      const pipeline = still
        ? sharp(still.data, { raw: { width: still.width, height: still.height, channels: still.channels as 1 | 2 | 3 | 4 } })
        : sharp(input.bytes, { limitInputPixels: limits.maxPixels, animated: true, pages: -1 });
      const { data, info } = await pipeline.resize({ width, withoutEnlargement: true, kernel: settings.kernel }).webp(webp).toBuffer({ resolveWithObject: true });
      out.push({ width: info.width, height: info.pageHeight ?? info.height, bytes: data });
    }
  } finally {
    // A frame decoded here is freed here, as the analysis frees its own (analyse-image-file.ts):
    // a rebuild after a settings change decodes every image again on this path.
    if (still !== undefined && still !== input.pixels) releaseFrame(still);
  }
  return out;
}
