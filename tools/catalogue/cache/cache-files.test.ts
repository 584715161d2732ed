/**
 * A build whose cache files are not regular files: named pipes (one blocked the build for
 * ever, waiting for a writer or a reader), devices (a symlink to /dev/zero was read up to
 * 2 GB, one to /dev/null swallowed every save), sockets and folders (each stopped the build
 * with a stack trace: ENXIO, EISDIR). Real files of each kind, in a real build's cache folder;
 * `pepe check`, which reads the same cache, blocked on a pipe for ever too.
 */
import { spawnSync } from 'node:child_process';
import { cp, mkdir, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueModuleSource, compileCatalogue } from '../../../functions/core/catalogue.js';
import { FIXTURE_URLS, fixtureId, fixtureImage, makeFixtureContent } from '../../testing/fixture-catalogue.js';
import { makeNamedPipe, type NamedPipe } from '../../testing/named-pipe.js';
import { manifestListing, snapshotDir } from '../../testing/snapshot-dir.js';
import { makeTempDir, type TempDir } from '../../testing/temp-dir.js';
import { buildCatalogue, type BuildOptions } from '../build-catalogue.js';
import { CACHE_FILE_NAMES, CACHE_FOLDER_NAMES } from './cache-files.js';
import { checkContent } from '../check-content.js';
import { listContent, type ListedContent, scanContent } from '../scan-content.js';
import { LastBuild } from './last-build.js';
import { type AnalyseStats, takeOverFrom } from '../analyse-content.js';
import { readAhead, readAheadDone, readRegularFile, readRegularFileSync, withFileBytes } from '../../shared/read-regular-file.js';

let temp: TempDir;
let baseContent: string;
beforeAll(async () => {
  temp = await makeTempDir('pepe-cache-files-');
  baseContent = join(temp.path, 'content');
  await makeFixtureContent(baseContent, { count: 4 });
}, 120_000);
afterAll(async () => temp?.cleanup());

/** A content folder, output and cache of its own, built twice (the second build takes the fast path the first left). */
async function builtTwice(name: string): Promise<BuildOptions & { cacheDir: string }> {
  const contentDir = join(temp.path, name, 'content');
  await cp(baseContent, contentDir, { recursive: true });
  // Listed in a worker thread, as a large catalogue is, so that the cache files' reads during the scan meet each oddity.
  const options = { contentDir, outDir: join(temp.path, name, 'dist'), cacheDir: join(temp.path, name, 'cache'), urls: FIXTURE_URLS, listInWorkerFrom: 0 };
  expect((await buildCatalogue(options)).ok).toBe(true);
  expect((await buildCatalogue(options)).stats.shortcut).toBe('listing');
  return options;
}

/** One more image, so that the build reads and writes every cache file. */
async function addImage(contentDir: string, n: number): Promise<void> {
  const { bytes, ext } = await fixtureImage(60 + n);
  await writeFile(join(contentDir, `added-${n}${ext}`), bytes);
  await writeFile(join(contentDir, `added-${n}.json`), JSON.stringify({ id: fixtureId(`cache-files-added-${n}`), description: null, tags: null, created_at: '2026-02-01T00:00:00Z' }));
}

type Kind = { name: string; words: string; make: (file: string) => Promise<() => Promise<void>> };

const KINDS: Kind[] = [
  {
    name: 'named pipes',
    words: 'a named pipe (FIFO)',
    make: async (file) => {
      const pipe: NamedPipe = makeNamedPipe(file);
      return async () => pipe.remove();
    },
  },
  {
    name: 'devices (symlinks to /dev/zero)',
    words: 'a device',
    make: async (file) => {
      await symlink('/dev/zero', file);
      return async () => undefined;
    },
  },
  {
    name: 'sockets',
    words: 'a socket',
    make: async (file) => {
      const server: Server = createServer();
      await new Promise<void>((done) => server.listen(file, done));
      return () => new Promise<void>((done) => server.close(() => done()));
    },
  },
];

describe.skipIf(process.platform === 'win32')('a build whose cache files are not files', () => {
  it('writes only the files CACHE_FILE_NAMES lists, and the thumbnail file (a new cache file must be checked too)', async () => {
    const { cacheDir } = await builtTwice('names');
    const written = (await readdir(cacheDir)).filter((name) => !/^thumbs-[0-9a-z]+\.bin$/.test(name)).sort();
    // The renditions folder is made only when an image has renditions (these fixtures are too small for any).
    expect(written).toEqual([...CACHE_FILE_NAMES, ...CACHE_FOLDER_NAMES.filter((name) => written.includes(name))].sort());
  });

  it.each(KINDS)('reads $name as no cache, says so in one warning each, replaces them, and builds what a fresh build builds', async ({ name, words, make }) => {
    const own = await builtTwice(name.split(' ')[0]!);
    const cleanups: (() => Promise<void>)[] = [];
    try {
      for (const file of CACHE_FILE_NAMES) {
        await rm(join(own.cacheDir, file));
        cleanups.push(await make(join(own.cacheDir, file)));
      }
      // `pepe check` reads the build cache too, and writes nothing: no cache, no warning (the build says it).
      const checked = await checkContent({ contentDir: own.contentDir, cacheDir: own.cacheDir });
      expect(checked.problems).toEqual([]);
      expect(checked.stats.cacheHits).toBe(0);
      for (const file of CACHE_FILE_NAMES) expect((await stat(join(own.cacheDir, file))).isFile(), file).toBe(false);
      await addImage(own.contentDir, 0);
      const started = Date.now();
      const result = await buildCatalogue(own);
      expect(Date.now() - started, 'a cache file blocked the build').toBeLessThan(30_000);
      expect(result.ok, JSON.stringify(result.problems)).toBe(true);
      expect(result.problems).toEqual(
        CACHE_FILE_NAMES.map((file) => ({
          severity: 'warning',
          code: 'unusable-cache-file',
          file: join(own.cacheDir, file),
          message: `is ${words}, not a file: read as no cache, and replaced by this build's ${file}`,
        })).sort((a, b) => (a.file < b.file ? -1 : 1)),
      );
      expect(await readFile(join(own.outDir, 'data/catalogue.mjs'), 'utf8')).toBe(catalogueModuleSource(compileCatalogue(result.records, FIXTURE_URLS)));
      // The build that changed the output wrote every cache file: the cache is whole again, and the next build takes the fast path.
      for (const file of CACHE_FILE_NAMES) expect((await stat(join(own.cacheDir, file))).isFile(), file).toBe(true);
      const last = await buildCatalogue(own);
      expect(last.problems).toEqual([]);
      expect(last.stats.shortcut).toBe('listing');
    } finally {
      for (const cleanup of cleanups) await cleanup();
    }
  }, 120_000);

  it('refuses folders where its cache files go, naming each, before any work, and leaves the output as it was', async () => {
    const own = await builtTwice('folders');
    for (const file of CACHE_FILE_NAMES) {
      await rm(join(own.cacheDir, file));
      await mkdir(join(own.cacheDir, file));
    }
    await addImage(own.contentDir, 1);
    const before = await snapshotDir(own.outDir);
    const result = await buildCatalogue(own);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual(
      CACHE_FILE_NAMES.map((file) => ({
        severity: 'error',
        code: 'bad-cache-dir',
        file: join(own.cacheDir, file),
        message: `is a folder where the build keeps its cache file ${file}: delete it (the cache is only an optimisation), or pass --cache with another folder`,
      })),
    );
    expect(result.stats.decoded).toBe(0);
    expect(await snapshotDir(own.outDir)).toEqual(before);
    // Nothing of the user's was deleted.
    for (const file of CACHE_FILE_NAMES) expect((await stat(join(own.cacheDir, file))).isDirectory(), file).toBe(true);
  }, 120_000);

  it('prints each warning as one line from the real command', async () => {
    const own = await builtTwice('cli');
    await rm(join(own.cacheDir, 'answers.json'));
    await symlink('/dev/zero', join(own.cacheDir, 'answers.json'));
    await addImage(own.contentDir, 2);
    const child = spawnSync(process.execPath, [join(import.meta.dirname, '../../pepe.mjs'), 'build', '--content', own.contentDir, '--out', own.outDir, '--cache', own.cacheDir], { encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' });
    expect(child.status, child.stderr).toBe(0);
    expect(child.stderr).not.toMatch(/\n\s+at /);
    expect(`${child.stdout}${child.stderr}`).toMatch(new RegExp(`^warning: ${join(own.cacheDir, 'answers.json').replace(/[.]/g, '\\.')}: is a device, not a file: read as no cache, and replaced by this build's answers\\.json \\[unusable-cache-file\\]$`, 'm'));
  }, 120_000);
});

describe('the cache files a change build reads ahead during the scan', () => {
  it('are read ahead once the scan meets a change, taken only while the file is the one read, and never for unchanged content', async () => {
    const own = await builtTwice('ahead');
    // The scan in this thread and in a worker thread hint alike, and list alike, to the digest.
    const digests: string[] = [];
    const hint = async () => {
      const calls = [0, 0];
      const last = await LastBuild.open(own.cacheDir, own.outDir);
      const given = last.changeHint('settings')!;
      const listed = [await listContent(own.contentDir, { ...given, onChange: () => calls[0]!++, inWorker: false }), await listContent(own.contentDir, { ...given, onChange: () => calls[1]!++, inWorker: true })] as ListedContent[];
      expect(listed[1]!.digest).toBe(listed[0]!.digest);
      digests.push(listed[0]!.digest);
      const scans = [await listed[0]!.pair(), await listed[1]!.pair()];
      expect(scans[1]).toEqual(scans[0]);
      expect(scans[0]).toEqual(await scanContent(own.contentDir));
      expect(calls[1]).toBe(calls[0]);
      return calls[0];
    };
    expect(await hint()).toBe(0);
    // Past the coarse clock's tick, so a change's ctime is later than the last build's.
    const tick = () => new Promise((done) => setTimeout(done, 50));
    await tick();
    // A hidden file made and deleted moves the folder's ctime: one no-change build reads ahead, and quiets the hint for the next.
    await writeFile(join(own.contentDir, '.DS_Store'), '');
    await rm(join(own.contentDir, '.DS_Store'));
    expect(await hint()).toBe(1);
    expect((await buildCatalogue(own)).stats.shortcut).toBe('listing');
    expect(await hint()).toBe(0);
    // A sidecar written again as it was: the build that reads it finds the same records, and quiets the hint for the next.
    await tick();
    const sidecar = (await readdir(own.contentDir)).find((name) => name.endsWith('.json'))!;
    await writeFile(join(own.contentDir, sidecar), await readFile(join(own.contentDir, sidecar)));
    expect(await hint()).toBe(1);
    expect((await buildCatalogue(own)).stats.shortcut).toBe('records');
    expect(await hint()).toBe(0);
    await tick();
    await addImage(own.contentDir, 3);
    expect(await hint()).toBe(1);
    // A hidden file made and deleted leaves the listing as it was; an added image does not.
    expect(new Set(digests.slice(0, 3)).size).toBe(1);
    expect(digests[5]).not.toBe(digests[0]);

    const file = join(temp.path, 'ahead', 'bytes.bin');
    await writeFile(file, 'read ahead');
    const pipePath = join(temp.path, 'ahead', 'pipe');
    const pipe = makeNamedPipe(pipePath);
    try {
      readAhead([file, pipePath, join(temp.path, 'ahead', 'missing')]);
      await readAheadDone(file);
      expect(readRegularFileSync(file).toString()).toBe('read ahead');
      // A file replaced after its read ahead began is read again.
      readAhead([file]);
      await writeFile(`${file}.new`, 'replaced');
      await rename(`${file}.new`, file);
      expect((await readRegularFile(file)).toString()).toBe('replaced');
      expect(() => readRegularFileSync(pipePath)).toThrow(/named pipe/);
      // Each read through the one reused buffer sees its own file's bytes, shorter or longer than the last.
      const longer = join(temp.path, 'ahead', 'longer.bin');
      await writeFile(longer, 'x'.repeat(2_500_000));
      expect(withFileBytes(file, (bytes) => bytes.toString())).toBe('replaced');
      // Read ahead into the page cache (a megabyte at a time), then read from there.
      readAhead([longer], 'page cache');
      await readAheadDone(longer);
      expect(withFileBytes(longer, (bytes) => [bytes.length, bytes.every((byte) => byte === 0x78)])).toEqual([2_500_000, true]);
      expect(withFileBytes(file, (bytes) => bytes.toString())).toBe('replaced');
      expect(() => withFileBytes(pipePath, () => 0)).toThrow(/named pipe/);
      expect(() => withFileBytes(join(temp.path, 'ahead', 'missing'), () => 0)).toThrow(/ENOENT/);
    } finally {
      pipe.remove();
    }
    // A real change build with its reads ahead gives the output a full build gives.
    const result = await buildCatalogue(own);
    expect([result.ok, result.stats.changed, result.records.length]).toEqual([true, { read: 1, removed: 0 }, 5]);
    const fresh = { ...own, outDir: join(temp.path, 'ahead', 'fresh'), cacheDir: join(temp.path, 'ahead', 'fresh-cache') };
    expect(manifestListing(result.manifest)).toEqual(manifestListing((await buildCatalogue(fresh)).manifest));
  }, 120_000);
});

describe("a change build's take-over of the last build's pairs", () => {
  it('finds the same in steps, as the listing fills the stats, as in one pass', async () => {
    const own = await builtTwice('take-over');
    await addImage(own.contentDir, 4);
    const names = (await readdir(own.contentDir)).filter((name) => name.endsWith('.json') && !name.startsWith('added-')).sort();
    // One sidecar edited, one pair gone: read again, and removed.
    const edited = join(own.contentDir, names[0]!);
    await writeFile(edited, JSON.stringify({ ...JSON.parse(await readFile(edited, 'utf8')), description: 'edited' }));
    const gone = (await readdir(own.contentDir)).filter((name) => name.startsWith(names[1]!.slice(0, -'.json'.length) + '.'));
    for (const name of gone) await rm(join(own.contentDir, name));
    const settings = (JSON.parse(await readFile(join(own.cacheDir, 'last-build.json'), 'utf8')) as { pairsSettings: string }).pairsSettings;
    const previous = (await (await LastBuild.open(own.cacheDir, own.outDir)).changeBase(settings))!;
    const scan = await scanContent(own.contentDir);
    const found = (steps: number[]) => {
      const takeOver = takeOverFrom(scan, previous, own.cacheDir);
      const advanced = steps.map((filled) => takeOver.advance((pair) => pair < filled));
      const stats = { images: 0, cacheHits: 0 } as AnalyseStats;
      const { misses, removed, problems, freed, freedDigests } = takeOver.finish(stats);
      const items = takeOver.items.map((item) => item?.record.id ?? null);
      return { advanced, items, misses, removed, problems, freed: [...freed].sort(), freedDigests: [...freedDigests].sort(), stats };
    };
    const oneShot = found([]);
    expect([oneShot.misses.length, oneShot.removed.length, oneShot.stats.cacheHits]).toEqual([2, 1, scan.pairs.length - 2]);
    const stepped = found(Array.from({ length: scan.pairs.length + 1 }, (_, filled) => filled));
    expect(stepped.advanced).toEqual([...Array<boolean>(scan.pairs.length).fill(false), true]);
    expect({ ...stepped, advanced: [] }).toEqual({ ...oneShot, advanced: [] });
  }, 120_000);
});
