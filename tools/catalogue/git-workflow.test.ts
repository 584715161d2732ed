/**
 * The build across what maintainers do with git: switch branches, move, rename in letter
 * case only, delete and revert, check out an older commit. Git rewrites the files it touches
 * (new inodes and mtimes), so the stat cache misses; the images must still never be decoded
 * again, and every build must equal a build from scratch. One shared output and cache folder,
 * a real repository, the real build.
 */
import { loadManifest } from '../shared/manifest.js';
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FIXTURE_URLS, fixtureContentFolder, fixtureId, fixtureImage } from '../testing/fixture-catalogue.js';
import type { TempDir } from '../testing/temp-dir.js';
import { buildCatalogue } from './build-catalogue.js';

// Real image analysis on a machine shared with other jobs.
vi.setConfig({ testTimeout: 120_000 });

let temp: TempDir;
let fresh = 0;
const git = (...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: temp.path, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
/** A build into the shared output and cache, as a maintainer's checkout has them. */
const build = () => buildCatalogue({ contentDir: join(temp.path, 'content'), outDir: join(temp.path, 'dist'), cacheDir: join(temp.path, '.pepe-cache'), urls: FIXTURE_URLS });
/** A build from scratch of the same content: a fresh output and cache folder. */
const scratch = () => {
  fresh++;
  return buildCatalogue({ contentDir: join(temp.path, 'content'), outDir: join(temp.path, `.fresh-${fresh}`, 'dist'), cacheDir: join(temp.path, `.fresh-${fresh}`, 'cache'), urls: FIXTURE_URLS });
};
const manifestOf = async (dir: string) => (await loadManifest(dir))!;

/** Builds, expects no image decoded and the result of a build from scratch. */
async function buildWithoutDecoding(): Promise<void> {
  const built = await build();
  const reference = await scratch();
  expect(built.problems).toEqual(reference.problems);
  expect(built.records).toEqual(reference.records);
  expect((await manifestOf(join(temp.path, 'dist'))).files).toEqual((await manifestOf(join(temp.path, `.fresh-${fresh}`, 'dist'))).files);
  expect(built.stats.decoded).toBe(0);
}

beforeAll(async () => {
  ({ temp } = await fixtureContentFolder('pepe-git-workflow-', 6));
  await writeFile(join(temp.path, '.gitignore'), 'dist/\n.pepe-cache/\n.fresh-*/\n');
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'catalogue');
  expect((await build()).problems).toEqual([]);
}, 180_000);
afterAll(() => temp.cleanup());

describe('pepe build in a git checkout', () => {
  it('never decodes an image again when switching branches back and forth with one cache', async () => {
    git('checkout', '-q', '-b', 'new-frogs');
    for (const index of [20, 21]) {
      const { bytes, ext } = await fixtureImage(index);
      await writeFile(join(temp.path, 'content', `branch-${index}${ext}`), bytes);
      await writeFile(join(temp.path, 'content', `branch-${index}.json`), JSON.stringify({ id: fixtureId(`branch-${index}`), description: null, tags: null, created_at: '2026-01-01T00:00:00Z' }));
    }
    git('add', '.');
    git('commit', '-q', '-m', 'two frogs');
    expect((await build()).stats.decoded).toBe(2);
    git('checkout', '-q', 'main');
    await buildWithoutDecoding();
    // Back on the branch: its two images were decoded once, on the first build there.
    git('checkout', '-q', 'new-frogs');
    await buildWithoutDecoding();
    git('checkout', '-q', 'main');
    await buildWithoutDecoding();
  });

  it('never decodes after git mv into another folder, a rename in letter case only, a delete and its revert', async () => {
    const image = (base: string) => git('ls-files', 'content').split('\n').find((file) => file.startsWith(`content/${base}.`) && !file.endsWith('.json'))!;
    const [ext0, ext1, ext3] = ['frog-000', 'frog-001', 'frog-003'].map((base) => image(base).slice(`content/${base}`.length));
    await mkdir(join(temp.path, 'content', 'moved'));
    git('mv', `content/frog-000${ext0}`, `content/moved/frog-000${ext0}`);
    git('mv', 'content/frog-000.json', 'content/moved/frog-000.json');
    git('commit', '-q', '-m', 'move');
    await buildWithoutDecoding();
    git('mv', `content/frog-001${ext1}`, `content/Frog-001${ext1}`);
    git('mv', 'content/frog-001.json', 'content/Frog-001.json');
    git('commit', '-q', '-m', 'case');
    await buildWithoutDecoding();
    git('rm', '-q', `content/frog-003${ext3}`, 'content/frog-003.json');
    git('commit', '-q', '-m', 'delete');
    await buildWithoutDecoding();
    git('revert', '--no-edit', 'HEAD');
    await buildWithoutDecoding();
  });

  it('builds an older commit checked out (new mtimes on every file git rewrote) as a build from scratch would', async () => {
    git('checkout', '-q', 'HEAD~3');
    await buildWithoutDecoding();
    git('checkout', '-q', 'main');
    await buildWithoutDecoding();
  });
});
