/**
 * A shared dictionary of frequent text pieces (description words with their trailing
 * space, quoted tags with their comma) so the data module holds each only once: a piece
 * becomes `~` + WIDTH base64url digits, and a literal `~` is written `~~`. Why: the data
 * module's size is the cold start (V8 scans every byte, ≈ 4.5 ms per MB), and words
 * are most of a record's bytes. Expanding is one indexOf loop per field (no regex).
 */
const MARK = '~';
const MARK_CODE = 126;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const DIGIT = new Uint8Array(128);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

/** Digits per reference: up to 64² pieces. */
export const WIDTH = 2;
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
 * (tools/build/record-encoding-memo.ts).
 */
export function buildDictionary(fields: { text: string; pieces: RegExp }[]): string[] {
  const counts = new Map<string, number>();
  for (const { text, pieces } of fields) {
    for (const piece of text.match(pieces) ?? []) counts.set(piece, (counts.get(piece) ?? 0) + 1);
  }
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
    pieces === WORD_PIECES ? encodeWords(text, codes)
    : pieces === TAG_PIECES ? encodeTags(text, codes)
    : text.replace(patternFor(pieces), (piece) => codes.get(piece) ?? piece.replaceAll(MARK, MARK + MARK));
}

const isAsciiLetter = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

/**
 * What the regex path gives for WORD_PIECES (`/[A-Za-z]+ ?|~/g`, each match replaced by its
 * code or, for `~`, by `~~`), found by a plain scan: descriptions are most of the text a
 * build encodes, and a callback per word made that ~40 ms of a 10k build. Held equal to the
 * regex path for any text by text-dictionary.test.ts.
 */
function encodeWords(text: string, codes: Map<string, string>): string {
  let out = '';
  let copied = 0;
  for (let at = 0; at < text.length; ) {
    const code = text.charCodeAt(at);
    if (isAsciiLetter(code)) {
      let end = at + 1;
      while (end < text.length && isAsciiLetter(text.charCodeAt(end))) end++;
      if (end < text.length && text.charCodeAt(end) === 32) end++;
      const reference = codes.get(text.slice(at, end));
      if (reference !== undefined) {
        out += text.slice(copied, at) + reference;
        copied = end;
      }
      at = end;
    } else {
      if (code === MARK_CODE) {
        out += text.slice(copied, at) + MARK + MARK;
        copied = at + 1;
      }
      at++;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

const QUOTE_CODE = 34;
const BACKSLASH_CODE = 92;
const COMMA_CODE = 44;

/**
 * What the regex path gives for TAG_PIECES (`/"(?:[^"\\]|\\.)*",?|~/g`, each piece replaced by its
 * code or, when it has none, by itself with `~` doubled; a `~` outside pieces doubled), found
 * by a plain scan: a callback per tag was ~30 ms of a fresh 10k build. Held equal to the regex
 * path for any text by text-dictionary.test.ts.
 */
function encodeTags(text: string, codes: Map<string, string>): string {
  let out = '';
  let copied = 0;
  for (let at = 0; at < text.length; ) {
    const code = text.charCodeAt(at);
    if (code === QUOTE_CODE) {
      let end = at + 1;
      while (end < text.length) {
        const inner = text.charCodeAt(end);
        if (inner === QUOTE_CODE) break;
        // An escape takes the next character whatever it is, except a line terminator (the regex's `.`).
        if (inner === BACKSLASH_CODE) {
          if (end + 1 >= text.length || isLineTerminator(text.charCodeAt(end + 1))) end = text.length;
          else end += 2;
        } else end++;
      }
      if (end >= text.length) {
        // No closing quote: no piece starts here (the regex moves on by one character).
        at++;
        continue;
      }
      end++;
      if (end < text.length && text.charCodeAt(end) === COMMA_CODE) end++;
      const piece = text.slice(at, end);
      const replacement = codes.get(piece) ?? (piece.includes(MARK) ? piece.replaceAll(MARK, MARK + MARK) : undefined);
      if (replacement !== undefined) {
        out += text.slice(copied, at) + replacement;
        copied = end;
      }
      at = end;
    } else {
      if (code === MARK_CODE) {
        out += text.slice(copied, at) + MARK + MARK;
        copied = at + 1;
      }
      at++;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

const isLineTerminator = (code: number): boolean => code === 10 || code === 13 || code === 0x2028 || code === 0x2029;

/** Run-time side: the original text of an encoded one. */
export function expandText(text: string, dictionary: readonly string[]): string {
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
      out += dictionary[DIGIT[text.charCodeAt(at + 1)]! * 64 + DIGIT[text.charCodeAt(at + 2)]!];
      from = at + 1 + WIDTH;
    }
    at = text.indexOf(MARK, from);
  }
  return out + text.slice(from);
}
