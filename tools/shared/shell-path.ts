/**
 * Paths printed for a maintainer to paste into a shell: the `npx pepe add …` a build suggests
 * for an image without a sidecar, and the `git add …` that `pepe add` prints for the files it
 * wrote. Both must run as printed from the folder the command ran in.
 */
import { isAbsolute, relative } from 'node:path';

/** A path for a shell: bare when it holds only safe characters, else single-quoted. */
export const shellWord = (text: string): string => (/^[\w./@%+=:,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`);

/**
 * How a maintainer in `cwd` names `abs`: relative when below it, else absolute. A relative path
 * starting with "-" gets "./" in front: `npx pepe add -frog.png` would read it as a flag.
 */
export function shownPath(abs: string, cwd = process.cwd()): string {
  const rel = relative(cwd, abs);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return abs;
  return rel.startsWith('-') ? `./${rel}` : rel;
}
