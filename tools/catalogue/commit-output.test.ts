import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import fg from 'fast-glob';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURE_URLS } from '../testing/fixture-catalogue.js';
import { snapshotDir } from '../testing/snapshot-dir.js';
import { AT_ONCE_MS, makeNamedPipe, timed } from '../testing/named-pipe.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { recoverOutput, REMOVE_IN_PROCESS_MAX } from './commit-output.js';
import { createManifest, readManifest, segmentFiles } from '../shared/manifest.js';
import { sha256Of } from '../shared/manifest.js';
import { byteLength, type PlannedFile, writeOutput } from './write-output.js';

let temp: TempDir;
beforeEach(async () => {
  temp = await makeTempDir('pepe-commit-test-');
});
afterEach(() => temp.cleanup());

const planned = (path: string, body: string): PlannedFile => ({ path, body, sha256: sha256Of(body), size: byteLength(body) });
const write = async (outDir: string, files: PlannedFile[], beforeCommitStep?: () => void) =>
  writeOutput({ outDir, previous: await readManifest(outDir), files, manifestFor: (e) => createManifest(e, FIXTURE_URLS, { records: 0, images: 0 }), ...(beforeCommitStep ? { beforeCommitStep } : {}) });
/** A commit step hook that fails the step after the first `steps` ones. */
const failAfter = (steps: number) => {
  let done = 0;
  return () => {
    if (done++ === steps) throw new Error('injected commit failure');
  };
};

/** The same `write` in a child process that kills itself (SIGKILL) before commit step `steps` + 1: a real crash, no rollback. */
const CRASHING_WRITER = `
import { createManifest, readManifest } from '../shared/manifest.js';
import { writeOutput } from './write-output.js';
const { outDir, files, urls, steps } = JSON.parse(process.argv[2]);
let done = 0;
await writeOutput({ outDir, previous: await readManifest(outDir), files, manifestFor: (e) => createManifest(e, urls, { records: 0, images: 0 }), beforeCommitStep: () => {
  if (done++ === steps) process.kill(process.pid, 'SIGKILL');
} });
`;
let writerDir: TempDir;
let crashingWriter: string;
beforeAll(async () => {
  writerDir = await makeTempDir('pepe-crashing-writer-');
  crashingWriter = join(writerDir.path, 'crashing-writer.mjs');
  await build({ stdin: { contents: CRASHING_WRITER, resolveDir: import.meta.dirname, loader: 'ts' }, bundle: true, platform: 'node', format: 'esm', outfile: crashingWriter, logLevel: 'silent' });
});
afterAll(() => writerDir.cleanup());
const crashAfter = (outDir: string, files: PlannedFile[], steps: number) =>
  spawnSync(process.execPath, [crashingWriter, JSON.stringify({ outDir, files, urls: FIXTURE_URLS, steps })], { encoding: 'utf8' });

const V1 = [planned('site/a.json', 'a'), planned('site/b.json', 'b'), planned('site/old/c.json', 'c'), planned('data/x.mjs', 'x')];
// Replaces b, adds d in a new folder, removes c (and its folder): every kind of commit step.
const V2 = [planned('site/a.json', 'a'), planned('site/b.json', 'B!'), planned('site/new/d.json', 'd'), planned('data/x.mjs', 'x')];
/** create site/new, link+rename b, rename d, rename the 2 new segments (site, site/new), move c, manifest = 8 steps before the commit point. */
const COMMIT_STEPS = 8;

/** Files (bytes, inode, mtime) and folders: what "exactly as it was" is checked against. */
async function state(dir: string) {
  return { files: await snapshotDir(dir), dirs: (await fg('**/*', { cwd: dir, onlyDirectories: true, dot: true })).sort() };
}

describe('incremental output commit', () => {
  it('touches only changed files: unchanged ones keep inode and mtime, emptied folders go', async () => {
    const out = join(temp.path, 'dist');
    await write(out, V1);
    const before = await state(out);
    const result = await write(out, V2);
    const after = await state(out);
    expect(result.written).toEqual(['site/b.json', 'site/new/d.json']);
    expect(result.removed).toEqual(['site/old/c.json']);
    expect(result.kept).toBe(2);
    expect(after.files['site/a.json']).toEqual(before.files['site/a.json']);
    expect(after.files['data/x.mjs']).toEqual(before.files['data/x.mjs']);
    expect(after.dirs).toEqual(['data', 'manifest', 'site', 'site/new']);
    expect(await readFile(join(out, 'site/b.json'), 'utf8')).toBe('B!');
    expect((await readManifest(out))?.version).toBe(result.manifest.version);
  });

  it.each(Array.from({ length: COMMIT_STEPS }, (_, i) => i))('a failure after %i commit steps rolls the output back exactly', async (steps) => {
    const out = join(temp.path, 'dist');
    await write(out, V1);
    const before = await state(out);
    await expect(write(out, V2, failAfter(steps))).rejects.toThrow('injected commit failure');
    expect(await state(out)).toEqual(before);
    expect(await readdir(temp.path)).toEqual(['dist']);
  });

  it.each(Array.from({ length: COMMIT_STEPS }, (_, i) => i))('after a crash at commit step %i, recovery restores the previous output exactly', async (steps) => {
    const out = join(temp.path, 'dist');
    await write(out, V1);
    const before = await state(out);
    expect(crashAfter(out, V2, steps)).toMatchObject({ signal: 'SIGKILL', stderr: '' });
    expect(recoverOutput(out).state).toBe('rolled-back');
    expect(await state(out)).toEqual(before);
    expect(await readdir(temp.path)).toEqual(['dist']);
    // And the next build applies the change normally.
    await write(out, V2);
    expect(await readFile(join(out, 'site/new/d.json'), 'utf8')).toBe('d');
  });

  // Past the commit point: before the old segments were deleted, and after the first of them.
  it.each([COMMIT_STEPS, COMMIT_STEPS + 1])('after a crash past the commit point (step %i), recovery keeps the new output and deletes the old segments', async (steps) => {
    const out = join(temp.path, 'dist');
    await write(out, V1);
    expect(crashAfter(out, V2, steps)).toMatchObject({ signal: 'SIGKILL', stderr: '' });
    const committed = await state(out);
    const named = segmentFiles((await readManifest(out))!);
    expect(Object.keys(committed.files).filter((p) => p.startsWith('manifest/')).length).toBeGreaterThan(named.length);
    expect(recoverOutput(out).state).toBe('completed');
    const after = await state(out);
    expect(after.files).toEqual(Object.fromEntries(Object.entries(committed.files).filter(([p]) => !p.startsWith('manifest/') || named.includes(p))));
    expect(after.dirs).toEqual(['data', 'manifest', 'site', 'site/new']);
    expect(await readdir(temp.path)).toEqual(['dist']);
  });

  it('a small commit deletes its transaction folder before returning; a large one leaves it to a background rm', async () => {
    const out = join(temp.path, 'dist');
    await write(out, V1);
    await write(out, V2);
    // Checked synchronously on return: a background `rm` would not have run yet.
    expect(readdirSync(temp.path)).toEqual(['dist']);
    const many = (body: string) => Array.from({ length: REMOVE_IN_PROCESS_MAX + 1 }, (_, i) => planned(`site/many/${i}.json`, `${body}${i}`));
    await write(out, many('a'));
    await write(out, many('b'));
    // The trash folder goes in the background: wait for it (bounded) rather than assume it is gone.
    for (let k = 0; k < 100 && readdirSync(temp.path).length > 1; k++) await sleep(50);
    expect(readdirSync(temp.path)).toEqual(['dist']);
    expect(await readFile(join(out, 'site/many/7.json'), 'utf8')).toBe('b7');
  });

  it('writes nothing when nothing changed', async () => {
    const out = join(temp.path, 'dist');
    await write(out, V1);
    const before = await state(out);
    const manifestMtime = (await stat(join(out, 'manifest.json'))).mtimeMs;
    const result = await write(out, V1);
    expect(result).toMatchObject({ changed: false, written: [], removed: [], kept: 4 });
    expect(await state(out)).toEqual(before);
    expect((await stat(join(out, 'manifest.json'))).mtimeMs).toBe(manifestMtime);
    expect(await readdir(temp.path)).toEqual(['dist']);
  });

  it('recovery refuses to touch the transaction of a build that is still running, and removes stale staging folders', async () => {
    const out = join(temp.path, 'dist');
    await write(out, V1);
    const before = await state(out);
    // The parent process (the test runner) is alive: its "transaction" must not be rolled back.
    const live = join(temp.path, `.dist.txn-${process.ppid}-beef`);
    await mkdir(live);
    await writeFile(join(live, 'journal.json'), JSON.stringify({ outDir: out, version: 'x', replaced: [], added: ['site/a.json'], removed: [], createdDirs: [] }));
    await mkdir(join(temp.path, '.dist.staging-999999999-dead'));
    expect(recoverOutput(out)).toEqual({ state: 'busy', pid: process.ppid, txnDir: live });
    expect(await state(out)).toEqual(before);
    expect((await readdir(temp.path)).sort()).toEqual(['.dist.txn-' + process.ppid + '-beef', 'dist']);
  });

  // Read in the main thread, either one a named pipe blocked the next build for ever.
  it.skipIf(process.platform === 'win32')("recovery reads a dead build's journal, and the output's manifest, only when they are files: a named pipe is none, at once", async () => {
    const out = join(temp.path, 'dist');
    await write(out, V1);
    const before = await state(out);
    const dead = join(temp.path, '.dist.txn-999999999-dead');
    await mkdir(dead);
    const journalPipe = makeNamedPipe(join(dead, 'journal.json'));
    try {
      const { ms, value } = await timed(() => recoverOutput(out));
      expect(ms).toBeLessThan(AT_ONCE_MS);
      // No journal: nothing to roll back, the transaction folder goes.
      expect(value).toEqual({ state: 'clean' });
      expect(await state(out)).toEqual(before);
    } finally {
      journalPipe.remove();
    }
    await mkdir(dead);
    await writeFile(join(dead, 'journal.json'), JSON.stringify({ outDir: out, version: 'x', replaced: [], added: [], removed: [], createdDirs: [] }));
    const manifestPipe = makeNamedPipe(join(out, 'manifest.json'));
    try {
      const { ms, error } = await timed(() => recoverOutput(out));
      expect(ms).toBeLessThan(AT_ONCE_MS);
      expect(error).toBeUndefined();
    } finally {
      manifestPipe.remove();
    }
  }, 30_000);

  it('recovery leaves a clean output folder alone', async () => {
    const out = join(temp.path, 'dist');
    await write(out, V1);
    expect(recoverOutput(out)).toEqual({ state: 'clean' });
  });
});
