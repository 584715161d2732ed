/**
 * How commands print: every command gets its `Io` through `terminalIo`, which escapes what a
 * terminal would act on; problems, the summary line and the one redrawn status line.
 */
import type { AnalyseProgress } from '../catalogue/analyse-content.js';
import { formatProblem, type Problem, TERMINAL_UNSAFE } from '../shared/problems.js';
import { formatSummary, type SummaryFigures, ttyProgress } from './progress.js';
import type { Io } from '../shared/io.js';

const NAMED: Record<string, string> = { '\r': '\\r', '\t': '\\t' };

/**
 * `text` with every character a terminal acts on but `\n` written as an escape: ESC starts
 * sequences that clear, move the cursor or retitle the window, U+009B is a one-character CSI,
 * U+202E shows `gpj.exe` as `exe.jpg`. Each escape (`\r`, `\t`, `\u001b`, `\u202e`) is a BMP
 * code point's, so a JSON document stays valid JSON with the same value.
 */
export const terminalText = (text: string): string =>
  text.replace(TERMINAL_UNSAFE, (c) => (c === '\n' ? c : (NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)));

/** The unescaped stderr of each `terminalIo`, for the status line's own control sequence only. */
const rawStderr = new WeakMap<Io, (text: string) => void>();

/**
 * `io` with stdout and stderr escaped by `terminalText`: file names, sidecar text, server
 * answers and error messages reach every command's output, and a command cannot forget one.
 */
export function terminalIo(io: Io): Io {
  if (rawStderr.has(io)) return io;
  const safe: Io = { ...io, stdout: (text) => io.stdout(terminalText(text)), stderr: (text) => io.stderr(terminalText(text)) };
  rawStderr.set(safe, io.stderr);
  return safe;
}

const CLEAR_LINE = '\r\x1b[2K';

/** The one line a command redraws on a terminal (progress); its text is escaped like the rest. */
export interface StatusLine {
  draw(line: string): void;
  /** Clears the line when one was drawn, before anything else is printed. */
  clear(): void;
}

export function statusLine(io: Io): StatusLine {
  const write = rawStderr.get(io) ?? io.stderr;
  let drawn = false;
  return {
    draw: (line) => {
      drawn = true;
      write(`${CLEAR_LINE}${terminalText(line)}`);
    },
    clear: () => {
      if (drawn) write(CLEAR_LINE);
      drawn = false;
    },
  };
}

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
  const line = statusLine(io);
  const progress = ttyProgress(line.draw, io.isTTY);
  try {
    return await run(progress);
  } finally {
    line.clear();
  }
}
