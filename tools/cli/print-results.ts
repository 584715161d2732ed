/** How commands show what a library call returned: problems, a progress line, the summary line. */
import type { AnalyseProgress } from '../catalogue/analyse-content.js';
import { formatProblem, type Problem } from '../shared/problems.js';
import { formatSummary, type SummaryFigures, ttyProgress } from './progress.js';
import type { Io } from '../shared/io.js';

/** One line per problem on stderr, in the order given (libraries return them sorted). */
export function printProblems(io: Io, problems: readonly Problem[]): void {
  for (const problem of problems) io.stderr(`${formatProblem(problem)}\n`);
}

/** `<verb>: N images, N warnings, N errors, N cache hits, S s` on stderr (stdout stays for data). */
export function printSummary(io: Io, verb: string, figures: SummaryFigures): void {
  io.stderr(`${formatSummary(verb, figures)}\n`);
}

/**
 * Runs a content analysis with a progress line on a terminal, and clears that line before
 * anything else is printed (also when the call throws, so a stack trace starts on a clean line).
 */
export async function withProgress<T>(io: Io, run: (onProgress: (p: AnalyseProgress) => void) => Promise<T>): Promise<T> {
  const progress = ttyProgress(io.stderr, io.isTTY);
  try {
    return await run(progress.onProgress);
  } finally {
    progress.done();
  }
}
