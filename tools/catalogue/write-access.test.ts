import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtureImage, makeFixtureContent } from '../testing/fixture-catalogue.js';
import { otherUser, pepeAsOtherUser } from '../testing/as-other-user.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';

// Real `pepe` processes on a machine shared with other jobs.
vi.setConfig({ testTimeout: 120_000 });

let temp: TempDir;
let checkout: string;
const canTest = otherUser.available;
const pepe = (...args: string[]) => pepeAsOtherUser(checkout, ...args);

beforeAll(async () => {
  if (!canTest) return;
  temp = await makeTempDir('pepe-readonly-');
  checkout = join(temp.path, 'checkout');
  await makeFixtureContent(join(checkout, 'content'), { count: 3 });
  await writeFile(join(temp.path, 'new.png'), (await fixtureImage(20)).bytes);
  await mkdir(join(temp.path, 'writable'));
  // A read-only checkout: readable by all, writable by no one but root.
  for (const dir of [temp.path, join(temp.path, 'writable')]) await chmod(dir, 0o777);
  await chmod(join(temp.path, 'new.png'), 0o644);
  await chmod(join(checkout, 'content'), 0o555);
  await chmod(checkout, 0o555);
}, 60_000);
afterAll(async () => {
  if (!canTest) return;
  await chmod(checkout, 0o755);
  await chmod(join(checkout, 'content'), 0o755);
  await temp.cleanup();
});

describe.skipIf(!canTest)('a checkout this user cannot write', () => {
  it('pepe build names the output and cache folders and the flags to change, with no stack trace', () => {
    const run = pepe('build');
    expect(run.stderr).toMatch(/^error: the output folder ".*\/checkout\/dist" cannot be written: ".*\/checkout" is not writable for this user: make it writable, or pass --out with a folder you can write \[bad-out-dir\]$/m);
    expect(run.stderr).toMatch(/^error: the cache folder ".*\/checkout\/\.pepe-cache" cannot be written: .* pass --cache with a folder you can write \[bad-cache-dir\]$/m);
    expect(run.stderr).not.toMatch(/unexpected failure|\n\s+at /);
    expect(run.status).toBe(1);
  });

  it('pepe build with --out and --cache elsewhere builds', async () => {
    const run = pepe('build', '--out', join(temp.path, 'writable', 'dist'), '--cache', join(temp.path, 'writable', 'cache'));
    expect(run.stderr).toMatch(/^built .*: 3 images/);
    expect(run.status).toBe(0);
    expect(await readdir(join(temp.path, 'writable', 'dist'))).toContain('manifest.json');
  });

  it('pepe check and pepe dupes read the content and leave the cache alone', () => {
    expect(pepe('check').status).toBe(0);
    const dupes = pepe('dupes');
    expect(dupes.stderr).toBe('');
    expect(dupes.stdout).toContain('No near-duplicates');
    expect(dupes.status).toBe(0);
  });

  it('pepe add says which file it could not write, and nothing was added', async () => {
    const run = pepe('add', join(temp.path, 'new.png'));
    expect(run.stderr).toMatch(/^error: could not write "new\.\w+" \(EACCES\): .* \[write-failed\]\nnothing was added\n$/);
    expect(run.status).toBe(1);
    expect((await readdir(join(checkout, 'content'))).filter((name) => name.startsWith('new') || name.startsWith('.'))).toEqual([]);
  });
});
