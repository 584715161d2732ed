import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rename, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURE_URLS } from '../testing/fixture-catalogue.js';
import { snapshotDir } from '../testing/snapshot-dir.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { createManifest, readManifest } from '../shared/manifest.js';
import { sha256Of } from '../shared/manifest.js';
import { byteLength, piecesFile, type PlannedFile, WRITE_APART_FROM, writeOutput } from './write-output.js';

let temp: TempDir;
beforeEach(async () => {
  temp = await makeTempDir('pepe-write-test-');
});
afterEach(() => temp.cleanup());

const planned = (path: string, body: string): PlannedFile => ({ path, body, sha256: sha256Of(body), size: byteLength(body) });
const write = async (outDir: string, files: PlannedFile[], generate?: (dir: string) => Promise<string[]>) =>
  writeOutput({ outDir, previous: await readManifest(outDir), files, ...(generate ? { generate } : {}), manifestFor: (e) => createManifest(e, FIXTURE_URLS, { records: 0, images: 0 }) });

describe('writeOutput', () => {
  it('leaves the previous output untouched and no staging folder behind when a generator fails', async () => {
    const out = join(temp.path, 'dist');
    await write(out, [planned('site/a.json', 'a'), planned('data/x.mjs', 'x')]);
    const before = await snapshotDir(out);
    await expect(write(out, [planned('site/a.json', 'changed')], async () => Promise.reject(new Error('bundler exploded')))).rejects.toThrow('bundler exploded');
    expect(await snapshotDir(out)).toEqual(before);
    expect(await readdir(temp.path)).toEqual(['dist']);
  });

  // Regression: a write failing while the gallery was still being generated (a full disk) deleted
  // the staging folder, then the generator wrote into it again and left it beside the output.
  it.each([
    ['a first build', false],
    ['an incremental build', true],
  ])('leaves no staging folder behind when a file fails to write while a generator is still writing (%s)', async (_, incremental) => {
    const out = join(temp.path, 'dist');
    if (incremental) await write(out, [planned('site/a.json', 'a')]);
    let generated: Promise<void> | undefined;
    const slowGenerator = (dir: string) => {
      generated = new Promise<void>((resolve) => setTimeout(resolve, 100)).then(async () => {
        await mkdir(join(dir, 'site', 'assets'), { recursive: true });
        await writeFile(join(dir, 'site', 'assets', 'gallery.js'), 'late');
      });
      return generated.then(() => ['site/assets/gallery.js']);
    };
    const unreadable: PlannedFile = { path: 'site/images/x.png', copyFrom: join(temp.path, 'missing.png'), sha256: 'x', size: 1 };
    await expect(write(out, [planned('site/a.json', 'changed'), unreadable], slowGenerator)).rejects.toThrow('ENOENT');
    await generated;
    expect(await readdir(temp.path)).toEqual(incremental ? ['dist'] : []);
  });

  it.each([
    ['a first build', false],
    ['an incremental build', true],
  ])('writes a large body on libuv\'s threads byte for byte, and leaves nothing behind when a later file fails (%s)', async (_, incremental) => {
    const out = join(temp.path, 'dist');
    if (incremental) await write(out, [planned('site/a.json', 'a')]);
    // Multi-byte text past WRITE_APART_FROM: the bytes written are the UTF-8 the manifest hashed.
    const large = (seed: string) => planned('data/pieces.txt', `${seed}é`.repeat((WRITE_APART_FROM >> 2) + 7));
    const result = await write(out, [large('v1'), planned('site/a.json', 'b')]);
    expect(result.written).toContain('data/pieces.txt');
    expect(await readFile(join(out, 'data/pieces.txt'), 'utf8')).toBe(large('v1').body);
    expect((await readManifest(out))!.version).toBe(result.manifest.version);
    const before = await snapshotDir(out);
    const unreadable: PlannedFile = { path: 'site/images/x.png', copyFrom: join(temp.path, 'missing.png'), sha256: 'x', size: 1 };
    await expect(write(out, [large('v2'), unreadable])).rejects.toThrow('ENOENT');
    expect(await snapshotDir(out)).toEqual(before);
    expect(await readdir(temp.path)).toEqual(['dist']);
  });

  it('keeps unchanged files by hard link, rewrites changed ones, drops removed ones', async () => {
    const out = join(temp.path, 'dist');
    await write(out, [planned('site/a.json', 'a'), planned('site/b.json', 'b'), planned('site/c.json', 'c')]);
    const before = await snapshotDir(out);
    const result = await write(out, [planned('site/a.json', 'a'), planned('site/b.json', 'B!')]);
    const after = await snapshotDir(out);
    expect(result.changed).toBe(true);
    expect(result.written).toEqual(['site/b.json']);
    expect(result.removed).toEqual(['site/c.json']);
    expect(after['site/a.json']).toEqual(before['site/a.json']);
    expect(after['site/b.json']!.ino).not.toBe(before['site/b.json']!.ino);
    expect(after['site/c.json']).toBeUndefined();
    expect(Object.keys(result.manifest.files)).toEqual(['site/a.json', 'site/b.json']);
  });

  it('links a build-cache file into the output (one inode), and a cache file replaced later leaves the output as it was', async () => {
    const cacheFile = join(temp.path, 'cache-rendition.webp');
    await writeFile(cacheFile, 'rendition bytes');
    const out = join(temp.path, 'dist');
    await write(out, [{ path: 'site/images/a-320w.webp', linkFrom: cacheFile, sha256: sha256Of('rendition bytes'), size: 15 }]);
    expect((await stat(join(out, 'site/images/a-320w.webp'))).ino).toBe((await stat(cacheFile)).ino);
    // The cache replaces its files by a rename (replace-file.ts), never in place: the output keeps its bytes.
    await writeFile(`${cacheFile}.tmp`, 'other bytes');
    await rename(`${cacheFile}.tmp`, cacheFile);
    expect(await readFile(join(out, 'site/images/a-320w.webp'), 'utf8')).toBe('rendition bytes');
  });

  // /dev/shm is a tmpfs beside the disk of the temp folder: a hard link across them fails with EXDEV.
  const otherFilesystem = existsSync('/dev/shm') && statSync('/dev/shm').dev !== statSync(tmpdir()).dev;
  it.skipIf(!otherFilesystem)('copies a build-cache file it cannot link (another filesystem)', async () => {
    const elsewhere = await mkdtemp('/dev/shm/pepe-write-other-fs-');
    try {
      const cacheFile = join(elsewhere, 'rendition.webp');
      await writeFile(cacheFile, 'rendition bytes');
      const out = join(temp.path, 'dist');
      await write(out, [{ path: 'site/images/a-320w.webp', linkFrom: cacheFile, sha256: sha256Of('rendition bytes'), size: 15 }]);
      expect(await readFile(join(out, 'site/images/a-320w.webp'), 'utf8')).toBe('rendition bytes');
      expect((await stat(join(out, 'site/images/a-320w.webp'))).dev).not.toBe((await stat(cacheFile)).dev);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('writes a file of Latin-1 pieces end to end as their joined bytes, under the sha256 and size of those bytes', async () => {
    const out = join(temp.path, 'dist');
    // Small pieces that fill the write buffer unevenly, one larger than it, and an empty one.
    const pieces = [...Array.from({ length: 3000 }, (_, i) => `piece ${i} \xe9;`.repeat(1 + (i % 90))), '', 'x'.repeat(3 << 20), 'end\xff'];
    const joined = Buffer.from(pieces.join(''), 'latin1');
    const file = piecesFile('data/pieces.txt', pieces);
    expect(file).toMatchObject({ sha256: sha256Of(joined), size: joined.length });
    await write(out, [file]);
    expect((await readFile(join(out, 'data/pieces.txt'))).equals(joined)).toBe(true);
    expect((await readManifest(out))!.files['data/pieces.txt']).toEqual({ sha256: sha256Of(joined), size: joined.length });
  });

  it('starts the generators with the files they read already written, before the other files', async () => {
    const out = join(temp.path, 'dist');
    const seen: string[][] = [];
    const gen = async (dir: string) => {
      seen.push([existsSync(join(dir, 'data/x.mjs')) ? 'data' : 'no data', existsSync(join(dir, 'site/a.json')) ? 'site' : 'no site']);
      await Promise.resolve();
      return [];
    };
    await write(out, [planned('site/a.json', 'a'), { ...planned('data/x.mjs', 'x'), neededByGenerate: true }], gen);
    expect(seen).toEqual([['data', 'no site']]);
    expect(await readFile(join(out, 'site/a.json'), 'utf8')).toBe('a');
  });

  it('plans the later files only after the generators have started, and writes them like the others', async () => {
    const out = join(temp.path, 'dist');
    const events: string[] = [];
    const gen = async () => {
      events.push('generate');
      return [];
    };
    const plannedLater = (written: readonly string[]) => {
      events.push(`plan later after ${written.join(' ')}`);
      return { files: [planned('site/later.json', 'later')] };
    };
    const manifestFor = (e: Parameters<typeof createManifest>[0]) => createManifest(e, FIXTURE_URLS, { records: 0, images: 0 });
    const result = await writeOutput({ outDir: out, previous: null, files: [{ ...planned('data/x.mjs', 'x'), neededByGenerate: true }], plannedLater, generate: gen, manifestFor });
    // Told which of the first files differ from the previous output (all of them: there is none).
    expect(events).toEqual(['generate', 'plan later after data/x.mjs']);
    expect(await readFile(join(out, 'site/later.json'), 'utf8')).toBe('later');
    expect(Object.keys(result.manifest.files)).toEqual(['data/x.mjs', 'site/later.json']);
    // A file the generators read cannot come later: refused, nothing written.
    const tooLate = () => ({ files: [{ ...planned('data/y.mjs', 'y'), neededByGenerate: true }] });
    const before = await snapshotDir(out);
    await expect(writeOutput({ outDir: out, previous: await readManifest(out), files: [], plannedLater: tooLate, generate: gen, manifestFor })).rejects.toThrow(/data\/y.mjs is needed by the generators/);
    expect(await snapshotDir(out)).toEqual(before);
    expect(await readdir(temp.path)).toEqual(['dist']);
  });

  it('trusts a file marked unchanged only for an incremental write', async () => {
    const out = join(temp.path, 'dist');
    await write(out, [planned('site/a.json', 'a'), planned('site/b.json', 'b')]);
    const previous = await readManifest(out);
    const manifestFor = (e: Parameters<typeof createManifest>[0]) => createManifest(e, FIXTURE_URLS, { records: 0, images: 0 });
    const kept = await writeOutput({ outDir: out, previous, files: [{ ...planned('site/a.json', 'a'), unchanged: true }, planned('site/b.json', 'b')], manifestFor });
    expect([kept.changed, kept.kept, kept.written]).toEqual([false, 2, []]);
    // The manifest is gone, so this is a full write: the marked file must be written all the same.
    await rm(join(out, 'manifest.json'));
    const full = await writeOutput({ outDir: out, previous, files: [{ ...planned('site/a.json', 'a'), unchanged: true }], manifestFor });
    expect(full.written).toEqual(['site/a.json']);
    expect(await readFile(join(out, 'site/a.json'), 'utf8')).toBe('a');
  });

  it('keeps the previous files a plan keeps unlisted, finds those gone in the segments it touches, and refuses a kept file the previous manifest lacks', async () => {
    const out = join(temp.path, 'dist');
    await write(out, [planned('site/a.json', 'a'), planned('site/b.json', 'b'), planned('site/c.json', 'c')]);
    const manifestFor: Parameters<typeof writeOutput>[0]['manifestFor'] = (e, reuse) => createManifest(e, FIXTURE_URLS, { records: 0, images: 0 }, reuse);
    const keeping = (...paths: string[]) => () => ({
      files: [],
      kept: { count: paths.length, has: (path: string) => paths.includes(path), folders: ['site/'], touched: () => [] },
    });
    const edited = await writeOutput({ outDir: out, previous: await readManifest(out), files: [planned('site/a.json', 'a2')], plannedLater: keeping('site/b.json', 'site/c.json'), manifestFor });
    expect([edited.written, edited.kept, edited.removed]).toEqual([['site/a.json'], 2, []]);
    expect(await readManifest(out).then((m) => m!.files)).toEqual(createManifest(new Map([['site/a.json', { sha256: sha256Of('a2'), size: 2 }], ['site/b.json', { sha256: sha256Of('b'), size: 1 }], ['site/c.json', { sha256: sha256Of('c'), size: 1 }]]), FIXTURE_URLS, { records: 0, images: 0 }).files);
    const removed = await writeOutput({ outDir: out, previous: await readManifest(out), files: [planned('site/a.json', 'a2')], plannedLater: keeping('site/b.json'), manifestFor });
    expect([removed.written, removed.kept, removed.removed]).toEqual([[], 2, ['site/c.json']]);
    expect(existsSync(join(out, 'site/c.json'))).toBe(false);
    expect(Object.keys((await readManifest(out))!.files)).toEqual(['site/a.json', 'site/b.json']);
    // Kept by two planners (the images up front, the answers later): counted together.
    const together = await writeOutput({ outDir: out, previous: await readManifest(out), files: [], kept: keeping('site/a.json')().kept, plannedLater: keeping('site/b.json'), manifestFor });
    expect([together.changed, together.kept, together.removed]).toEqual([false, 2, []]);
    const before = await snapshotDir(out);
    await expect(writeOutput({ outDir: out, previous: await readManifest(out), files: [planned('site/a.json', 'a2')], plannedLater: keeping('site/b.json', 'site/x.json'), manifestFor })).rejects.toThrow(/1 of the files kept from the previous output are not in its manifest/);
    expect(await snapshotDir(out)).toEqual(before);
    // Without the previous output there is nothing to keep from.
    const previous = await readManifest(out);
    await rm(join(out, 'manifest.json'));
    await expect(writeOutput({ outDir: out, previous, files: [], plannedLater: keeping('site/b.json'), manifestFor })).rejects.toThrow(/files kept from a previous output that is not there/);
    expect(await readdir(temp.path)).toEqual(['dist']);
  });

  it('keeps a generated file that came out identical', async () => {
    const out = join(temp.path, 'dist');
    const gen = async (dir: string) => {
      await mkdir(join(dir, 'functions'), { recursive: true });
      await writeFile(join(dir, 'functions', 'f.mjs'), 'export default 1;');
      return ['functions/f.mjs'];
    };
    await write(out, [planned('site/a.json', 'a')], gen);
    const ino = (await stat(join(out, 'functions', 'f.mjs'))).ino;
    const result = await write(out, [planned('site/a.json', 'a')], gen);
    expect(result.changed).toBe(false);
    expect((await stat(join(out, 'functions', 'f.mjs'))).ino).toBe(ino);
    expect((await readManifest(out))!.files['functions/f.mjs']!.size).toBe(17);
  });
});
