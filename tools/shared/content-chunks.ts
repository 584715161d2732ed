/**
 * Content-defined chunks of an ordered list (as a prolly tree or a rolling-hash chunker cuts
 * a file): a chunk ends after an item whose key hashes to a multiple of `mean`, or once it
 * holds `max` items. Where a chunk ends depends only on the items around it, never on their
 * position in the whole list, so adding, removing or editing one item changes the one chunk
 * it falls in (and at most one neighbour, when a boundary item comes or goes), and the
 * chunks of a full build equal those an incremental one keeps.
 *
 * With a `tail` shape, the last chunk, while no boundary ends it (open: the next item appended
 * joins it), is cut finer by `tail`, as a transparency log publishes a partial tile: an append
 * rewrites one small piece rather than the whole growing chunk, and once a boundary (or `max`)
 * closes the chunk its pieces give way to one chunk, the same a full build cuts.
 */

import { lowerBound } from '../../functions/core/lower-bound.js';

/** 32-bit FNV-1a over the key's UTF-16 code units, finished with murmur3's fmix32 so every bit of the key moves every bit of the result. */
export function chunkHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export interface ChunkShape {
  /** Expected items per chunk: a key ends its chunk when its hash is a multiple of this. */
  mean: number;
  /** No chunk holds more: a run of `max` items without a boundary is cut after its last. */
  max: number;
  /** How the open last chunk is cut (none: it stays whole). */
  tail?: { mean: number; max: number };
}

/** The index one past each chunk's last item, in order (the last is `keys.length`); none for an empty list. */
export function chunkEnds(keys: readonly string[], shape: ChunkShape): number[] {
  return cutChunks(keys, shape).ends;
}

/** `chunkEnds`, and how many of the chunks a boundary or `max` closed (the rest: the open last chunk, or its tail pieces). */
export function cutChunks(keys: readonly string[], shape: ChunkShape): { ends: number[]; closed: number } {
  checkShape(shape);
  const ends: number[] = [];
  const { closed } = finishCut(keys, shape, 0, ends);
  return { ends, closed };
}

function checkShape(shape: ChunkShape): void {
  if (!(Number.isInteger(shape.mean) && shape.mean >= 1 && Number.isInteger(shape.max) && shape.max >= 1)) {
    throw new RangeError(`chunk mean and max must be positive integers (got ${shape.mean}, ${shape.max})`);
  }
}

/** Cuts `keys` from `start`, a chunk's start, to the end onto `ends`; `closed`: the chunks closed in all. */
function finishCut(keys: readonly string[], shape: ChunkShape, start: number, ends: number[]): { closed: number } {
  for (let i = start; i < keys.length; i++) {
    if (chunkHash(keys[i]!) % shape.mean === 0 || i + 1 - start >= shape.max) {
      ends.push(i + 1);
      start = i + 1;
    }
  }
  const closed = ends.length;
  if (start === keys.length) return { closed };
  if (!shape.tail) ends.push(keys.length);
  else for (const end of cutChunks(keys.slice(start), shape.tail).ends) ends.push(start + end);
  return { closed };
}

/** A list's cut as a build saves it for the next: each chunk's first key and item count, in order, and how many a boundary or `max` closed. */
export interface ChunkCut {
  firsts: readonly string[];
  counts: readonly number[];
  closed: number;
}

/**
 * The chunks `cutChunks` gives `keys`, found from the cut of the list before a change in
 * proportion to the change. `dirty` (ascending) are the indexes of the items that are new or
 * not as they were; every other item was in the list before, in the same order relative to the
 * others (gone ones are simply absent). Both cuts are the same greedy scan, so from a closed
 * chunk's start on they agree while the items agree: a previous chunk is taken whole when its
 * items are the same (`sameChunk`), and the scan is run again from where one is not until it
 * starts a chunk where a previous closed chunk started. The open end is always cut again (fewer
 * than `max` items). `same[j]`: the previous chunk made of the same items as chunk j, or -1.
 */
export function recutChunks(keys: readonly string[], shape: ChunkShape, before: ChunkCut, dirty: readonly number[], starts: ReadonlyMap<string, number> = chunkStarts(before)): { ends: number[]; closed: number; same: number[] } {
  checkShape(shape);
  const n = keys.length;
  const same = sameChunk(keys, before, dirty);
  const ends: number[] = [];
  const matched: number[] = [];
  let pos = 0;
  let k = before.closed > 0 ? 0 : -1;
  scan: while (pos < n) {
    if (k >= 0 && k < before.closed) {
      const end = same(k, pos);
      if (end > 0) {
        ends.push(end);
        matched.push(k);
        pos = end;
        k++;
        continue;
      }
    }
    // Scan again from this chunk's start until a chunk starts where a closed one did.
    let start = pos;
    for (let i = pos; i < n; i++) {
      if (chunkHash(keys[i]!) % shape.mean !== 0 && i + 1 - start < shape.max) continue;
      ends.push(i + 1);
      matched.push(-1);
      start = i + 1;
      const at = start < n ? starts.get(keys[start]!) : undefined;
      if (at !== undefined && at < before.closed) {
        pos = start;
        k = at;
        continue scan;
      }
    }
    pos = start;
    break;
  }
  const { closed } = finishCut(keys, shape, pos, ends);
  // A chunk cut again may still be made of a previous chunk's items (an open one, a tail piece).
  for (let j = 0; j < ends.length; j++) {
    if (matched[j] !== undefined && matched[j]! >= 0) continue;
    const start = j === 0 ? 0 : ends[j - 1]!;
    const at = starts.get(keys[start]!);
    matched[j] = at !== undefined && same(at, start) === ends[j] ? at : -1;
  }
  return { ends, closed, same: matched };
}

/** The index of each chunk of a cut by its first key. */
export function chunkStarts(cut: ChunkCut): Map<string, number> {
  const starts = new Map<string, number>();
  for (let k = 0; k < cut.firsts.length; k++) starts.set(cut.firsts[k]!, k);
  return starts;
}

/** Whether index `i` is in the ascending `dirty`. */
function isDirty(dirty: readonly number[], i: number): boolean {
  const at = firstAtOrAfter(dirty, i);
  return at < dirty.length && dirty[at] === i;
}

function firstAtOrAfter(sorted: readonly number[], value: number): number {
  return lowerBound(sorted.length, (index) => sorted[index]! < value);
}

/**
 * `(k, start)` → the end of the items from `start` when they are previous chunk k's (else -1):
 * its first key at `start`, its count of items none dirty, and the next previous chunk's first
 * item, not dirty, right after (or k the last). The items between two items that kept their
 * places are the same ones in the same order, so the count makes them the same.
 */
function sameChunk(keys: readonly string[], before: ChunkCut, dirty: readonly number[]): (k: number, start: number) => number {
  const last = before.firsts.length - 1;
  return (k, start) => {
    const end = start + before.counts[k]!;
    if (end > keys.length || keys[start] !== before.firsts[k]) return -1;
    const firstDirty = firstAtOrAfter(dirty, start);
    if (firstDirty < dirty.length && dirty[firstDirty]! < end) return -1;
    if (k < last && (end >= keys.length || keys[end] !== before.firsts[k + 1] || isDirty(dirty, end))) return -1;
    return end;
  };
}

/** The items cut into chunks by their keys (see `chunkEnds`). */
export function contentChunks<T>(items: readonly T[], keyOf: (item: T) => string, shape: ChunkShape): T[][] {
  const ends = chunkEnds(items.map(keyOf), shape);
  const chunks: T[][] = [];
  let start = 0;
  for (const end of ends) {
    chunks.push(items.slice(start, end));
    start = end;
  }
  return chunks;
}
