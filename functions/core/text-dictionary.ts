/**
 * A shared dictionary of frequent text pieces (description words with their trailing
 * space, quoted tags with their comma) so the data module holds each only once: a piece
 * becomes `~` + WIDTH base64url digits, and a literal `~` is written `~~`. Why: the data
 * module's size is the cold start (V8 scans every byte), and words
 * are most of a record's bytes. Expanding is one indexOf loop per field (no regex).
 */
import { scannedStarts, type PieceStarts } from './joined-text.js';

const MARK = '~';
const MARK_CODE = 126;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const DIGIT = new Uint8Array(128);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

/** Digits per reference: up to 64² pieces. */
const WIDTH = 2;
const MAX_PIECES = 64 ** WIDTH;

/** Pieces of a description's JSON text: a word and the space after it. */
export const WORD_PIECES = /[A-Za-z]+ ?/g;
/** Pieces of a tags JSON array: one quoted tag and the comma after it. */
export const TAG_PIECES = /"(?:[^"\\]|\\.)*",?/g;

/**
 * Chooses the pieces that save the most bytes (deterministic: by saving, then by text), listed
 * in code-unit order of their text. References have one width, so the order costs nothing,
 * and it keeps every piece's code when counts move but the chosen set does not (one image
 * added to 10k synthetic records: the same set 28 times in 40, the same saving order once):
 * then every other record encodes as before, and the build reuses its last encoding
 * (tools/catalogue/cache/record-encoding-memo.ts).
 */
export function buildDictionary(fields: { text: string; pieces: RegExp }[]): string[] {
  return chooseDictionary(countPieces(fields));
}

/** Adds (`sign` 1) or takes away (-1) the pieces of `fields` in `counts`: a build keeps the counts and moves them by what changed. A count that reaches 0 is deleted. */
export function countPieces(fields: readonly { text: string; pieces: RegExp }[], counts = new Map<string, number>(), sign: 1 | -1 = 1): Map<string, number> {
  for (const { text, pieces } of fields) {
    for (const piece of text.match(pieces) ?? []) {
      const count = (counts.get(piece) ?? 0) + sign;
      if (count === 0) counts.delete(piece);
      else counts.set(piece, count);
    }
  }
  return counts;
}

/** `buildDictionary` of the fields whose pieces `counts` counted. */
export function chooseDictionary(counts: ReadonlyMap<string, number>): string[] {
  // Each use saves the piece minus its reference; the dictionary stores the piece and a separator.
  const saving = (piece: string, count: number): number => count * (piece.length - 1 - WIDTH) - piece.length - 1;
  return [...counts]
    .map(([piece, count]) => ({ piece, saving: saving(piece, count) }))
    .filter((entry) => entry.saving > 0 && !entry.piece.includes('\t'))
    .sort((a, b) => b.saving - a.saving || (a.piece < b.piece ? -1 : 1))
    .slice(0, MAX_PIECES)
    .map((entry) => entry.piece)
    .sort();
}

/** Build-time side: a text with its dictionary pieces replaced by references. */
export function dictionaryEncoder(dictionary: readonly string[]): (text: string, pieces: RegExp) => string {
  const codes = new Map<string, string>();
  dictionary.forEach((piece, i) => codes.set(piece, MARK + ALPHABET[Math.floor(i / 64)]! + ALPHABET[i % 64]!));
  // One compiled pattern per field pattern: the build encodes tens of thousands of texts.
  const compiled = new Map<RegExp, RegExp>();
  const patternFor = (pieces: RegExp): RegExp => {
    let pattern = compiled.get(pieces);
    if (!pattern) compiled.set(pieces, (pattern = new RegExp(`${pieces.source}|${MARK}`, 'g')));
    return pattern;
  };
  return (text, pieces) =>
    pieces === WORD_PIECES ? encodeByScan(text, codes, wordEnd)
    : pieces === TAG_PIECES ? encodeByScan(text, codes, tagEnd)
    : text.replace(patternFor(pieces), (piece) => codes.get(piece) ?? piece.replaceAll(MARK, MARK + MARK));
}

const isAsciiLetter = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
const isLineTerminator = (code: number): boolean => code === 10 || code === 13 || code === 0x2028 || code === 0x2029;
const QUOTE_CODE = 34;
const BACKSLASH_CODE = 92;
const COMMA_CODE = 44;

/**
 * What the regex path gives (`/<pieces>|~/g`, each piece replaced by its code or, when it has
 * none, by itself with `~` doubled; a `~` outside pieces doubled), found by a plain scan:
 * `pieceEnd(text, at)` is the end of the piece starting at `at`, or -1 when none starts there.
 * The build encodes two texts per record, where a regex callback per piece is a visible part
 * of a fresh build. Each scanner below is held equal to
 * the regex path for any text by text-dictionary.test.ts.
 */
function encodeByScan(text: string, codes: Map<string, string>, pieceEnd: (text: string, at: number) => number): string {
  let out = '';
  let copied = 0;
  for (let at = 0; at < text.length; ) {
    const end = pieceEnd(text, at);
    if (end > at) {
      const piece = text.slice(at, end);
      const replacement = codes.get(piece) ?? (piece.includes(MARK) ? piece.replaceAll(MARK, MARK + MARK) : undefined);
      if (replacement !== undefined) {
        out += text.slice(copied, at) + replacement;
        copied = end;
      }
      at = end;
    } else {
      if (text.charCodeAt(at) === MARK_CODE) {
        out += text.slice(copied, at) + MARK + MARK;
        copied = at + 1;
      }
      at++;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** WORD_PIECES (`/[A-Za-z]+ ?/`): a run of ASCII letters and the space after it. */
function wordEnd(text: string, at: number): number {
  if (!isAsciiLetter(text.charCodeAt(at))) return -1;
  let end = at + 1;
  while (end < text.length && isAsciiLetter(text.charCodeAt(end))) end++;
  return end < text.length && text.charCodeAt(end) === 32 ? end + 1 : end;
}

/** TAG_PIECES (`/"(?:[^"\\]|\\.)*",?/`): a quoted string (an escape takes any next character but a line terminator, the regex's `.`) and the comma after it. */
function tagEnd(text: string, at: number): number {
  if (text.charCodeAt(at) !== QUOTE_CODE) return -1;
  for (let end = at + 1; end < text.length; ) {
    const code = text.charCodeAt(end);
    if (code === QUOTE_CODE) return end + 1 < text.length && text.charCodeAt(end + 1) === COMMA_CODE ? end + 2 : end + 1;
    if (code !== BACKSLASH_CODE) end++;
    else if (end + 1 < text.length && !isLineTerminator(text.charCodeAt(end + 1))) end += 2;
    else return -1;
  }
  return -1; // no closing quote: no piece starts here (the regex moves on by one character)
}


/** A dictionary piece by its index. */
export type PieceLookup = (index: number) => string;

/**
 * Run-time side: the pieces of the TAB-joined dictionary text, each sliced out when a record
 * refers to it. Why not `split('\t')`: that makes thousands of strings on the first answer
 * of a cold process, to use a few dozen; the catalogue stores where each
 * piece starts (`starts`, ../joined-text.ts), and a text held in memory is scanned for them.
 */
export function dictionaryPieces(text: string, starts: PieceStarts = scannedStarts(text, '\t')): PieceLookup {
  if (starts.count > MAX_PIECES) throw new Error(`the catalogue dictionary holds more than ${MAX_PIECES} pieces; rebuild the catalogue`);
  const { startAt } = starts;
  return (index) => text.slice(startAt(index), startAt(index + 1) - 1);
}

/** Run-time side: the original text of an encoded one. */
export function expandText(text: string, piece: PieceLookup): string {
  let at = text.indexOf(MARK);
  if (at === -1) return text;
  let out = '';
  let from = 0;
  while (at !== -1) {
    out += text.slice(from, at);
    if (text.charCodeAt(at + 1) === MARK_CODE) {
      out += MARK;
      from = at + 2;
    } else {
      out += piece(DIGIT[text.charCodeAt(at + 1)]! * 64 + DIGIT[text.charCodeAt(at + 2)]!);
      from = at + 1 + WIDTH;
    }
    at = text.indexOf(MARK, from);
  }
  return out + text.slice(from);
}
