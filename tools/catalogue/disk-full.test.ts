/**
 * A full disk under the output or the cache folder: a real tmpfs (root on Linux only; skipped
 * elsewhere, and where the container may not mount). The build must report `disk-full`, not
 * throw, and leave the output and the folders around it as they were.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE_URLS, makeFixtureContent } from '../testing/fixture-catalogue.js';
import { snapshotDir } from '../testing/snapshot-dir.js';
import { buildCatalogue } from './build-catalogue.js';

const root = mkdtempSync(join(tmpdir(), 'pepe-disk-full-'));
const full = join(root, 'full');
/** Too small for the 40-image fixture's output (~1.6 MB on disk) or cache, large enough for a 3-image build (~0.55 MB). */
const mounted = process.platform === 'linux' && process.getuid?.() === 0 && spawnSync('mkdir', ['-p', full]).status === 0 && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1200k', 'tmpfs', full]).status === 0;
afterAll(() => {
  if (mounted) spawnSync('umount', [full]);
  rmSync(root, { recursive: true, force: true });
});

const content = async (name: string, count: number) => {
  const dir = join(root, name);
  if (!existsSync(dir)) await makeFixtureContent(dir, { count });
  return dir;
};
const build = async (contentDir: string, outDir: string, cacheDir: string) => buildCatalogue({ contentDir, outDir, cacheDir, urls: FIXTURE_URLS });
const clear = () => {
  for (const name of readdirSync(full)) rmSync(join(full, name), { recursive: true, force: true });
};

describe.runIf(mounted)('pepe build on a full disk', () => {
  it('a first build whose output does not fit reports disk-full, leaves nothing on that disk, and builds elsewhere afterwards', async () => {
    clear();
    const big = await content('big', 40);
    const result = await build(big, join(full, 'dist'), join(root, 'cache-1'));
    expect(result.ok).toBe(false);
    expect(result.problems.map((p) => p.code)).toEqual(['disk-full']);
    expect(result.problems[0]!.message).toContain(`the output folder "${join(full, 'dist')}"`);
    expect(readdirSync(full)).toEqual([]);
    const elsewhere = await build(big, join(root, 'roomy'), join(root, 'cache-1'));
    expect(elsewhere.ok).toBe(true);
    // The search index and the encoded records were saved while the output was being written
    // (build-catalogue.ts), so the build elsewhere neither indexes nor encodes them again.
    expect(elsewhere.stats.searchIndex?.path).toBe('reused');
    expect(elsewhere.stats.recordEncoding).toEqual({ reused: 40, encoded: 0 });
  });

  it('an incremental build that does not fit leaves the previous output exactly as it was', async () => {
    clear();
    const out = join(full, 'dist');
    expect((await build(await content('small', 3), out, join(root, 'cache-2'))).ok).toBe(true);
    const before = await snapshotDir(out);
    const result = await build(await content('big', 40), out, join(root, 'cache-2'));
    expect(result.problems.map((p) => p.code)).toEqual(['disk-full']);
    expect(await snapshotDir(out)).toEqual(before);
    expect(readdirSync(full)).toEqual(['dist']);
  });

  it('a cache folder on a full disk is reported as such, and no thumbnail file is left filling it', async () => {
    clear();
    // The 40 images' thumbnails alone are 120 kB.
    expect(spawnSync('mount', ['-o', 'remount,size=64k', full]).status).toBe(0);
    const result = await build(await content('big', 40), join(root, 'out-3'), join(full, 'cache'));
    expect(result.problems.map((p) => p.code)).toEqual(['disk-full']);
    expect(result.problems[0]!.message).toContain(`the cache folder "${join(full, 'cache')}"`);
    expect(existsSync(join(root, 'out-3'))).toBe(false);
    expect(readdirSync(join(full, 'cache')).filter((name) => name.startsWith('thumbs-'))).toEqual([]);
  });
});
