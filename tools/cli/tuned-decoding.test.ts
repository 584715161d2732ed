import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyseImage } from '../image/analyse-image.js';
import { analyseContent } from '../catalogue/analyse-content.js';
import { fixtureId, fixtureImage, makeFixtureContent } from '../testing/fixture-catalogue.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import type { Io } from '../shared/io.js';
import { DECODES_WITHOUT_TUNING, withTunedDecoding } from './tuned-decoding.js';

const REPO = join(import.meta.dirname, '../..');
const io = (rerunTuned?: () => number | null): Io => ({ stdout: () => {}, stderr: () => {}, isTTY: false, env: {}, cwd: '/', ...(rerunTuned ? { rerunTuned } : {}) });

/** Work that needs `uncached` decodes and asks the hook first, like analyseContent does. */
function work(uncached: number) {
  const hooks: (((n: number) => boolean) | undefined)[] = [];
  const run = async (beforeDecoding?: (n: number) => boolean) => {
    hooks.push(beforeDecoding);
    if (beforeDecoding?.(uncached) === false) return { declined: uncached };
    return { built: true };
  };
  return { run, hooks };
}

describe('withTunedDecoding', () => {
  it('just runs the work where no tuned process can be had (tests, other platforms, malloc tuned by the user)', async () => {
    const w = work(1000);
    expect(await withTunedDecoding(io(), w.run)).toEqual({ done: { built: true } });
    expect(w.hooks).toEqual([undefined]);
  });

  it(`decodes up to ${DECODES_WITHOUT_TUNING} images in this process`, async () => {
    const w = work(DECODES_WITHOUT_TUNING);
    let reruns = 0;
    expect(await withTunedDecoding(io(() => ++reruns), w.run)).toEqual({ done: { built: true } });
    expect(reruns).toBe(0);
  });

  it('hands more to a tuned process and returns its exit status', async () => {
    const w = work(DECODES_WITHOUT_TUNING + 1);
    expect(await withTunedDecoding(io(() => 3), w.run)).toEqual({ rerun: 3 });
    expect(w.hooks).toHaveLength(1);
  });

  it('decodes here after all when the tuned process cannot be started', async () => {
    const w = work(500);
    expect(await withTunedDecoding(io(() => null), w.run)).toEqual({ done: { built: true } });
    expect(w.hooks).toHaveLength(2);
    expect(w.hooks[1]).toBeUndefined();
  });

  it('lets any other failure through', async () => {
    await expect(withTunedDecoding(io(() => 0), async () => Promise.reject(new Error('disk on fire')))).rejects.toThrow('disk on fire');
  });
});

describe('analyseContent before decoding', () => {
  let temp: TempDir;
  beforeAll(async () => {
    temp = await makeTempDir('pepe-tuned-decoding-');
    await makeFixtureContent(join(temp.path, 'content'), { count: DECODES_WITHOUT_TUNING + 2 });
  });
  afterAll(() => temp.cleanup());

  it('stops before decoding anything or writing the cache when the hook declines, saying how many images wait', async () => {
    let decodes = 0;
    const analyse: typeof analyseImage = (bytes, options) => {
      decodes++;
      return analyseImage(bytes, options);
    };
    const cacheDir = join(temp.path, 'cache');
    const stopped = await analyseContent({ contentDir: join(temp.path, 'content'), cacheDir, analyse, beforeDecoding: (n) => n <= DECODES_WITHOUT_TUNING });
    expect(stopped).toMatchObject({ declined: DECODES_WITHOUT_TUNING + 2, items: [], problems: [] });
    expect(decodes).toBe(0);
    expect(existsSync(cacheDir)).toBe(false);
  });

  it('is not asked when everything is in the cache', async () => {
    const cacheDir = join(temp.path, 'cache-full');
    await analyseContent({ contentDir: join(temp.path, 'content'), cacheDir });
    const asked: number[] = [];
    await analyseContent({ contentDir: join(temp.path, 'content'), cacheDir, beforeDecoding: (n) => asked.push(n) > 0 });
    expect(asked).toEqual([]);
  });

  it('is not asked in a fresh clone with the cache restored: every image is known by its bytes, none is decoded', async () => {
    const cacheDir = join(temp.path, 'cache-carried');
    await analyseContent({ contentDir: join(temp.path, 'content'), cacheDir });
    // A clone: the same files with new inodes and mtimes, so no stat is known.
    const clone = join(temp.path, 'clone');
    await cp(join(temp.path, 'content'), clone, { recursive: true });
    const asked: number[] = [];
    const analysed = await analyseContent({ contentDir: clone, cacheDir, beforeDecoding: (n) => asked.push(n) > 0 });
    expect(asked).toEqual([]);
    expect(analysed.stats).toMatchObject({ images: DECODES_WITHOUT_TUNING + 2, decoded: 0, hashed: DECODES_WITHOUT_TUNING + 2 });
  });

  it('is told only the images whose bytes are new when the rest of a fresh clone is in the cache, and reads each image once', async () => {
    const cacheDir = join(temp.path, 'cache-carried-one-new');
    await analyseContent({ contentDir: join(temp.path, 'content'), cacheDir });
    const clone = join(temp.path, 'clone-one-new');
    await cp(join(temp.path, 'content'), clone, { recursive: true });
    const added = await fixtureImage(1000);
    await writeFile(join(clone, `added${added.ext}`), added.bytes);
    await writeFile(join(clone, 'added.json'), JSON.stringify({ id: fixtureId('added'), description: null, tags: null, created_at: '2030-01-01T00:00:00Z' }));
    const asked: number[] = [];
    const analysed = await analyseContent({ contentDir: clone, cacheDir, beforeDecoding: (n) => asked.push(n) > 0 });
    expect(asked).toEqual([1]);
    // The new image is decoded from the bytes read to count it, not read and hashed a second time.
    expect(analysed.stats).toMatchObject({ images: DECODES_WITHOUT_TUNING + 3, decoded: 1, hashed: DECODES_WITHOUT_TUNING + 3 });
  });

  it('the real `pepe build` moves to a tuned process for many new images, and stays for a rebuild', async () => {
    const run = () =>
      new Promise<{ code: number | null; stderr: string }>((done) => {
        const { GLIBC_TUNABLES: _a, MALLOC_ARENA_MAX: _b, MALLOC_MMAP_THRESHOLD_: _c, ...env } = process.env;
        const child = spawn(process.execPath, [join(REPO, 'tools/pepe.mjs'), 'build'], { cwd: temp.path, env: { ...env, PEPE_CLI_DEBUG: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.once('exit', (code) => done({ code, stderr }));
      });
    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("pepe: many images to decode: running the command again with glibc's malloc tuned for it");
    expect(first.stderr).toMatch(/^built dist: 18 images/m);
    const again = await run();
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('many images to decode');
    expect(again.stderr).toMatch(/^nothing changed: 18 images/m);
  }, 120_000);
});
