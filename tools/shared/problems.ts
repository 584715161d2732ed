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

/** C0 and C1 control characters, DEL and the Unicode line and paragraph separators. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` for a terminal. File names come from pull requests: a control character in one is
 * written as an escape (`\n`, `\u001b`), so a name can neither break a line nor send
 * terminal escape sequences (erase the line above, recolour) to whoever runs the command.
 */
export const printable = (text: string): string => text.replace(UNPRINTABLE, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** One line per problem, control characters escaped (`printable`). */
export function formatProblem(p: Problem): string {
  return printable(`${p.severity}: ${p.file ? `${p.file}: ` : ''}${p.message} [${p.code}]`);
}
