// The content listing of the scan (scan-content.ts): every entry below a folder except folders,
// with the lstat fields the build keys on, sorted by path. Plain JavaScript, so that this file
// runs as it is in a worker thread under tsx, vitest and the CLI's bundle alike: a change build
// lists in a worker while its own thread reads the last build's cache (scan-content.ts).
//
// fast-glob walks (one `readdir` with file types per folder; symlinks are listed, never
// followed); each entry is lstat-ed here. `unique: false`: a walk lists each path once, so the
// check's Set is pure cost. `**/*`, not `**`: fast-glob turns `**` into a regex whose `.` stops
// at a line break, so `**` silently skipped a file named with one; `*` is a class that matches
// it. Neither descends into a folder named with a line break, so such folders are listed (and
// refused by the scan) instead of being dropped with their contents, as are folders named like
// an image.
import fg from 'fast-glob';
import { createHash } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

/** The kinds of entry, by their number in a listing's `stats`. */
export const KINDS = ['file', 'directory', 'symlink', 'other'];
/** Numbers per entry in `stats`: kind, size, mtimeMs, ctimeMs, ino. */
export const FIELDS = 5;

/** A character outside ASCII. */
const NON_ASCII = /[^\x00-\x7f]/;
/** Line terminators: JavaScript's `.` (and so fast-glob's `**`) stops at each of them. */
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
 * whether every path is ASCII (the pairing then folds no name to Unicode NFC).
 */
export function listEntries(root, since, onChange) {
  const { paths, stats, digest, ascii } = listed(root, since, onChange);
  return { paths, stats, digest, ascii };
}

/** `listEntries`, with the paths also as one text, NUL between them (a path never holds NUL): what the digest hashes and a worker posts. */
function listed(root, since, onChange) {
  let hint = since !== undefined;
  const seen = (ctimeMs) => {
    if (!hint || ctimeMs <= since) return;
    hint = false;
    onChange();
  };
  // The top folder before the walk: an image added or removed there hints at once.
  if (hint) seen(lstatSync(root).ctimeMs);
  const entries = fg.sync('**/*', { cwd: root, dot: false, onlyFiles: false, followSymbolicLinks: false, objectMode: true, unique: false, suppressErrors: false });
  const base = root === '/' ? '' : root;
  const paths = [];
  const numbers = [];
  for (const { path, dirent } of entries) {
    if (dirent.isDirectory()) {
      if (hint) seen(lstatSync(`${base}/${path}`).ctimeMs);
      if (LINE_BREAK.test(path.slice(path.lastIndexOf('/') + 1)) || isImageName(path)) {
        paths.push(path);
        numbers.push(1, 0, 0, 0, 0);
      }
      continue;
    }
    const stats = lstatSync(`${base}/${path}`);
    seen(stats.ctimeMs);
    paths.push(path);
    numbers.push(stats.isDirectory() ? 1 : stats.isSymbolicLink() ? 2 : stats.isFile() ? 0 : 3, stats.size, stats.mtimeMs, stats.ctimeMs, stats.ino);
  }
  const order = paths.map((_, index) => index).sort((a, b) => (paths[a] < paths[b] ? -1 : paths[a] > paths[b] ? 1 : 0));
  const stats = new Float64Array(order.length * FIELDS);
  for (let at = 0; at < order.length; at++) for (let field = 0; field < FIELDS; field++) stats[at * FIELDS + field] = numbers[order[at] * FIELDS + field];
  const sorted = order.map((index) => paths[index]);
  const text = sorted.join('\0');
  // One hash of two buffers: the paths, and the numbers' bytes as they are.
  const digest = createHash('sha256').update(text).update(new Uint8Array(stats.buffer)).digest('hex');
  return { paths: sorted, text, stats, digest, ascii: !NON_ASCII.test(text) };
}

// In a worker started on this file (scan-content.ts): list, and post the paths as one text, the numbers' buffer (moved rather than copied), the digest and whether the paths are ASCII.
const job = parentPort && workerData?.pepeListEntries;
if (job) {
  try {
    const { text, stats, digest, ascii } = listed(job.root, job.since, () => parentPort.postMessage({ change: true }));
    parentPort.postMessage({ paths: text, stats, digest, ascii }, [stats.buffer]);
  } catch (failure) {
    const fields = { code: failure?.code, path: failure?.path, errno: failure?.errno, syscall: failure?.syscall };
    parentPort.postMessage({ failure: { message: failure instanceof Error ? failure.message : String(failure), fields } });
  }
}
