/**
 * The scan stage: lists the content folder (list-entries.mjs) and pairs each image with its sidecar.
 * The listing reads nothing, it only lists and lstats: symlinks are never followed, only
 * reported. Below it, the file-level checks of that stage (a path below another, unreadable
 * files, a file in the way of a folder, names that collide by case) and the one way the later
 * stages read a content file.
 */
import { statSync, closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { readlink, realpath } from 'node:fs/promises';
import { isAbsolute, relative, sep, dirname, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CONTENT_IMAGE_EXTS, extDot, FIELDS, KINDS, LINE_BREAK, listEntries, type Listing, NON_ASCII } from './list-entries.mjs';
import { shellWord, shownPath } from '../shared/shell-path.js';
import { type Problem, error } from '../shared/problems.js';
import type { StatKey } from './cache/stat-keyed-map.js';

export { CONTENT_IMAGE_EXTS } from './list-entries.mjs';

/** A listed file, with the lstat fields the build cache keys on (cache/stat-keyed-map.ts). */
export interface ContentFile extends StatKey {
  /** Content-relative path, forward slashes. */
  rel: string;
  abs: string;
}

/** One image and the sidecar that describes it (`NAME.EXT` + `NAME.json`). */
export interface ContentPair {
  image: ContentFile;
  sidecar: ContentFile;
}

export interface ContentScan {
  pairs: ContentPair[];
  problems: Problem[];
  /** Sidecars in no pair: their image was refused, or they have none (the problems say which). Validated all the same. */
  loneSidecars: ContentFile[];
  /** Every path listed is ASCII: each then folds to a key of its own length (`caseCollisions`). */
  ascii?: boolean;
}

/** `resolve(root, rel)` for a resolved root; plain concatenation on POSIX, where a resolve per file adds up. */
const absOf = (root: string, rel: string): string => (sep === '/' ? `${root === '/' ? '' : root}/${rel}` : resolve(root, rel));

/**
 * A listed file read from the listing's numbers on access: one small object per file, rather
 * than one holding its absolute path and four numbers (boxed, as doubles) for every file of the
 * catalogue when a change build asks most of them only for their path and stat keys, once.
 */
class ListedFile implements ContentFile {
  constructor(
    readonly rel: string,
    private readonly root: string,
    private readonly stats: Float64Array,
    /** Where its numbers start in the listing's. */
    readonly at: number,
  ) {}

  get abs(): string {
    return absOf(this.root, this.rel);
  }
  get size(): number {
    return this.stats[this.at + 1]!;
  }
  get mtimeMs(): number {
    return this.stats[this.at + 2]!;
  }
  get ctimeMs(): number {
    return this.stats[this.at + 3]!;
  }
  get ino(): number {
    return this.stats[this.at + 4]!;
  }
}

const toFile = (root: string, rel: string, stats: Float64Array, at: number): ContentFile => new ListedFile(rel, root, stats, at);

/**
 * The name an image and its sidecar share: the path without its extension, the file name in
 * Unicode NFC. `café.png` with a composed "é" and `café.json` with "e" + U+0301 (as macOS tools
 * may write it) look the same and are the same name on macOS: one record, not an image without
 * a sidecar plus an orphan sidecar. (Folders are left as they are: two spellings of a folder
 * are two folders here.)
 */
const stemOf = (rel: string, dot = extDot(rel)): string => {
  const stem = dot < 0 ? rel : rel.slice(0, dot);
  // ASCII is already NFC: most names skip the (10k-file rebuilds: several ms) normalisation.
  if (!NON_ASCII.test(stem)) return stem;
  const slash = stem.lastIndexOf('/');
  return stem.slice(0, slash + 1) + stem.slice(slash + 1).normalize('NFC');
};

async function symlinkProblem(realRoot: string, abs: string, rel: string): Promise<Problem> {
  const target = await readlink(abs).catch(() => '');
  const resolved = resolve(dirname(abs), target);
  const realTarget = await realpath(resolved).catch(() => resolved);
  if (!isAtOrBelow(realRoot, realTarget)) {
    return error('outside-content-root', `is a symlink to "${target}", which is outside the content folder: copy the file into the content folder instead`, rel);
  }
  return error('symlink', `is a symlink (to "${target}"); symlinks are never followed: replace it with the real file`, rel);
}

/** A listing whose paths are already paired, or being paired (`listInWorker`). */
type PairedListing = Listing & { scan?: Promise<ContentScan> };

/**
 * The listing (list-entries.mjs) in a worker thread: this thread is free meanwhile for the
 * work the change hint starts, which runs here as soon as the worker meets the change, and,
 * once the hint is given and every folder read, for `pair`ing the paths while the worker
 * lstats them (the numbers it fills are shared; the pairing reads only the kinds): the
 * listing's `scan` when those paths and kinds prove to be the listing's.
 * Rejects as the listing throws, with the failure's code and path.
 */
function listInWorker(root: string, changed: ChangeHint, pair: (listing: Listing) => Promise<ContentScan>): Promise<PairedListing> {
  return new Promise((resolve, reject) => {
    // The top folder is looked at here, while the worker starts: an image added or removed there hints at once.
    const atOnce = statSync(root).ctimeMs > changed.since;
    const worker = new Worker(new URL('./list-entries.mjs', import.meta.url), { workerData: { pepeListEntries: { root, since: atOnce ? undefined : changed.since } } });
    let hinted = false;
    let walked: { text: string; stats: Float64Array; filled: Int32Array; paths?: string[] } | undefined;
    let scan: Promise<ContentScan> | undefined;
    const pathsOf = (given: NonNullable<typeof walked>) => (given.paths ??= given.text === '' ? [] : given.text.split('\0'));
    // Only in a build the hint says is a change build: a build that finds its listing unchanged pairs nothing.
    const pairWalked = () => {
      if (!hinted || walked === undefined || scan !== undefined) return;
      const listing = { paths: pathsOf(walked), stats: walked.stats, digest: '', ascii: !NON_ASCII.test(walked.text) };
      const { filled } = walked;
      const lastEntry = (file: ContentFile) => (file instanceof ListedFile ? file.at / FIELDS : Infinity);
      scan = new Promise((done) => setImmediate(done)).then(() => pair(listing));
      const onPaired = changed.onPaired;
      if (onPaired) void scan.then((paired) => onPaired(paired, (index) => Math.max(lastEntry(paired.pairs[index]!.image), lastEntry(paired.pairs[index]!.sidecar)) < Atomics.load(filled, 0)), () => undefined);
      // Settled by the listing's end: dropped then unless the listing proved to be the one walked.
      scan.catch(() => undefined);
    };
    const hint = () => {
      hinted = true;
      changed.onChange();
      pairWalked();
    };
    if (atOnce) hint();
    let settled = false;
    worker.on('message', (message: { change?: true; walked?: string; filled?: Int32Array; failure?: { message: string; fields: object }; paths?: string; stats?: Float64Array; digest?: string; ascii?: boolean }) => {
      if (message.change) return hint();
      if (message.walked !== undefined) {
        walked = { text: message.walked, stats: message.stats!, filled: message.filled! };
        return pairWalked();
      }
      settled = true;
      if (message.failure) reject(Object.assign(new Error(message.failure.message), message.failure.fields));
      // No paths: the walked ones and their numbers are the listing.
      else if (message.paths === undefined) resolve({ paths: pathsOf(walked!), stats: walked!.stats, digest: message.digest!, ascii: message.ascii!, scan });
      else resolve({ paths: message.paths === '' ? [] : message.paths.split('\0'), stats: message.stats!, digest: message.digest!, ascii: message.ascii! });
    });
    worker.on('error', (failure) => {
      settled = true;
      reject(failure);
    });
    worker.on('exit', (code) => {
      if (!settled) reject(new Error(`the content listing's worker thread stopped (exit code ${code}) before it listed "${root}"`));
    });
  });
}


/**
 * The `pepe add` command that gives an image in the content folder its sidecar, runnable as
 * printed from the current folder: the path quoted for a shell, and `--content` when the
 * content folder is not the default `./content`.
 */
function addCommand(root: string, imageAbs: string): string {
  const content = root === resolve('content') ? '' : ` --content ${shellWord(shownPath(root))}`;
  return `npx pepe add ${shellWord(shownPath(imageAbs))}${content}`;
}

/**
 * A hint a scan gives once, as soon as it meets a file or folder changed (by its ctime) after
 * `since` (ms): only to start work early, never to decide. `inWorker`: the scan lists in a
 * worker thread, so that the work the hint starts runs on this thread meanwhile (worth a
 * thread's start only for a large catalogue).
 */
export interface ChangeHint {
  since: number;
  onChange: () => void;
  inWorker?: boolean;
  /**
   * With `inWorker`: the scan, paired while the worker lstats the paths once the hint is given
   * (`filled`: whether a pair's stat keys are in yet). Only a start: the scan the listing ends
   * with may be another (`listContent`'s `pair` says which).
   */
  onPaired?: (scan: ContentScan, filled: (pair: number) => boolean) => void;
}

/** Scans `contentDir` (hidden files and folders are ignored), sorted by path for deterministic output. */
export async function scanContent(contentDir: string, changed?: ChangeHint): Promise<ContentScan> {
  const listed = await listContent(contentDir, changed);
  return 'pair' in listed ? listed.pair() : listed;
}

/** The content folder listed and not yet paired: `digest` stands for the whole listing (list-entries.mjs); `pair` makes the scan of it. */
export interface ListedContent {
  digest: string;
  pair(): Promise<ContentScan>;
}

/** `scanContent` up to the listing, so that a build whose listing is the last build's stops there; a scan when the folder cannot be listed. */
export async function listContent(contentDir: string, changed?: ChangeHint): Promise<ListedContent | ContentScan> {
  const root = resolve(contentDir);
  const notFolder = folderProblem('content-missing', 'the content folder', root, 'pass --content with the folder that holds the images');
  if (notFolder) return { pairs: [], problems: [notFolder], loneSidecars: [] };
  const realRoot = await realpath(root).catch(() => null);
  if (realRoot === null) return { pairs: [], problems: [error('content-missing', `the content folder "${root}" does not exist: create it or pass --content`)], loneSidecars: [] };
  let listing: PairedListing;
  try {
    listing = changed?.inWorker ? await listInWorker(root, changed, (walked) => pairEntries(root, realRoot, walked)) : listEntries(root, changed?.since, () => changed?.onChange());
  } catch (cause) {
    // A folder this user cannot list: named (the whole scan stops, as its contents are unknown).
    const path = (cause as NodeJS.ErrnoException).path;
    return { pairs: [], problems: [unreadableProblem(cause, path ? relative(root, path).split(sep).join('/') || '.' : '.')], loneSidecars: [] };
  }
  return { digest: listing.digest, pair: () => listing.scan ?? pairEntries(root, realRoot, listing) };
}

/** The stems of the paths that are not ASCII, in NFC: a name spelled otherwise may share its stem with an ASCII one. */
function nonAsciiStems(paths: readonly string[]): Set<string> {
  const stems = new Set<string>();
  for (const path of paths) if (NON_ASCII.test(path)) stems.add(stemOf(path));
  return stems;
}

/**
 * Whether the file at `index` and the next one are an image and its sidecar that no other
 * entry shares a stem with, and which comes first; null otherwise. Every path holding the stem
 * `S` starts with `S.` (`foreign`: the stems of names NFC may fold onto it), and the sorted
 * listing holds those paths in one run: when the run is these two, they are the whole group,
 * and the scan pairs them without a map by stem. Any other group takes the maps.
 */
function aloneWithPartner(paths: readonly string[], stats: Float64Array, index: number, foreign: ReadonlySet<string>): 'image first' | 'sidecar first' | null {
  const path = paths[index]!;
  const next = paths[index + 1];
  if (next === undefined || stats[index * FIELDS] !== 0 || stats[(index + 1) * FIELDS] !== 0) return null;
  const dot = extDot(path);
  if (dot < 0 || extDot(next) !== dot) return null;
  const run = path.slice(0, dot + 1);
  if (!next.startsWith(run) || paths[index - 1]?.startsWith(run) || paths[index + 2]?.startsWith(run) || LINE_BREAK.test(path) || LINE_BREAK.test(next)) return null;
  if (foreign.size > 0 && foreign.has(path.slice(0, dot))) return null;
  const ext = path.slice(dot).toLowerCase();
  const nextExt = next.slice(dot).toLowerCase();
  if (ext === '.json' && CONTENT_IMAGE_EXTS.has(nextExt)) return 'sidecar first';
  if (nextExt === '.json' && CONTENT_IMAGE_EXTS.has(ext)) return 'image first';
  return null;
}

/** The pairs of a listing, and its problems. */
async function pairEntries(root: string, realRoot: string, listing: Listing): Promise<ContentScan> {
  const problems: Problem[] = [];
  const images = new Map<string, ContentFile[]>();
  const sidecars = new Map<string, ContentFile>();
  const caseTwinSidecars: ContentFile[] = [];
  /**
   * Stems of refused entries (symlinks, unsupported files), so that their partner is not
   * reported a second time as an orphan sidecar or an image without sidecar.
   */
  const refused = new Set<string>();
  /** Folders named like an image, by stem. */
  const imageNamedFolders = new Map<string, string>();
  const { paths, stats } = listing;
  const pairs: ContentPair[] = [];
  const foreign = listing.ascii ? new Set<string>() : nonAsciiStems(paths);
  for (let index = 0; index < paths.length; index++) {
    const path = paths[index]!;
    const alone = aloneWithPartner(paths, stats, index, foreign);
    if (alone !== null) {
      const next = toFile(root, paths[index + 1]!, stats, (index + 1) * FIELDS);
      const file = toFile(root, path, stats, index * FIELDS);
      pairs.push(alone === 'image first' ? { image: file, sidecar: next } : { image: next, sidecar: file });
      index++;
      continue;
    }
    const kind = KINDS[stats[index * FIELDS]!];
    // A name the listing does not walk into (folders), and that would break every line-based tool a
    // maintainer or CI uses on the file: refused by name rather than skipped without a word.
    if (LINE_BREAK.test(path)) {
      const folder = kind === 'directory';
      problems.push(error('line-break-in-name', `${folder ? "this folder's name" : 'its name'} holds a line break${folder ? ', so nothing inside it was read' : ''}: rename it`, path));
      if (!folder) refused.add(stemOf(path));
      continue;
    }
    if (kind === 'directory') {
      // A folder named like an image (`frog.png/`): reported if a sidecar expects that image.
      const dot = extDot(path);
      imageNamedFolders.set(stemOf(path, dot), path);
      continue;
    }
    if (kind === 'symlink') {
      problems.push(await symlinkProblem(realRoot, resolve(root, path), path));
      refused.add(stemOf(path));
      continue;
    }
    if (kind !== 'file') {
      problems.push(error('not-a-file', 'is not a regular file: remove it from the content folder', path));
      refused.add(stemOf(path));
      continue;
    }
    const dot = extDot(path);
    const ext = dot < 0 ? '' : path.slice(dot).toLowerCase();
    const stem = stemOf(path, dot);
    const file = toFile(root, path, stats, index * FIELDS);
    if (ext === '.json') {
      // `frog.json` + `frog.JSON`: the second is kept as a lone sidecar, so the case-collision
      // check names both (a map by stem alone passed one of them over without a word).
      if (sidecars.has(stem)) caseTwinSidecars.push(file);
      else sidecars.set(stem, file);
    } else if (CONTENT_IMAGE_EXTS.has(ext)) {
      const same = images.get(stem);
      if (same) same.push(file);
      else images.set(stem, [file]);
    } else {
      refused.add(stem);
      problems.push(error('unsupported-format', `"${ext || 'no extension'}" is not a supported image format: convert it to PNG, JPEG, GIF, WebP or AVIF, or remove it`, path));
    }
  }

  // The sidecars paired here: those of the neighbours paired above are in no map.
  const paired = new Set<ContentFile>();
  for (const [stem, files] of images) {
    const sidecar = sidecars.get(stem);
    if (files.length > 1) {
      const names = files.map((f) => f.rel).join(' and ');
      problems.push(error('name-collision', `${names} share the sidecar name "${stem}.json" and would publish as one record: rename one of them and give it its own sidecar`, files[0]!.rel));
      continue;
    }
    const image = files[0]!;
    if (!sidecar) {
      if (refused.has(stem)) continue;
      problems.push(error('missing-sidecar', `has no sidecar "${stem}.json": run \`${addCommand(root, image.abs)}\` to give it one where it is, or write the sidecar by hand`, image.rel));
      continue;
    }
    pairs.push({ image, sidecar });
    paired.add(sidecar);
  }
  const loneSidecars: ContentFile[] = [...caseTwinSidecars];
  for (const [stem, sidecar] of sidecars) {
    if (!paired.has(sidecar)) loneSidecars.push(sidecar);
    const folder = imageNamedFolders.get(stem);
    if (!images.has(stem) && folder !== undefined) {
      problems.push(error('not-a-file', `is a folder, not the image "${sidecar.rel}" describes: put the image file itself at this path (or rename the folder)`, folder));
    } else if (!images.has(stem) && !refused.has(stem)) {
      problems.push(error('orphan-sidecar', `describes no image (expected "${stem}.png", ".jpg", ".jpeg", ".gif", ".webp" or ".avif" beside it): add the image or delete the sidecar`, sidecar.rel));
    }
  }
  // The pairs found beside their partner came in listing order: only those paired by stem need sorting in.
  if (paired.size > 0) pairs.sort((a, b) => (a.image.rel < b.image.rel ? -1 : 1));
  return { pairs, problems, loneSidecars, ascii: listing.ascii };
}

// Whether one path lies in another, the one test every containment check of the build makes.
/** `child` relative to `parent` ('' when they are the same) when it is `parent` or below it, else null. Both are resolved first. */
export function pathBelow(parent: string, child: string): string | null {
  const rel = relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)) ? rel : null;
}

/** Whether `child` is `parent` or below it. */
export const isAtOrBelow = (parent: string, child: string): boolean => pathBelow(parent, child) !== null;

// A content file or folder the build cannot read (permissions: a file copied in by another
// user or with `sudo`; or deleted while the build ran) is a problem naming it, like any other
// content mistake, not a crash with a stack trace. Any other system error is still thrown:
// it is not something a maintainer fixes in the content folder.
export function unreadableProblem(cause: unknown, rel: string): Problem {
  const code = (cause as NodeJS.ErrnoException | null)?.code;
  if (code === 'EACCES' || code === 'EPERM') {
    return error('unreadable', `cannot be read by this user (${code}): fix its permissions (e.g. \`chmod a+r\`, \`a+rx\` for a folder) or its owner`, rel);
  }
  // A name that is not UTF-8 comes back from the listing with U+FFFD in place of its bytes, and
  // no file has that name: it did not disappear, it cannot be named.
  if (code === 'ENOENT' && rel.includes('\ufffd')) return error('unreadable', 'its name is not valid UTF-8 (shown with \ufffd), so it cannot be read by name: rename it', rel);
  if (code === 'ENOENT' || code === 'ENOTDIR') return error('unreadable', 'disappeared while the command ran: run it again', rel);
  // O_NOFOLLOW met a symlink put there after the scan.
  if (code === 'ELOOP') return error('symlink', 'became a symlink while the command ran; symlinks are never followed: replace it with the real file', rel);
  throw cause;
}

// Folder arguments that name a file: `--content notes.txt`, `--out dist.zip`, `--cache` or
// `--into` onto an existing file. Found before any work, so that the command reports which
// flag to fix instead of failing later inside a read or `mkdir` (ENOTDIR, EEXIST).
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

// Content paths that differ only in letter case (`Frog.png` + `frog.webp`, whose sidecars
// are `Frog.json` and `frog.json`). Linux keeps both, but the default filesystems of macOS and
// Windows are case-insensitive: a maintainer cloning there gets one file where git has two,
// and that checkout no longer builds. So they are an error here, where they are still cheap
// to rename.
/** The key under which a case-insensitive (and, as on macOS, normalisation-insensitive) filesystem stores a name. */
export const foldKey = (rel: string): string => rel.normalize('NFC').toLowerCase();

/** A path of ASCII with no capital letter: its own `foldKey`, so that none is worked out for it. */
const FOLDED = /^[\0-@[-\x7f]*$/;

/**
 * Names that differ only in letter case. With `among`, only those that fold as one of these
 * paths do (a change build: a listing without a collision gains one only by a path it adds).
 */
export function caseCollisions(scan: Pick<ContentScan, 'pairs' | 'loneSidecars' | 'ascii'>, among?: readonly string[]): Problem[] {
  const byKey = new Map<string, string[]>();
  const keys = among === undefined ? null : new Set(among.map(foldKey));
  // Only a path of a key's length can fold to it, when every path is ASCII: the others are not folded.
  const lengths = keys !== null && scan.ascii === true ? new Set(Array.from(keys, (key) => key.length)) : null;
  const add = (rel: string) => {
    if (lengths !== null && !lengths.has(rel.length)) return;
    const key = FOLDED.test(rel) ? rel : foldKey(rel);
    if (keys !== null && !keys.has(key)) return;
    const same = byKey.get(key);
    if (same) same.push(rel);
    else byKey.set(key, [rel]);
  };
  for (const pair of scan.pairs) {
    add(pair.image.rel);
    add(pair.sidecar.rel);
  }
  for (const sidecar of scan.loneSidecars) add(sidecar.rel);
  const problems: Problem[] = [];
  for (const rels of byKey.values()) {
    if (rels.length < 2) continue;
    const names = [...rels].sort();
    problems.push(
      error('case-collision', `${names.join(' and ')} differ only in letter case: macOS and Windows checkouts keep one file for them (and then fail to build): rename one of them, and its image or sidecar with it`, names[0]),
    );
  }
  return problems;
}

// Reads one content file without ever following a symlink (O_NOFOLLOW), so a file swapped
// for a link between the scan and the read still cannot pull in bytes from elsewhere.
export type ReadResult = { ok: true; bytes: Buffer } | { ok: false; reason: 'too-large' | 'not-a-file'; size: number };

/**
 * Synchronous on purpose: sharp decodes on libuv's thread pool, and async file reads queue
 * behind the decodes in that same pool (4 threads), so each image's read waited for a decode
 * to finish and the decoders then sat idle. A content image is read in well under a
 * millisecond from the page cache.
 */
export function readContentFileSync(abs: string, maxBytes: number): ReadResult {
  const fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { ok: false, reason: 'not-a-file', size: stats.size };
    if (stats.size > maxBytes) return { ok: false, reason: 'too-large', size: stats.size };
    return { ok: true, bytes: readFileSync(fd) };
  } finally {
    closeSync(fd);
  }
}
