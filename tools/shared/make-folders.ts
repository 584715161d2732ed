/**
 * `mkdir -p` that always ends: the one way the tools make folders. Node's
 * `mkdir(path, { recursive: true })` retries for ever when the kernel answers ENOENT for a
 * folder whose parent exists (procfs does for any new name, and so does a link to nothing):
 * the call never returns, at full CPU. Here each missing level is made with a plain mkdir,
 * parents first, so that answer is thrown like any other failure.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const isFolder = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;

/** Creates `path` and its missing parents; returns the first folder created (as recursive mkdir does), or undefined when it existed. */
export function makeFoldersSync(path: string): string | undefined {
  const missing: string[] = [];
  for (let at = resolve(path); ; at = dirname(at)) {
    try {
      if (statSync(at).isDirectory()) break;
      // A file: the mkdir below fails with EEXIST or ENOTDIR, as recursive mkdir does.
      missing.push(at);
      break;
    } catch {
      missing.push(at);
      if (dirname(at) === at) break;
    }
  }
  let first: string | undefined;
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder);
    } catch (failure) {
      if ((failure as NodeJS.ErrnoException).code === 'EEXIST' && isFolder(folder)) continue; // made meanwhile
      throw failure;
    }
    first ??= folder;
  }
  return first;
}

/**
 * `makeFoldersSync` for async callers. Synchronous underneath on purpose: a few stat and
 * mkdir calls (microseconds) do not need the thread pool, and one implementation cannot
 * drift from the other.
 */
export async function makeFolders(path: string): Promise<string | undefined> {
  return makeFoldersSync(path);
}
