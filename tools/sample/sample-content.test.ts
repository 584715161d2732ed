import { cp, readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addImages } from '../catalogue/add-images.js';
import { analyseContent, type ContentAnalysis } from '../catalogue/analyse-content.js';
import { checkContent } from '../catalogue/check-content.js';
import { dupeItems } from '../catalogue/near-duplicate-problems.js';
import { findNearDuplicates } from '../dupes/near-duplicates.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { SAMPLE_ENTRIES } from './sample-catalogue.js';
import { sidecarFor, writeSampleContent } from './sample-files.js';

// content/ is the catalogue maintainers grow by pull request, and it starts as the generated
// sample. Only what every pull request must keep (catalogueProblems: `pepe check`'s rule) is
// asked of content/ itself; what pins the 55 generated frogs (sampleProblems) is asked of a
// fresh copy the generator writes, so adding, editing or removing an image in content/ breaks
// no test that `pepe check` would pass.
vi.setConfig({ testTimeout: 120_000 });

const CONTENT = resolve(import.meta.dirname, '../../content');

/** What `pepe check` refuses (the real checkContent): content errors, and near-duplicate pairs no sidecar acknowledges. */
async function catalogueProblems(contentDir: string, cacheDir: string): Promise<string[]> {
  const { problems } = await checkContent({ contentDir, cacheDir });
  return problems.filter((p) => p.severity === 'error').map((p) => `${p.file}: ${p.message} [${p.code}]`);
}

const sampleFile = (entry: (typeof SAMPLE_ENTRIES)[number]): string => `${entry.name.normalize('NFC')}.${entry.format}`;

/** The generated sample, wherever the catalogue has grown around it. */
async function sampleProblems(contentDir: string, analysis: ContentAnalysis): Promise<string[]> {
  const problems: string[] = [];
  const sampleFiles = new Set(SAMPLE_ENTRIES.map(sampleFile));
  const sampleItems = analysis.items.filter((item) => sampleFiles.has(item.file.normalize('NFC')));
  const found = new Set(sampleItems.map((item) => item.file.normalize('NFC')));
  for (const file of sampleFiles) if (!found.has(file)) problems.push(`sample image ${file} is missing or invalid: regenerate it (tools/sample/README.md)`);
  // A wide threshold: the generated frogs are look-alikes by design, and none may pair.
  for (const pair of findNearDuplicates(dupeItems(sampleItems), { threshold: 16 })) problems.push(`sample pair ${pair.a.file} ~ ${pair.b.file} at threshold 16`);
  if (SAMPLE_ENTRIES.length < 40 || SAMPLE_ENTRIES.length > 60) problems.push(`${SAMPLE_ENTRIES.length} sample entries, not 40–60`);
  const formats = new Set(SAMPLE_ENTRIES.map((entry) => entry.format));
  if (formats.size !== 4) problems.push(`sample formats ${[...formats].join(', ')}: want png, jpg, webp and gif`);
  if (new Set(SAMPLE_ENTRIES.filter((e) => e.name.includes('/')).map((e) => e.name.split('/')[0])).size < 2) problems.push('sample images sit in fewer than 2 folders');
  if (!sampleItems.some((item) => item.animated && item.file.endsWith('.gif'))) problems.push('no animated GIF in the sample');
  const sizes = await Promise.all([...found].map(async (file) => ({ file, size: (await stat(join(contentDir, file))).size })));
  if (sizes.reduce((sum, { size }) => sum + size, 0) >= 3 * 1024 * 1024) problems.push('the sample images take 3 MB or more');
  for (const { file, size } of sizes) if (size >= 60 * 1024) problems.push(`sample image ${file} is ${size} bytes, not under 60 KB`);
  const years = new Set<number>();
  for (const [index, entry] of SAMPLE_ENTRIES.entries()) {
    const sidecarPath = join(contentDir, `${entry.name.normalize('NFC')}.json`);
    const written = JSON.parse(await readFile(sidecarPath, 'utf8').catch(() => 'null')) as { created_at: string } | null;
    if (!isDeepStrictEqual(written, sidecarFor(entry, index))) problems.push(`${entry.name}.json is not what the generator writes (edit its entry in sample-catalogue.ts and regenerate)`);
    if (written) years.add(new Date(written.created_at).getUTCFullYear());
  }
  if (years.size < 4) problems.push(`sample dates span ${years.size} years, not 4 or more`);
  return problems;
}

let sample: TempDir;
let analysis: ContentAnalysis;

beforeAll(async () => {
  sample = await makeTempDir('pepe-sample-');
  await writeSampleContent(join(sample.path, 'content'));
  analysis = await analyseContent({ contentDir: join(sample.path, 'content'), cacheDir: join(sample.path, '.pepe-cache') });
}, 120_000);
afterAll(() => sample.cleanup());

describe('the catalogue in content/', () => {
  it('passes what every pull request must pass: no content error, no unacknowledged near-duplicate', async () => {
    const cache = await makeTempDir('pepe-content-cache-');
    try {
      expect(await catalogueProblems(CONTENT, cache.path)).toEqual([]);
    } finally {
      await cache.cleanup();
    }
  });
});

describe('the generated sample', () => {
  it('passes what every pull request must pass', async () => {
    expect(await catalogueProblems(join(sample.path, 'content'), join(sample.path, '.pepe-cache'))).toEqual([]);
  });

  it('holds every frog, no pair even at threshold 16, small files, the generator sidecars', async () => {
    expect(await sampleProblems(join(sample.path, 'content'), analysis)).toEqual([]);
  });
});

describe('the sample grown the way the README tells maintainers to grow content/', () => {
  let grown: TempDir;
  beforeAll(async () => {
    grown = await makeTempDir('pepe-grown-');
    await cp(join(sample.path, 'content'), join(grown.path, 'content'), { recursive: true });
  });
  afterAll(() => grown.cleanup());

  it('still passes both after pepe add imports a real-sized photo (over 60 KB), and fails on a missing sidecar', async () => {
    const contentDir = join(grown.path, 'content');
    const cacheDir = join(grown.path, '.pepe-cache');
    // Noise: like a photo, it compresses badly (well over the sample's 60 KB) and resembles no frog.
    const noise = Buffer.from(Array.from({ length: 320 * 240 * 3 }, (_, i) => (Math.imul(i + 1, 2654435761) >>> 13) & 255));
    const photo = join(grown.path, 'a real pepe.jpg');
    await sharp(noise, { raw: { width: 320, height: 240, channels: 3 } }).jpeg({ quality: 95 }).toFile(photo);
    expect((await stat(photo)).size).toBeGreaterThan(60 * 1024);
    const added = await addImages({ contentDir, cacheDir, files: [photo], tags: ['new'] });
    expect(added.problems).toEqual([]);
    expect(added.ok).toBe(true);

    const after = await analyseContent({ contentDir, cacheDir });
    expect(after.items.length).toBe(SAMPLE_ENTRIES.length + 1);
    expect(await catalogueProblems(contentDir, cacheDir)).toEqual([]);
    expect(await sampleProblems(contentDir, after)).toEqual([]);

    // The check still bites: an image committed without its sidecar fails the pull request.
    await writeFile(join(contentDir, 'no-sidecar.jpg'), await readFile(photo));
    expect((await catalogueProblems(contentDir, cacheDir)).join('\n')).toMatch(/no-sidecar\.jpg: .*\[missing-sidecar\]/);
  });
});
