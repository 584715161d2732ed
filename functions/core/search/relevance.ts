import { KIND_LIST, type Posting } from './posting-codec.js';
import { resolveKept } from './query-engine.js';
import { ranksOf } from './rank-set.js';
import { EXACT, PREFIX, type TermDictionary, type TermMatch } from './term-dictionary.js';
import type { SearchField } from './search-types.js';

/**
 * Relevance weights: a record scores, per query word, the best of its matching
 * (term, field) pairs = field boost × idf(query word) × match quality; the scores of all
 * words are summed. No term frequency or length normalisation: tags are a set and descriptions
 * are a sentence, so those would mostly add noise (and index size).
 */
const RELEVANCE = {
  /** Tags describe the picture; a word in the tags beats the same word in the description. */
  tagBoost: 2,
  descriptionBoost: 1,
  /** A completed prefix counts less than the exact word, the more so the longer the completion. */
  prefixWeight: 0.5,
  /** A typo match counts less than any strict one of the same term. */
  typoWeight: 0.25,
} as const;

/**
 * Scores are compared at 2^-20 resolution, so sums that differ only by float rounding
 * (same terms, different summation order) count as the tie they really are.
 */
const SCORE_SCALE = 2 ** 20;

function quality(word: string, match: TermMatch): number {
  if (match.kind === EXACT) return 1;
  if (match.kind === PREFIX) return RELEVANCE.prefixWeight * (word.length / match.term.length);
  return RELEVANCE.typoWeight;
}

/** BM25's idf (always positive); the frequency is summed over a word's terms and fields, an upper bound of its record count. */
function idf(docCount: number, documentFrequency: number): number {
  const df = Math.min(docCount, documentFrequency);
  return Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
}

function raise(best: Float64Array, posting: Posting, score: number): void {
  if (posting.count === 0) return;
  if (posting.kind === KIND_LIST) {
    const ranks = posting.ranks;
    for (let i = 0; i < ranks.length; i++) if (best[ranks[i]!]! < score) best[ranks[i]!] = score;
    return;
  }
  const bits = posting.bits;
  for (let i = 0; i < bits.length; i++) {
    let word = bits[i]!;
    while (word !== 0) {
      const lowest = word & -word;
      const rank = i * 32 + 31 - Math.clz32(lowest);
      if (best[rank]! < score) best[rank] = score;
      word ^= lowest;
    }
  }
}

/** The matching ranks (those `keep` holds, null: all) by descending relevance, ties by descending rank (newer first). */
export function rankByRelevance(dictionary: TermDictionary, query: string, field: SearchField, keep: Uint32Array | null): Uint32Array {
  const resolved = resolveKept(dictionary, query, field, keep);
  if (resolved === null) return new Uint32Array(0);
  const ranks = ranksOf(resolved.bits);
  const totals = new Float64Array(ranks.length);
  const best = dictionary.scratch.bestScores();
  for (const { word, terms } of resolved.words) {
    best.fill(0);
    // One idf per query word (over all its terms): how rare the word is decides its weight,
    // while the choice between its terms is left to match quality and field, so `frog`
    // ranks a record with "frog" above one with the rarer "froggy".
    let documentFrequency = 0;
    for (const match of terms) documentFrequency += (field === 'all' ? dictionary.tags.count(match.id) : 0) + dictionary.description.count(match.id);
    const wordWeight = idf(dictionary.docCount, documentFrequency);
    for (const match of terms) {
      const weight = wordWeight * quality(word, match);
      if (field === 'all') raise(best, dictionary.tags.posting(match.id), RELEVANCE.tagBoost * weight);
      raise(best, dictionary.description.posting(match.id), RELEVANCE.descriptionBoost * weight);
    }
    for (let i = 0; i < ranks.length; i++) totals[i]! += best[ranks[i]!]!;
  }
  return orderByScore(ranks, totals, resolved.words.length);
}

/**
 * Ranks by descending score, ties by descending rank. A bucket (counting) sort: scores take
 * few distinct values (one per combination of matched term, field and match kind), so this
 * is linear where V8's TypedArray sort is not (`npm run bench -- --only search`).
 */
function orderByScore(ranks: Uint32Array, totals: Float64Array, words: number): Uint32Array {
  const bucketOf = new Map<number, number>();
  const scores: number[] = [];
  const sizes: number[] = [];
  const bucketOfEach = new Uint32Array(ranks.length);
  for (let i = 0; i < ranks.length; i++) {
    const score = Math.round((totals[i]! / words) * SCORE_SCALE);
    let bucket = bucketOf.get(score);
    if (bucket === undefined) {
      bucket = scores.length;
      bucketOf.set(score, bucket);
      scores.push(score);
      sizes.push(0);
    }
    sizes[bucket]!++;
    bucketOfEach[i] = bucket;
  }
  const next = new Array<number>(scores.length);
  let offset = 0;
  for (const bucket of scores.map((_, b) => b).sort((a, b) => scores[b]! - scores[a]!)) {
    next[bucket] = offset;
    offset += sizes[bucket]!;
  }
  // Ranks are ascending, so walking them backwards fills each bucket newest first.
  const ordered = new Uint32Array(ranks.length);
  for (let i = ranks.length - 1; i >= 0; i--) ordered[next[bucketOfEach[i]!]!++] = ranks[i]!;
  return ordered;
}
