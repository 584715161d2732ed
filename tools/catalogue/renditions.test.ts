import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RENDITION_SETTINGS } from '../image/renditions.js';
import { FIXTURE_URLS, fixtureId } from '../testing/fixture-catalogue.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { fileURLToPath } from 'node:url';
import { IMAGE_CACHE_CONTROL } from '../../functions/core/cache-policy.js';
import { raw } from '../serve/http-client.test-helper.js';
import { startServer } from '../serve/server.js';
import { buildCatalogue } from './build-catalogue.js';
import { readCacheDocuments } from './cache/cache-log.js';
import { makeRenditions, openRenditions, renditionCacheFile, type RenditionSource } from './renditions.js';

vi.setConfig({ testTimeout: 60_000 });

const NETLIFY_TOML = fileURLToPath(new URL('../../netlify.toml', import.meta.url));
const LIMITS = { maxFileBytes: 32 * 1024 * 1024, maxPixels: 50_000_000, timeoutMs: 30_000 };
let temp: TempDir;
let caseNumber = 0;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A picture with detail (bands and a disc), `width`×`height`. */
const picture = (width: number, height: number, shift = 0) =>
  sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#3a7"/><rect x="${width / 4}" y="0" width="${width / 8}" height="${height}" fill="#fd2"/><circle cx="${width / 2 + shift}" cy="${height / 2}" r="${Math.min(width, height) / 4}" fill="#a23"/></svg>`));

const IMAGES = {
  wide: () => picture(1000, 600).png().toBuffer(),
  medium: () => picture(500, 400).jpeg({ quality: 90 }).toBuffer(),
  narrow: () => picture(200, 300).png().toBuffer(),
  exact: () => picture(256, 100).webp().toBuffer(),
  // Stored 600×300 with EXIF orientation 6 (rotate 90°): upright it is 300×600.
  rotated: () => picture(600, 300).jpeg().withMetadata({ orientation: 6 }).toBuffer(),
  animated: async () => sharp(await Promise.all([0, 30, 60].map((shift) => picture(300, 200, shift).png().toBuffer())), { join: { animated: true } }).gif({ delay: 100, loop: 0 }).toBuffer(),
};
type Name = keyof typeof IMAGES;
const UPRIGHT_WIDTH: Record<Name, number> = { wide: 1000, medium: 500, narrow: 200, exact: 256, rotated: 300, animated: 300 };

async function sourceIn(dir: string, name: Name): Promise<RenditionSource> {
  const bytes = await IMAGES[name]();
  const abs = join(dir, `${name}.img`);
  await writeFile(abs, bytes);
  return { sha256: sha256(bytes), file: `${name}.img`, abs, width: UPRIGHT_WIDTH[name], animated: name === 'animated' };
}

async function fresh(names: Name[]): Promise<{ dir: string; cacheDir: string; sources: RenditionSource[] }> {
  const dir = join(temp.path, `case-${++caseNumber}`);
  await mkdir(dir, { recursive: true });
  const sources = [];
  for (const name of names) sources.push(await sourceIn(dir, name));
  return { dir, cacheDir: join(dir, 'cache'), sources };
}

const cachedBytes = (cacheDir: string, sha: string) => readFile(renditionCacheFile(cacheDir, sha));

beforeAll(async () => {
  temp = await makeTempDir('pepe-renditions-test-');
});
afterAll(() => temp.cleanup());

describe('renditions', () => {
  it('makes WebP copies at each width the image reaches (and its own width below the largest), smallest first, keeping the aspect ratio and never upscaling', async () => {
    const { cacheDir, sources } = await fresh(['wide', 'medium', 'narrow', 'exact']);
    const { bySource, problems, run } = await makeRenditions(sources, { cacheDir, limits: LIMITS });
    expect(problems).toEqual([]);
    expect(run).toMatchObject({ encoded: 4, reused: 0 });
    const sizes = sources.map((source) => bySource.get(source.sha256)!.map(({ width, height }) => [width, height]));
    expect(RENDITION_SETTINGS.widths).toEqual([256, 512]);
    expect(sizes).toEqual([
      [[256, 154], [512, 307]],
      [[256, 205], [500, 400]],
      [],
      [[256, 100]],
    ]);
    for (const entry of [...bySource.values()].flat()) {
      const bytes = await cachedBytes(cacheDir, entry.sha256);
      expect(sha256(bytes)).toBe(entry.sha256);
      expect(bytes.length).toBe(entry.size);
      const meta = await sharp(bytes).metadata();
      expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: 'webp', width: entry.width, height: entry.height });
    }
  });

  it('copies an EXIF-rotated photo upright', async () => {
    const { cacheDir, sources } = await fresh(['rotated']);
    const [entry] = (await makeRenditions(sources, { cacheDir, limits: LIMITS })).bySource.get(sources[0]!.sha256)!;
    expect(entry).toMatchObject({ width: 256, height: 512 });
    const meta = await sharp(await cachedBytes(cacheDir, entry!.sha256)).metadata();
    expect([meta.width, meta.height, meta.orientation]).toEqual([256, 512, undefined]);
  });

  it('keeps every frame of an animated image (animated WebP)', async () => {
    const { cacheDir, sources } = await fresh(['animated']);
    const [entry] = (await makeRenditions(sources, { cacheDir, limits: LIMITS })).bySource.get(sources[0]!.sha256)!;
    expect(entry).toMatchObject({ width: 256, height: 171 });
    const meta = await sharp(await cachedBytes(cacheDir, entry!.sha256), { animated: true }).metadata();
    expect({ format: meta.format, pages: meta.pages, width: meta.width, pageHeight: meta.pageHeight, delay: meta.delay }).toEqual({ format: 'webp', pages: 3, width: 256, pageHeight: 171, delay: [100, 100, 100] });
  });

  it('encodes the same bytes again from an empty cache (stable URLs across rebuilds)', async () => {
    const first = await fresh(['wide', 'animated']);
    const second = await fresh(['wide', 'animated']);
    const a = await makeRenditions(first.sources, { cacheDir: first.cacheDir, limits: LIMITS });
    const b = await makeRenditions(second.sources, { cacheDir: second.cacheDir, limits: LIMITS });
    expect(b.run.encoded).toBe(2);
    expect([...b.bySource]).toEqual([...a.bySource]);
  });

  it('encodes nothing again for known bytes, only the new image when one is added, and all again under other settings', async () => {
    const { dir, cacheDir, sources } = await fresh(['wide', 'medium']);
    await makeRenditions(sources, { cacheDir, limits: LIMITS });
    expect((await makeRenditions(sources, { cacheDir, limits: LIMITS })).run).toMatchObject({ encoded: 0, reused: 2 });
    const added = [...sources, await sourceIn(dir, 'exact')];
    expect((await makeRenditions(added, { cacheDir, limits: LIMITS })).run).toMatchObject({ encoded: 1, reused: 2 });
    const other = { ...RENDITION_SETTINGS, quality: 60 };
    expect((await makeRenditions(added, { cacheDir, limits: LIMITS, settings: other })).run).toMatchObject({ encoded: 3, reused: 0 });
  });

  it('appends the rows a build changed to the index, reads them back, and rewrites a torn tail', async () => {
    const { dir, cacheDir, sources } = await fresh(['wide', 'medium']);
    const index = join(cacheDir, 'renditions.bin');
    await makeRenditions(sources, { cacheDir, limits: LIMITS });
    const base = await readFile(index);
    const added = [...sources, await sourceIn(dir, 'exact')];
    await makeRenditions(added, { cacheDir, limits: LIMITS });
    const appended = await readFile(index);
    expect(appended.subarray(0, base.length)).toEqual(base);
    expect(appended.length).toBeGreaterThan(base.length);
    expect((await makeRenditions(added, { cacheDir, limits: LIMITS })).run).toMatchObject({ encoded: 0, reused: 3 });
    // A crash in the middle of the append: the base's rows still count, the torn row is encoded again.
    await writeFile(index, appended.subarray(0, appended.length - 3));
    expect((await makeRenditions(added, { cacheDir, limits: LIMITS })).run).toMatchObject({ encoded: 1, reused: 2 });
    expect((await makeRenditions(added, { cacheDir, limits: LIMITS })).run).toMatchObject({ encoded: 0, reused: 3 });
  });

  it('looks a change build\'s rows up in the index without parsing the others, and encodes again a row that does not parse', async () => {
    const { cacheDir, sources } = await fresh(['wide', 'medium']);
    const index = join(cacheDir, 'renditions.bin');
    await makeRenditions(sources, { cacheDir, limits: LIMITS });
    // The wide image's row damaged in place, the frame's length kept.
    const bytes = await readFile(index);
    const at = bytes.indexOf(`"${sources[0]!.sha256}":{`) + 68;
    bytes.fill('x', at, at + 20);
    await writeFile(index, bytes);
    const change = await (await openRenditions({ cacheDir, limits: LIMITS })).finish(sources.slice(1), undefined, false);
    expect(change.run).toMatchObject({ encoded: 0, reused: 1 });
    expect(await readFile(index)).toEqual(bytes);
    // A build of every image parses the whole base: unreadable, it is rewritten from the rows that build has.
    expect((await makeRenditions(sources, { cacheDir, limits: LIMITS })).run).toMatchObject({ encoded: 1, reused: 1 });
    expect((await makeRenditions(sources, { cacheDir, limits: LIMITS })).run).toMatchObject({ encoded: 0, reused: 2 });
  });

  it('reads the index of the former layout (one JSON document), so that an upgrade encodes nothing again', async () => {
    const { cacheDir, sources } = await fresh(['wide', 'medium']);
    const made = await makeRenditions(sources, { cacheDir, limits: LIMITS });
    const [base] = readCacheDocuments(await readFile(join(cacheDir, 'renditions.bin')))!.documents as [{ encoder: string }];
    await writeFile(join(cacheDir, 'renditions.json'), JSON.stringify({ encoder: base.encoder, sources: Object.fromEntries([...made.bySource].map(([sha, files]) => [sha, { files }])) }));
    await rm(join(cacheDir, 'renditions.bin'));
    expect((await makeRenditions(sources, { cacheDir, limits: LIMITS })).run).toMatchObject({ encoded: 0, reused: 2 });
  });

  it('encodes again when a cached file was deleted, rather than copying a missing file', async () => {
    const { cacheDir, sources } = await fresh(['medium']);
    const [entry] = (await makeRenditions(sources, { cacheDir, limits: LIMITS })).bySource.get(sources[0]!.sha256)!;
    await rm(renditionCacheFile(cacheDir, entry!.sha256));
    const again = await makeRenditions(sources, { cacheDir, limits: LIMITS });
    expect(again.run.encoded).toBe(1);
    expect(await cachedBytes(cacheDir, entry!.sha256)).toHaveLength(entry!.size);
  });

  it('deletes the renditions of an image no build used for a month, and keeps them before', async () => {
    const { cacheDir, sources } = await fresh(['medium', 'exact']);
    const now = Date.UTC(2026, 0, 1);
    const made = await makeRenditions(sources, { cacheDir, limits: LIMITS, now });
    const [gone] = made.bySource.get(sources[1]!.sha256)!;
    const day = 24 * 60 * 60 * 1000;
    await makeRenditions(sources.slice(0, 1), { cacheDir, limits: LIMITS, now: now + day });
    await makeRenditions(sources.slice(0, 1), { cacheDir, limits: LIMITS, now: now + 20 * day });
    expect(await cachedBytes(cacheDir, gone!.sha256)).toHaveLength(gone!.size);
    await makeRenditions(sources.slice(0, 1), { cacheDir, limits: LIMITS, now: now + 32 * day });
    await expect(cachedBytes(cacheDir, gone!.sha256)).rejects.toThrow(/ENOENT/);
    expect((await readdir(join(cacheDir, 'renditions'))).sort()).toEqual(made.bySource.get(sources[0]!.sha256)!.map((entry) => `${entry.sha256}.webp`).sort());
  });

  it('reports an image whose bytes changed since the analysis, naming it', async () => {
    const { cacheDir, sources } = await fresh(['medium']);
    await writeFile(sources[0]!.abs, await IMAGES.wide());
    const { problems, bySource } = await makeRenditions(sources, { cacheDir, limits: LIMITS });
    expect(problems).toEqual([{ severity: 'error', code: 'changed-during-build', message: 'changed while the build ran: run the build again', file: 'medium.img' }]);
    expect(bySource.has(sources[0]!.sha256)).toBe(false);
  });
});

describe('a build with renditions', () => {
  it('publishes them under immutable names beside the originals, lists them as thumbnails, and encodes only what is new', async () => {
    const dir = join(temp.path, 'build');
    const contentDir = join(dir, 'content');
    await mkdir(contentDir, { recursive: true });
    const sidecar = (name: string) => JSON.stringify({ id: fixtureId(name), description: `a ${name} frog`, tags: ['frog'], created_at: '2024-01-01T00:00:00Z' });
    for (const name of ['wide', 'narrow'] as const) {
      await writeFile(join(contentDir, `${name}.png`), await IMAGES[name]());
      await writeFile(join(contentDir, `${name}.json`), sidecar(name));
    }
    const options = { contentDir, outDir: join(dir, 'dist'), cacheDir: join(dir, 'cache'), urls: FIXTURE_URLS };
    const first = await buildCatalogue(options);
    expect(first.problems).toEqual([]);
    // Both while the analysis had them decoded: no second decode.
    expect(first.stats.renditions).toMatchObject({ encoded: 2, duringAnalysis: 2, reused: 0 });
    const wide = first.records.find((record) => record.id === fixtureId('wide'))!;
    expect(wide.thumbnails.map((t) => [t.width, t.height, t.type])).toEqual([[256, 154, 'image/webp'], [512, 307, 'image/webp']]);
    expect(first.records.find((record) => record.id === fixtureId('narrow'))!.thumbnails).toEqual([]);
    const images = await readdir(join(options.outDir, 'site', 'images'));
    for (const thumbnail of wide.thumbnails) {
      expect(thumbnail.file_name).toMatch(new RegExp(`^${wide.id}-${thumbnail.width}w-[0-9a-f]{16}\\.webp$`));
      const bytes = await readFile(join(options.outDir, 'site', 'images', thumbnail.file_name));
      expect(sha256(bytes).slice(0, 16)).toBe(thumbnail.file_name.slice(-21, -5));
    }
    expect(images.sort()).toEqual([`${fixtureId('narrow')}.png`, `${wide.id}.png`, ...wide.thumbnails.map((t) => t.file_name)].sort());
    const byId = JSON.parse(await readFile(join(options.outDir, 'site', 'api', 'pepe', wide.id), 'utf8'));
    expect(byId.data.thumbnails).toEqual(wide.thumbnails.map((t) => ({ url: `${FIXTURE_URLS.baseUrl}/images/${t.file_name}`, width: t.width, height: t.height, type: 'image/webp' })));
    const b = JSON.parse(await readFile(join(options.outDir, 'site', 'v1', 'pepe', wide.id), 'utf8'));
    expect(Object.keys(b.result)).toEqual(['id', 'url', 'description']);

    // Served as the originals are: netlify.toml's image headers, over real HTTP from pepe serve.
    const server = await startServer({ dir: options.outDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML });
    try {
      for (const thumbnail of wide.thumbnails) {
        const res = await raw(server.url, `/images/${thumbnail.file_name}`);
        expect(res.status).toBe(200);
        expect(res.headers).toMatchObject({ 'content-type': 'image/webp', 'cache-control': IMAGE_CACHE_CONTROL, 'access-control-allow-origin': '*', 'x-content-type-options': 'nosniff' });
        expect(res.body.equals(await readFile(join(options.outDir, 'site', 'images', thumbnail.file_name)))).toBe(true);
      }
    } finally {
      await server.close();
    }

    // Touched, not changed: the build reads that image again, and encodes nothing; a change build looks up only the images it read.
    const touched = new Date(Date.now() + 5_000);
    await utimes(join(contentDir, 'wide.png'), touched, touched);
    const again = await buildCatalogue(options);
    expect(again.stats.renditions).toMatchObject({ encoded: 0, reused: 1 });
    expect(again.changed).toBe(false);

    await writeFile(join(contentDir, 'medium.jpg'), await IMAGES.medium());
    await writeFile(join(contentDir, 'medium.json'), sidecar('medium'));
    const added = await buildCatalogue(options);
    expect(added.stats.renditions).toMatchObject({ encoded: 1, duringAnalysis: 1, reused: 0 });
    expect(added.records.find((record) => record.id === fixtureId('medium'))!.thumbnails.map((t) => t.width)).toEqual([256, 500]);
  });

  it('publishes the same rendition bytes whether the analysis decoded the image or its features came from the cache', async () => {
    const dir = join(temp.path, 'same-bytes');
    const contentDir = join(dir, 'content');
    await mkdir(contentDir, { recursive: true });
    for (const [name, ext] of [['wide', 'png'], ['medium', 'jpg'], ['rotated', 'jpg'], ['animated', 'gif']] as const) {
      await writeFile(join(contentDir, `${name}.${ext}`), await IMAGES[name]());
      await writeFile(join(contentDir, `${name}.json`), JSON.stringify({ id: fixtureId(name), description: `a ${name} frog`, tags: null, created_at: '2024-01-01T00:00:00Z' }));
    }
    const options = { contentDir, urls: FIXTURE_URLS };
    const decoded = await buildCatalogue({ ...options, outDir: join(dir, 'dist-a'), cacheDir: join(dir, 'cache') });
    expect(decoded.stats.renditions).toMatchObject({ encoded: 4, duringAnalysis: 4 });
    // The features stay cached, the renditions do not: they are encoded from the files' bytes.
    await rm(join(dir, 'cache', 'renditions'), { recursive: true });
    const fromBytes = await buildCatalogue({ ...options, outDir: join(dir, 'dist-b'), cacheDir: join(dir, 'cache') });
    expect(fromBytes.stats).toMatchObject({ decoded: 0, renditions: { encoded: 4, duringAnalysis: 0 } });
    const names = (result: typeof decoded) => result.records.flatMap((record) => record.thumbnails.map((t) => t.file_name));
    expect(names(fromBytes)).toEqual(names(decoded));
    // wide: 256 and 512; the others (500, 300 upright, 300 px) 256 and their own width.
    expect(names(decoded)).toHaveLength(2 + 2 + 2 + 2);
  });

  it('rebuilds from a poisoned cache rather than publishing it: swapped rendition files, edited features', async () => {
    const dir = join(temp.path, 'poisoned');
    const contentDir = join(dir, 'content');
    await mkdir(contentDir, { recursive: true });
    for (const [name, ext] of [['wide', 'png'], ['medium', 'jpg']] as const) {
      await writeFile(join(contentDir, `${name}.${ext}`), await IMAGES[name]());
      await writeFile(join(contentDir, `${name}.json`), JSON.stringify({ id: fixtureId(name), description: `a ${name} frog`, tags: null, created_at: '2024-01-01T00:00:00Z' }));
    }
    const cacheDir = join(dir, 'cache');
    const clean = await buildCatalogue({ contentDir, outDir: join(dir, 'dist-clean'), cacheDir, urls: FIXTURE_URLS });
    expect(clean.problems).toEqual([]);
    const wide = clean.records.find((record) => record.id === fixtureId('wide'))!;
    const medium = clean.records.find((record) => record.id === fixtureId('medium'))!;
    // Swapped: wide's 256 px rendition now holds medium's (a valid WebP, as a planted file would be), written anew as a restored cache is.
    const cached = await readdir(join(cacheDir, 'renditions'));
    const cacheFileOf = (fileName: string) => join(cacheDir, 'renditions', cached.find((name) => name.startsWith(fileName.slice(-21, -5)))!);
    const swapped = cacheFileOf(wide.thumbnails[0]!.file_name);
    const planted = await readFile(cacheFileOf(medium.thumbnails[0]!.file_name));
    await rm(swapped);
    await writeFile(swapped, planted);
    // Edited: medium's phash and blurhash in build-cache.bin, same length, so the file's framing still reads.
    const cacheFile = join(cacheDir, 'build-cache.bin');
    const text = (await readFile(cacheFile)).toString('latin1');
    expect(text).toContain(`"${medium.phash}"`);
    const forged = medium.phash.replace(/./g, (c) => (c === 'f' ? '0' : 'f'));
    await writeFile(cacheFile, Buffer.from(text.replace(`"${medium.phash}"`, `"${forged}"`), 'latin1'));

    // A fresh output folder, as in CI: every rendition is linked from the cache.
    const rebuilt = await buildCatalogue({ contentDir, outDir: join(dir, 'dist-ci'), cacheDir, urls: FIXTURE_URLS });
    expect(rebuilt.problems).toEqual([]);
    expect(rebuilt.stats.decoded).toBe(1);
    // medium's features are analysed again (its renditions were sound); wide's swapped rendition is encoded again.
    expect(rebuilt.stats.renditions).toMatchObject({ encoded: 1 });
    expect(rebuilt.records).toEqual(clean.records);
    for (const record of rebuilt.records) {
      for (const thumbnail of record.thumbnails) {
        const bytes = await readFile(join(dir, 'dist-ci', 'site', 'images', thumbnail.file_name));
        expect(sha256(bytes).slice(0, 16)).toBe(thumbnail.file_name.slice(-21, -5));
      }
    }
    // The cache holds the right bytes again.
    expect(sha256(await readFile(swapped))).toBe(cached.find((name) => swapped.endsWith(name))!.slice(0, 64));

    // Swapped again, then a build into the output that already holds the right bytes (an image added): they stay.
    await rm(swapped);
    await writeFile(swapped, planted);
    await writeFile(join(contentDir, 'narrow.png'), await IMAGES.narrow());
    await writeFile(join(contentDir, 'narrow.json'), JSON.stringify({ id: fixtureId('narrow'), description: null, tags: null, created_at: '2024-01-01T00:00:00Z' }));
    const added = await buildCatalogue({ contentDir, outDir: join(dir, 'dist-ci'), cacheDir, urls: FIXTURE_URLS });
    expect(added.problems).toEqual([]);
    for (const thumbnail of added.records.flatMap((record) => record.thumbnails)) {
      expect(sha256(await readFile(join(dir, 'dist-ci', 'site', 'images', thumbnail.file_name))).slice(0, 16)).toBe(thumbnail.file_name.slice(-21, -5));
    }
  });
});
