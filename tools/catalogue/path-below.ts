/** Whether one path lies in another, the one test every containment check of the build makes. */
import { isAbsolute, relative, sep } from 'node:path';

/** `child` relative to `parent` ('' when they are the same) when it is `parent` or below it, else null. Both are resolved first. */
export function pathBelow(parent: string, child: string): string | null {
  const rel = relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)) ? rel : null;
}

/** Whether `child` is `parent` or below it. */
export const isAtOrBelow = (parent: string, child: string): boolean => pathBelow(parent, child) !== null;
