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

/**
 * C0 and C1 controls, DEL, the line and paragraph separators, bidirectional controls (U+202E
 * shows `gpj.exe` as `exe.jpg`), noncharacters and lone surrogates.
 */
const UNPRINTABLE = /[\p{Cc}\p{Bidi_Control}\p{Noncharacter_Code_Point}\p{Cs}\u2028\u2029]/gu;
const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * What a terminal acts on instead of showing: C0 and C1 controls, DEL, bidirectional controls,
 * the line and paragraph separators, lone surrogates (the CLI escapes them in all it prints).
 */
export const TERMINAL_UNSAFE = /[\p{Cc}\p{Bidi_Control}\p{Cs}\u2028\u2029]/gu;

/**
 * `text` for a terminal. File names come from pull requests: a control character in one is
 * written as an escape (`\n`, `\u001b`, `\u202e`), so a name can neither break a line, send
 * terminal escape sequences (erase the line above, recolour) nor reorder what is shown.
 */
export const printable = (text: string): string =>
  text.replace(UNPRINTABLE, (c) => ESCAPES[c] ?? (c.length > 1 ? `\\u{${c.codePointAt(0)!.toString(16)}}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));

/** One line per problem, control characters escaped (`printable`). */
export function formatProblem(p: Problem): string {
  return printable(`${p.severity}: ${p.file ? `${p.file}: ` : ''}${p.message} [${p.code}]`);
}
