/**
 * Writes the output folder all-or-nothing. The new tree is produced in a temporary sibling
 * folder (same filesystem, so renames are atomic), unchanged files are hard-linked from
 * the previous build instead of rewritten (they keep their inode and mtime), and the
 * folders are swapped with two renames at the end. A build whose files and manifest are
 * all unchanged removes its staging folder and leaves the output folder untouched.
 *
 * The hot loops use synchronous fs calls on purpose: tens of thousands of tiny links and
 * writes are several times faster without a promise per syscall, and the CLI has nothing
 * else to do meanwhile.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants, copyFileSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { type Manifest, type ManifestEntry, MANIFEST_FILE, stableJson } from './manifest.js';

/** One file the build wants in the output; `path` is relative to the output folder, forward slashes. */
export interface PlannedFile {
  path: string;
  sha256: string;
  size: number;
  /** Either the bytes to write or a file to copy them from (images: the content file). */
  body?: string | Buffer;
  copyFrom?: string;
}

export interface WriteOutputOptions {
  outDir: string;
  previous: Manifest | null;
  files: PlannedFile[];
  /** Writes generated files (function bundle, gallery) into the staging folder; returns their output-relative paths. */
  generate?: (stagingDir: string) => Promise<string[]>;
  manifestFor: (entries: Map<string, ManifestEntry>) => Manifest;
}

export interface WriteOutputResult {
  changed: boolean;
  manifest: Manifest;
  /** Files whose bytes were written (new or changed). */
  written: string[];
  /** Files kept from the previous build by hard link. */
  kept: number;
  /** Paths of the previous build that are gone. */
  removed: string[];
}

export const sha256Of = (bytes: string | Buffer): string => createHash('sha256').update(bytes).digest('hex');
export const byteLength = (body: string | Buffer): number => (typeof body === 'string' ? Buffer.byteLength(body) : body.length);

/** Hard link from the previous build; false when that file is missing or links are not possible here. */
function keepPrevious(outDir: string, path: string, target: string): boolean {
  try {
    linkSync(join(outDir, path), target);
    return true;
  } catch {
    return false;
  }
}

function ensureDirs(stagingDir: string, paths: Iterable<string>): void {
  const dirs = new Set<string>();
  for (const path of paths) dirs.add(dirname(path));
  for (const dir of [...dirs].sort()) mkdirSync(join(stagingDir, dir), { recursive: true });
}

export async function writeOutput(options: WriteOutputOptions): Promise<WriteOutputResult> {
  const { outDir, previous } = options;
  const staging = join(dirname(outDir), `.${basename(outDir)}.staging-${process.pid}-${randomBytes(4).toString('hex')}`);
  const entries = new Map<string, ManifestEntry>();
  const written: string[] = [];
  let kept = 0;
  const same = (path: string, sha256: string, size: number) => {
    const old = previous?.files[path];
    return old !== undefined && old.sha256 === sha256 && old.size === size;
  };
  try {
    mkdirSync(staging, { recursive: true });
    ensureDirs(staging, options.files.map((f) => f.path));
    for (const file of options.files) {
      const target = join(staging, file.path);
      entries.set(file.path, { sha256: file.sha256, size: file.size });
      if (same(file.path, file.sha256, file.size) && keepPrevious(outDir, file.path, target)) {
        kept++;
        continue;
      }
      if (file.body !== undefined) writeFileSync(target, file.body);
      // A copy, never a link to the content file: editing content in place must not alter the output. Reflinked where the filesystem can.
      else if (file.copyFrom !== undefined) copyFileSync(file.copyFrom, target, constants.COPYFILE_FICLONE);
      else throw new Error(`planned output ${file.path} has neither body nor copyFrom`);
      written.push(file.path);
    }

    // Generated files: hash what the generators wrote, and swap in the previous build's file when identical.
    const generated = ((await options.generate?.(staging)) ?? []).filter((p) => !entries.has(p) && p !== MANIFEST_FILE).sort();
    for (const path of generated) {
      const bytes = readFileSync(join(staging, path));
      const entry = { sha256: sha256Of(bytes), size: bytes.length };
      entries.set(path, entry);
      const tmp = join(staging, `${path}.keep-tmp`);
      if (same(path, entry.sha256, entry.size) && keepPrevious(outDir, path, tmp)) {
        renameSync(tmp, join(staging, path));
        kept++;
      } else written.push(path);
    }

    const manifest = options.manifestFor(entries);
    const manifestText = stableJson(manifest);
    const removed = Object.keys(previous?.files ?? {}).filter((p) => !entries.has(p));
    const previousText = previous ? stableJson(previous) : null;
    if (written.length === 0 && removed.length === 0 && previousText === manifestText) {
      await rm(staging, { recursive: true, force: true });
      return { changed: false, manifest, written, kept, removed };
    }
    writeFileSync(join(staging, MANIFEST_FILE), manifestText);
    await swapIn(staging, outDir);
    return { changed: true, manifest, written, kept, removed };
  } catch (failure) {
    rmSync(staging, { recursive: true, force: true });
    throw failure;
  }
}

/** Replaces `outDir` with `staging`: the output folder is either the old tree or the new one. */
async function swapIn(staging: string, outDir: string): Promise<void> {
  const retired = `${staging}.previous`;
  let hadPrevious = true;
  try {
    await rename(outDir, retired);
  } catch (failure) {
    if ((failure as NodeJS.ErrnoException).code !== 'ENOENT') throw failure;
    hadPrevious = false;
  }
  await rename(staging, outDir);
  if (hadPrevious) removeInBackground(retired);
}

/**
 * Deletes the retired tree in a detached `rm -rf`: unlinking tens of thousands of files
 * would otherwise dominate an incremental build, and nothing reads the retired folder
 * (a hidden sibling with a unique name) after the swap. Falls back to deleting in-process.
 */
function removeInBackground(path: string): void {
  try {
    const child = spawn('rm', ['-rf', path], { detached: true, stdio: 'ignore' });
    child.on('error', () => rmSync(path, { recursive: true, force: true }));
    child.unref();
  } catch {
    rmSync(path, { recursive: true, force: true });
  }
}
