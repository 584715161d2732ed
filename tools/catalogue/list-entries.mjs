// The content listing of the scan (scan-content.ts): every entry below a folder except folders,
// with the lstat fields the build keys on, sorted by path. Plain JavaScript, so that this file
// runs as it is in a worker thread under tsx, vitest and the CLI's bundle alike: a change build
// lists in a worker while its own thread reads the last build's cache (scan-content.ts).
//
// The walk is one `readdir` with file types per folder and an lstat per entry that is not a
// folder: symlinks are listed, never followed; hidden names (a leading dot) are skipped, folders
// and all. A folder named with a line break is listed (and refused by the scan), not walked into,
// rather than dropped with its contents; a folder named like an image is listed and walked into.
// Written here rather than with fast-glob, which made an object and a pattern match per entry
// (what that cost at 100k records: tools/catalogue/README.md).
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

/** The kinds of entry, by their number in a listing's `stats`. */
export const KINDS = ['file', 'directory', 'symlink', 'other'];
/** Numbers per entry in `stats`: kind, size, mtimeMs, ctimeMs, ino. */
export const FIELDS = 5;

/** A character outside ASCII. */
export const NON_ASCII = /[^\x00-\x7f]/;
/** Line terminators: a name holding one breaks line-based tools, and the scan refuses it. */
export const LINE_BREAK = /[\n\r\u2028\u2029]/;
/** Extensions accepted as image content (lowercase). `.jpeg` publishes as `.jpg`. */
export const CONTENT_IMAGE_EXTS = new Set(['.png', '.jpg', '.jpeg', '.gif', '.webp', '.avif']);

/** Index of the extension's dot in a content-relative path (as `extname`: not in a folder name, not a leading dot), or -1. */
export function extDot(rel) {
  const dot = rel.lastIndexOf('.');
  const slash = rel.lastIndexOf('/');
  return dot > slash + 1 ? dot : -1;
}

/** Whether a path is named like an image (`frog.png`): a folder so named is listed, to be reported beside its sidecar. */
function isImageName(path) {
  const dot = extDot(path);
  return dot >= 0 && CONTENT_IMAGE_EXTS.has(path.slice(dot).toLowerCase());
}

/**
 * Lists `root` (resolved). `onChange` is called once, as soon as an entry or folder has a ctime
 * past `since` (a folder's ctime moves when an entry is added, removed or renamed in it; a
 * file's when it is written). Returns the paths sorted, FIELDS numbers per path, and `digest`,
 * a sha256 of both: equal digests, equal listings (a no-change build needs nothing else); and
 * whether every path is ASCII (the pairing then folds no name to Unicode NFC). `onWalked` and
 * `walked`: as `listed` below.
 */
export function listEntries(root, since, onChange, onWalked) {
  const { paths, stats, digest, ascii, walked } = listed(root, since, onChange, onWalked);
  return { paths, stats, digest, ascii, walked };
}

/**
 * `listEntries`, with the paths also as one text, NUL between them (a path never holds NUL): what
 * the digest hashes and a worker posts. `onWalked`, when given, is called once every folder is
 * read and before any entry is lstat'ed, with that text and the numbers, each path's kind set from
 * its folder entry, on shared memory the lstats then fill, and how many paths from the first are
 * filled (shared too): another thread can pair the paths, then take each pair whose numbers are in. `walked` then says whether those paths and kinds are the listing's (in its order:
 * no folder listed out of it; each entry of the kind its lstat gives), so that what was made of
 * them stands.
 */
function listed(root, since, onChange, onWalked) {
  let hint = since !== undefined;
  const seen = (ctimeMs) => {
    if (!hint || ctimeMs <= since) return;
    hint = false;
    onChange();
  };
  // The top folder before the walk: an image added or removed there hints at once. Its own
  // ctime, also when the path is a symlink to it (as the walk reads through it).
  if (hint) seen(statSync(root).ctimeMs);
  const base = root === '/' ? '' : root;
  const paths = [];
  // The entries listed as folders (no lstat), by index: a handful at most.
  const folders = [];
  // The entries that are neither a file nor a folder by their folder entry, by path: a handful at most.
  const odd = onWalked ? new Map() : null;
  // First every folder's names, then an lstat per path into numbers of their final size: a
  // list grown a path at a time is several times its size in fresh memory before it is copied.
  const walk = (folder) => {
    // A folder's name as its entries' paths go on (`name/`): each folder's entries in this order make the walk's paths sorted but for the folders it lists.
    const names = [];
    for (const dirent of readdirSync(folder === '' ? root : `${base}/${folder}`, { withFileTypes: true })) {
      if (dirent.name.charCodeAt(0) === 46) continue;
      const isFolder = dirent.isDirectory();
      names.push(isFolder ? `${dirent.name}/` : dirent.name);
      if (odd !== null && !isFolder && !dirent.isFile()) odd.set(`${folder}${folder === '' ? '' : '/'}${dirent.name}`, dirent.isSymbolicLink() ? 2 : 3);
    }
    names.sort();
    for (const name of names) {
      const isFolder = name.charCodeAt(name.length - 1) === 47;
      const path = `${folder}${folder === '' ? '' : '/'}${isFolder ? name.slice(0, -1) : name}`;
      if (!isFolder) {
        paths.push(path);
        continue;
      }
      if (hint) seen(lstatSync(`${base}/${path}`).ctimeMs);
      const lineBreak = LINE_BREAK.test(name);
      if (lineBreak || isImageName(path)) {
        folders.push(paths.length);
        paths.push(path);
      }
      if (!lineBreak) walk(path);
    }
  };
  walk('');
  const numbers = onWalked ? new Float64Array(new SharedArrayBuffer(paths.length * FIELDS * 8)) : new Float64Array(paths.length * FIELDS);
  // How many paths, from the first, have their numbers: shared, so another thread can use each as it is filled.
  const filled = onWalked ? new Int32Array(new SharedArrayBuffer(4)) : null;
  let walkedText;
  if (onWalked) {
    // Files are kind 0, as the numbers start.
    if (odd.size > 0) for (let index = 0; index < paths.length; index++) numbers[index * FIELDS] = odd.get(paths[index]) ?? 0;
    for (const index of folders) numbers[index * FIELDS] = 1;
    walkedText = paths.join('\0');
    onWalked(walkedText, numbers, filled);
  }
  let kindsStand = true;
  for (let index = 0, folder = 0; index < paths.length; index++) {
    const at = index * FIELDS;
    if (folders[folder] === index) {
      folder++;
      numbers[at] = 1;
      continue;
    }
    const stats = lstatSync(`${base}/${paths[index]}`);
    seen(stats.ctimeMs);
    const kind = stats.isDirectory() ? 1 : stats.isSymbolicLink() ? 2 : stats.isFile() ? 0 : 3;
    if (kind !== numbers[at]) kindsStand = false;
    numbers[at] = kind;
    numbers[at + 1] = stats.size;
    numbers[at + 2] = stats.mtimeMs;
    numbers[at + 3] = stats.ctimeMs;
    numbers[at + 4] = stats.ino;
    if (filled !== null && (index & 1023) === 1023) Atomics.store(filled, 0, index + 1);
  }
  if (filled !== null) Atomics.store(filled, 0, paths.length);
  // Sorted already unless a folder was listed: then a sort that finds most of it in order.
  let inOrder = true;
  for (let at = 1; inOrder && at < paths.length; at++) inOrder = paths[at - 1] < paths[at];
  const order = inOrder ? null : paths.map((_, index) => index).sort((a, b) => (paths[a] < paths[b] ? -1 : paths[a] > paths[b] ? 1 : 0));
  let stats = numbers;
  if (order !== null) {
    stats = new Float64Array(numbers.length);
    for (let at = 0; at < order.length; at++) for (let field = 0; field < FIELDS; field++) stats[at * FIELDS + field] = numbers[order[at] * FIELDS + field];
  }
  const sorted = order === null ? paths : order.map((index) => paths[index]);
  const text = order === null && walkedText !== undefined ? walkedText : sorted.join('\0');
  // One hash of two buffers: the paths, and the numbers' bytes as they are.
  const digest = createHash('sha256').update(text).update(new Uint8Array(stats.buffer)).digest('hex');
  return { paths: sorted, text, stats, digest, ascii: !NON_ASCII.test(text), walked: onWalked !== undefined && order === null && kindsStand };
}

// In a worker started on this file (scan-content.ts): list, posting the paths as one text and the
// shared numbers once walked; then the digest, whether the paths are ASCII, and, unless the walked
// paths and numbers are the listing's, the paths and the numbers' buffer (moved rather than copied).
const job = parentPort && workerData?.pepeListEntries;
if (job) {
  try {
    const { text, stats, digest, ascii, walked } = listed(job.root, job.since, () => parentPort.postMessage({ change: true }), (paths, stats, filled) => parentPort.postMessage({ walked: paths, stats, filled }));
    if (walked) parentPort.postMessage({ digest, ascii });
    else parentPort.postMessage({ paths: text, stats, digest, ascii }, [stats.buffer]);
  } catch (failure) {
    const fields = { code: failure?.code, path: failure?.path, errno: failure?.errno, syscall: failure?.syscall };
    parentPort.postMessage({ failure: { message: failure instanceof Error ? failure.message : String(failure), fields } });
  }
}
