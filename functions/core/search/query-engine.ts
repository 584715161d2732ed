import { searchWords } from './normalise.js';
import { andInto, orPosting, ranksOf } from './rank-set.js';
import { type TermDictionary, type TermMatch } from './term-dictionary.js';
import type { SearchField } from './search-types.js';

/** The query words with the terms each one matched, and whether typo tolerance was needed. */
export interface ResolvedQuery {
  words: { word: string; terms: TermMatch[] }[];
  typos: boolean;
  /** Matching ranks as a bitset: a scratch buffer, valid until the next query on this index. */
  bits: Uint32Array;
}

/** The distinct normalised words of a query, in first-seen order. */
function queryWords(query: string): string[] {
  return [...new Set(searchWords(query))];
}

/** OR of the postings of every expanded term (in the searched fields) of one word. */
function wordBits(dictionary: TermDictionary, terms: TermMatch[], field: SearchField, bits: Uint32Array): void {
  for (const { id } of terms) {
    if (field === 'all') {
      const tagPosting = dictionary.tags.posting(id);
      if (tagPosting.count > 0) orPosting(bits, tagPosting);
    }
    const descriptionPosting = dictionary.description.posting(id);
    if (descriptionPosting.count > 0) orPosting(bits, descriptionPosting);
  }
}

/** Estimated cost of a word: how many postings its OR touches (cheap: reads headers only). */
function wordCost(dictionary: TermDictionary, terms: TermMatch[], field: SearchField): number {
  let cost = 0;
  for (const { id } of terms) cost += (field === 'all' ? dictionary.tags.count(id) : 0) + dictionary.description.count(id);
  return cost;
}

/** AND over words of (OR over each word's terms); null when some word matches no record. */
function evaluate(dictionary: TermDictionary, words: string[], field: SearchField, typos: boolean): ResolvedQuery | null {
  const resolved = words.map((word) => ({ word, terms: dictionary.expand(word, typos) }));
  const costs = resolved.map(({ terms }) => wordCost(dictionary, terms, field));
  if (costs.some((cost) => cost === 0)) return null;
  // Cheapest word first: if the AND empties early, the expensive words are never decoded.
  const order = resolved.map((_, i) => i).sort((a, b) => costs[a]! - costs[b]!);
  const [bits, scratch] = dictionary.scratch.sets();
  bits.fill(0);
  for (let n = 0; n < order.length; n++) {
    const { terms } = resolved[order[n]!]!;
    if (n === 0) {
      wordBits(dictionary, terms, field, bits);
      continue;
    }
    scratch.fill(0);
    wordBits(dictionary, terms, field, scratch);
    if (!andInto(bits, scratch)) return null;
  }
  return { words: resolved, typos, bits };
}

/** Strict rules first; typo tolerance only when the strict query finds nothing. */
export function resolveQuery(dictionary: TermDictionary, query: string, field: SearchField): ResolvedQuery | null {
  const words = queryWords(query);
  if (words.length === 0 || dictionary.docCount === 0) return null;
  return evaluate(dictionary, words, field, false) ?? evaluate(dictionary, words, field, true);
}

/**
 * `resolveQuery`, then only the ranks `keep` holds (null: all). Filtering the bitset before
 * listing ranks allocates only the filtered answer: listing every match and then the kept ones
 * allocated both, and on Node 24 that garbage (array buffers, counted as external memory)
 * started a full mark of the heap every few hundred filtered searches (functions/README.md).
 */
export function resolveKept(dictionary: TermDictionary, query: string, field: SearchField, keep: Uint32Array | null): ResolvedQuery | null {
  const resolved = resolveQuery(dictionary, query, field);
  if (resolved !== null && keep !== null) andInto(resolved.bits, keep);
  return resolved;
}

export function matchRanks(dictionary: TermDictionary, query: string, field: SearchField, keep: Uint32Array | null): Uint32Array {
  const resolved = resolveKept(dictionary, query, field, keep);
  return resolved === null ? new Uint32Array(0) : ranksOf(resolved.bits);
}
