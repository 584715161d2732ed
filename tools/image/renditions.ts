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

export const RENDITION_SETTINGS: RenditionSettings = {
  /**
   * Grid cards and previews are shown ~180–230 CSS px wide: 256 covers 1× screens, 512 the
   * 1.75–3× ones (Chromium takes it up to ~4 device px per CSS px before the original). 512 is
   * there by measurement: with 256 and 768 alone, Lighthouse mobile (412 px at 1.75×, cards ~330
   * device px) took the 768 px copies and failed uses-responsive-images (4 images, 107 KiB over
   * its 12 KiB allowance). A 768 px copy for the detail view was dropped by measurement: it was
   * 40 % of the renditions' CPU (the detail view shows the 512 px copy, then the original).
   */
  widths: [256, 512],
  /**
   * WebP quality. Measured on the bench corpus (256 / 768 px): 70 → 75 → 80 → 90 cost 0.92 → 1 →
   * 1.31 → 2.5× the bytes for mean SSIM 0.953 → 0.955 → 0.963 → 0.980 (drawings: 0.9885 →
   * 0.9894 → 0.9915 → 0.9953); 75 is where each step up starts costing a third more bytes.
   */
  quality: 75,
  /** Alpha plane quality: stickers' edges stay clean well below 100. */
  alphaQuality: 80,
  /**
   * libwebp effort 0–6: 0. Encoding is most of a rendition's cost: reduced from the decoded
   * frame, effort 2 took 1.2–1.4× effort 0's CPU (renditions bench; 125 bench images at
   * 256/512/768 px: 35 against 24.5 ms per image) for 13–15 % fewer bytes at the same SSIM;
   * effort 1 took 1–1.27× for 8 % fewer; effort 4 about twice effort 2's CPU for 4 % fewer.
   */
  effort: 0,
  /**
   * libwebp's sharp-YUV conversion (better chroma at colour edges): off. Measured, it cost 1.6–3×
   * the encode time and 6–12 % more bytes for +0.0004–0.0024 luma SSIM.
   */
  smartSubsample: false,
  /**
   * Reduction kernel: linear (a triangle filter spanning the reduction factor: averages, no
   * ringing). Measured on the 1k build corpus (250 images, each variant in the same run, CPU
   * per image): lanczos3 15.4 ms → linear 13.2 ms (−14 %; −6 to −21 % over six runs; mitchell
   * −2 %) for 6 % fewer bytes and
   * luma SSIM to the lanczos3 reduction 0.9602 → 0.9567 (512 px) and 0.9414 → 0.9364 (256 px):
   * softer, about what quality 75 → 70 costs. The WebP encode alone is 57 % of lanczos3's
   * cost, so no reduction, however cheap, takes the renditions below that.
   */
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
 * upscaled). Without it a 500 px image had only its 256 px copy, and a 1.75× phone showing
 * cards ~330 device px wide took the original (PNG, GIF) instead: Lighthouse's
 * uses-responsive-images and modern-image-formats failures this issue is about.
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
