/** What every benchmark module receives from the runner. */
export interface BenchContext {
  /** `--quick`: smaller corpora, for trying a benchmark out; the figures in tools/bench/README.md come from full runs. */
  quick: boolean;
  /** A scratch folder for this run, removed at the end. */
  tmpRoot: string;
  /** Adds a table to the report: one row per measured case, same keys in every row. */
  table(title: string, rows: Record<string, string | number>[]): void;
  /** A progress line on stderr (not part of the report). */
  log(message: string): void;
}

/** A benchmark module: `export default { name, run } satisfies Bench`. */
export interface Bench {
  name: string;
  run(ctx: BenchContext): Promise<void>;
}

/** Percentile of a sample (p in 0..100), nearest-rank; the sample is sorted in place. */
export function percentile(sample: number[], p: number): number {
  if (sample.length === 0) return Number.NaN;
  sample.sort((a, b) => a - b);
  const rank = Math.min(sample.length - 1, Math.max(0, Math.ceil((p / 100) * sample.length) - 1));
  return sample[rank]!;
}

/** Median (nearest-rank: the lower middle of an even sample); sorts the sample in place. */
export const median = (sample: number[]): number => percentile(sample, 50);

/** Rounds for a report cell. */
export const round = (value: number, digits = 2): number => Number(value.toFixed(digits));
