/**
 * Re-runs this Node process with glibc's malloc tuned for decoding large images, for the
 * commands that decode them (`pepe build`, `check`, `add`, `dupes`, and the benchmarks, so
 * that they measure what those commands do), and for a build that reads a large last build's
 * state. The settings, as GLIBC_TUNABLES:
 * - `arena_max=2`: sharp decodes on libuv's worker threads, and glibc gives each thread
 *   that allocates its own arena. Full-resolution frames (up to 16 MB, allocated on a worker
 *   thread, freed later from the main thread) fragment them.
 * - `mmap_threshold=4194304`: a freed large block raises glibc's mmap threshold, so later
 *   frames came from the arenas too; fixed at 4 MiB, every frame of 4 MiB or more is mapped
 *   and unmapped on its own and fragments nothing.
 * - `hugetlb=1` (glibc ≥ 2.35; older ones ignore it): those mappings use transparent huge
 *   pages where the kernel allows them (`madvise`), so mapping a fresh frame costs one page
 *   fault per 2 MB instead of one per 4 KB.
 * The figures of each setting: tools/cli/README.md and tools/bench/HISTORY.md. glibc reads
 * these once, when the process starts, so only a new process can have them.
 *
 * Plain JavaScript, so that `pepe add` and `dupes` can re-run before loading the CLI at all
 * (one bare Node start-up), as does `pepe build` after a large build (`largeLastBuild`);
 * `pepe build` and `check` otherwise call it later, and only when they have many images to
 * decode (tuned-decoding.ts).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const MALLOC_TUNABLES = 'glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=4194304:glibc.malloc.hugetlb=1';

/** Variables by which a user tunes glibc's malloc: any of them set means "leave it to me". */
const USER_TUNING = ['GLIBC_TUNABLES', 'MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_'];

/** Whether a re-run would change anything: on Linux, unless the user tunes malloc already. */
export function tunedRerunPossible() {
  return process.platform === 'linux' && !USER_TUNING.some((name) => process.env[name] !== undefined);
}

/**
 * Runs `script` again in a child process with MALLOC_TUNABLES, and waits for it.
 *
 * @param {string} script absolute path of the entry script to run again
 * @param {string[]} args its arguments
 * @returns {number | null} the exit status to end this process with, or null to carry on
 *   here (not Linux, the user tunes malloc already, or the child could not be started)
 */
export function rerunWithTunedAllocator(script, args) {
  if (!tunedRerunPossible()) return null;
  const child = spawnSync(process.execPath, [...process.execArgv, script, ...args], {
    stdio: 'inherit',
    env: { ...process.env, GLIBC_TUNABLES: MALLOC_TUNABLES },
  });
  if (child.error) return null;
  // Killed by a signal (Ctrl-C reaches both processes): end the same way.
  if (child.signal) process.kill(process.pid, child.signal);
  return child.status ?? 1;
}

/**
 * The V8 flags of `pepe build`, which V8 takes at run time (no new process is needed). A build
 * keeps most of what it allocates (the last build's state, every record):
 * - `--semi-space-growth-factor=1` keeps the young generation at the size it starts with (1 MB
 *   semi-spaces) instead of growing it up to 32 MB, which would copy all that on each scavenge
 *   before promoting it, and touch that much more fresh memory;
 * - `--no-parallel-scavenge`: a scavenge of semi-spaces that small is a millisecond's work, less
 *   than waking V8's helper threads for it costs, and a build runs hundreds of them.
 * Figures: tools/cli/README.md.
 */
export const BUILD_V8_FLAGS = ['--semi-space-growth-factor=1', '--no-parallel-scavenge'];

/** Sets BUILD_V8_FLAGS in this process, unless the user tunes the young generation (on the command line or in NODE_OPTIONS). */
export function setBuildFlags() {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (given.some((flag) => /^--(semi-space-growth-factor|max-semi-space-size|min-semi-space-size|(no-)?parallel-scavenge)\b/.test(flag))) return;
  for (const flag of BUILD_V8_FLAGS) setFlagsFromString(flag);
}

/**
 * V8 flags for `pepe serve`'s processes. `--max-semi-space-size=4` (MB): Node 24 sizes the
 * young generation from the machine's memory, and a server under load fills it before V8
 * collects it; 4 MB semi-spaces bound that growth at the same CPU per request (figures:
 * tools/serve/README.md). V8 sizes its heap once, at start-up, so only a new process has them.
 */
export const SERVE_V8_FLAGS = ['--max-semi-space-size=4'];

/**
 * Replaces this process (same pid, so a supervisor's signals and the exit status are
 * unchanged) by `script args` under SERVE_V8_FLAGS, through process.execve (Node ≥ 23.11, not
 * on Windows). Returns, carrying on here, where that cannot be done or the flag is already set
 * (this is the replaced process, or the user chose a size through the command line or NODE_OPTIONS).
 *
 * @param {string} script absolute path of the entry script
 * @param {string[]} args its arguments
 */
export function execWithServeFlags(script, args) {
  if (typeof process.execve !== 'function' || process.platform === 'win32') return;
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  if (given.some((flag) => flag.startsWith('--max-semi-space-size'))) return;
  process.execve(process.execPath, [process.execPath, ...SERVE_V8_FLAGS, ...process.execArgv, script, ...args], process.env);
}

/**
 * From this many records in the last build, `pepe build` moves to a tuned process at once
 * (`largeLastBuild`): it then reads and keeps hundreds of MB of that build's state, and huge
 * pages take a quarter of its page faults away, more than the second start-up costs. Figures:
 * tools/cli/README.md.
 */
export const TUNED_BUILD_FROM = 50_000;

/**
 * The records of the last build into the cache folder that `pepe build`'s arguments name, by its
 * `last-build.json`; 0 when it cannot tell. The folders are read as tools/cli/content-flags.ts
 * reads them (`--content`, default `content`; `--cache`, default `.pepe-cache` beside it);
 * anything unreadable, or not a regular file, counts none.
 *
 * @param {string[]} args the command's arguments, after `build`
 * @param {string} [cwd] the folder they are relative to
 * @returns {number}
 */
export function lastBuildRecords(args, cwd = process.cwd()) {
  try {
    const { values } = parseArgs({ args, options: { content: { type: 'string' }, cache: { type: 'string' } }, strict: false, allowPositionals: true });
    const content = resolve(cwd, typeof values.content === 'string' && values.content !== '' ? values.content : 'content');
    const cache = typeof values.cache === 'string' && values.cache !== '' ? resolve(cwd, values.cache) : resolve(content, '..', '.pepe-cache');
    // Opened without blocking: a named pipe in its place would wait for a writer for ever.
    const fd = openSync(resolve(cache, 'last-build.json'), constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      if (!fstatSync(fd).isFile()) return 0;
      const records = JSON.parse(readFileSync(fd, 'utf8'))?.unchanged?.records;
      return Number.isSafeInteger(records) && records > 0 ? records : 0;
    } finally {
      closeSync(fd);
    }
  } catch {
    return 0;
  }
}

/**
 * Whether that last build (`lastBuildRecords`) held TUNED_BUILD_FROM records or more.
 *
 * @param {string[]} args the command's arguments, after `build`
 * @param {string} [cwd] the folder they are relative to
 * @returns {boolean}
 */
export const largeLastBuild = (args, cwd = process.cwd()) => lastBuildRecords(args, cwd) >= TUNED_BUILD_FROM;

/**
 * Replaces this process (same pid, as `execWithServeFlags`) by `script args` with
 * MALLOC_TUNABLES. Returns, carrying on here, where that cannot be done (no process.execve,
 * not Linux) or malloc is tuned already (this is the replaced process, or the user tunes it).
 *
 * @param {string} script absolute path of the entry script
 * @param {string[]} args its arguments
 */
export function execWithTunedAllocator(script, args) {
  if (typeof process.execve !== 'function' || !tunedRerunPossible()) return;
  process.execve(process.execPath, [process.execPath, ...process.execArgv, script, ...args], { ...process.env, GLIBC_TUNABLES: MALLOC_TUNABLES });
}

/** @type {((options: { type: 'major'; execution: 'async' }) => void) | undefined} */
let gc;

/**
 * Starts an old-generation collection (incremental, in a task of its own) in `pepe serve`'s
 * process, which its CDN cache asks for after dropping enough answers (tools/serve/README.md,
 * "Bounded memory"): their bodies are Buffers outside V8's heap, freed only when the old
 * generation is collected. `gc` comes from a context of its own, so the function bundle and
 * everything else in the process never see a global `gc`.
 */
export function collectOldGeneration() {
  if (gc === undefined) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc');
  }
  gc({ type: 'major', execution: 'async' });
}
