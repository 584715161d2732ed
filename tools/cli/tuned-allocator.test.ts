import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TempDir, makeTempDir } from '../testing/temp-dir.js';

const helper = pathToFileURL(join(import.meta.dirname, 'tuned-allocator.mjs')).href;

// A script that re-runs itself through the helper and reports what the run that did the work saw.
const script = `
import { rerunWithTunedAllocator } from ${JSON.stringify(helper)};
const status = rerunWithTunedAllocator(process.argv[1], process.argv.slice(2));
if (status !== null) process.exit(status);
console.log(JSON.stringify({ tunables: process.env.GLIBC_TUNABLES ?? null, arenas: process.env.MALLOC_ARENA_MAX ?? null, args: process.argv.slice(2) }));
process.exit(Number(process.argv[2] ?? 0));
`;

describe.runIf(process.platform === 'linux')('rerunWithTunedAllocator', () => {
  let temp: TempDir;
  let file = '';
  beforeAll(async () => {
    temp = await makeTempDir('pepe-allocator-');
    file = join(temp.path, 'entry.mjs');
    writeFileSync(file, script);
  });
  afterAll(() => temp.cleanup());

  const run = (args: string[], env: Record<string, string | undefined>) => {
    const { MALLOC_ARENA_MAX: _arenas, MALLOC_MMAP_THRESHOLD_: _threshold, GLIBC_TUNABLES: _tunables, ...base } = process.env;
    return spawnSync(process.execPath, [file, ...args], { env: { ...base, ...env }, encoding: 'utf8' });
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
