/**
 * `GET /api/similar/{id}`: the pepes that look most like one, by pHash Hamming distance.
 * Computed once per build for every record with the near-duplicate index (catalogue.ts,
 * `similarLists`: tools/dupes/multi-index.ts, no all-pairs loop) and stored as two packed lists of the
 * catalogue's texts, so the function reads one record's neighbours without decoding the others.
 */
import { digitsFor, packInPieces, piecedNumberAt, type PiecedNumbers } from './packed-numbers.js';

/**
 * The cut-off: two pepes more than this many bits apart (of 64) are not similar. Unrelated
 * pictures sit around 32 bits apart (a random pair is within 7 bits about once in 10¹¹), while
 * look-alike cartoons crowd close: in the dupes benchmark's 1,000 look-alike frogs each image
 * has ~10 others within 6 bits. 7 is the widest cut-off at the near-duplicate index's cheapest
 * setting (4 segments probed at radius 1): 8 to 11 need radius 2, measured 3× the time at 100k
 * records (6.6 s against 1.9 s on a loaded machine).
 */
export const SIMILAR_MAX_DISTANCE = 7;
/** At most this many similar pepes per record, the nearest first. */
export const SIMILAR_LIMIT = 12;

export interface Neighbour {
  rank: number;
  distance: number;
}

/** Where the neighbour lists are: `offsets` (count + 1 numbers) delimit each rank's run of `entries` (rank × 32 + distance). */
export interface StoredSimilar {
  offsets: PiecedNumbers;
  entries: PiecedNumbers;
}

export function storeSimilar(lists: readonly Neighbour[][], maxPiece: number, addPiece: (text: string) => number): StoredSimilar {
  const offsets = [0];
  const entries: number[] = [];
  for (const list of lists) {
    for (const { rank, distance } of list) entries.push(rank * 32 + distance);
    offsets.push(entries.length);
  }
  const store = (values: number[], max: number): PiecedNumbers => {
    const width = digitsFor(max);
    const packed = packInPieces(values, width, maxPiece);
    return { first: packed.pieces.map(addPiece)[0]!, width, perPiece: packed.perPiece };
  };
  return { offsets: store(offsets, entries.length), entries: store(entries, lists.length * 32) };
}

/** The neighbours of a rank, as stored; `piece(i)` is piece i of the catalogue's texts. */
export function similarReader(stored: StoredSimilar, piece: (index: number) => string): (rank: number) => Neighbour[] {
  return (rank) => {
    const start = piecedNumberAt(piece, stored.offsets, rank);
    const end = piecedNumberAt(piece, stored.offsets, rank + 1);
    const out: Neighbour[] = [];
    for (let k = start; k < end; k++) {
      const value = piecedNumberAt(piece, stored.entries, k);
      out.push({ rank: Math.floor(value / 32), distance: value % 32 });
    }
    return out;
  };
}
