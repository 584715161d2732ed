/**
 * When `pepe build` and `pepe check` move to a process with glibc's malloc tuned for decoding
 * (tools/cli/tuned-allocator.mjs says why): only once they know that more than
 * DECODES_WITHOUT_TUNING images are not in the build cache, so that a run decoding nothing or
 * little pays no second Node start-up. Nothing has been written by then (the cache is saved
 * after the analysis), so the new process simply does the whole command.
 */
import type { Io } from '../shared/io.js';

/** Up to this many images are analysed in the first process: a few frames do not fragment the heap. */
export const DECODES_WITHOUT_TUNING = 16;

/**
 * Runs `work`, passing it the `beforeDecoding` hook for analyseContent. When the work declines
 * to decode (its result says how many images wait in `declined`), the command line runs again
 * in a tuned process and its exit status is returned as `{ rerun }`; when that cannot be done,
 * the work runs again here, decoding in this process.
 */
export async function withTunedDecoding<T extends { declined?: number }>(io: Io, work: (beforeDecoding?: (uncached: number) => boolean) => Promise<T>): Promise<{ done: T } | { rerun: number }> {
  const rerunTuned = io.rerunTuned;
  if (rerunTuned === undefined) return { done: await work() };
  const done = await work((uncached) => uncached <= DECODES_WITHOUT_TUNING);
  if (done.declined === undefined) return { done };
  const status = rerunTuned();
  return status === null ? { done: await work() } : { rerun: status };
}
