/**
 * Where each piece of a separator-joined text starts, so that a piece is sliced out only when it
 * is asked for. The data's term list and record dictionary are read this way: splitting them
 * made thousands of strings on a cold process's first answer, which needs a few dozen. The
 * build stores the starts beside the text (`storeStarts`), so the run time reads the few it
 * needs in place: finding them by a scan of the text cost a cold process ≈ 6 M instructions
 * per 4k pieces in V8's interpreter.
 */
import { digitsFor, packInPieces, piecedNumberAt, type PiecedNumbers } from './packed-numbers.js';

/** Where each of `count` pieces starts; `startAt(count)` is one past the end (as if a separator followed the last piece). */
export interface PieceStarts {
  count: number;
  startAt(index: number): number;
}

/** The starts as the catalogue stores them: `count + 1` packed numbers. */
export interface StoredStarts {
  count: number;
  at: PiecedNumbers;
}

/**
 * Start of piece i of `text` (pieces separated by the one-character `separator`; '' holds none)
 * at index i, and one more slot holding `text.length + 1` (as if a separator followed the last
 * piece): piece i is `text.slice(starts[i], starts[i + 1] - 1)`.
 */
export function pieceStarts(text: string, separator: string): Int32Array {
  let count = text === '' ? 0 : 1;
  for (let at = text.indexOf(separator); at !== -1; at = text.indexOf(separator, at + 1)) count++;
  const starts = new Int32Array(count + 1);
  let piece = 0;
  if (count > 0) starts[piece++] = 0;
  for (let at = text.indexOf(separator); at !== -1; at = text.indexOf(separator, at + 1)) starts[piece++] = at + 1;
  starts[count] = text.length + 1;
  return starts;
}

/** The starts found by one scan of `text`: for a text held in memory (tests, an index loaded whole). */
export function scannedStarts(text: string, separator: string): PieceStarts {
  const starts = pieceStarts(text, separator);
  return { count: starts.length - 1, startAt: (index) => starts[index]! };
}

/** Build time: packs the starts of `text` into pieces of at most `maxPiece` characters (`addPiece` as in catalogue.ts). */
export function storeStarts(text: string, separator: string, maxPiece: number, addPiece: (text: string) => number): StoredStarts {
  const starts = Array.from(pieceStarts(text, separator));
  const width = digitsFor(starts[starts.length - 1]!); // ascending
  const packed = packInPieces(starts, width, maxPiece);
  return { count: starts.length - 1, at: { first: packed.pieces.map(addPiece)[0]!, width, perPiece: packed.perPiece } };
}

/** Run time: the stored starts of `text`, read in place from `piece`; throws when they do not end where the text does (a build bug). */
export function storedStarts(text: string, stored: StoredStarts, piece: (index: number) => string, what: string): PieceStarts {
  const startAt = (index: number): number => piecedNumberAt(piece, stored.at, index);
  if (startAt(stored.count) !== text.length + 1) throw new Error(`${what}: the stored starts do not match the text; rebuild the catalogue`);
  return { count: stored.count, startAt };
}
