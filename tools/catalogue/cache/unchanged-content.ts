/**
 * The fast path of a rebuild with nothing changed. The build cache already trusts a file whose
 * size, mtime, ctime and inode are unchanged (stat-keyed-map.ts). When that holds for every
 * entry of the content folder's listing (and none was added, removed or renamed), and the URLs,
 * limits and build code are those of the last build that succeeded into the same, intact output
 * folder, this build's result is that build's result: nothing needs to be paired, read, parsed,
 * hashed or compared. The last build's records are kept in the cache folder for callers that
 * ask for them (read only then).
 *
 * The slower no-change path (last-build.ts `madeFrom`: same records and image hashes as the
 * last build) still catches the rest, e.g. a file touched without being changed.
 *
 * Every build that succeeds leaves its records here (`records.bin`, framed as cache-log.ts: the
 * full list, then deltas), so that the next build with nothing changed takes the fast path at
 * once. A build that changed a few records appends only those (and the ids it dropped), told by
 * the record digests of the build the file holds; the file is rewritten whole once the deltas
 * outweigh half of it.
 */
import { appendFileSync, closeSync, rmSync } from 'node:fs';
import { endianness } from 'node:os';
import { join } from 'node:path';
import type { PepeRecord } from '../../../functions/core/record.js';
import { sortedRecords } from '../analyse-content.js';
import { makeFoldersSync } from '../../shared/make-folders.js';
import { sha256Of } from '../../shared/manifest.js';
import { openRegularFileSync, readIntoSync, readRegularFileSync, withRangeBytes } from '../../shared/read-regular-file.js';
import { replaceFileSync } from '../../shared/replace-file.js';
import { CacheLog, cacheFramesOf, frameBytes, frameDocument, readCacheDocuments } from './cache-log.js';
import { imageOfRow, PAIR_STATS, PairRows, rowsInOrder } from './stat-keyed-map.js';

const RECORDS_FILE = 'records.bin';
/** Deltas may grow to this many bytes (or half the full list, if larger) before a rewrite. */
const LOG_FLOOR_BYTES = 256 * 1024;

/** Appended after the full list: the records new or changed since, and the ids gone. */
interface RecordsDelta {
  set: PepeRecord[];
  drop: string[];
}

export const recordsFile = (cacheDir: string): string => join(cacheDir, RECORDS_FILE);

/**
 * A hash of the content folder's listing (list-entries.mjs `digest`: every path, kind and lstat
 * field, before the entries are paired) and of the settings that decide what the build makes
 * of it. The build compares it before pairing anything; a listing with problems is never saved
 * as unchanged, so its build is never skipped.
 */
export const listingFingerprint = (settings: Record<string, unknown>, digest: string): string => sha256Of(`${JSON.stringify(settings)}\n${digest}`);

/** What a save needs of the file the last build left: which records changed since, and its bytes. */
export interface SavedRecords {
  /** The ids whose digest differs from the file's records' (build-extras.ts `buildInputs`), and those gone. */
  changes: { changed: ReadonlySet<string>; removed: readonly string[] };
  /** The bytes of the file's full list, and of the whole file. */
  baseBytes: number;
  fileBytes: number;
}

/**
 * Saves `records` (in build order): the changed ones and the ids gone after `saved` when it may
 * take a delta, else the whole list. Returns the bytes of the file's full list.
 */
export function saveRecords(cacheDir: string, records: PepeRecord[], saved: SavedRecords | null): number {
  makeFoldersSync(cacheDir);
  const file = recordsFile(cacheDir);
  const log = new CacheLog(LOG_FLOOR_BYTES);
  if (saved !== null) log.resumed(saved.baseBytes, saved.fileBytes);
  if (saved !== null && log.appends) {
    const { changed, removed } = saved.changes;
    const delta: RecordsDelta = { set: changed.size === 0 ? [] : records.filter((record) => changed.has(record.id)), drop: [...removed] };
    if (delta.set.length + delta.drop.length > 0) appendFileSync(file, frameDocument(delta, false));
    return saved.baseBytes;
  }
  const frame = frameDocument(records, true);
  replaceFileSync(file, frame);
  // The plain JSON file of earlier versions, never read again.
  rmSync(join(cacheDir, 'records.json'), { force: true });
  return frame.length;
}

/** The full list and the deltas after it; throws when the file is not a records file. */
function readRecords(cacheDir: string): [PepeRecord[], RecordsDelta[]] {
  // Only a regular file, opened without blocking: a named pipe would block the caller for ever.
  const read = readCacheDocuments(readRegularFileSync(recordsFile(cacheDir)));
  if (read === null || !Array.isArray(read.documents[0])) throw new Error(`"${recordsFile(cacheDir)}" holds no records: delete it`);
  const [base, ...deltas] = read.documents as [PepeRecord[], ...RecordsDelta[]];
  return [base, deltas];
}

function foldRecords(base: PepeRecord[], deltas: RecordsDelta[]): Map<string, PepeRecord> {
  const byId = new Map(base.map((record) => [record.id, record]));
  for (const delta of deltas) {
    for (const id of delta.drop) byId.delete(id);
    for (const record of delta.set) byId.set(record.id, record);
  }
  return byId;
}

/** The records the file holds, in build order; throws when it is not a records file. */
export function loadRecords(cacheDir: string): PepeRecord[] {
  const [base, deltas] = readRecords(cacheDir);
  return deltas.length === 0 ? base : sortedRecords([...foldRecords(base, deltas).values()]);
}

// The last build's pairs (`pairs.bin`, framed as records.bin): what a change build takes over
// for every pair whose paths and stat keys are unchanged, so that it reads, parses and hashes only the others.
// Each row's record and rank are held beside it, in the same order: one read gives a change
// build the unchanged records by position, with no map of every record by id, and their order.
// The full list is six frames: a JSON head, the rows as one text (no JSON string per row to
// parse), where each row ends and each record's rank as packed numbers, the pairs' stat keys as
// packed doubles (compared as numbers: no line of text made per pair to compare), and the records
// as one column per field but the id (each id is its row's: nothing to check, and no object keys
// to parse); the records are rebuilt as objects of one shape. Deltas are JSON documents after it.

const PAIRS_FILE = 'pairs.bin';
/** The layout of the full list: an earlier one reads as none. */
const PAIRS_LAYOUT = 3;
/** The fields of a record as analyse-content.ts `toItem` makes them, in its order (the rebuilt objects keep it, so their JSON is the same). */
const COLUMNS = ['file_ext', 'file_size', 'tags', 'description', 'phash', 'created_at', 'updated_at', 'width', 'height', 'blurhash', 'thumbnails', 'artist', 'source_url', 'license', 'animated'] as const satisfies readonly (keyof PepeRecord)[];
const RECORD_FIELDS = ['id', ...COLUMNS] as const;
/** The columns as read: each field's values in row order. */
type Columns = [
  PepeRecord['file_ext'][],
  PepeRecord['file_size'][],
  PepeRecord['tags'][],
  PepeRecord['description'][],
  PepeRecord['phash'][],
  PepeRecord['created_at'][],
  PepeRecord['updated_at'][],
  PepeRecord['width'][],
  PepeRecord['height'][],
  PepeRecord['blurhash'][],
  PepeRecord['thumbnails'][],
  PepeRecord['artist'][],
  PepeRecord['source_url'][],
  PepeRecord['license'][],
  PepeRecord['animated'][],
];

export const pairsFile = (cacheDir: string): string => join(cacheDir, PAIRS_FILE);

/** The full list: every row in scan order, its record at the same index, that record's rank in the build's order, and the pair's stat keys (`PAIR_STATS` a row). */
export interface PairsList {
  rows: string[];
  records: PepeRecord[];
  ranks: number[];
  stats: Float64Array;
}

/** Appended after the full list: the rows new or changed since with their records and stat keys (same order), and the image paths gone. */
export interface PairsDelta {
  set: string[];
  records: PepeRecord[];
  stats: number[];
  drop: string[];
}

const LITTLE_ENDIAN = endianness() === 'LE';

/** Words below 2³² (the rows' ends, the ranks) or doubles (the stat keys), packed as the file holds them: little-endian. */
function packed(numbers: Uint32Array | Float64Array): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(new Uint8Array(numbers.buffer, numbers.byteOffset, numbers.byteLength));
  const bytes = Buffer.alloc(numbers.byteLength);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (numbers instanceof Float64Array) numbers.forEach((number, at) => view.setFloat64(8 * at, number, true));
  else numbers.forEach((number, at) => view.setUint32(4 * at, number, true));
  return bytes;
}

/** `packed`'s inverse for the bytes [start, end) of the file open at `fd`; throws when it holds fewer. */
function unpacked<T extends Uint32Array | Float64Array>(kind: { new (length: number): T; BYTES_PER_ELEMENT: number }, fd: number, [start, end]: readonly [number, number]): T {
  const numbers = new kind(Math.floor((end - start) / kind.BYTES_PER_ELEMENT));
  // Read straight into the numbers where the machine is little-endian, as the file is: a number at a time only on the others.
  if (LITTLE_ENDIAN) {
    if (readIntoSync(fd, new Uint8Array(numbers.buffer), start) !== numbers.byteLength) throw new Error('pairs file cut short');
    return numbers;
  }
  return withRangeBytes(fd, start, numbers.byteLength, (bytes) => {
    if (bytes.length !== numbers.byteLength) throw new Error('pairs file cut short');
    const view = new DataView(bytes.buffer, bytes.byteOffset, numbers.byteLength);
    if (numbers instanceof Float64Array) for (let at = 0; at < numbers.length; at++) numbers[at] = view.getFloat64(8 * at, true);
    else for (let at = 0; at < numbers.length; at++) numbers[at] = view.getUint32(4 * at, true);
    return numbers;
  });
}

/** The full list's frames (`PAIRS_LAYOUT`), the magic line first. */
function pairsListFrames({ rows, records, ranks, stats }: PairsList): Buffer {
  const ends = new Uint32Array(rows.length);
  let end = 0;
  rows.forEach((row, at) => (ends[at] = end += row.length));
  const columns = COLUMNS.map((field) => records.map((record) => record[field]));
  return Buffer.concat([
    frameBytes(Buffer.from(JSON.stringify({ layout: PAIRS_LAYOUT, count: rows.length, fields: RECORD_FIELDS })), true),
    frameBytes(Buffer.from(rows.join('')), false),
    frameBytes(packed(ends), false),
    frameBytes(packed(Uint32Array.from(ranks)), false),
    frameBytes(packed(stats), false),
    frameBytes(Buffer.from(JSON.stringify(columns)), false),
  ]);
}

/**
 * Saves the rows: `delta` appended after the file the last build left (`saved`) when it may
 * take one, else `list()` whole. Returns the bytes of the file's full list.
 */
export function savePairs(cacheDir: string, list: () => PairsList, delta: PairsDelta | null, saved: Pick<SavedRecords, 'baseBytes' | 'fileBytes'> | null): number {
  makeFoldersSync(cacheDir);
  const file = pairsFile(cacheDir);
  const log = new CacheLog(LOG_FLOOR_BYTES);
  if (saved !== null) log.resumed(saved.baseBytes, saved.fileBytes);
  if (saved !== null && delta !== null && log.appends) {
    if (delta.set.length + delta.drop.length > 0) appendFileSync(file, frameDocument(delta, false));
    return saved.baseBytes;
  }
  const frames = pairsListFrames(list());
  replaceFileSync(file, frames);
  return frames.length;
}

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string' && item.includes('\0'));

/** A delta's rows, their records and stat keys at the same index: each record is the one whose id its row names (a row ends in `\0sha256\tid\t…`, `pairRow`). */
function isRowsWithRecords(rows: unknown, records: unknown, stats: unknown): boolean {
  if (!isStrings(rows) || !Array.isArray(records) || records.length !== rows.length) return false;
  if (!Array.isArray(stats) || stats.length !== PAIR_STATS * rows.length || !stats.every((number) => typeof number === 'number')) return false;
  for (let at = 0; at < rows.length; at++) {
    const row = rows[at]!;
    const id = (records[at] as Partial<PepeRecord> | null)?.id;
    const idAt = row.lastIndexOf('\0') + 66;
    if (typeof id !== 'string' || !row.startsWith(id, idAt) || row.charCodeAt(idAt + id.length) !== 9) return false;
  }
  return true;
}

/** The JSON document in [start, end) of the file open at `fd`, when `guard` takes it; else null. */
const isJsonOf = <T>(fd: number, [start, end]: readonly [number, number], guard: (value: unknown) => value is T): T | null =>
  withRangeBytes(fd, start, end - start, (bytes) => {
    try {
      const value: unknown = JSON.parse(bytes.toString('utf8'));
      return guard(value) ? value : null;
    } catch {
      return null;
    }
  });

const isHead = (value: unknown): value is { layout: number; count: number; fields: string[] } => {
  const head = value as { layout?: unknown; count?: unknown; fields?: unknown } | null;
  return head?.layout === PAIRS_LAYOUT && Number.isSafeInteger(head.count) && JSON.stringify(head.fields) === JSON.stringify(RECORD_FIELDS);
};

const isColumns = (value: unknown): value is unknown[][] => Array.isArray(value) && value.length === COLUMNS.length && value.every(Array.isArray);

/** The full list's records, each with the id its row names (after `\0sha256\t`, up to a tab); null when a row names none. */
function rebuiltRecords(text: string, ends: Uint32Array, columns: unknown[][]): PepeRecord[] | null {
  const [file_ext, file_size, tags, description, phash, created_at, updated_at, width, height, blurhash, thumbnails, artist, source_url, license, animated] = columns as unknown as Columns;
  const count = ends.length;
  if (columns.some((column) => column.length !== count)) return null;
  const records: PepeRecord[] = new Array(count);
  for (let at = 0; at < count; at++) {
    const end = ends[at]!;
    const idAt = text.lastIndexOf('\0', end - 1) + 66;
    const idEnd = text.indexOf('\t', idAt);
    if (idAt > end || idEnd < 0 || idEnd >= end) return null;
    // One object literal: every record of one shape, its fields in `RECORD_FIELDS` order.
    records[at] = { id: text.slice(idAt, idEnd), file_ext: file_ext[at]!, file_size: file_size[at]!, tags: tags[at]!, description: description[at]!, phash: phash[at]!, created_at: created_at[at]!, updated_at: updated_at[at]!, width: width[at]!, height: height[at]!, blurhash: blurhash[at]!, thumbnails: thumbnails[at]!, artist: artist[at]!, source_url: source_url[at]!, license: license[at]!, animated: animated[at]! };
  }
  return records;
}

/** The rows and records as the last build left them; null when the file is missing, torn, of an earlier layout or not a pairs file. */
export function loadPairs(cacheDir: string): PairRows<PepeRecord> | null {
  try {
    const { fd, info } = openRegularFileSync(pairsFile(cacheDir));
    try {
      return pairsFrom(fd, info.size);
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

/**
 * `loadPairs` of the file open at `fd` (`fileSize` bytes), a frame at a time: the texts through the
 * one buffer `withRangeBytes` reuses, the numbers straight into their arrays: no buffer of the
 * whole file is made, and the reused one need hold no more than the largest frame (or memo).
 */
function pairsFrom(fd: number, fileSize: number): PairRows<PepeRecord> | null {
  const walked = cacheFramesOf(fd, fileSize);
  if (walked === null || walked.validBytes !== fileSize || walked.frames.length < 6) return null;
  const [headAt, textAt, endsAt, ranksAt, statsAt, columnsAt, ...deltaFrames] = walked.frames as [number, number][];
  const head = isJsonOf(fd, headAt!, isHead);
  const count = head?.count;
  if (count === undefined || endsAt![1] - endsAt![0] !== 4 * count || ranksAt![1] - ranksAt![0] !== 4 * count || statsAt![1] - statsAt![0] !== 8 * PAIR_STATS * count) return null;
  const text = withRangeBytes(fd, textAt![0], textAt![1] - textAt![0], (bytes) => bytes.toString('utf8'));
  const ends = unpacked(Uint32Array, fd, endsAt!);
  // Sorted, as a build writes them, else the walk cannot find them: then the file is none.
  if (!rowsInOrder(text, ends)) return null;
  // Each rank once, below the count: else the file is none.
  const ranks = unpacked(Uint32Array, fd, ranksAt!);
  const ranked = new Uint8Array(count);
  for (const rank of ranks) {
    if (rank >= count || ranked[rank] === 1) return null;
    ranked[rank] = 1;
  }
  const columns = isJsonOf(fd, columnsAt!, isColumns);
  const records = columns === null ? null : rebuiltRecords(text, ends, columns);
  if (records === null) return null;
  const stats = unpacked(Float64Array, fd, statsAt!);
  const over = new Map<string, readonly [string, PepeRecord, ArrayLike<number>] | null>();
  for (const frame of deltaFrames) {
    const delta = isJsonOf(fd, frame, (value): value is PairsDelta => { const d = value as Partial<PairsDelta> | null; return isRowsWithRecords(d?.set, d?.records, d?.stats) && Array.isArray(d!.drop); });
    if (delta === null) return null;
    for (const image of delta.drop) over.set(image, null);
    delta.set.forEach((row, at) => over.set(imageOfRow(row), [row, delta.records[at]!, delta.stats.slice(PAIR_STATS * at, PAIR_STATS * (at + 1))]));
  }
  const lookup = new PairRows(text, ends, records, ranks, stats, new Map(), count);
  let size = count;
  for (const [image, set] of over) size += (lookup.get(image) === undefined ? 0 : -1) + (set === null ? 0 : 1);
  return new PairRows(text, ends, records, ranks, stats, over, size);
}
