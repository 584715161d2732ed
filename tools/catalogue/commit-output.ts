/**
 * Applies a staged set of changed files to an existing output folder in place, with an
 * undo journal, so that an incremental build costs a few renames per *changed* file
 * instead of one hard link per file of the whole tree.
 *
 * The transaction folder is a hidden sibling of the output folder (same filesystem, so
 * every step is an atomic rename or link):
 *   `.<out>.txn-<pid>-<rand>/new/…`     the changed files, fully written before the commit
 *   `.<out>.txn-<pid>-<rand>/old/…`     the previous build's versions of replaced/removed files
 *   `.<out>.txn-<pid>-<rand>/journal.json`  written (atomically) before the first change
 *
 * Commit order: create missing folders; for each replaced file, hard-link the old one into
 * `old/` then rename the new one over it (the path never disappears); for each added file,
 * rename it in (the new manifest segments among them); move each removed file into `old/`;
 * rename the new manifest.json over the old one (the commit point); then delete the old
 * segments the new root no longer names.
 *
 * Rollback (a failing step in this process, or `recoverOutput` after a crash): every file
 * found in `old/` is renamed back (the same inode as before), every added file that left
 * `new/` is unlinked, the created folders are removed. A leftover journal whose version
 * matches the output's manifest.json committed: its old segments are deleted, then the journal.
 */
import { existsSync, linkSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { readRegularFileSync } from '../shared/read-regular-file.js';
import { spawn } from 'node:child_process';
import { basename, dirname, join } from 'node:path';
import { MANIFEST_FILE } from '../shared/manifest.js';
import { makeFoldersSync } from '../shared/make-folders.js';

export interface Journal {
  outDir: string;
  /** The manifest version this transaction installs: present in the output = committed. */
  version: string;
  /** Paths (output-relative) that existed before and are overwritten. manifest.json is handled separately. */
  replaced: string[];
  /** Paths that did not exist before. */
  added: string[];
  removed: string[];
  /** Folders created in the output, parents first. */
  createdDirs: string[];
  /** Manifest segment files of the previous root that the new one does not name: deleted after the commit point. */
  retiredSegments?: string[];
}

const JOURNAL = 'journal.json';
const txnPrefix = (outDir: string) => `.${basename(outDir)}.txn-`;

export function newTransactionDir(outDir: string, id: string): string {
  return join(dirname(outDir), `${txnPrefix(outDir)}${process.pid}-${id}`);
}

/**
 * Recovery reads the manifest and a killed build's journal only when regular files, opened
 * without blocking (read-regular-file.ts): a named pipe in either place would block the next
 * build for ever, in the main thread; anything else but a file reads as none.
 */
const readJsonSync = (file: string): unknown => JSON.parse(readRegularFileSync(file).toString('utf8'));

const manifestVersion = (outDir: string): string | null => {
  try {
    return (readJsonSync(join(outDir, MANIFEST_FILE)) as { version?: string }).version ?? null;
  } catch {
    return null;
  }
};

/** Moves a file, creating its destination folder when needed. */
function moveFile(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (failure) {
    if ((failure as NodeJS.ErrnoException).code !== 'ENOENT' || !existsSync(from)) throw failure;
    makeFoldersSync(dirname(to));
    renameSync(from, to);
  }
}

function linkFile(from: string, to: string): void {
  makeFoldersSync(dirname(to));
  linkSync(from, to);
}

/**
 * Runs the commit described by `journal` (files staged in `<txnDir>/new`); rolls back and rethrows
 * on failure. `beforeStep` runs before each rename, link or unlink, so that a test can fail or
 * kill the commit at any step.
 */
export function commitStaged(txnDir: string, journal: Journal, beforeStep?: () => void): Promise<void> {
  const tmp = join(txnDir, `${JOURNAL}.tmp`);
  writeFileSync(tmp, JSON.stringify(journal));
  renameSync(tmp, join(txnDir, JOURNAL));
  const out = (p: string) => join(journal.outDir, p);
  const staged = (p: string) => join(txnDir, 'new', p);
  const backup = (p: string) => join(txnDir, 'old', p);
  try {
    for (const dir of journal.createdDirs) {
      beforeStep?.();
      mkdirSync(out(dir));
    }
    for (const path of journal.replaced) {
      beforeStep?.();
      linkFile(out(path), backup(path));
      beforeStep?.();
      renameSync(staged(path), out(path));
    }
    for (const path of journal.added) {
      beforeStep?.();
      renameSync(staged(path), out(path));
    }
    for (const path of journal.removed) {
      beforeStep?.();
      moveFile(out(path), backup(path));
    }
    beforeStep?.();
    if (existsSync(out(MANIFEST_FILE))) linkFile(out(MANIFEST_FILE), backup(MANIFEST_FILE));
    renameSync(staged(MANIFEST_FILE), out(MANIFEST_FILE));
  } catch (failure) {
    rollback(txnDir, journal);
    throw failure;
  }
  // Committed: never rolled back from here; `recoverOutput` finishes this cleanup after a crash.
  deleteRetiredSegments(journal, beforeStep);
  pruneEmptyDirs(journal.outDir, journal.removed);
  // What is left: the old versions of replaced and removed files in `old/`, the manifest's, and staged files found unchanged.
  return retire(txnDir, journal.replaced.length + journal.removed.length);
}

/**
 * Up to this many old files, a finished transaction is deleted in this process, on libuv's
 * threads (an old pieces file is tens of MB to free): a few unlinks cost less than forking the
 * build process for `rm` and a second process competing for the CPU. Above it (a build that
 * replaced or removed thousands of files) the build does not wait for the unlinks: `rm -rf` in
 * the background.
 */
export const REMOVE_IN_PROCESS_MAX = 500;

/** Renames a finished transaction out of `recoverOutput`'s sight, then deletes it: settles once it is gone when small, at once (a background rm) otherwise. */
async function retire(txnDir: string, oldFiles: number): Promise<void> {
  const trash = join(dirname(txnDir), basename(txnDir).replace('.txn-', '.trash-'));
  try {
    renameSync(txnDir, trash);
  } catch {
    rmSync(txnDir, { recursive: true, force: true });
    return;
  }
  if (oldFiles <= REMOVE_IN_PROCESS_MAX) await rm(trash, { recursive: true, force: true });
  else removeInBackground(trash);
}

/** Undoes whatever part of `journal` was applied; leaves the output as it was before the transaction. */
function rollback(txnDir: string, journal: Journal): void {
  const out = (p: string) => join(journal.outDir, p);
  const backup = (p: string) => join(txnDir, 'old', p);
  for (const path of [MANIFEST_FILE, ...journal.removed, ...journal.replaced]) {
    // Renaming a hard link onto the same inode is a no-op, so a link made before its replacing rename is harmless.
    if (existsSync(backup(path))) moveFile(backup(path), out(path));
  }
  for (const path of journal.added) {
    if (!existsSync(join(txnDir, 'new', path))) rmSync(out(path), { force: true });
  }
  for (const dir of [...journal.createdDirs].reverse()) {
    try {
      rmdirSync(out(dir));
    } catch {
      // Not created yet, or not empty (something else wrote there): leave it.
    }
  }
  rmSync(txnDir, { recursive: true, force: true });
}

const pidAlive = (pid: number): boolean => {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (failure) {
    return (failure as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export type Recovery = { state: 'clean' } | { state: 'rolled-back' | 'completed'; txnDir: string } | { state: 'busy'; pid: number; txnDir: string };

/**
 * Finishes what an interrupted build left: a transaction folder whose journal is installed
 * (manifest version matches) is deleted; one whose journal is not is rolled back; one
 * without a journal never touched the output and is deleted. A transaction of a build that
 * is still running (its pid is alive) is reported as `busy` and left alone.
 */
export function recoverOutput(outDir: string): Recovery {
  const prefix = txnPrefix(outDir);
  let siblings: string[];
  try {
    siblings = readdirSync(dirname(outDir));
  } catch {
    return { state: 'clean' };
  }
  // A first build's staging folder left by a dead process never touched the output: delete it.
  const stagingPrefix = `.${basename(outDir)}.staging-`;
  for (const name of siblings.filter((n) => n.startsWith(stagingPrefix))) {
    const pid = Number(name.slice(stagingPrefix.length).split('-')[0]);
    if (Number.isInteger(pid) && !pidAlive(pid)) rmSync(join(dirname(outDir), name), { recursive: true, force: true });
  }
  const names = siblings.filter((name) => name.startsWith(prefix));
  let result: Recovery = { state: 'clean' };
  for (const name of names.sort()) {
    const txnDir = join(dirname(outDir), name);
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (Number.isInteger(pid) && pidAlive(pid)) return { state: 'busy', pid, txnDir };
    let journal: Journal | null = null;
    try {
      journal = readJsonSync(join(txnDir, JOURNAL)) as Journal;
    } catch {
      journal = null;
    }
    if (journal && manifestVersion(outDir) !== journal.version) {
      rollback(txnDir, { ...journal, outDir });
      result = { state: 'rolled-back', txnDir };
    } else {
      if (journal) {
        deleteRetiredSegments({ ...journal, outDir });
        pruneEmptyDirs(outDir, journal.removed);
      }
      rmSync(txnDir, { recursive: true, force: true });
      if (journal) result = { state: 'completed', txnDir };
    }
  }
  return result;
}

/** Deletes the old segments of a committed transaction. */
function deleteRetiredSegments(journal: Journal, beforeStep?: () => void): void {
  for (const path of journal.retiredSegments ?? []) {
    beforeStep?.();
    rmSync(join(journal.outDir, path), { force: true });
  }
}

/** Folders emptied by removed files go too, as they would have with a whole-tree swap. */
function pruneEmptyDirs(outDir: string, removed: string[]): void {
  const dirs = new Set<string>();
  for (const path of removed) for (let dir = dirname(path); dir !== '.' && dir !== ''; dir = dirname(dir)) dirs.add(dir);
  for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
    try {
      rmdirSync(join(outDir, dir));
    } catch {
      // Not empty: keep it.
    }
  }
}

/**
 * Deletes a finished transaction folder (or a retired tree) in a detached `rm -rf`: nothing
 * reads it any more, and the build should not wait for the unlinks. Falls back to in-process.
 */
export function removeInBackground(path: string): void {
  try {
    const child = spawn('rm', ['-rf', path], { detached: true, stdio: 'ignore' });
    child.on('error', () => rmSync(path, { recursive: true, force: true }));
    child.unref();
  } catch {
    rmSync(path, { recursive: true, force: true });
  }
}
