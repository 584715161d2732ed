/**
 * The pepes that look alike, by pHash Hamming distance. `GET /api/similar/{id}`: computed once
 * per build for every record with the near-duplicate index (catalogue.ts, `similarLists`:
 * multi-index.ts, no all-pairs loop) and stored as two packed lists of the catalogue's texts,
 * so the function reads one record's neighbours without decoding the others.
 * `GET /api/similar?phash=`: one pass over every record's stored phash (`hashSearcher`).
 */
import { lowerBound } from './lower-bound.js';
import { parseHash, popcount32, type Hash64 } from './multi-index.js';
import { digitsFor, packInPieces, piecedNumberAt, type PiecedNumbers } from './packed-numbers.js';
import { decodeBitmap, encodeBytes } from './search/posting-codec.js';

/**
 * The cut-off: two pepes more than this many bits apart (of 64) are not similar. Unrelated
 * pictures sit around 32 bits apart (a random pair is within 7 bits about once in 10¹¹), while
 * look-alike cartoons crowd close: in the dupes benchmark's 1,000 look-alike frogs each image
 * has ~10 others within 6 bits. 7 is the widest cut-off at the near-duplicate index's cheapest
 * setting (4 segments probed at radius 1): 8 to 11 need radius 2, several times the build's
 * pairing time at 100k records.
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

export function storeSimilar(lists: readonly ArrayLike<number>[], maxPiece: number, addPiece: (text: string) => number, reuse?: SimilarPiecesReuse): StoredSimilar {
  const offsets = new Array<number>(lists.length + 1);
  offsets[0] = 0;
  for (let rank = 0; rank < lists.length; rank++) offsets[rank + 1] = offsets[rank]! + lists[rank]!.length;
  // The entries from index `from` on, made only past the pieces kept: a change keeps most of them.
  const entriesFrom = (from: number): Uint32Array => {
    const entries = new Uint32Array(offsets[lists.length]! - from);
    let at = 0;
    for (let rank = lowerBound(lists.length, (r) => offsets[r + 1]! <= from); rank < lists.length; rank++) {
      const list = lists[rank]!;
      for (let k = Math.max(0, from - offsets[rank]!); k < list.length; k++) entries[at++] = list[k]!;
    }
    return entries;
  };
  // Lists 0 .. same - 1 are the last compile's: so are offsets 0 .. same and the entries before offsets[same].
  const same = Math.min(reuse?.sameUpTo() ?? 0, lists.length);
  const store = (name: 'offsets' | 'entries', count: number, valuesFrom: (from: number) => ArrayLike<number>, max: number, sameValues: number): PiecedNumbers => {
    const width = digitsFor(max);
    const perPiece = Math.max(1, Math.floor(maxPiece / width));
    const saved = reuse?.kept(name, width, perPiece) ?? [];
    const keptPieces = Math.min(saved.length, Math.floor(sameValues / perPiece));
    const rest = count > keptPieces * perPiece || keptPieces === 0 ? packInPieces(valuesFrom(keptPieces * perPiece), width, maxPiece).pieces : [];
    const pieces = [...saved.slice(0, keptPieces), ...rest];
    reuse?.made(name, pieces, width, perPiece, keptPieces);
    return { first: pieces.map(addPiece)[0]!, width, perPiece };
  };
  const total = offsets[lists.length]!;
  return { offsets: store('offsets', offsets.length, (from) => offsets.slice(from), total, same + 1), entries: store('entries', total, entriesFrom, lists.length * 32, offsets[same]!) };
}

/**
 * What `storeSimilar` may take from the last compile: `sameUpTo()` ranks whose lists are the
 * last compile's, the same at the same ranks; `kept` the pieces it packed of a list, when
 * packed with this width and as many numbers a piece.
 */
export interface SimilarPiecesReuse {
  sameUpTo(): number;
  kept(name: 'offsets' | 'entries', width: number, perPiece: number): readonly string[] | undefined;
  made(name: 'offsets' | 'entries', pieces: readonly string[], width: number, perPiece: number, kept: number): void;
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

/**
 * Every record's phash for `GET /api/similar?phash=`, as two 32-bit words (high, low) a
 * record, their little-endian bytes in base64url (decodeBitmap writes them into a Uint32Array
 * in one call), `perPiece` records a piece from piece `first` on: a multiple of 3 records,
 * 32 characters, so no record straddles two pieces. `missing` lists the ranks whose phash is
 * not 16 hex digits (none in a validated build), which no search finds.
 */
export interface StoredHashes {
  first: number;
  perPiece: number;
  missing: number[];
}

export function storeHashes(phashes: readonly string[], maxPiece: number, addPiece: (text: string) => number, reuse?: HashPieceReuse): StoredHashes {
  const perPiece = Math.max(1, Math.floor(maxPiece / 32)) * 3;
  const missing: number[] = [];
  const made: HashPiece[] = [];
  let first = -1;
  for (let start = 0; start < phashes.length || first === -1; start += perPiece) {
    const end = Math.min(phashes.length, start + perPiece);
    const piece = reuse?.kept(start, end, perPiece) ?? hashPiece(phashes, start, end);
    for (const rank of piece.missing) missing.push(rank);
    made.push(piece);
    const index = addPiece(piece.text);
    if (first === -1) first = index;
  }
  reuse?.made(made, perPiece);
  return { first, perPiece, missing };
}

/** One piece of `storeHashes`: the phashes of ranks start .. end - 1, and which of them are missing. */
export interface HashPiece {
  text: string;
  missing: number[];
}

/** What `storeHashes` may take from the last compile: the piece of ranks start .. end - 1 when those records are the same at the same ranks. */
export interface HashPieceReuse {
  kept(start: number, end: number, perPiece: number): HashPiece | undefined;
  made(pieces: readonly HashPiece[], perPiece: number): void;
}

function hashPiece(phashes: readonly string[], start: number, end: number): HashPiece {
  const missing: number[] = [];
  // The bytes of little-endian words, whatever this machine's order.
  const bytes = new Uint8Array((end - start) * 8);
  const view = new DataView(bytes.buffer);
  for (let rank = start; rank < end; rank++) {
    const hash = parseHash(phashes[rank]!);
    if (hash === null) missing.push(rank);
    else {
      view.setUint32((rank - start) * 8, hash.hi, true);
      view.setUint32((rank - start) * 8 + 4, hash.lo, true);
    }
  }
  return { text: encodeBytes(bytes), missing };
}

/**
 * The records within `maxDistance` bits of a hash, in rank order: one pass over every
 * record's two words, decoded from their pieces on the first search and kept (8 bytes a record).
 */
export function hashSearcher(stored: StoredHashes, count: number, piece: (index: number) => string): (hash: Hash64, maxDistance: number) => Neighbour[] {
  let words: Uint32Array | undefined;
  const missing = new Set(stored.missing);
  const decode = (): Uint32Array => {
    const all = new Uint32Array(count * 2);
    for (let start = 0, p = stored.first; start < count; start += stored.perPiece, p++) {
      const text = piece(p);
      decodeBitmap(text, 0, text.length, all.subarray(start * 2, Math.min(count, start + stored.perPiece) * 2));
    }
    return all;
  };
  return (hash, maxDistance) => {
    const all = (words ??= decode());
    const out: Neighbour[] = [];
    for (let rank = 0; rank < count; rank++) {
      const distance = popcount32((all[rank * 2]! ^ hash.hi) >>> 0) + popcount32((all[rank * 2 + 1]! ^ hash.lo) >>> 0);
      if (distance <= maxDistance && !(missing.size > 0 && missing.has(rank))) out.push({ rank, distance });
    }
    return out;
  };
}
