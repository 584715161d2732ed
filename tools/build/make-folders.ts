/**
 * `mkdir -p` that always ends. Node's `mkdir(path, { recursive: true })` retries for ever when
 * the kernel answers ENOENT for a folder whose parent exists (procfs does for any new name, and
 * so does a link to nothing): the call never returns, at full CPU. Here each missing level is
 * made with a plain mkdir, parents first, so that answer is thrown like any other failure.
 */
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** Creates `path` and its missing parents; resolves with the first folder created (as recursive mkdir does), or undefined when it existed. */
export async function makeFolders(path: string): Promise<string | undefined> {
  const missing: string[] = [];
  for (let at = resolve(path); ; at = dirname(at)) {
    try {
      if ((await stat(at)).isDirectory()) break;
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
      await mkdir(folder);
    } catch (failure) {
      if ((failure as NodeJS.ErrnoException).code === 'EEXIST' && (await stat(folder).catch(() => null))?.isDirectory()) continue; // made meanwhile
      throw failure;
    }
    first ??= folder;
  }
  return first;
}
