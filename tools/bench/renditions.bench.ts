/**
 * Rendition settings: size against visible quality. For each candidate WebP setting, on the
 * realistic synthetic corpus (synthetic-images.ts) and on the repository's own pepe drawings
 * (content/), the bytes of each width's copies, their SSIM to the same-size lanczos3
 * reduction of the source (the loss the kernel and the encoding add, on luma, transparency flattened on white), and
 * the encode CPU time (a still image reduced from its decoded frame, as the build does). The chosen
 * setting (tools/image/renditions.ts) is the first row; the others are its neighbours, so each
 * figure reads as a ratio to it. Columns are the fixed widths;
 * copies at an image's own width (renditionWidths) are encoded and timed but not tabled.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { analyseImage } from '../image/analyse-image.js';
import { decodeFirstFrame } from '../image/decode.js';
import { encodeRenditions, RENDITION_SETTINGS, type RenditionSettings } from '../image/renditions.js';
import { type Bench, percentile, round } from './context.js';
import { syntheticImageCorpus } from './synthetic-images.js';

const CANDIDATES: [string, RenditionSettings][] = [
  ['chosen', RENDITION_SETTINGS],
  ['quality 60', { ...RENDITION_SETTINGS, quality: 60 }],
  ['quality 70', { ...RENDITION_SETTINGS, quality: 70 }],
  ['quality 80', { ...RENDITION_SETTINGS, quality: 80 }],
  ['quality 90', { ...RENDITION_SETTINGS, quality: 90 }],
  ['smart subsample', { ...RENDITION_SETTINGS, smartSubsample: true }],
  ['effort 1', { ...RENDITION_SETTINGS, effort: 1 }],
  ['effort 2', { ...RENDITION_SETTINGS, effort: 2 }],
  ['effort 4', { ...RENDITION_SETTINGS, effort: 4 }],
  ['kernel lanczos3', { ...RENDITION_SETTINGS, kernel: 'lanczos3' }],
  ['kernel mitchell', { ...RENDITION_SETTINGS, kernel: 'mitchell' }],
  ['widths 256, 512, 768', { ...RENDITION_SETTINGS, widths: [256, 512, 768] }],
];

/** Luma of an image at `width`, flattened on white. */
async function luma(input: Sharp): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await input.flatten({ background: '#ffffff' }).greyscale().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Mean SSIM over 8×8 windows at a stride of 4 (Wang et al. 2004 constants, 8-bit). */
function ssim(a: Buffer, b: Buffer, width: number, height: number): number {
  const c1 = (0.01 * 255) ** 2;
  const c2 = (0.03 * 255) ** 2;
  let total = 0;
  let windows = 0;
  for (let y = 0; y + 8 <= height; y += 4) {
    for (let x = 0; x + 8 <= width; x += 4) {
      let sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
      for (let dy = 0; dy < 8; dy++) {
        for (let dx = 0; dx < 8; dx++) {
          const i = (y + dy) * width + x + dx;
          const va = a[i]!;
          const vb = b[i]!;
          sa += va; sb += vb; saa += va * va; sbb += vb * vb; sab += va * vb;
        }
      }
      const ma = sa / 64, mb = sb / 64;
      const va = saa / 64 - ma * ma, vb = sbb / 64 - mb * mb, cov = sab / 64 - ma * mb;
      total += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
      windows++;
    }
  }
  return windows === 0 ? 1 : total / windows;
}

const LIMITS = { maxPixels: 50_000_000, timeoutMs: 30_000 };

interface Source {
  bytes: Buffer;
  width: number;
  animated: boolean;
}

async function sourcesOf(files: string[]): Promise<Source[]> {
  const sources: Source[] = [];
  for (const file of files) {
    const bytes = await readFile(file);
    const analysis = await analyseImage(bytes);
    if (analysis.ok) sources.push({ bytes, width: analysis.width, animated: analysis.animated });
  }
  return sources;
}

async function measure(sources: Source[], settings: RenditionSettings) {
  const bytes = new Map<number, number>();
  const scores = new Map<number, number[]>();
  let encodeMs = 0;
  for (const source of sources) {
    // As the build encodes: a still image from the frame its analysis decoded (not timed).
    const decoded = source.animated ? undefined : await decodeFirstFrame(source.bytes, LIMITS);
    const pixels = decoded?.ok ? decoded.image : undefined;
    // CPU time (sharp's threads included): one encode at a time, so it is this encode's.
    const started = process.cpuUsage();
    const renditions = await encodeRenditions({ ...source, pixels }, LIMITS, settings);
    const used = process.cpuUsage(started);
    encodeMs += (used.user + used.system) / 1000;
    for (const rendition of renditions) {
      bytes.set(rendition.width, (bytes.get(rendition.width) ?? 0) + rendition.bytes.length);
      // First frame of both: the reference is the lanczos3 reduction of the frame the copy was
      // made from (a still image's decoded frame: a reduction of the bytes would shrink a JPEG on
      // load and may round its height otherwise), without the WebP encoding.
      const frame = pixels ? sharp(pixels.data, { raw: { width: pixels.width, height: pixels.height, channels: pixels.channels as 1 | 2 | 3 | 4 } }) : sharp(source.bytes, { pages: 1 }).rotate();
      const reference = await luma(frame.resize({ width: rendition.width, kernel: 'lanczos3' }));
      const copy = await luma(sharp(rendition.bytes, { pages: 1 }));
      if (copy.width !== reference.width || copy.height !== reference.height) throw new Error(`rendition ${copy.width}×${copy.height} is not the reference's ${reference.width}×${reference.height}`);
      scores.set(rendition.width, [...(scores.get(rendition.width) ?? []), ssim(reference.data, copy.data, copy.width, copy.height)]);
    }
  }
  return { bytes, scores, encodeMs };
}

export default {
  name: 'renditions',
  async run(ctx) {
    const count = ctx.quick ? 24 : 96;
    ctx.log(`corpus of ${count} images`);
    const corpus = await syntheticImageCorpus(resolve('.bench', `renditions-corpus-${count}`), count);
    const contentDir = resolve('content');
    const drawings: string[] = [];
    const walk = async (dir: string) => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) await walk(join(dir, entry.name));
        else if (/\.(png|jpe?g|gif|webp|avif)$/i.test(entry.name)) drawings.push(join(dir, entry.name));
      }
    };
    await walk(contentDir);
    for (const [label, files] of [[`synthetic corpus (${count} images)`, corpus.files], [`content/ drawings (${drawings.length} images)`, drawings.sort()]] as const) {
      const sources = await sourcesOf(files);
      const originalBytes = sources.reduce((sum, source) => sum + source.bytes.length, 0);
      const rows: Record<string, string | number>[] = [];
      // Warm-up (sharp's first encodes load code and grow its pools): not counted.
      await measure(sources.slice(0, 4), RENDITION_SETTINGS);
      let chosen: Awaited<ReturnType<typeof measure>> | undefined;
      for (const [name, settings] of CANDIDATES) {
        ctx.log(`${label}: ${name}`);
        const result = await measure(sources, settings);
        chosen ??= result;
        const row: Record<string, string | number> = { setting: name };
        for (const width of RENDITION_SETTINGS.widths) {
          if (!chosen.bytes.has(width)) continue; // no image that wide
          const kb = (result.bytes.get(width) ?? 0) / 1024;
          const sample = result.scores.get(width) ?? [];
          row[`${width}w KB (× chosen)`] = `${round(kb, 0)} (${round(kb / ((chosen.bytes.get(width) ?? 1) / 1024), 2)}×)`;
          row[`${width}w SSIM mean / p5`] = `${round(sample.reduce((a, b) => a + b, 0) / Math.max(1, sample.length), 4)} / ${round(percentile([...sample], 5), 4)}`;
        }
        const total = (r: typeof result) => [...r.bytes.values()].reduce((a, b) => a + b, 0) / 1024;
        row['all copies KB (× chosen)'] = `${round(total(result), 0)} (${round(total(result) / total(chosen), 2)}×)`;
        row['encode CPU ms (× chosen)'] = `${round(result.encodeMs, 0)} (${round(result.encodeMs / chosen.encodeMs, 2)}×)`;
        rows.push(row);
      }
      ctx.table(`${label}: WebP settings, originals ${round(originalBytes / 1024, 0)} KB`, rows);
    }
  },
} satisfies Bench;
