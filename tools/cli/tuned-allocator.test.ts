import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCacheDir } from '../catalogue/analyse-content.js';
import { buildFixtureSite } from '../testing/fixture-catalogue.js';
import { makeNamedPipe } from '../testing/named-pipe.js';
import { type TempDir, makeTempDir } from '../testing/temp-dir.js';
import { collectOldGeneration, largeLastBuild, lastBuildRecords, TUNED_BUILD_FROM } from './tuned-allocator.mjs';

const helper = pathToFileURL(join(import.meta.dirname, 'tuned-allocator.mjs')).href;

/**
 * Writes `source` as `entry.mjs` into a temporary folder made before the tests of the calling
 * describe block and removed after them; returns the file's path, known once they run.
 */
function entryScript(prefix: string, source: string): () => string {
  let temp: TempDir | undefined;
  let file = '';
  beforeAll(async () => {
    temp = await makeTempDir(prefix);
    file = join(temp.path, 'entry.mjs');
    writeFileSync(file, source);
  });
  afterAll(() => temp?.cleanup());
  return () => file;
}

// A script that re-runs itself through the helper and reports what the run that did the work saw.
const script = `
import { rerunWithTunedAllocator } from ${JSON.stringify(helper)};
const status = rerunWithTunedAllocator(process.argv[1], process.argv.slice(2));
if (status !== null) process.exit(status);
console.log(JSON.stringify({ tunables: process.env.GLIBC_TUNABLES ?? null, arenas: process.env.MALLOC_ARENA_MAX ?? null, args: process.argv.slice(2) }));
process.exit(Number(process.argv[2] ?? 0));
`;

describe.runIf(process.platform === 'linux')('rerunWithTunedAllocator', () => {
  const entry = entryScript('pepe-allocator-', script);

  const run = (args: string[], env: Record<string, string | undefined>) => {
    const { MALLOC_ARENA_MAX: _arenas, MALLOC_MMAP_THRESHOLD_: _threshold, GLIBC_TUNABLES: _tunables, ...base } = process.env;
    return spawnSync(process.execPath, [entry(), ...args], { env: { ...base, ...env }, encoding: 'utf8' });
  };

  it('runs the work in a new process with the malloc tunables, passing the arguments and the exit status on', () => {
    const result = run(['3', 'two words'], {});
    expect(result.status).toBe(3);
    expect(JSON.parse(result.stdout)).toEqual({ tunables: 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=4194304:glibc.malloc.hugetlb=1', arenas: null, args: ['3', 'two words'] });
  });

  it('carries on in the same process when MALLOC_ARENA_MAX is already set (no loop, the user decides)', () => {
    const result = run(['0'], { MALLOC_ARENA_MAX: '4' });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ tunables: null, arenas: '4', args: ['0'] });
  });

  it('also when GLIBC_TUNABLES is set', () => {
    const result = run(['0'], { GLIBC_TUNABLES: 'glibc.malloc.arena_max=1' });
    expect(JSON.parse(result.stdout)).toEqual({ tunables: 'glibc.malloc.arena_max=1', arenas: null, args: ['0'] });
  });
});

// The same, for `pepe serve`'s V8 flags: the script reports the flags of the process that runs it.
const serveScript = `
import { execWithServeFlags } from ${JSON.stringify(helper)};
execWithServeFlags(process.argv[1], process.argv.slice(2));
console.log(JSON.stringify({ pid: process.pid, execArgv: process.execArgv, args: process.argv.slice(2) }));
`;

// Node 20 has no process.execve: there the process runs on as started (checked on that runtime, not skipped).
const canExec = typeof (process as { execve?: unknown }).execve === 'function';

describe.runIf(process.platform !== 'win32')('execWithServeFlags', () => {
  const entry = entryScript('pepe-serve-flags-', serveScript);

  const run = (nodeArgs: string[], env: Record<string, string> = {}) => {
    const { NODE_OPTIONS: _options, ...base } = process.env;
    const result = spawnSync(process.execPath, [...nodeArgs, entry(), 'serve', '--port', '0'], { env: { ...base, ...env }, encoding: 'utf8' });
    return { status: result.status, spawned: result.pid, ...(JSON.parse(result.stdout) as { pid: number; execArgv: string[]; args: string[] }) };
  };

  it(canExec ? 'replaces the process, same pid and arguments, with the bounded young generation' : 'runs on as started where Node has no process.execve', () => {
    const result = run([]);
    expect(result).toMatchObject({ status: 0, execArgv: canExec ? ['--max-semi-space-size=4'] : [], args: ['serve', '--port', '0'] });
    expect(result.pid).toBe(result.spawned);
  });

  it.each([
    ['on the command line', ['--max-semi-space-size=16'], {}, ['--max-semi-space-size=16']],
    ['in NODE_OPTIONS', [], { NODE_OPTIONS: '--max-semi-space-size=16' }, []],
  ])('leaves a size the user set %s alone', (_where, nodeArgs, env, execArgv) => {
    expect(run(nodeArgs, env)).toMatchObject({ status: 0, execArgv });
  });
});

// The same for `pepe build` after a large build: the script reports the malloc tunables of the process that runs it.
const buildTunedScript = `
import { execWithTunedAllocator } from ${JSON.stringify(helper)};
execWithTunedAllocator(process.argv[1], process.argv.slice(2));
console.log(JSON.stringify({ pid: process.pid, tunables: process.env.GLIBC_TUNABLES ?? null, args: process.argv.slice(2) }));
`;

describe.runIf(process.platform === 'linux')('execWithTunedAllocator', () => {
  const entry = entryScript('pepe-build-tuned-', buildTunedScript);

  const run = (env: Record<string, string> = {}) => {
    const { GLIBC_TUNABLES: _tunables, MALLOC_ARENA_MAX: _arenas, MALLOC_MMAP_THRESHOLD_: _threshold, ...base } = process.env;
    const result = spawnSync(process.execPath, [entry(), 'build', '--content', 'a folder'], { env: { ...base, ...env }, encoding: 'utf8' });
    return { status: result.status, spawned: result.pid, ...(JSON.parse(result.stdout) as { pid: number; tunables: string | null; args: string[] }) };
  };

  it(canExec ? 'replaces the process, same pid and arguments, with the malloc tunables' : 'runs on as started where Node has no process.execve', () => {
    const result = run();
    expect(result).toMatchObject({ status: 0, tunables: canExec ? 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=4194304:glibc.malloc.hugetlb=1' : null, args: ['build', '--content', 'a folder'] });
    expect(result.pid).toBe(result.spawned);
  });

  it('leaves malloc alone when the user tunes it', () => {
    expect(run({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=1' })).toMatchObject({ status: 0, tunables: 'glibc.malloc.arena_max=1' });
  });
});

describe.runIf(process.platform !== 'win32')('largeLastBuild', () => {
  let temp: TempDir;
  beforeAll(async () => {
    temp = await makeTempDir('pepe-large-last-build-');
  });
  afterAll(() => temp.cleanup());

  /** Writes a last-build.json of `records` records into `cacheDir`. */
  const lastBuild = (cacheDir: string, records: unknown) => {
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(join(cacheDir, 'last-build.json'), JSON.stringify({ outDir: 'dist', unchanged: { records } }));
  };

  it('reads the cache folder the build would use, beside the content folder unless --cache names one', () => {
    const cwd = join(temp.path, 'defaults');
    // The build's own default, not a copy of it: the two must name the same folder.
    lastBuild(defaultCacheDir(join(cwd, 'content')), TUNED_BUILD_FROM);
    expect(largeLastBuild([], cwd)).toBe(true);
    expect(largeLastBuild(['--out', 'dist', '--base-url', 'http://localhost:8888'], cwd)).toBe(true);
    lastBuild(defaultCacheDir(join(cwd, 'elsewhere', 'content')), TUNED_BUILD_FROM - 1);
    expect(largeLastBuild(['--content', 'elsewhere/content'], cwd)).toBe(false);
    expect(largeLastBuild(['--content=elsewhere/content', '--cache', '.pepe-cache'], cwd)).toBe(true);
    expect(largeLastBuild(['--cache=missing'], cwd)).toBe(false);
  });

  it('says no to anything but a last build of that many records, without waiting on a named pipe', () => {
    const cwd = join(temp.path, 'odd');
    for (const records of ['100000', null, 1e100, -1]) {
      lastBuild(join(cwd, 'cache'), records);
      expect(largeLastBuild(['--cache', 'cache'], cwd), String(records)).toBe(false);
    }
    writeFileSync(join(cwd, 'cache', 'last-build.json'), '{"unchanged": {"records": 100000');
    expect(largeLastBuild(['--cache', 'cache'], cwd)).toBe(false);
    mkdirSync(join(cwd, 'pipe'));
    const pipe = makeNamedPipe(join(cwd, 'pipe', 'last-build.json'));
    try {
      expect(largeLastBuild(['--cache', 'pipe'], cwd)).toBe(false);
    } finally {
      pipe.remove();
    }
  });

  it('reads the count a real build leaves, in the folder it leaves it', async () => {
    const site = await buildFixtureSite({ count: 3 });
    try {
      expect(lastBuildRecords([], site.root)).toBe(3);
      expect(lastBuildRecords(['--content', site.contentDir, '--cache', site.cacheDir], temp.path)).toBe(3);
    } finally {
      await site.cleanup();
    }
  });
});

// A script that sets the build's flags, keeps 400,000 small objects, and reports how large V8's
// young generation grew; `--trace-gc-nvp` prints each collection's work on V8's helper threads before that.
const buildScript = `
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { setBuildFlags } from ${JSON.stringify(helper)};
setBuildFlags();
setFlagsFromString('--trace-gc-nvp');
const kept = [];
for (let i = 0; i < 400_000; i++) kept.push({ i, list: [i] });
console.log(JSON.stringify({ newSpaceMb: getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size / 2 ** 20, kept: kept.length }));
`;

describe('setBuildFlags', () => {
  const entry = entryScript('pepe-build-flags-', buildScript);

  const run = (nodeArgs: string[], env: Record<string, string> = {}) => {
    const { NODE_OPTIONS: _options, ...base } = process.env;
    const result = spawnSync(process.execPath, [...nodeArgs, entry()], { env: { ...base, ...env }, encoding: 'utf8' });
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n');
    // Milliseconds each scavenge spent on helper threads.
    const helperMs = lines.filter((line) => line.includes(' gc=s ')).map((line) => Number(/ background\.scavenge\.parallel=([\d.]+)/.exec(line)![1]));
    return { ...(JSON.parse(lines.find((line) => line.startsWith('{'))!) as { newSpaceMb: number }), helperMs };
  };
  const newSpaceMb = (nodeArgs: string[], env: Record<string, string> = {}) => run(nodeArgs, env).newSpaceMb;

  it('keeps the young generation at its first size while a process keeps what it allocates', () => {
    expect(newSpaceMb([])).toBeLessThanOrEqual(4);
    // The control: a young generation the user sizes grows as V8 likes.
    expect(newSpaceMb(['--max-semi-space-size=16'])).toBeGreaterThan(4);
  });

  it('leaves a size the user set in NODE_OPTIONS alone', () => {
    expect(newSpaceMb([], { NODE_OPTIONS: '--max-semi-space-size=16' })).toBeGreaterThan(4);
  });

  it('scavenges on the main thread alone, unless the user says otherwise', () => {
    const { helperMs } = run([]);
    expect(helperMs.length).toBeGreaterThan(10);
    expect(helperMs.every((ms) => ms === 0)).toBe(true);
    // The control: V8's default, which the user asks for here, hands scavenges to its helper threads.
    expect(run(['--parallel-scavenge']).helperMs.some((ms) => ms > 0)).toBe(true);
  });
});

describe('collectOldGeneration', () => {
  it('starts a real collection, leaving no global gc behind', async () => {
    let majors = 0;
    const { constants, PerformanceObserver } = await import('node:perf_hooks');
    const oldGeneration = constants.NODE_PERFORMANCE_GC_MAJOR | constants.NODE_PERFORMANCE_GC_INCREMENTAL;
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (((entry as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0) & oldGeneration) majors++;
    });
    observer.observe({ entryTypes: ['gc'] });
    collectOldGeneration();
    collectOldGeneration();
    await expect.poll(() => majors, { timeout: 10_000 }).toBeGreaterThan(0);
    observer.disconnect();
    expect('gc' in globalThis).toBe(false);
  });
});
