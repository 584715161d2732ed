/**
 * A small, deterministic, valid catalogue for tests of every area, and a helper that runs
 * the REAL build over it into a temp folder. Each image is a distinct picture (a random
 * block pattern plus a disc, like an identicon) so that near-duplicate detection never
 * pairs two fixtures; formats, sizes, tags, descriptions and dates vary on purpose.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import type { PepeRecord, SiteUrls } from '../../functions/core/record.js';
import type { ChunkShapes } from '../catalogue/plan-answers.js';
import { formatProblem } from '../shared/problems.js';
import { seededRandom } from '../shared/seeded-random.js';
import { makeTempDir, type TempDir } from './temp-dir.js';
import { makeFolders } from '../shared/make-folders.js';

export const FIXTURE_URLS: SiteUrls = { baseUrl: 'http://localhost:8888', apiUrl: 'http://localhost:8888', cdnUrl: 'http://localhost:8888' };
const DEFAULT_FIXTURE_COUNT = 12;

const hex = (n: number) => Math.floor(n).toString(16).padStart(2, '0');
const colour = (rand: () => number, dark: boolean) => {
  const base = dark ? 20 : 150;
  return `#${hex(base + rand() * 100)}${hex(base + rand() * 100)}${hex(base + rand() * 100)}`;
};

/** A UUID v4 derived from a name, so fixture ids are stable across runs. */
export function fixtureId(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** SVG of picture `index`: a 5×5 mirrored block pattern (high-contrast, distinct per index) and a disc. */
function fixtureSvg(index: number, width: number, height: number, frame = 0): string {
  const rand = seededRandom(index * 7919 + 17);
  const light = colour(rand, false);
  const dark = colour(rand, true);
  const cw = width / 5;
  const ch = height / 5;
  const blocks: string[] = [];
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 3; x++) {
      if (rand() < 0.5) continue;
      for (const cx of new Set([x, 4 - x])) blocks.push(`<rect x="${cx * cw}" y="${y * ch}" width="${cw}" height="${ch}" fill="${dark}"/>`);
    }
  }
  const r = Math.min(width, height) * (0.12 + rand() * 0.1);
  const dx = (rand() * 0.6 + 0.2) * width + frame * 4;
  const dy = (rand() * 0.6 + 0.2) * height;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="${light}"/>${blocks.join('')}<circle cx="${dx}" cy="${dy}" r="${r}" fill="${colour(rand, frame % 2 === 0)}"/></svg>`;
}

type Kind = 'png' | 'jpg' | 'webp' | 'gif';
/** Index 3 is the one animated GIF; the rest cycle through the still formats. */
const kindOf = (index: number): Kind => (index === 3 ? 'gif' : (['png', 'jpg', 'webp'] as const)[index % 3]!);

/** Renders fixture image `index` (64–200 px per side, times `scale`) in its format. */
export async function fixtureImage(index: number, scale = 1): Promise<{ bytes: Buffer; ext: string }> {
  const rand = seededRandom(index * 104729 + 3);
  const width = (64 + Math.floor(rand() * 137)) * scale;
  const height = (64 + Math.floor(rand() * 137)) * scale;
  const kind = kindOf(index);
  const still = (frame = 0) => sharp(Buffer.from(fixtureSvg(index, width, height, frame)));
  if (kind === 'gif') {
    const frames = await Promise.all([0, 1, 2].map((f) => still(f).png().toBuffer()));
    return { bytes: await sharp(frames, { join: { animated: true } }).gif({ delay: 200, loop: 0 }).toBuffer(), ext: '.gif' };
  }
  if (kind === 'jpg') return { bytes: await still().jpeg({ quality: 85 }).toBuffer(), ext: '.jpg' };
  if (kind === 'webp') return { bytes: await still().webp({ quality: 80 }).toBuffer(), ext: '.webp' };
  return { bytes: await still().png().toBuffer(), ext: '.png' };
}

const TAG_SETS: (string[] | null)[] = [
  ['smug', 'classic'],
  [' Sad ', 'rain', 'SAD'],
  null,
  ['café', 'morning', 'coffee'],
  ['déjà vu', 'confused'],
  ['happy', 'dance', 'animated'],
  ['feels good', 'sunset'],
  ['angry', 'keyboard'],
  [],
  ['comfy', 'blanket', 'winter'],
  ['naïve', 'school'],
  ['rare', 'gold'],
];
const DESCRIPTIONS: (string | null)[] = [
  'A smug frog looking pleased with itself',
  'Sad frog in the rain',
  null,
  'Frog enjoying a café au lait',
  '  Confused frog having a déjà vu moment  ',
  'Dancing frog, animated',
  'Feels good man at sunset',
  'Angry frog typing on a keyboard',
  '',
  'Comfy frog under a blanket',
  'Naïve frog on the first day of school',
  'A rare golden frog',
];
/** Several years, several offsets, and two pairs of equal instants (ties are broken by id). */
const DATES = [
  '2019-03-14T09:26:53Z',
  '2020-07-01T12:00:00+02:00',
  '2020-07-01T10:00:00Z',
  '2021-01-31T23:59:59-05:00',
  '2021-12-25T08:00:00+01:00',
  '2022-06-15T18:30:00Z',
  '2022-06-15T18:30:00Z',
  '2023-02-28T07:45:12.345+09:00',
  '2023-10-10T10:10:10Z',
  '2024-04-01T00:00:00+00:00',
  '2024-11-05T16:20:00-08:00',
  '2025-05-20T11:11:11Z',
];

/** Content-relative base name of fixture `index`; some live in a subfolder, one has a non-ASCII name. */
export function fixtureName(index: number): string {
  if (index === 4) return 'nested/déjà-vu';
  if (index % 5 === 2) return `archive/frog-${String(index).padStart(3, '0')}`;
  return `frog-${String(index).padStart(3, '0')}`;
}

/** The created_at of fixture image `index`: later for each higher index (from index DATES.length on). */
export function fixtureCreatedAt(index: number): string {
  return index < DATES.length ? DATES[index]! : new Date(Date.UTC(2019, 0, 1) + index * 86_400_000 * 37).toISOString();
}

/** Writes `count` images with valid sidecars into `dir` (created if needed); `scale` 4 makes them 256–800 px, wide enough for renditions. */
export async function makeFixtureContent(dir: string, options: { count?: number; scale?: number } = {}): Promise<void> {
  const count = options.count ?? DEFAULT_FIXTURE_COUNT;
  for (let index = 0; index < count; index++) {
    const { bytes, ext } = await fixtureImage(index, options.scale);
    const name = fixtureName(index);
    const k = index % TAG_SETS.length;
    const sidecar: Record<string, unknown> = {
      id: fixtureId(`fixture-${index}`),
      description: DESCRIPTIONS[k] ?? null,
      tags: TAG_SETS[k] ?? null,
      created_at: fixtureCreatedAt(index),
    };
    if (index % 4 === 1) sidecar.updated_at = '2025-06-01T12:00:00Z';
    // Credits on every third fixture, one with characters HTML must escape.
    if (index % 3 === 0) Object.assign(sidecar, { artist: index === 3 ? ' Frog & <Sons> "Ltd" ' : `Artist ${index}`, source_url: `https://art.example/pepe/${index}?a=1&b=2`, license: 'CC-BY-4.0' });
    await makeFolders(join(dir, name, '..'));
    await writeFile(join(dir, `${name}${ext}`), bytes);
    await writeFile(join(dir, `${name}.json`), `${JSON.stringify(sidecar, null, 2)}\n`);
  }
}

/** A temp folder holding fixture content in `content/` (for tests that copy and change it, or run commands in the folder). */
export async function fixtureContentFolder(prefix: string, count: number): Promise<{ temp: TempDir; content: string }> {
  const temp = await makeTempDir(prefix);
  const content = join(temp.path, 'content');
  await makeFixtureContent(content, { count });
  return { temp, content };
}

export interface FixtureSite {
  root: string;
  contentDir: string;
  distDir: string;
  cacheDir: string;
  records: PepeRecord[];
  cleanup: () => Promise<void>;
}

/** Generates fixture content in a temp folder and runs the real `buildCatalogue` on it. */
export async function buildFixtureSite(options: { count?: number; urls?: SiteUrls; scale?: number; chunks?: ChunkShapes } = {}): Promise<FixtureSite> {
  const { buildCatalogue } = await import('../catalogue/build-catalogue.js');
  const temp = await makeTempDir('pepe-fixture-');
  const contentDir = join(temp.path, 'content');
  const distDir = join(temp.path, 'dist');
  const cacheDir = join(temp.path, '.pepe-cache');
  try {
    await makeFixtureContent(contentDir, { count: options.count, scale: options.scale });
    const result = await buildCatalogue({ contentDir, outDir: distDir, cacheDir, urls: options.urls ?? FIXTURE_URLS, chunks: options.chunks });
    if (!result.ok) throw new Error(`fixture build failed:\n${result.problems.map(formatProblem).join('\n')}`);
    return { root: temp.path, contentDir, distDir, cacheDir, records: result.records, cleanup: temp.cleanup };
  } catch (failure) {
    await temp.cleanup();
    throw failure;
  }
}
