/**
 * A path → value map whose entries are valid only while the file's size, mtime, ctime and
 * inode are unchanged (ctime because any write sets it and no tool can set it back, as it can
 * the mtime: `touch -r`, `cp -p`, an editor keeping the mtime; git's index keys on it too): the build cache keeps one for image hashes and one for parsed sidecars, so a
 * rebuild with nothing changed reads neither. It also records which paths this run used (so a
 * save can prune the rest) and which it set (what an appended delta must carry).
 */

import { lowerBound } from '../../../functions/core/lower-bound.js';

export interface StatKey {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

interface StatEntry<T> extends StatKey {
  value: T;
}

/** How an entry is stored on disk: a flat tuple keeps the JSON small. */
export type StatRow<T> = [path: string, size: number, mtimeMs: number, ctimeMs: number, ino: number, value: T];

const sameStat = (a: StatKey, b: StatKey): boolean => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;

export class StatKeyedMap<T> {
  private readonly entries = new Map<string, StatEntry<T>>();
  private readonly used = new Set<string>();
  private readonly changed = new Set<string>();

  /** The value stored for `path` if its stat is unchanged since it was stored. */
  get(path: string, stat: StatKey): T | undefined {
    const entry = this.entries.get(path);
    if (!entry || !sameStat(entry, stat)) return undefined;
    this.used.add(path);
    return entry.value;
  }

  set(path: string, stat: StatKey, value: T): void {
    this.entries.set(path, { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, value });
    this.used.add(path);
    this.changed.add(path);
  }

  /** Restores a row read from disk (neither used nor changed by this run). */
  loadRow([path, size, mtimeMs, ctimeMs, ino, value]: StatRow<T>): void {
    this.entries.set(path, { size, mtimeMs, ctimeMs, ino, value });
  }

  delete(path: string): void {
    this.entries.delete(path);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Paths this run did not use, in insertion order. */
  unused(): string[] {
    return [...this.entries.keys()].filter((path) => !this.used.has(path));
  }

  /** Every entry, sorted by path (a full document). */
  rows(): StatRow<T>[] {
    return [...this.entries].sort(([a], [b]) => (a < b ? -1 : 1)).map(toRow);
  }

  /** Entries set since the last `clearChanged` and still present, sorted by path (a delta). */
  changedRows(): StatRow<T>[] {
    return [...this.changed].filter((path) => this.entries.has(path)).sort().map((path) => toRow([path, this.entries.get(path)!]));
  }

  clearChanged(): void {
    this.changed.clear();
  }
}

const toRow = <T>([path, e]: [string, StatEntry<T>]): StatRow<T> => [path, e.size, e.mtimeMs, e.ctimeMs, e.ino, e.value];

// A content pair's stat keys and the row the last build saved for it (unchanged-content.ts
// `pairs.bin`): how a change build tells the pairs it need not read.

/** A listed content file: its content-relative path and stat keys (scan-content.ts `ContentFile`). */
interface ListedFile extends StatKey {
  rel: string;
}

/** A listed pair: an image and its sidecar. */
interface ListedPair {
  image: ListedFile;
  sidecar: ListedFile;
}

/** Numbers a pair's stat keys take (`pairStats`): the image's size, mtime, ctime and inode, then the sidecar's. */
export const PAIR_STATS = 8;

/** Writes a pair's stat keys at `at` of `into`: numbers kept as numbers, compared in place by a change build. */
export function pairStats({ image, sidecar }: ListedPair, into: { [index: number]: number }, at: number): void {
  into[at] = image.size;
  into[at + 1] = image.mtimeMs;
  into[at + 2] = image.ctimeMs;
  into[at + 3] = image.ino;
  into[at + 4] = sidecar.size;
  into[at + 5] = sidecar.mtimeMs;
  into[at + 6] = sidecar.ctimeMs;
  into[at + 7] = sidecar.ino;
}

/** A pair's row: its image and sidecar paths (a NUL, which no path holds, after each), then its image's sha256, its record's id and digest, and its distinct_from. */
export const pairRow = ({ image, sidecar }: ListedPair, sha256: string, id: string, digest: string, distinctFrom: readonly string[]): string =>
  `${image.rel}\0${sidecar.rel}\0${sha256}\t${id}\t${digest}\t${distinctFrom.length > 0 ? JSON.stringify(distinctFrom) : ''}`;

/** A row read back: the pair's paths, and what the build made of it. */
export interface PairRow {
  image: string;
  sidecar: string;
  sha256: string;
  id: string;
  digest: string;
  distinctFrom: string[];
}

export function parsePairRow(row: string): PairRow {
  // Sliced at the known places rather than split: a change build reads one row per record.
  const sidecarAt = row.indexOf('\0') + 1;
  const shaAt = row.indexOf('\0', sidecarAt) + 1;
  const idAt = shaAt + 65;
  const digestAt = row.indexOf('\t', idAt) + 1;
  const distinctAt = row.indexOf('\t', digestAt) + 1;
  const distinct = row.slice(distinctAt);
  return {
    image: row.slice(0, sidecarAt - 1),
    sidecar: row.slice(sidecarAt, shaAt - 1),
    sha256: row.slice(shaAt, idAt - 1),
    id: row.slice(idAt, digestAt - 1),
    digest: row.slice(digestAt, distinctAt - 1),
    distinctFrom: distinct === '' ? [] : (JSON.parse(distinct) as string[]),
  };
}

/** The image path a row starts with. */
export const imageOfRow = (row: string): string => row.slice(0, row.indexOf('\0'));

/** How much of a pair is as its row says (`PairRows.match`): both files' paths and stats, the image's alone (its bytes are the same), or neither. */
export type PairMatch = 'same' | 'image' | 'changed';

/**
 * The last build's rows by image path, each with its record (in the same order: no map of
 * records by id). The full list is one text, the rows one after another (`ends`: where each
 * ends), in scan order (sorted by path, as `<` compares), so a lookup in that order walks it
 * with a cursor: no string is made per row but those asked for; each row's stat keys are numbers
 * at the same index (`PAIR_STATS` a row); the deltas' rows and drops lie over it in a small map.
 */
export class PairRows<R = unknown> {
  private cursor = 0;
  /** The rows `get` returned since `walk` (the full list's by index, the deltas' by image path). */
  private visited: Uint8Array | undefined;
  private readonly overVisited = new Set<string>();
  /** The record of the row `get` returned last (no pair allocated per lookup), and its rank in the last build's order (-1: a delta's row). */
  record: R | undefined;
  rank = -1;
  /** What follows the paths of the row `match` found the same last (`pairRow`): its image's sha256, its digest, and its distinct_from as JSON ('' for none). */
  sha256 = '';
  digest = '';
  distinct = '';
  /** The full list's index of the row found last (-1: a delta's, `foundOver`). */
  private found = -1;
  private foundOver = '';
  private foundOverStats: ArrayLike<number> = [];

  constructor(
    /** The full list's rows, one after another. */
    private readonly text: string,
    /** Where each row of `text` ends (its start is the end of the one before). */
    private readonly ends: Uint32Array,
    /** The record of each row of the full list, at the same index. */
    private readonly baseRecords: readonly R[],
    /** The rank of each row's record in the order of the build that wrote the full list, at the same index. */
    private readonly baseRanks: ArrayLike<number>,
    /** Each row's pair's stat keys (`pairStats`), `PAIR_STATS` a row. */
    private readonly baseStats: ArrayLike<number>,
    /** Image path → its row, record and stat keys set by a delta, or null when a delta dropped it. */
    private readonly over: ReadonlyMap<string, readonly [string, R, ArrayLike<number>] | null>,
    /** The number of rows. */
    readonly size: number,
  ) {}

  private startOf(index: number): number {
    return index === 0 ? 0 : this.ends[index - 1]!;
  }

  private rowAt(index: number): string {
    return this.text.slice(this.startOf(index), this.ends[index]);
  }

  /** Whether the full list's row at `index` is that of the image at `image`, compared in place (an image path holds no NUL, and every row does). */
  private isRowOf(index: number, image: string): boolean {
    if (index >= this.ends.length) return false;
    const start = this.startOf(index);
    return this.text.charCodeAt(start + image.length) === 0 && this.text.slice(start, start + image.length) === image;
  }

  /** The index of the full list's row that holds the character at `position` of the text. */
  private rowAtPosition(position: number): number {
    return lowerBound(this.ends.length, (index) => this.ends[index]! <= position);
  }

  /** The row of the pair whose image is at `image` (its record in `record`). */
  get(image: string): string | undefined {
    return this.locate(image) ? this.current() : undefined;
  }

  /** The row `get` or `match` found last. */
  current(): string {
    return this.found >= 0 ? this.rowAt(this.found) : this.foundOver;
  }

  /**
   * Looks up the row of `pair`'s image (undefined: none; its record in `record`) and tells how
   * much of the pair is as then, its stat keys compared as numbers (`PairMatch`): when 'same',
   * `sha256`, `digest` and `distinct` are what follows its paths, sliced from the text at the
   * known places (`pairRow`): no row made.
   */
  match(pair: ListedPair): PairMatch | undefined {
    const { image, sidecar } = pair;
    if (!this.locate(image.rel)) return undefined;
    const over = this.found < 0;
    const text = over ? this.foundOver : this.text;
    const start = over ? 0 : this.startOf(this.found);
    const end = over ? text.length : this.ends[this.found]!;
    const stats = over ? this.foundOverStats : this.baseStats;
    const at = over ? 0 : this.found * PAIR_STATS;
    if (stats[at] !== image.size || stats[at + 1] !== image.mtimeMs || stats[at + 2] !== image.ctimeMs || stats[at + 3] !== image.ino) return 'changed';
    const sidecarAt = start + image.rel.length + 1;
    const shaAt = sidecarAt + sidecar.rel.length + 1;
    if (stats[at + 4] !== sidecar.size || stats[at + 5] !== sidecar.mtimeMs || stats[at + 6] !== sidecar.ctimeMs || stats[at + 7] !== sidecar.ino) return 'image';
    // A slice compared: `startsWith` at a position costs several times more.
    if (text.charCodeAt(shaAt - 1) !== 0 || text.slice(sidecarAt, shaAt - 1) !== sidecar.rel) return 'image';
    const digestAt = text.indexOf('\t', shaAt + 66) + 1;
    const distinctAt = text.indexOf('\t', digestAt) + 1;
    this.sha256 = text.slice(shaAt, shaAt + 64);
    this.digest = text.slice(digestAt, distinctAt - 1);
    this.distinct = distinctAt === end ? '' : text.slice(distinctAt, end);
    return 'same';
  }

  private locate(image: string): boolean {
    const over = this.over.get(image);
    if (over !== undefined) {
      if (over !== null) this.overVisited.add(image);
      this.record = over?.[1];
      this.rank = -1;
      this.found = -1;
      this.foundOver = over?.[0] ?? '';
      this.foundOverStats = over?.[2] ?? [];
      return over !== null;
    }
    if (!this.isRowOf(this.cursor, image)) {
      // `image\0…` sorts where `image` does: NUL is below every character of a path.
      const key = `${image}\0`;
      this.cursor = lowerBound(this.ends.length, (index) => this.rowAt(index) < key);
    }
    if (!this.isRowOf(this.cursor, image)) {
      this.record = undefined;
      return false;
    }
    (this.visited ??= new Uint8Array(this.ends.length))[this.cursor] = 1;
    this.rank = this.baseRanks[this.cursor]!;
    this.record = this.baseRecords[this.cursor];
    this.found = this.cursor++;
    return true;
  }

  /** Starts a walk: no row visited yet. */
  walk(): void {
    this.cursor = 0;
    this.visited = undefined;
    this.overVisited.clear();
  }

  /** The rows `get` did not return since `walk`, with their image paths: a flag per row read, no set of paths made. */
  *unvisited(): Generator<[string, string]> {
    const { visited } = this;
    for (let at = 0; at < this.ends.length; at++) {
      if (visited?.[at] === 1) continue;
      const row = this.rowAt(at);
      const image = imageOfRow(row);
      if (!this.over.has(image)) yield [image, row];
    }
    for (const [image, set] of this.over) if (set !== null && !this.overVisited.has(image)) yield [image, set[0]];
  }

  /** Every row, with its image path and record. */
  *entries(): Generator<[string, string, R]> {
    for (let at = 0; at < this.ends.length; at++) {
      const row = this.rowAt(at);
      const image = imageOfRow(row);
      if (!this.over.has(image)) yield [image, row, this.baseRecords[at]!];
    }
    for (const [image, set] of this.over) if (set !== null) yield [image, set[0], set[1]];
  }

  /** The full list's rows holding `needle` where `at(position)` says so and no delta replaced them: one search of the whole text. */
  private *baseHolding(needle: string, at: (position: number) => boolean = () => true): Generator<number> {
    for (let position = this.text.indexOf(needle); position >= 0; position = this.text.indexOf(needle, position + 1)) {
      const index = this.rowAtPosition(position);
      const start = this.startOf(index);
      if (position + needle.length > this.ends[index]! || !at(position)) continue;
      if (!this.over.has(this.text.slice(start, this.text.indexOf('\0', start)))) yield index;
    }
  }

  /** Whether a row names the record `id` (a row ends in `\0sha256\tid\t…`): the text searched, no row sliced that does not hold it. */
  holdsId(id: string): boolean {
    const needle = `\t${id}\t`;
    const named = (row: string) => row.lastIndexOf(needle) >= 0 && row.startsWith(needle, row.lastIndexOf('\0') + 65);
    for (const [, set] of this.over) if (set !== null && named(set[0])) return true;
    return !this.baseHolding(needle, (position) => this.text.lastIndexOf('\0', position) + 65 === position).next().done;
  }

  /** The ids of every row. */
  ids(): Set<string> {
    const ids = new Set<string>();
    for (const [, row] of this.entries()) {
      const idAt = row.lastIndexOf('\0') + 66;
      ids.add(row.slice(idAt, row.indexOf('\t', idAt)));
    }
    return ids;
  }

  /** A row holding `needle`, with its record: the text searched, no row sliced that does not hold it. */
  find(needle: string): [string, R] | undefined {
    for (const [, set] of this.over) if (set !== null && set[0].lastIndexOf(needle) >= 0) return [set[0], set[1]];
    for (const index of this.baseHolding(needle)) return [this.rowAt(index), this.baseRecords[index]!];
    return undefined;
  }
}

/**
 * Whether the rows `ends` cuts `text` into are each a row (a NUL in it), in strictly ascending
 * order as `<` compares: compared in place, no string made per row.
 */
export function rowsInOrder(text: string, ends: Uint32Array): boolean {
  let previous = -1;
  let start = 0;
  for (let index = 0; index < ends.length; index++) {
    const end = ends[index]!;
    if (end <= start || end > text.length) return false;
    const nul = text.indexOf('\0', start);
    if (nul < 0 || nul >= end) return false;
    if (previous >= 0 && !(compareIn(text, previous, start, start, end) < 0)) return false;
    previous = start;
    start = end;
  }
  return start === text.length;
}

/** `<`'s order of the text's ranges [a, aEnd) and [b, bEnd): negative, zero or positive. */
function compareIn(text: string, a: number, aEnd: number, b: number, bEnd: number): number {
  for (let k = 0; ; k++) {
    if (a + k === aEnd || b + k === bEnd) return aEnd - a - (bEnd - b);
    const difference = text.charCodeAt(a + k) - text.charCodeAt(b + k);
    if (difference !== 0) return difference;
  }
}
