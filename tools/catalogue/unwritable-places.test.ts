/**
 * `pepe build`, `pepe dupes`, `pepe add` and the sample generator pointed at places that cannot hold files although
 * their permission bits say they can (root passes every access check): /proc, a link to
 * nothing, a path below a file. Node's recursive mkdir retries for ever on the ENOENT procfs
 * answers, so `pepe build --out /proc/x` spun at full CPU; each must end at once with the
 * folder named and the documented exit status. Real `pepe` processes, each with a time limit.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeFixtureContent } from '../testing/fixture-catalogue.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';

vi.setConfig({ testTimeout: 60_000 });

const PEPE = fileURLToPath(new URL('../pepe.mjs', import.meta.url));
const SAMPLE_SCRIPT = fileURLToPath(new URL('../sample/make-sample-content.ts', import.meta.url));
/** tsx is resolved from here. */
const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** Far above the second these take; a spinning command is killed here and the test fails. */
const LIMIT_MS = 20_000;
let temp: TempDir;

beforeAll(async () => {
  temp = await makeTempDir('pepe-unwritable-');
  await makeFixtureContent(join(temp.path, 'content'), { count: 2 });
  await symlink(join(temp.path, 'nothing-here'), join(temp.path, 'dangling'));
  await writeFile(join(temp.path, 'notes.txt'), 'not a folder\n');
  await mkdir(join(temp.path, 'out'));
}, 60_000);
afterAll(() => temp.cleanup());

function pepe(...args: string[]) {
  const started = Date.now();
  const child = spawnSync(process.execPath, [PEPE, ...args], { cwd: temp.path, encoding: 'utf8', timeout: LIMIT_MS, killSignal: 'SIGKILL' });
  return { status: child.status, signal: child.signal, stderr: child.stderr, stdout: child.stdout, ms: Date.now() - started };
}

const onLinux = existsSync('/proc/self');

describe('pepe build into a place that cannot hold files', () => {
  it.skipIf(!onLinux)('--out /proc/x: an error naming the folder, exit 1, at once (it spun for ever)', () => {
    const run = pepe('build', '--out', '/proc/pepe-out');
    expect(run.signal).toBeNull();
    expect(run.stderr).toMatch(/^error: the output folder "\/proc\/pepe-out" cannot be written: "\/proc" cannot hold new files \(a virtual filesystem such as \/proc, or a link to something that does not exist\): make it writable, or pass --out with a folder you can write \[bad-out-dir\]$/m);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.status).toBe(1);
    expect(run.ms).toBeLessThan(LIMIT_MS);
  });

  it.skipIf(!onLinux)('--cache /proc/x deeper down: the same, for the cache folder', () => {
    const run = pepe('build', '--out', 'out/dist', '--cache', '/proc/pepe-cache/a/b');
    expect(run.signal).toBeNull();
    expect(run.stderr).toMatch(/^error: the cache folder "\/proc\/pepe-cache\/a\/b" cannot be written: "\/proc" cannot hold new files .*pass --cache with a folder you can write \[bad-cache-dir\]$/m);
    expect(run.status).toBe(1);
  });

  it('--out below a link to nothing: named, not spun on (mkdir there answers ENOENT too)', () => {
    const run = pepe('build', '--out', 'dangling/dist');
    expect(run.signal).toBeNull();
    expect(run.stderr).toMatch(/^error: the output folder ".*\/dangling\/dist" cannot be written: ".*\/dangling" cannot hold new files .*\[bad-out-dir\]$/m);
    expect(run.status).toBe(1);
  });

  it('--out below a file: named as a file', () => {
    const run = pepe('build', '--out', 'notes.txt/dist');
    expect(run.stderr).toMatch(/^error: the output folder ".*\/notes\.txt\/dist" cannot be a folder: ".*\/notes\.txt" is a file: choose another --out \[bad-out-dir\]$/m);
    expect(run.status).toBe(1);
  });

  it('a writable --out still builds (the check leaves nothing behind)', () => {
    const run = pepe('build', '--out', 'out/dist', '--cache', 'out/cache');
    expect(run.stderr).toMatch(/^built /);
    expect(run.status).toBe(0);
    expect(spawnSync('ls', ['-A', join(temp.path, 'out')], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).sort()).toEqual(['cache', 'dist']);
  });
});

describe.skipIf(!onLinux)('pepe dupes with a cache in /proc', () => {
  it('reads the content without updating a cache it cannot write', () => {
    const run = pepe('dupes', '--cache', '/proc/pepe-cache');
    expect(run.signal).toBeNull();
    expect(run.status).toBe(0);
  });
});

describe.skipIf(!onLinux)('the sample generator with --out in /proc', () => {
  it('names the folder and exits 1 at once (its recursive mkdir spun for ever)', () => {
    const started = Date.now();
    const child = spawnSync(process.execPath, ['--import', 'tsx', SAMPLE_SCRIPT, '--out', '/proc/pepe-sample'], { cwd: REPO, encoding: 'utf8', timeout: LIMIT_MS, killSignal: 'SIGKILL' });
    expect(child.signal).toBeNull();
    expect(child.stderr).toBe('make-sample-content: cannot write the sample into --out "/proc/pepe-sample" (ENOENT): pass --out with a folder you can write\n');
    expect(child.status).toBe(1);
    expect(Date.now() - started).toBeLessThan(LIMIT_MS);
  });
});

describe.skipIf(!onLinux)('pepe add --into a new folder in a place that cannot hold one', () => {
  it('is a write-failed error naming the folder, exit 1, at once (it spun in the --into mkdir)', () => {
    const run = pepe('add', join('content', readdirSync(join(temp.path, 'content')).find((name) => name.endsWith('.png'))!), '--content', '/proc', '--into', 'pepe-new');
    expect(run.signal).toBeNull();
    expect(run.stderr).toMatch(/^error: could not write "pepe-new" \(ENOENT\): .*\[write-failed\]\nnothing was added\n$/);
    expect(run.status).toBe(1);
  });
});
