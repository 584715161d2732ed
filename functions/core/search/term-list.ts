import { pieceStarts } from '../joined-text.js';

/** Where each term starts: `count` terms, `startAt(count)` one past the end (as if a space followed). */
export interface TermStarts {
  count: number;
  startAt(id: number): number;
}

/** The starts found by one scan of the text: for an index held in memory (loadSearchIndex, tests). */
export function scanTermStarts(text: string): TermStarts {
  const starts = pieceStarts(text, ' ');
  return { count: starts.length - 1, startAt: (id) => starts[id]! };
}

/**
 * The index's sorted terms, read in place from their space-separated text: a term is sliced
 * out only when it is asked for. Why not `split(' ')`: that made one string per term (≈ 150 KB
 * of young heap for 4.6k terms) on the first search of a cold process, which needs a few dozen.
 * The catalogue stores where each term starts (stored-index.ts), so a lookup reads that table
 * in place: scanning the 37 KB of terms for their starts cost a cold process 6 M instructions,
 * and the binary search of a first query reads about 30 entries.
 */
export class TermList {
  readonly length: number;
  private readonly startAt: (id: number) => number;

  /** @param text the terms, sorted, separated by one space (SearchIndexData.terms). */
  constructor(
    readonly text: string,
    starts: TermStarts = scanTermStarts(text),
  ) {
    this.length = starts.count;
    this.startAt = starts.startAt;
  }

  /** Term `id` (0 ≤ id < length). */
  at(id: number): string {
    return this.text.slice(this.startAt(id), this.startAt(id + 1) - 1);
  }

  /** Length of term `id`, without slicing it. */
  lengthOf(id: number): number {
    return this.startAt(id + 1) - this.startAt(id) - 1;
  }

  /** Where term `id` starts in `text`, to read it in place. */
  startOf(id: number): number {
    return this.startAt(id);
  }
}
