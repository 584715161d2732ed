/**
 * The fast path of a rebuild with nothing changed. The build cache already trusts a file whose
 * size, mtime, ctime and inode are unchanged (stat-keyed-map.ts). When that holds for every file of
 * the content folder, and the URLs, limits and build code are those of the last build that
 * succeeded into the same, intact output folder, this build's result is that build's result:
 * nothing needs to be read, parsed, hashed or compared. The last build's records are kept in
 * the cache folder for callers that ask for them (read only then).
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
import { appendFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { PepeRecord } from '../../../functions/core/record.js';
import type { ContentScan } from '../scan-content.js';
import { sortedRecords } from '../analyse-content.js';
import { makeFoldersSync } from '../../shared/make-folders.js';
import { sha256Of } from '../../shared/manifest.js';
import { readRegularFileSync } from '../../shared/read-regular-file.js';
import { replaceFileSync } from '../../shared/replace-file.js';
import { CacheLog, frameDocument, readCacheDocuments } from './cache-log.js';
import { imageOfRow, PairRows, statLine } from './stat-keyed-map.js';

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
 * A hash of the content folder's listing (every pair's `statLine`, in scan order) and of the
 * settings that decide what the build makes of it; null when the listing has problems (such a
 * build is never skipped).
 */
export function contentStatFingerprint(scan: ContentScan, settings: Record<string, unknown>, lines: readonly string[] = scan.pairs.map(statLine)): string | null {
  if (scan.problems.length > 0) return null;
  // One string, one hash call: an `update` call per file costs more than the hashing.
  return sha256Of(`${JSON.stringify(settings)}\n${lines.join('\n')}`);
}

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
// for every pair whose line is unchanged, so that it reads, parses and hashes only the others.
// Each row's record and rank are held beside it, in the same order: one read gives a change
// build the unchanged records by position, with no map of every record by id, and their order.
// One document, parsed whole: parsed a part at a time, the records cost more CPU in garbage collection.

const PAIRS_FILE = 'pairs.bin';

export const pairsFile = (cacheDir: string): string => join(cacheDir, PAIRS_FILE);

/** The full list: every row in scan order, its record at the same index, and that record's rank in the build's order. */
export interface PairsList {
  rows: string[];
  records: PepeRecord[];
  ranks: number[];
}

/** Appended after the full list: the rows new or changed since with their records (same order), and the image paths gone. */
export interface PairsDelta {
  set: string[];
  records: PepeRecord[];
  drop: string[];
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
  const frame = frameDocument(list(), true);
  replaceFileSync(file, frame);
  return frame.length;
}

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string' && item.includes('\0'));

/** Rows and their records at the same index: each record is the one whose id its row names (a row ends in `\0sha256\tid\t…`, `pairRow`). */
function isRowsWithRecords(rows: unknown, records: unknown): boolean {
  if (!isStrings(rows) || !Array.isArray(records) || records.length !== rows.length) return false;
  for (let at = 0; at < rows.length; at++) {
    const row = rows[at]!;
    const id = (records[at] as Partial<PepeRecord> | null)?.id;
    const idAt = row.lastIndexOf('\0') + 66;
    if (typeof id !== 'string' || !row.startsWith(id, idAt) || row.charCodeAt(idAt + id.length) !== 9) return false;
  }
  return true;
}

/** The rows and records as the last build left them; null when the file is missing, torn or not a pairs file. */
export function loadPairs(cacheDir: string): PairRows<PepeRecord> | null {
  let bytes: Buffer;
  try {
    bytes = readRegularFileSync(pairsFile(cacheDir));
  } catch {
    return null;
  }
  const read = readCacheDocuments(bytes);
  if (read === null || read.validBytes !== bytes.length) return null;
  const [base, ...deltas] = read.documents as Partial<PairsList>[];
  if (!isRowsWithRecords(base?.rows, base?.records)) return null;
  const { rows, records, ranks } = base as PairsList;
  // Sorted, as a build writes them, else the walk cannot find them: then the file is none.
  for (let at = 1; at < rows.length; at++) if (!(rows[at - 1]! < rows[at]!)) return null;
  // Each rank once, below the count: else the file is none.
  if (!Array.isArray(ranks) || ranks.length !== rows.length) return null;
  const ranked = new Uint8Array(rows.length);
  for (const rank of ranks) {
    if (!Number.isSafeInteger(rank) || rank < 0 || rank >= rows.length || ranked[rank] === 1) return null;
    ranked[rank] = 1;
  }
  const over = new Map<string, readonly [string, PepeRecord] | null>();
  for (const delta of deltas as Partial<PairsDelta>[]) {
    if (!isRowsWithRecords(delta?.set, delta?.records) || !Array.isArray(delta!.drop)) return null;
    for (const image of delta!.drop) over.set(image, null);
    delta!.set!.forEach((row, at) => over.set(imageOfRow(row), [row, delta!.records![at]!]));
  }
  const lookup = new PairRows(rows, records, ranks, new Map(), rows.length);
  let size = rows.length;
  for (const [image, set] of over) size += (lookup.get(image) === undefined ? 0 : -1) + (set === null ? 0 : 1);
  return new PairRows(rows, records, ranks, over, size);
}
