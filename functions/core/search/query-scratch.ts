/**
 * Buffers reused by every query of one index, so a query allocates only its answer.
 * Safe because queries are synchronous: a buffer's content is consumed before the next
 * query starts. Each is created on first use (relevance buffers only if relevance is asked).
 */
export class QueryScratch {
  private bitsets: [Uint32Array, Uint32Array] | undefined;
  private scores: Float64Array | undefined;

  constructor(private readonly docCount: number) {}

  /** Two bitsets of docCount bits: the running AND, and the current word's OR. Not cleared. */
  sets(): [Uint32Array, Uint32Array] {
    const words = Math.ceil(this.docCount / 32);
    return (this.bitsets ??= [new Uint32Array(words), new Uint32Array(words)]);
  }

  /** A score per rank (relevance: best score of the current word). Not cleared. */
  bestScores(): Float64Array {
    return (this.scores ??= new Float64Array(this.docCount));
  }
}
