/**
 * An `Io` for running CLI commands in-process in tests: stdout and stderr are collected as
 * text instead of printed. One helper for every command test, so a new `Io` member is added
 * in one place.
 */
import type { Io } from '../shared/io.js';

export interface CapturedIo extends Io {
  /** Everything written to stdout so far. */
  out: () => string;
  /** Everything written to stderr so far. */
  err: () => string;
}

export function captureIo(options: { cwd?: string; env?: NodeJS.ProcessEnv; isTTY?: boolean } = {}): CapturedIo {
  let out = '';
  let err = '';
  return {
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    isTTY: options.isTTY ?? false,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    out: () => out,
    err: () => err,
  };
}
