/**
 * Test oracles: the search rules of the specification, and the near-pair search of similar
 * images, written as plainly as possible (every document or pair scanned), for comparing the
 * real indexes against on random corpora.
 */
import { letterCount, searchWords } from '../../functions/core/search/normalise.js';
import type { SearchDoc, SearchField } from '../../functions/core/search/search-types.js';
import { type Hash64, hammingDistance, type HashPair } from '../../functions/core/multi-index.js';

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

/** Near pairs by the plain all-pairs loop: the oracle of the multi-index tests and the baseline of its benchmark. */
export function referencePairs(hashes: readonly Hash64[], threshold: number): HashPair[] {
  const pairs: HashPair[] = [];
  for (let i = 0; i < hashes.length; i++) {
    for (let j = i + 1; j < hashes.length; j++) {
      const distance = hammingDistance(hashes[i]!, hashes[j]!);
      if (distance <= threshold) pairs.push({ i, j, distance });
    }
  }
  return pairs;
}
