/**
 * Folder arguments that name a file: `--content notes.txt`, `--out dist.zip`, `--cache` or
 * `--into` onto an existing file. Found before any work, so that the command reports which
 * flag to fix instead of failing later inside a read or `mkdir` (ENOTDIR, EEXIST).
 */
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { error, type Problem } from '../shared/problems.js';

/** The first of `path` and its parent folders that exists but is not a folder, or null. */
function fileInTheWay(path: string): string | null {
  for (let at = resolve(path); ; at = dirname(at)) {
    let isFolder: boolean | undefined;
    try {
      isFolder = statSync(at).isDirectory();
    } catch {
      // Missing (or below a file: ENOTDIR): look at the parent.
    }
    if (isFolder !== undefined) return isFolder ? null : at;
    if (dirname(at) === at) return null;
  }
}

/** A problem `code` naming the folder (`what`, e.g. 'the output folder') when a file stands where it or a parent should be; `fix` says what to do. */
export function folderProblem(code: string, what: string, path: string, fix: string): Problem | null {
  const file = fileInTheWay(path);
  if (file === null) return null;
  const where = file === resolve(path) ? 'is a file, not a folder' : `cannot be a folder: "${file}" is a file`;
  return error(code, `${what} "${resolve(path)}" ${where}: ${fix}`);
}
