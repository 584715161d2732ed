/**
 * A named pipe (FIFO) where a tool expects a file, for tests that it is refused at once. A
 * reader that does open it blocks until a writer comes, in the main thread for a synchronous
 * read, where no test timeout can interrupt it; so a child process keeps opening the pipe
 * for writing, `releaseAfterMs` after the last time, which ends each such read with an empty
 * file. A test that times the call then fails instead of hanging the test run.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';

export interface NamedPipe {
  /** Stops the releasing child (if it is still waiting) and removes the pipe. */
  remove: () => void;
}

/** A call on a pipe that settles sooner did not wait for the releaser (which comes at twice this), however loaded the machine. */
export const AT_ONCE_MS = 5000;

export function makeNamedPipe(path: string, releaseAfterMs = 2 * AT_ONCE_MS): NamedPipe {
  rmSync(path, { force: true });
  execFileSync('mkfifo', [path]);
  // `: 3>>pipe` opens the pipe for writing (waiting for a reader to open it) and closes it at
  // once. It stops when the path is no longer a pipe (a tool renamed its own file over it),
  // and opens for appending: a file in its place is never truncated nor created.
  const releaser: ChildProcess = spawn('sh', ['-c', `while sleep ${releaseAfterMs / 1000}; do [ -p "$1" ] || exit 0; : 3>>"$1"; done`, 'sh', path], { stdio: 'ignore', detached: true });
  return {
    remove: () => {
      // Its own process group: the shell and its `sleep`, nothing else (gone if the pipe was replaced).
      if (releaser.pid !== undefined && releaser.exitCode === null && releaser.signalCode === null) {
        try {
          process.kill(-releaser.pid, 'SIGKILL');
        } catch {
          // It ended meanwhile.
        }
      }
      rmSync(path, { force: true });
    },
  };
}

/** How long `run` took to settle, with what it resolved to or threw. */
export async function timed<T>(run: () => Promise<T> | T): Promise<{ ms: number; value?: T; error?: unknown }> {
  const started = Date.now();
  try {
    const value = await run();
    return { ms: Date.now() - started, value };
  } catch (error) {
    return { ms: Date.now() - started, error };
  }
}
