/**
 * Terms at edit distance exactly ≤ 1 (one substitution, insertion or deletion, counted in
 * UTF-16 code units like MiniSearch's fuzzyGet) from a word, by one pass over the sorted
 * term list: a pass needs nothing built, whereas MiniSearch's radix tree for fuzzyGet costs
 * more to build in a cold process than many passes.
 */
import type { TermList } from './term-list.js';

/**
 * Whether `a` and `b.slice(bStart, bEnd)` differ by at most one substitution, insertion or
 * deletion (read in place: the term list is never split into strings, term-list.ts).
 */
export function withinOneEdit(a: string, b: string, bStart = 0, bEnd = b.length): boolean {
  const la = a.length;
  const lb = bEnd - bStart;
  if (la - lb > 1 || lb - la > 1) return false;
  let i = 0;
  while (i < la && i < lb && a.charCodeAt(i) === b.charCodeAt(bStart + i)) i++;
  if (i === la && i === lb) return true;
  // After the first difference, skip one unit in the longer string (or in both for a substitution); the rest must be equal.
  let ia = la >= lb ? i + 1 : i;
  let ib = lb >= la ? i + 1 : i;
  while (ia < la) {
    if (a.charCodeAt(ia) !== b.charCodeAt(bStart + ib)) return false;
    ia++;
    ib++;
  }
  return ib === lb;
}

/** Ids (positions in `terms`) of the terms within one edit of `word`, ascending. */
export function typoNeighbours(terms: TermList, word: string): number[] {
  const ids: number[] = [];
  const length = word.length;
  for (let id = 0; id < terms.length; id++) {
    const termLength = terms.lengthOf(id);
    // Length check first: it rejects most terms without reading a character.
    if (termLength >= length - 1 && termLength <= length + 1) {
      const start = terms.startOf(id);
      if (withinOneEdit(word, terms.text, start, start + termLength)) ids.push(id);
    }
  }
  return ids;
}
