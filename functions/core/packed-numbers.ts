/**
 * A list of non-negative integers as fixed-width base64url digits: plain ASCII that needs
 * no escaping in a JS literal, and any one is read in O(1) without decoding the others,
 * so nothing has to be decoded up front on a cold start (ranks ordered by id, record
 * offsets of a chunk, posting offsets of the search index).
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const DIGIT = new Uint8Array(128);
const CODES = Uint8Array.from(ALPHABET, (char) => char.charCodeAt(0));
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

/** Digits needed so every value ≤ `max` fits (at least 1). */
export function digitsFor(max: number): number {
  let width = 1;
  while (64 ** width <= max) width++;
  return width;
}

/** `values[start .. end)`, `width` digits each. */
export function packNumbers(values: ArrayLike<number>, width: number, start = 0, end = values.length): string {
  const limit = 64 ** width;
  // Character codes into one array, turned into text a slice at a time: a string per digit cost most of a large build's packing.
  const codes = new Uint8Array((end - start) * width);
  let at = 0;
  for (let index = start; index < end; index++) {
    const value = values[index]!;
    if (!(Number.isInteger(value) && value >= 0 && value < limit)) throw new Error(`packNumbers: ${value} does not fit in ${width} digits`);
    let rest = value;
    for (let i = width - 1; i >= 0; i--) {
      codes[at + i] = CODES[rest % 64]!;
      rest = Math.floor(rest / 64);
    }
    at += width;
  }
  return asciiText(codes);
}

const ASCII = new TextDecoder();

/** ASCII codes as a string: one native decode (ASCII is UTF-8), where spreading slices into `String.fromCharCode` cost most of a change build's packing. */
export function asciiText(codes: Uint8Array): string {
  return ASCII.decode(codes);
}

/** The value at `index` of a packed list that starts at `offset` of `packed`. */
export function numberAt(packed: string, width: number, index: number, offset = 0): number {
  let value = 0;
  const start = offset + index * width;
  for (let i = 0; i < width; i++) value = value * 64 + DIGIT[packed.charCodeAt(start + i)]!;
  return value;
}

/**
 * Where a packed list written in pieces lives (see `packInPieces`): `perPiece` numbers of
 * `width` digits per piece, from piece `first` of the catalogue's texts on. No number
 * straddles two pieces, so reading one touches one piece.
 */
export interface PiecedNumbers {
  first: number;
  width: number;
  perPiece: number;
}

/** A packed list cut into pieces of at most `maxPiece` characters, whole numbers only. */
export function packInPieces(values: ArrayLike<number>, width: number, maxPiece: number): { pieces: string[]; perPiece: number } {
  const perPiece = Math.max(1, Math.floor(maxPiece / width));
  const pieces: string[] = [];
  for (let start = 0; start < values.length || pieces.length === 0; start += perPiece) pieces.push(packNumbers(values, width, start, Math.min(start + perPiece, values.length)));
  return { pieces, perPiece };
}

/** The value at `index` of a pieced list, `piece(i)` being piece i of the texts. */
export function piecedNumberAt(piece: (index: number) => string, list: PiecedNumbers, index: number): number {
  const p = Math.floor(index / list.perPiece);
  return numberAt(piece(list.first + p), list.width, index - p * list.perPiece);
}
