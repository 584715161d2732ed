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

export function processIo(): Io {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    isTTY: Boolean(process.stderr.isTTY),
    env: process.env,
    cwd: process.cwd(),
  };
}
