/** Where a command prints. Commands never touch process.stdout directly, so tests can capture them. */
export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** True when stderr is an interactive terminal: progress lines are drawn only then. */
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * Runs this command line again in a new process whose glibc malloc is tuned for decoding
   * many images (tools/cli/tuned-allocator.mjs) and returns its exit status, or null when it
   * could not. Only the real `pepe` process provides it (tools/pepe.mjs); see tuned-decoding.ts.
   */
  rerunTuned?: () => number | null;
}

/** A wrong command line: the top level prints the command's usage with the message and exits 2. */
export class UsageError extends Error {
  readonly code = 'USAGE';
}

/** A subcommand: parses its own flags, calls a library function, prints, returns the exit code. */
export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The full --help text. */
  usage: string;
  run(argv: string[], io: Io): Promise<number>;
}

/**
 * The real process's Io. A reader that stops early (`pepe publish --dry-run | head`) closes
 * stdout: later writes fail with EPIPE, which Node raises as an unhandled 'error' event (a
 * stack trace). Output past that point has no reader, so it is dropped and the command runs
 * to its end (a publish must not stop halfway because nobody reads its plan).
 */
export function processIo(): Io {
  let stdoutClosed = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    stdoutClosed = true;
  });
  return {
    stdout: (text) => {
      if (!stdoutClosed) process.stdout.write(text);
    },
    stderr: (text) => process.stderr.write(text),
    isTTY: Boolean(process.stderr.isTTY),
    env: process.env,
    cwd: process.cwd(),
  };
}
