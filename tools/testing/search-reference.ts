/**
 * Test oracle: the search rules of the specification written as plainly as possible (no
 * index, every document scanned), for comparing the real index against on random corpora.
 */
import { letterCount, searchWords } from '../../functions/core/search/normalise.js';
import type { SearchDoc, SearchField } from '../../functions/core/search/search-types.js';

/** Textbook Levenshtein distance (dynamic programming). */
export function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/** Ranks matching every query word; typo tolerance only if the strict rules find nothing. */
export function referenceMatch(docs: SearchDoc[], query: string, field: SearchField): number[] {
  const queryWords = searchWords(query);
  if (queryWords.length === 0) return [];
  const docWords = docs.map((doc) => [...(field === 'all' ? searchWords((doc.tags ?? []).join(' ')) : []), ...searchWords(doc.description ?? '')]);
  const strict = (word: string, queryWord: string) => word.startsWith(queryWord);
  const tolerant = (word: string, queryWord: string) => strict(word, queryWord) || (letterCount(queryWord) >= 4 && levenshtein(word, queryWord) <= 1);
  const run = (matches: (word: string, queryWord: string) => boolean) =>
    docs.flatMap((_, rank) => (queryWords.every((q) => docWords[rank]!.some((w) => matches(w, q))) ? [rank] : []));
  const strictRanks = run(strict);
  return strictRanks.length > 0 ? strictRanks : run(tolerant);
}
