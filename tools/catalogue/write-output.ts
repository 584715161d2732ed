/**
 * Writes the output folder so that it is never left half-written.
 *
 * - First build (no previous manifest): the whole tree is written into a hidden sibling
 *   folder and renamed into place (a previous non-build folder is moved aside first).
 * - Incremental build: only files whose sha256/size differ from the previous manifest are
 *   written, into a transaction folder, then applied in place by commit-output.ts (journal,
 *   manifest.json renamed last = commit point, rollback on failure or after a crash).
 *   Unchanged files are not touched at all (same inode, same mtime, no syscall).
 * - A build whose files and manifest are all unchanged writes nothing.
 *
 * Everything that can fail for a reason other than the filesystem (compiling, bundling,
 * the gallery) runs before the output folder is touched. The hot loops use synchronous fs
 * calls on purpose: thousands of tiny writes are several times faster without a promise
 * per syscall, and the CLI has nothing else to do meanwhile.
 */
import { createHash, randomBytes } from 'node:crypto';
import { close, constants, copyFileSync, existsSync, linkSync, openSync, readFileSync, rmSync, write, writeFileSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { commitStaged, type Journal, newTransactionDir, removeInBackground } from './commit-output.js';
import { ID_FOLDERS, type Manifest, type ManifestEntry, MANIFEST_FILE, manifestEntry, manifestJson, newSegmentFiles, sameHeader, segmentDigits, segmentEntries, segmentFiles, segmentKeyOf, segmentKeys, segmentSize, sha256Of } from '../shared/manifest.js';
import { makeFoldersSync } from '../shared/make-folders.js';
import { writeTextsSync } from '../shared/replace-file.js';

/** One file the build wants in the output; `path` is relative to the output folder, forward slashes. */
export interface PlannedFile {
  path: string;
  sha256: string;
  size: number;
  /** The bytes to write, a file to copy them from (images: the content file), or one to link. */
  body?: string | Buffer | LatinPieces;
  copyFrom?: string;
  /**
   * A build-cache file named by its sha256 and only ever replaced by a rename, never written in
   * place (renditions): hard-linked, which costs a directory entry instead of a copy; copied
   * where it cannot be linked (another filesystem). The output is likewise only ever replaced
   * by renames (commit-output.ts).
   */
  linkFrom?: string;
  /** Written to the staging folder even when unchanged, because a generator reads it there (data/catalogue.mjs). */
  neededByGenerate?: boolean;
  /** The caller took this entry from `previous` (the same manifest object): it is not looked up and compared again. */
  unchanged?: boolean;
}

/**
 * Files of the previous output kept as they are without being planned one by one (a change
 * build keeps most of a catalogue's answers): `count` of them, the previous paths `has` accepts.
 * In an id segment (shared/manifest.ts `segmentKeyOf`) that `touched` does not name, every
 * previous file under `folders` is kept: so a change build looks only through the segments
 * it touches.
 */
export interface KeptFiles {
  count: number;
  has(path: string): boolean;
  /** Path prefixes (`site/images/`) of the files it keeps. */
  folders: readonly string[];
  /** The segments (keys for `digits`) that may hold a previous file under `folders` it does not keep. */
  touched(digits: number): Iterable<string>;
}

/** What `plannedLater` plans: files, and the previous files kept without being listed. */
export interface LaterFiles {
  files: PlannedFile[];
  kept?: KeptFiles;
}

export interface WriteOutputOptions {
  outDir: string;
  previous: Manifest | null;
  files: PlannedFile[];
  /** Previous files kept besides `files` without being listed (the unchanged records' images). */
  kept?: KeptFiles;
  /**
   * More files, planned only once the generators have started (so that they run meanwhile):
   * for work that the generators do not need (the build plans its answer files here). Given the
   * paths of `files` whose bytes differ from the previous output's (all of them on a first build),
   * and whether the previous output is there to keep files from.
   */
  plannedLater?: (written: readonly string[], incremental: boolean) => LaterFiles;
  /** Writes generated files (function bundle, gallery) into the staging folder; returns their output-relative paths. */
  generate?: (stagingDir: string) => Promise<string[]>;
  /** The manifest of `entries`; with `reuse`, the previous one with the paths written or removed changed, `entries` holding those (shared/manifest.ts `createManifest`). */
  manifestFor: (entries: Map<string, ManifestEntry>, reuse?: { previous: Manifest; changed: readonly string[] }) => Manifest;
  /** Runs before each step of an incremental build's in-place commit (commit-output.ts `commitStaged`). */
  beforeCommitStep?: () => void;
}

export interface WriteOutputResult {
  changed: boolean;
  manifest: Manifest;
  /** Files whose bytes were written (new or changed). */
  written: string[];
  /** Files of the previous build left in place untouched. */
  kept: number;
  /** Paths of the previous build that are gone. */
  removed: string[];
}

export const byteLength = (body: string | Buffer): number => (typeof body === 'string' ? Buffer.byteLength(body) : body.length);

/**
 * A body of Latin-1 texts written end to end (the function's pieces file: ~170 bytes a record),
 * hashed and written piece by piece through a small buffer: one buffer of the whole file is
 * megabytes of fresh memory the kernel hands out a page fault at a time, on every change build.
 */
export interface LatinPieces {
  pieces: readonly string[];
}

const isLatinPieces = (body: PlannedFile['body']): body is LatinPieces => typeof body === 'object' && !Buffer.isBuffer(body);

/** A planned file of `pieces` (`LatinPieces`), with their size and sha256. */
export function piecesFile(path: string, pieces: readonly string[]): PlannedFile {
  const hash = createHash('sha256');
  let size = 0;
  for (const piece of pieces) {
    hash.update(piece, 'latin1');
    size += piece.length;
  }
  return { path, body: { pieces }, sha256: hash.digest('hex'), size };
}

/**
 * From this size a body is written on libuv's threads while this one plans and writes the rest
 * (a large document); smaller ones synchronously (see above).
 */
export const WRITE_APART_FROM = 1 << 20;

/** Writes `file` under `root`; a large body goes to `apart`, written on libuv's threads, to be awaited before the commit. */
function writePlanned(root: string, file: PlannedFile, dirs: Set<string>, apart?: Promise<void>[]): void {
  const target = join(root, file.path);
  const dir = dirname(target);
  if (!dirs.has(dir)) {
    makeFoldersSync(dir);
    dirs.add(dir);
  }
  if (isLatinPieces(file.body)) writeTextsSync(target, file.body.pieces);
  else if (file.body !== undefined && apart !== undefined && file.size >= WRITE_APART_FROM) apart.push(writeApart(target, file.body));
  else if (file.body !== undefined) writeFileSync(target, file.body);
  // A copy, never a link to the content file: editing content in place must not alter the output. Reflinked where the filesystem can.
  else if (file.copyFrom !== undefined) copyFileSync(file.copyFrom, target, constants.COPYFILE_FICLONE);
  else if (file.linkFrom !== undefined) linkOrCopy(file.linkFrom, target);
  else throw new Error(`planned output ${file.path} has neither body, copyFrom nor linkFrom`);
}

/**
 * Writes `body` to `target` on libuv's threads: the file is opened here and the bytes handed
 * over at once, so the write goes on while this thread works (fs.promises.writeFile would wait
 * for this thread between its steps). Settles once the file is closed.
 */
function writeApart(target: string, body: string | Buffer): Promise<void> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const fd = openSync(target, 'w');
  const writing = new Promise<void>((resolve, reject) => {
    const from = (offset: number) =>
      write(fd, bytes, offset, bytes.length - offset, null, (failure, written) => {
        if (failure === null && offset + written < bytes.length) return from(offset + written);
        close(fd, (closing) => (failure ?? closing ? reject(failure ?? closing) : resolve()));
      });
    from(0);
  });
  // Awaited before the commit; until then a failure must not count as an unhandled rejection.
  writing.catch(() => undefined);
  return writing;
}

function linkOrCopy(from: string, target: string): void {
  try {
    linkSync(from, target);
  } catch (failure) {
    // EXDEV (another filesystem), EPERM (a filesystem without hard links), EMLINK (too many links).
    if (!['EXDEV', 'EPERM', 'EMLINK', 'ENOTSUP', 'EOPNOTSUPP'].includes((failure as NodeJS.ErrnoException).code ?? '')) throw failure;
    copyFileSync(from, target, constants.COPYFILE_FICLONE);
  }
}

export async function writeOutput(options: WriteOutputOptions): Promise<WriteOutputResult> {
  const { outDir, previous } = options;
  const incremental = previous !== null && existsSync(join(outDir, MANIFEST_FILE));
  const id = randomBytes(4).toString('hex');
  const txnDir = incremental ? newTransactionDir(outDir, id) : join(dirname(outDir), `.${basename(outDir)}.staging-${process.pid}-${id}`);
  // Incremental: changed files go to <txn>/new, mirrored on the output's layout. Full: the whole new tree.
  const staging = incremental ? join(txnDir, 'new') : txnDir;
  const entries = new Map<string, ManifestEntry>();
  const written: string[] = [];
  let kept = 0;
  let generating: Promise<string[]> | undefined;
  const apart: Promise<void>[] = [];
  const digits = incremental ? segmentDigits(previous.counts.records) : 0;
  // The planned paths the previous manifest lists, by segment: what removedPaths weighs against each segment's count.
  const listed = new Map<string, number>();
  const count = (key: string) => listed.set(key, (listed.get(key) ?? 0) + 1);
  const same = (path: string, entry: ManifestEntry) => {
    if (!incremental) return false;
    const key = segmentKeyOf(path, digits);
    const old = segmentEntries(previous, key)?.get(path);
    if (old === undefined) return false;
    count(key);
    return old.sha256 === entry.sha256 && old.size === entry.size;
  };
  try {
    makeFoldersSync(staging);
    const dirs = new Set<string>();
    // What the generators read is written first, so that they (esbuild, in its own process)
    // run while this thread compares and writes everything else.
    for (const file of options.files) if (file.neededByGenerate) writePlanned(staging, file, dirs);
    generating = options.generate?.(staging);
    // Awaited below; until then a failure must not count as an unhandled rejection.
    generating?.catch(() => undefined);
    const compare = (file: PlannedFile) => {
      const entry = { sha256: file.sha256, size: file.size };
      entries.set(file.path, entry);
      const trusted = incremental && file.unchanged === true;
      if (trusted) count(segmentKeyOf(file.path, digits));
      const unchanged = trusted || same(file.path, entry);
      if (!unchanged && !file.neededByGenerate) writePlanned(staging, file, dirs, apart);
      if (unchanged) kept++;
      else written.push(file.path);
    };
    options.files.forEach(compare);
    const later = options.plannedLater?.(written, incremental) ?? { files: [] };
    const tooLate = later.files.find((file) => file.neededByGenerate);
    if (tooLate) throw new Error(`writeOutput: ${tooLate.path} is needed by the generators, so it cannot be planned after they started`);
    later.files.forEach(compare);
    const implicit = keptTogether([options.kept, later.kept]);
    if (implicit && implicit.count > 0 && !incremental) throw new Error('writeOutput: files kept from a previous output that is not there');

    // Generated files: hash what the generators wrote; an identical one is not applied.
    const generated = ((await generating) ?? []).filter((p) => !entries.has(p) && p !== MANIFEST_FILE).sort();
    for (const path of generated) {
      const bytes = readFileSync(join(staging, path));
      const entry = { sha256: sha256Of(bytes), size: bytes.length };
      entries.set(path, entry);
      if (same(path, entry)) kept++;
      else written.push(path);
    }
    written.sort();

    const removed = previous === null ? [] : removedPaths(previous, entries, incremental && entries.size === kept + written.length ? listed : null, implicit);
    kept += implicit?.count ?? 0;
    const manifest = options.manifestFor(entries, incremental ? { previous, changed: [...written, ...removed] } : undefined);
    // Same files (nothing written, nothing removed, so every entry matched): only settings or counts could differ.
    if (incremental && written.length === 0 && removed.length === 0 && sameHeader(previous, manifest)) {
      rmSync(txnDir, { recursive: true, force: true });
      return { changed: false, manifest, written, kept, removed };
    }
    // Every file is in the staging folder before the root that names it (a large one was written meanwhile).
    await Promise.all(apart);
    // The segments this build serialised go in beside the files, before the root that names them.
    const previousSegments = new Set(previous === null ? [] : segmentFiles(previous));
    const segments = newSegmentFiles(manifest).filter((segment) => !incremental || !previousSegments.has(segment.path));
    for (const segment of segments) writePlanned(staging, { path: segment.path, sha256: '', size: 0, body: segment.text }, dirs);
    writeFileSync(join(staging, MANIFEST_FILE), manifestJson(manifest));
    if (!incremental) {
      await swapIn(staging, outDir);
      return { changed: true, manifest, written, kept, removed };
    }
    const named = new Set(segmentFiles(manifest));
    const journal = journalFor(outDir, manifest.version, [...written, ...segments.map((segment) => segment.path)], removed, previous);
    // The previous build's segments that the new root no longer names go once it is in place.
    await commitStaged(txnDir, { ...journal, retiredSegments: [...previousSegments].filter((path) => !named.has(path)).sort() }, options.beforeCommitStep);
    return { changed: true, manifest, written, kept, removed };
  } catch (failure) {
    // A generator or a write still going into the staging folder would make it again after the rm.
    await Promise.allSettled([generating, ...apart]);
    if (existsSync(txnDir)) rmSync(txnDir, { recursive: true, force: true });
    throw failure;
  }
}

/**
 * The previous paths neither planned nor kept, sorted. Only the segments that may hold one are
 * looked through: an id segment no kept files touch when they cover every kind of per-record
 * file (ID_FOLDERS) holds only kept files; a folder's segment whose count is its planned paths
 * the previous manifest lists (`listed`, by segment; null: not known, every segment is looked
 * through) holds none gone. Every previous file is then planned, kept or gone: a count that
 * does not add up means a kept file the previous manifest lacks, a defect.
 */
function removedPaths(previous: Manifest, planned: ReadonlyMap<string, ManifestEntry>, listed: ReadonlyMap<string, number> | null, implicit: KeptFiles | undefined): string[] {
  const digits = segmentDigits(previous.counts.records);
  const touched = new Set(implicit?.touched(digits) ?? []);
  const covered = implicit !== undefined && ID_FOLDERS.every((folder) => implicit.folders.includes(folder));
  const removed: string[] = [];
  for (const key of segmentKeys(previous)) {
    // A segment's count is its ref's where its file is not read yet: one the change does not touch is not read.
    if (listed !== null && !touched.has(key) && (key.startsWith('id:') ? covered : (listed.get(key) ?? 0) === segmentSize(previous, key))) continue;
    segmentEntries(previous, key)!.forEach((_, path) => {
      if (!planned.has(path) && implicit?.has(path) !== true) removed.push(path);
    });
  }
  if (listed !== null) {
    let accounted = removed.length + (implicit?.count ?? 0);
    for (const count of listed.values()) accounted += count;
    if (accounted !== previous.counts.files) throw new Error(`writeOutput: ${accounted - previous.counts.files} of the files kept from the previous output are not in its manifest`);
  }
  return removed.sort();
}

/** The files kept unlisted by several planners as one, or undefined when none are. */
export function keptTogether(parts: readonly (KeptFiles | undefined)[]): KeptFiles | undefined {
  const kept = parts.filter((part): part is KeptFiles => part !== undefined);
  if (kept.length <= 1) return kept[0];
  return {
    count: kept.reduce((sum, part) => sum + part.count, 0),
    has: (path) => kept.some((part) => part.has(path)),
    folders: kept.flatMap((part) => part.folders),
    touched: (digits) => kept.flatMap((part) => [...part.touched(digits)]),
  };
}

function journalFor(outDir: string, version: string, written: string[], removed: string[], previous: Manifest): Journal {
  const replaced: string[] = [];
  const added: string[] = [];
  // A file the previous manifest lists but that is missing (edited by hand) counts as added, so a rollback removes it again.
  for (const path of written) (manifestEntry(previous, path) && existsSync(join(outDir, path)) ? replaced : added).push(path);
  const createdDirs = new Set<string>();
  for (const path of added) {
    const missing: string[] = [];
    for (let dir = dirname(path); dir !== '.' && !existsSync(join(outDir, dir)); dir = dirname(dir)) missing.unshift(dir);
    for (const dir of missing) createdDirs.add(dir);
  }
  const existingRemoved = removed.filter((path) => existsSync(join(outDir, path)));
  return { outDir, version, replaced, added, removed: existingRemoved, createdDirs: [...createdDirs].sort((a, b) => a.length - b.length || (a < b ? -1 : 1)) };
}

/** First build: replaces `outDir` with `staging`; the output folder is either the old tree or the new one. */
async function swapIn(staging: string, outDir: string): Promise<void> {
  const retired = `${staging}.previous`;
  let hadPrevious = true;
  try {
    await rename(outDir, retired);
  } catch (failure) {
    if ((failure as NodeJS.ErrnoException).code !== 'ENOENT') throw failure;
    hadPrevious = false;
  }
  try {
    await rename(staging, outDir);
  } catch (failure) {
    if (hadPrevious) await rename(retired, outDir);
    throw failure;
  }
  if (hadPrevious) removeInBackground(retired);
}
