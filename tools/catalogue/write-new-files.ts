/**
 * Writes a set of new files all or nothing, for `pepe add`: an image copied without its
 * sidecar (or the first of two images without the second) is a half-done import that the
 * next build reports as an error, and the user was told nothing was added.
 *
 * 1. Stage: every file is written whole to a hidden temporary name beside its destination
 *    (hidden, so a build ignores one left behind by a killed process; same folder, so the
 *    next step is a link within one filesystem).
 * 2. Commit: each is hard-linked to its real name, which fails rather than overwrite a file
 *    that appeared meanwhile; any failure unlinks the names already made.
 * Ctrl-C (SIGINT), SIGTERM and SIGHUP are held for the whole call: one that arrives while
 * staging stops the call before the commit with nothing written; the commit itself is
 * synchronous and short, so it completes.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, renameSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface NewFile {
  path: string;
  data: string | Uint8Array;
}

export type WriteOutcome =
  | { ok: true }
  /** Nothing was written: `path` is the file that failed and `cause` the system error. */
  | { ok: false; reason: 'failed'; path: string; cause: NodeJS.ErrnoException }
  /** Nothing was written: a signal arrived before the commit. */
  | { ok: false; reason: 'interrupted'; signal: NodeJS.Signals };

const HELD_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

const removeAll = (paths: string[]): void => {
  for (const path of paths) rmSync(path, { force: true });
};

/** Errors of a filesystem without hard links (some network and FAT-style mounts). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/** `temporary` → `path`, never replacing an existing file. */
function commitOne(temporary: string, path: string): void {
  try {
    linkSync(temporary, path);
  } catch (cause) {
    if (!NO_HARD_LINKS.has((cause as NodeJS.ErrnoException).code ?? '')) throw cause;
    // No hard links here: a rename, which would replace, after checking nothing is there.
    if (existsSync(path)) throw Object.assign(new Error(`EEXIST: file already exists, '${path}'`), { code: 'EEXIST' });
    renameSync(temporary, path);
  }
}

export async function writeNewFiles(files: readonly NewFile[]): Promise<WriteOutcome> {
  let signal: NodeJS.Signals | null = null;
  const hold = (received: NodeJS.Signals) => {
    signal ??= received;
  };
  for (const name of HELD_SIGNALS) process.on(name, hold);
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const staged: string[] = [];
  const committed: string[] = [];
  try {
    for (const [index, file] of files.entries()) {
      // Short whatever the real name: a name that just fits the 255-byte limit must still be writable.
      const temporary = join(dirname(file.path), `.pepe-add-${tag}-${index}.tmp`);
      try {
        await writeFile(temporary, file.data, { flag: 'wx' });
        staged.push(temporary);
      } catch (cause) {
        // A partly written temporary (disk full) is removed too.
        removeAll([...staged, temporary]);
        return { ok: false, reason: 'failed', path: file.path, cause: cause as NodeJS.ErrnoException };
      }
      if (signal) break;
    }
    if (signal) {
      removeAll(staged);
      return { ok: false, reason: 'interrupted', signal };
    }
    for (const [index, file] of files.entries()) {
      try {
        commitOne(staged[index]!, file.path);
        committed.push(file.path);
      } catch (cause) {
        removeAll([...committed, ...staged]);
        return { ok: false, reason: 'failed', path: file.path, cause: cause as NodeJS.ErrnoException };
      }
    }
    removeAll(staged);
    return { ok: true };
  } finally {
    for (const name of HELD_SIGNALS) process.off(name, hold);
  }
}
