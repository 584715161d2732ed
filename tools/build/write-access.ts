/**
 * Folders a command will write that this user cannot write (a read-only checkout, a cache or
 * output folder left by `sudo pepe build`). Found before any work, so that the command names
 * the folder and the flag to change instead of failing midway with EACCES and a stack trace.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { error, type Problem } from './problems.js';

/** `path` if it exists, else its nearest existing parent: where the first write would land. */
function nearestExisting(path: string): string {
  let at = resolve(path);
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return at;
}

/** The first of the folders where writing `paths` would start that this user cannot write, or null. */
export function unwritableFolder(paths: readonly string[]): string | null {
  for (const path of paths) {
    const folder = nearestExisting(path);
    try {
      accessSync(folder, constants.W_OK);
    } catch {
      return folder;
    }
  }
  return null;
}

/** A problem `code` naming the folder `what` (e.g. 'the cache folder') when `paths` cannot be written; `fix` says what to do. */
export function writeAccessProblem(code: string, what: string, path: string, paths: readonly string[], fix: string): Problem | null {
  const folder = unwritableFolder(paths);
  if (folder === null) return null;
  const where = folder === resolve(path) ? 'is not writable' : `cannot be written: "${folder}" is not writable`;
  return error(code, `${what} "${resolve(path)}" ${where} for this user: ${fix}`);
}
