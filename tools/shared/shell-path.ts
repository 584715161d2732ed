/**
 * Paths printed for a maintainer to paste into a shell: the `npx pepe add …` a build suggests
 * for an image without a sidecar, and the `git add …` that `pepe add` prints for the files it
 * wrote. Both must run as printed from the folder the command ran in.
 */
import { isAbsolute, relative } from 'node:path';
import { TERMINAL_UNSAFE } from './problems.js';

/**
 * A path for a shell: bare when it holds only safe characters, else single-quoted; one holding
 * a control or bidi character is ANSI-C quoted (`$'…\u202e…'`, bash and zsh), so that it is
 * shown escaped and still names the file when pasted.
 */
export const shellWord = (text: string): string => {
  if (/^[\w./@%+=:,-]+$/.test(text)) return text;
  if (text.search(TERMINAL_UNSAFE) === -1) return `'${text.replaceAll("'", "'\\''")}'`;
  return `$'${text.replace(/[\\']/g, '\\$&').replace(TERMINAL_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}'`;
};

/**
 * How a maintainer in `cwd` names `abs`: relative when below it, else absolute. A relative path
 * starting with "-" gets "./" in front: `npx pepe add -frog.png` would read it as a flag.
 */
export function shownPath(abs: string, cwd = process.cwd()): string {
  const rel = relative(cwd, abs);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return abs;
  return rel.startsWith('-') ? `./${rel}` : rel;
}
