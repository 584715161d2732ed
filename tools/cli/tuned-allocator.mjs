/**
 * Re-runs this Node process with glibc's malloc limited to two arenas (MALLOC_ARENA_MAX=2),
 * for the commands that decode images (`pepe build`, `check`, `add`, `dupes`, and the
 * benchmarks, so that they measure what those commands do).
 *
 * Why: sharp decodes on libuv's worker threads, and glibc gives each thread that allocates
 * its own arena. Full-resolution decodes (up to 16 MB each, allocated on a worker thread,
 * freed later from the main thread) fragment those arenas: a cold build of 1,000 realistic
 * images peaked at 445–480 MB RSS with the default allocator (forcing a GC every 30 ms
 * changed nothing, so it is not garbage waiting to be collected), and at 329–363 MB with
 * two arenas, with no CPU cost measurable above the machine's noise. glibc reads the
 * variable once, when the process starts, so only a new process can have it.
 *
 * Plain JavaScript: it runs before tsx is registered, so that the re-run costs one bare
 * Node start-up (~65 ms here) and not the TypeScript loader twice.
 *
 * @param {string} script absolute path of the entry script to run again
 * @param {string[]} args its arguments
 * @returns {number | null} the exit status to end this process with, or null to carry on
 *   here (not Linux, MALLOC_ARENA_MAX already set, or the child could not be started)
 */
import { spawnSync } from 'node:child_process';

export function rerunWithTunedAllocator(script, args) {
  if (process.platform !== 'linux' || process.env.MALLOC_ARENA_MAX !== undefined) return null;
  const child = spawnSync(process.execPath, [...process.execArgv, script, ...args], {
    stdio: 'inherit',
    env: { ...process.env, MALLOC_ARENA_MAX: '2' },
  });
  if (child.error) return null;
  // Killed by a signal (Ctrl-C reaches both processes): end the same way.
  if (child.signal) process.kill(process.pid, child.signal);
  return child.status ?? 1;
}
