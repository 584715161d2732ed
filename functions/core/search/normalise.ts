/**
 * The one text normalisation of search (the specification, "Search"), used for
 * documents at build time and for queries at run time, so both sides always agree.
 */

/**
 * Combining marks left behind by NFKD (accents, diacritics), removed so `é` matches `e`; and
 * what separates words (a word is a run of letters and digits). Made on the first non-ASCII
 * text: V8 builds the Unicode property sets of a pattern when it parses it, so as literals
 * (checked when the module is parsed, built again when it runs) they cost every cold start,
 * a list without a search included.
 */
let unicode: { marks: RegExp; separators: RegExp } | undefined;
const unicodePatterns = () => (unicode ??= { marks: new RegExp('\\p{M}+', 'gu'), separators: new RegExp('[^\\p{L}\\p{N}]+', 'u') });
/**
 * Greek final sigma: `toLowerCase` turns a word-final Σ into ς but a user may type σ;
 * folding both to σ keeps search case-insensitive for Greek too. Written as an escape: one
 * raw non-Latin-1 character would make V8 hold the whole bundled source (data included) as
 * a two-byte string.
 */
const FINAL_SIGMA = /\u03c2/g;

const ASCII = /^[\x00-\x7f]*$/;
const ASCII_SEPARATORS = /[^a-z0-9]+/;

/**
 * The normalised words of a text: NFKD, case folded, combining marks removed, split on
 * anything that is not a letter or digit. Order and duplicates are kept.
 *
 * Case folding is lower → upper → lower, not `toLowerCase` alone: some letters' case pairs
 * are not one to one, and lowercasing alone left `Straße` unfound by `STRASSE` or `strasse`
 * (ß uppercases to SS), `DİYARBAKIR` unfound by Turkish `dıyarbakır` (ı uppercases to I),
 * and Greek iota subscripts (`ᾳ`, upper `ΑΙ`) apart from their capitals. The round trip
 * gives a word and its upper-case form the same folding for every code point
 * (normalise.test.ts checks them all), as Unicode full case folding does. Marks are removed
 * after it, so any mark a case mapping brings (`İ` lowercases to `i` + U+0307) goes too.
 */
export function searchWords(text: string): string[] {
  if (ASCII.test(text)) {
    // Same words as below for ASCII text (NFKD, the case round trip and the mark/sigma folds change nothing, and
    // the only ASCII letters and digits are [a-z0-9] after lowercasing), without the Unicode
    // property regexes, whose compiling is a visible part of a cold process's first query.
    return text.toLowerCase().split(ASCII_SEPARATORS).filter((word) => word.length > 0);
  }
  const { marks, separators } = unicodePatterns();
  const folded = text.normalize('NFKD').toLowerCase().toUpperCase().toLowerCase().replace(marks, '').replace(FINAL_SIGMA, 'σ');
  const words = folded.split(separators);
  // split leaves an empty string at either end when the text starts/ends with a separator.
  return words.filter((word) => word.length > 0);
}

/** Length of a word in code points (the "letters" of the ≥ 4-letter typo rule). */
export function letterCount(word: string): number {
  let count = 0;
  for (const _ of word) count++;
  return count;
}
