/**
 * Reads and checks the build output folder before anything touches the bucket: the
 * manifest's root must parse, each segment read must be the one the root names, and every
 * file checked (all of them, or those a diff against the bucket names) must exist with the
 * listed size and sha256. Any problem means nothing is uploaded (a half-checked build never goes out).
 */
import { createHash } from 'node:crypto';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { join } from 'node:path';
import fg from 'fast-glob';
import { deltaFiles, MANIFEST_FILE, type ManifestEntry, SEGMENT_FOLDER, type ManifestRoot, manifestShapeError, parseSegment, readTreesSync, segmentDigits, segmentFile, segmentFiles, segmentKeyOf, sha256Of, UnusableManifestError, withDeltaLines, withDeltaParts } from '../shared/manifest.js';
import { isBucketPath } from './object-keys.js';
import { error, type Problem } from '../shared/problems.js';
import { NotAFileError, oddKindAt, readAtMostSync, readRegularFile, readRegularFileSync } from '../shared/read-regular-file.js';

export interface LocalFile {
  /** Relative to the build folder, forward slashes. */
  path: string;
  size: number;
  sha256: string;
  /** MD5 too: a single-part S3 ETag is the MD5 of the bytes, a free second opinion on what the bucket holds. */
  md5: string;
  /** Kept for documents (not images) below 1 MiB: they are parsed for references, and re-reading 10k small files costs more than holding them. */
  bytes?: Buffer;
}

export interface LocalBuild {
  dir: string;
  root: ManifestRoot;
  /** The root's own bytes, kept: it is uploaded last, exactly as read. */
  rootBytes: Buffer;
  rootFile: LocalFile;
  /** Segment files to upload (the root's, or only those the bucket's root does not name), checked against their hash. */
  segments: LocalFile[];
  /** The checked files bound for the bucket: every site file, or only those a diff names. */
  files: LocalFile[];
  /** Whether the build lists `path` (reads its segment on first use). */
  lists: (path: string) => boolean;
  /** The entries of the build's segment `key` (its file checked against its hash), the delta applied, read once. */
  segment: (key: string) => Map<string, ManifestEntry>;
}

export type LocalBuildResult = { ok: true; build: LocalBuild } | { ok: false; problems: Problem[] };

/**
 * Files are read synchronously, in slices with a turn of the event loop between them: for
 * thousands of small files `fs/promises.readFile` costs several times the CPU, which alone
 * would break the no-op republish target (tools/bench/README.md).
 */
const READ_SLICE = 500;
/** Documents below this size keep their bytes after the check (`LocalFile.bytes` says why). */
const KEEP_BYTES_BELOW = 1024 * 1024;

/**
 * The bytes of a listed file when it has the listed size; otherwise what is there, whole if
 * it is a regular file. Without blocking and never more than one byte past the listed size: a
 * named pipe in the build folder blocked the publish for ever waiting for a writer, and a
 * device (a symlink to /dev/zero) was read for ever. Anything but the expected size is then
 * asked what it is (`oddKindAt`), so a listed file costs no stat of its own.
 */
function readListed(file: string, size: number): Buffer | NodeJS.ErrnoException {
  try {
    const bytes = readAtMostSync(file, size + 1);
    return bytes.length === size || oddKindAt(file) !== null ? bytes : readRegularFileSync(file);
  } catch (cause) {
    return cause as NodeJS.ErrnoException;
  }
}

function describeFile(path: string, bytes: Buffer): LocalFile {
  return {
    path,
    size: bytes.length,
    sha256: sha256Of(bytes),
    md5: createHash('md5').update(bytes).digest('hex'),
  };
}

/**
 * The fix for a build folder that is not as its build left it. Not "rebuild": `pepe build`
 * refuses to write over a folder without a build's manifest (tools/catalogue/README.md, "Nothing
 * half-written"), and over an intact one whose inputs did not change it writes nothing
 * (`last-build.json`), so a listed file deleted, edited or replaced by hand stayed so.
 */
const FRESH_BUILD = "delete the build folder and build again with 'pepe build'";

/** A segment of the build that is missing or not what its root names. */
class SegmentProblem extends Error {
  constructor(readonly problem: Problem) {
    super(problem.message);
  }
}

/** Reads and checks `<dir>/manifest.json`, its trees (a few KB each) and its delta: what a publish plans from. */
export async function readLocalRoot(dir: string): Promise<{ ok: true; root: ManifestRoot; bytes: Buffer } | { ok: false; problems: Problem[] }> {
  const manifestPath = join(dir, MANIFEST_FILE);
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(manifestPath);
  } catch (cause) {
    if (cause instanceof NotAFileError) return { ok: false, problems: [error('invalid-manifest', `is ${cause.kind}, not the build manifest: ${FRESH_BUILD} (or pass --dir with a build folder)`, manifestPath)] };
    const code = (cause as NodeJS.ErrnoException).code ?? String(cause);
    return { ok: false, problems: [error('missing-manifest', `cannot read the build manifest (${code}); run 'pepe build' first or pass --dir`, manifestPath)] };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (cause) {
    return { ok: false, problems: [error('invalid-manifest', `not valid JSON (${(cause as Error).message}): ${FRESH_BUILD}`, manifestPath)] };
  }
  const shapeError = manifestShapeError(parsed);
  if (shapeError) return { ok: false, problems: [error('invalid-manifest', `${shapeError}: ${FRESH_BUILD}`, manifestPath)] };
  try {
    return { ok: true, root: readTreesSync(dir, withDeltaParts(parsed as ManifestRoot)), bytes };
  } catch (cause) {
    if (!(cause instanceof UnusableManifestError)) throw cause;
    return { ok: false, problems: [error(cause.why.startsWith('is missing') ? 'missing-file' : 'file-mismatch', `${cause.why}: ${FRESH_BUILD}`, cause.file)] };
  }
}

/**
 * Checks the files of the build at `dir` (root already read) and returns them with the
 * segments to upload; all problems are reported together. `only`: the paths a diff against the
 * bucket's root names (the rest of the build is not read); without it every file is checked, and
 * anything in the folder the manifest does not list is refused.
 */
export async function readLocalBuild(dir: string, given?: { root: ManifestRoot; bytes: Buffer }, only?: { paths: ReadonlyMap<string, ManifestEntry>; segmentsNotIn: ManifestRoot }): Promise<LocalBuildResult> {
  const read = given ?? (await readLocalRoot(dir));
  if ('ok' in read && !read.ok) return read;
  const { root } = read as { root: ManifestRoot; bytes: Buffer };
  const digits = segmentDigits(root.counts.records);
  const segmentBytes = new Map<string, Buffer>();
  const entriesOf = new Map<string, Map<string, ManifestEntry>>();
  const segment = (key: string): Map<string, ManifestEntry> => {
    const known = entriesOf.get(key);
    if (known) return known;
    const ref = root.segments[key];
    if (ref === undefined) return new Map();
    const file = join(dir, segmentFile(ref.sha256));
    const bytes = readListed(file, ref.bytes);
    if (!Buffer.isBuffer(bytes)) throw new SegmentProblem(error('missing-file', `a segment of manifest.json cannot be read (${bytes.code}): ${FRESH_BUILD}`, file));
    const parsed = parseSegment(bytes, key, ref, digits);
    if (typeof parsed === 'string') throw new SegmentProblem(error('file-mismatch', `${parsed}: ${FRESH_BUILD}`, file));
    segmentBytes.set(key, bytes);
    const entries = withDeltaLines(root, key, parsed);
    entriesOf.set(key, entries);
    return entries;
  };
  const problems: Problem[] = [];
  let entries: [string, ManifestEntry][];
  try {
    if (only) entries = [...only.paths];
    else {
      entries = [];
      for (const key of Object.keys(root.segments)) for (const entry of segment(key)) entries.push(entry);
    }
  } catch (cause) {
    if (cause instanceof SegmentProblem) return { ok: false, problems: [cause.problem] };
    throw cause;
  }
  entries = entries.filter(([path]) => isBucketPath(path)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const files: LocalFile[] = [];
  const checked: (LocalFile | Problem)[] = [];
  for (const [index, [path, expected]] of entries.entries()) {
    if (index % READ_SLICE === READ_SLICE - 1) await yieldToEventLoop();
    const bytes = readListed(join(dir, path), expected.size);
    const odd = Buffer.isBuffer(bytes) && bytes.length === expected.size ? null : oddKindAt(join(dir, path));
    if (odd !== null) {
      checked.push(error('missing-file', `listed in manifest.json but it is ${odd}, not a file: ${FRESH_BUILD}`, join(dir, path)));
      continue;
    }
    if (!Buffer.isBuffer(bytes)) {
      checked.push(error('missing-file', `listed in manifest.json but cannot be read (${bytes.code}): ${FRESH_BUILD}`, join(dir, path)));
      continue;
    }
    const file = describeFile(path, bytes);
    if (file.size !== expected.size || file.sha256 !== expected.sha256) {
      checked.push(error('file-mismatch', `differs from manifest.json (size ${file.size} vs ${expected.size}, sha256 ${file.sha256.slice(0, 12)}… vs ${expected.sha256.slice(0, 12)}…): the build folder changed after the build; ${FRESH_BUILD}`, join(dir, path)));
      continue;
    }
    if (!path.startsWith('site/images/') && bytes.length < KEEP_BYTES_BELOW) file.bytes = bytes;
    checked.push(file);
  }
  for (const item of checked) {
    if ('severity' in item) problems.push(item);
    else files.push(item);
  }
  if (!only) {
    const named = new Set(segmentFiles(root));
    const onDisk = await fg('**/*', { cwd: dir, dot: true, onlyFiles: true });
    for (const path of onDisk.sort()) {
      // Segment files the root does not name (left by a hand edit or an interrupted build) are never uploaded.
      if (path === MANIFEST_FILE || named.has(path) || path.startsWith(`${SEGMENT_FOLDER}/`)) continue;
      if (!entriesOf.get(segmentKeyOf(path, digits))?.has(path)) {
        problems.push(error('unlisted-file', `is in the build folder but not in manifest.json, so the build is incomplete or was edited; rebuild with 'pepe build'`, join(dir, path)));
      }
    }
  }
  // The segments and trees to upload: every one (a listing run checks each against the bucket), or those the bucket's root does not name.
  const uploadKeys = Object.keys(root.segments).filter((key) => !only || only.segmentsNotIn.segments[key]?.sha256 !== root.segments[key]!.sha256);
  const segments: LocalFile[] = [];
  try {
    for (const key of uploadKeys) {
      segment(key);
      segments.push(describeFile(segmentFile(root.segments[key]!.sha256), segmentBytes.get(key)!));
    }
  } catch (cause) {
    if (cause instanceof SegmentProblem) problems.push(cause.problem);
    else throw cause;
  }
  const treesAndDelta = [...Object.entries(root.trees).map(([key, ref]) => ({ ref, kind: 'a tree', sent: only?.segmentsNotIn.trees[key]?.sha256 })), ...deltaFiles(root).map(([part, ref]) => ({ ref, kind: 'a delta part', sent: only?.segmentsNotIn.delta?.parts[part]?.sha256 }))];
  for (const { ref, kind, sent } of treesAndDelta) {
    if (sent === ref.sha256) continue;
    const file = join(dir, segmentFile(ref.sha256));
    const bytes = readListed(file, ref.bytes);
    // Checked by readLocalRoot a moment ago: anything else now is a folder changed under the publish.
    if (!Buffer.isBuffer(bytes) || sha256Of(bytes) !== ref.sha256) problems.push(error('file-mismatch', `${kind} of manifest.json changed during the publish: ${FRESH_BUILD}`, file));
    else segments.push(describeFile(segmentFile(ref.sha256), bytes));
  }
  if (problems.length > 0) return { ok: false, problems };
  const lists = (path: string): boolean => {
    try {
      return segment(segmentKeyOf(path, digits)).has(path);
    } catch {
      return false;
    }
  };
  const { bytes } = read as { bytes: Buffer };
  return { ok: true, build: { dir, root, rootBytes: bytes, rootFile: describeFile(MANIFEST_FILE, bytes), segments, files, lists, segment } };
}

/**
 * Reads a file again for upload and refuses it if it changed since validation: bytes are
 * not kept in memory (a real catalogue's images can be gigabytes), so this closes the gap.
 */
export async function readVerified(dir: string, file: Pick<LocalFile, 'path' | 'sha256' | 'size'>): Promise<Buffer | Problem> {
  const bytes = readListed(join(dir, file.path), file.size);
  if (!Buffer.isBuffer(bytes)) {
    return error('missing-file', `disappeared during the publish (${bytes.code}); rebuild and publish again`, join(dir, file.path));
  }
  const odd = bytes.length === file.size ? null : oddKindAt(join(dir, file.path));
  if (odd !== null) return error('missing-file', `became ${odd} during the publish, not a file: ${FRESH_BUILD}, then publish again`, join(dir, file.path));
  if (sha256Of(bytes) !== file.sha256) {
    return error('file-mismatch', 'changed during the publish; rebuild and publish again', join(dir, file.path));
  }
  return bytes;
}
