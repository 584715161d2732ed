/**
 * Folders a command will write that cannot be written (a read-only checkout, a cache or
 * output folder left by `sudo pepe build`, a place that cannot hold files at all: /proc, a
 * read-only mount, a link to nothing). Found before any work, so that the command names the
 * folder and the flag to change instead of failing midway with EACCES and a stack trace, or
 * never ending: Node's `mkdir(…, { recursive: true })` retries for ever when the kernel answers
 * ENOENT for a folder whose parent exists (procfs does, for any new name), so
 * `pepe build --out /proc/x` would spin at full CPU.
 */
import { accessSync, constants, lstatSync, mkdtempSync, rmdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { error, type Problem } from '../shared/problems.js';

/** `path` if it exists (a link counts, even one to nothing), else its nearest existing parent: where the first write would land. */
function nearestExisting(path: string): string {
  let at = resolve(path);
  while (dirname(at) !== at) {
    try {
      lstatSync(at);
      return at;
    } catch {
      at = dirname(at);
    }
  }
  return at;
}

export interface UnwritableFolder {
  folder: string;
  /** Why, in words that follow the folder's name: 'is not writable for this user', 'cannot hold new files (…)'. */
  reason: string;
}

/**
 * Why `folder` cannot take a new file, or null when it can. The permission bits are not
 * enough (root passes them everywhere, also on /proc and read-only mounts), so a folder is
 * created in it and removed: the one proof the real writes will work.
 */
function whyUnwritable(folder: string): string | null {
  try {
    accessSync(folder, constants.W_OK);
    rmdirSync(mkdtempSync(join(folder, '.pepe-write-test-')));
    return null;
  } catch (failure) {
    const code = (failure as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') return 'is not writable for this user';
    if (code === 'EROFS') return 'is on a read-only filesystem';
    if (code === 'ENOENT') return 'cannot hold new files (a virtual filesystem such as /proc, or a link to something that does not exist)';
    if (code === 'ENOTDIR') return 'is a file, not a folder';
    return `cannot be written (${code ?? String(failure)})`;
  }
}

/** The first of the folders where writing `paths` would start that cannot be written, and why; null when all can. */
export function unwritableFolderWithReason(paths: readonly string[]): UnwritableFolder | null {
  for (const path of paths) {
    const folder = nearestExisting(path);
    const reason = whyUnwritable(folder);
    if (reason !== null) return { folder, reason };
  }
  return null;
}

/** The first of the folders where writing `paths` would start that cannot be written, or null. */
export function unwritableFolder(paths: readonly string[]): string | null {
  return unwritableFolderWithReason(paths)?.folder ?? null;
}

/** A problem `code` naming the folder `what` (e.g. 'the cache folder') when `paths` cannot be written; `fix` says what to do. */
export function writeAccessProblem(code: string, what: string, path: string, paths: readonly string[], fix: string): Problem | null {
  const found = unwritableFolderWithReason(paths);
  if (found === null) return null;
  const where = found.folder === resolve(path) ? found.reason : `cannot be written: "${found.folder}" ${found.reason}`;
  return error(code, `${what} "${resolve(path)}" ${where}: ${fix}`);
}
