/**
 * The one text normalisation of search (api-behaviour.md "Search semantics"), used for
 * documents at build time and for queries at run time, so both sides always agree.
 */

/** Combining marks left behind by NFKD (accents, diacritics): removed so `é` matches `e`. */
const COMBINING_MARKS = /\p{M}+/gu;
/** A word is a run of letters and digits; anything else separates words. */
const SEPARATORS = /[^\p{L}\p{N}]+/u;
/**
 * Greek final sigma: `toLowerCase` turns a word-final Σ into ς but a user may type σ;
 * folding both to σ keeps search case-insensitive for Greek too.
 */
const FINAL_SIGMA = /ς/g;

/**
 * The normalised words of a text: NFKD, combining marks removed, lowercase, split on
 * anything that is not a letter or digit. Order and duplicates are kept.
 */
export function searchWords(text: string): string[] {
  const folded = text.normalize('NFKD').replace(COMBINING_MARKS, '').toLowerCase().replace(FINAL_SIGMA, 'σ');
  const words = folded.split(SEPARATORS);
  // split leaves an empty string at either end when the text starts/ends with a separator.
  return words.filter((word) => word.length > 0);
}

/** Length of a word in code points (the "letters" of the ≥ 4-letter typo rule). */
export function letterCount(word: string): number {
  let count = 0;
  for (const _ of word) count++;
  return count;
}
