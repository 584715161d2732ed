import { scannedStarts, type PieceStarts } from '../joined-text.js';

/**
 * The index's sorted terms, read in place from their space-separated text: a term is sliced
 * out only when it is asked for. Why not `split(' ')`: that makes one string per term on the
 * first search of a cold process, which needs a few dozen.
 * The catalogue stores where each term starts (stored-index.ts, ../joined-text.ts), so the
 * binary search of a first query reads about 30 of them in place.
 */
export class TermList {
  readonly length: number;
  private readonly startAt: (id: number) => number;

  /** @param text the terms, sorted, separated by one space (SearchIndexData.terms). */
  constructor(
    readonly text: string,
    starts: PieceStarts = scannedStarts(text, ' '),
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
