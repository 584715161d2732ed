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
  if (!(Number.isInteger(shape.mean) && shape.mean >= 1 && Number.isInteger(shape.max) && shape.max >= 1)) {
    throw new RangeError(`chunk mean and max must be positive integers (got ${shape.mean}, ${shape.max})`);
  }
  const ends: number[] = [];
  let start = 0;
  for (let i = 0; i < keys.length; i++) {
    if (chunkHash(keys[i]!) % shape.mean === 0 || i + 1 - start >= shape.max) {
      ends.push(i + 1);
      start = i + 1;
    }
  }
  if (start === keys.length) return ends;
  if (!shape.tail) return [...ends, keys.length];
  const open = chunkEnds(keys.slice(start), shape.tail);
  return [...ends, ...open.map((end) => start + end)];
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
