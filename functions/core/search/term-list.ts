import { pieceStarts } from '../joined-text.js';

/**
 * The index's sorted terms, read in place from their space-separated text. Why not
 * `split(' ')`: that made one string per term (≈ 150 KB of young heap for 4.6k terms) on
 * the first search of a cold process, which needs a few dozen of them; this records where
 * each term starts (4 bytes a term) and slices a term out only when it is asked for.
 */
export class TermList {
  readonly length: number;
  /** Start of term i in `text`; `starts[length]` is one past the end (as if a space followed). */
  private readonly starts: Int32Array;

  /** @param text the terms, sorted, separated by one space (SearchIndexData.terms). */
  constructor(readonly text: string) {
    this.starts = pieceStarts(text, ' ');
    this.length = this.starts.length - 1;
  }

  /** Term `id` (0 ≤ id < length). */
  at(id: number): string {
    return this.text.slice(this.starts[id]!, this.starts[id + 1]! - 1);
  }

  /** Length of term `id`, without slicing it. */
  lengthOf(id: number): number {
    return this.starts[id + 1]! - this.starts[id]! - 1;
  }

  /** Where term `id` starts in `text`, to read it in place. */
  startOf(id: number): number {
    return this.starts[id]!;
  }
}
