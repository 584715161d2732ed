/**
 * Expected failures are values, collected and reported all at once. `throw` is for bugs.
 * Every problem names the file (relative to the content root, forward slashes) and says what to do.
 */
export interface Problem {
  severity: 'error' | 'warning';
  /** Stable machine-readable kind, e.g. 'invalid-json', 'missing-sidecar'. Tests match on it. */
  code: string;
  /** Content-relative path with forward slashes, when the problem is about one file. */
  file?: string;
  /** One or two sentences for a maintainer: what is wrong and what to do. */
  message: string;
}

export const error = (code: string, message: string, file?: string): Problem => ({ severity: 'error', code, message, ...(file === undefined ? {} : { file }) });
export const warning = (code: string, message: string, file?: string): Problem => ({ severity: 'warning', code, message, ...(file === undefined ? {} : { file }) });

export function formatProblem(p: Problem): string {
  return `${p.severity}: ${p.file ? `${p.file}: ` : ''}${p.message} [${p.code}]`;
}
