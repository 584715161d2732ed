import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { levenshtein } from '../../../tools/testing/search-reference.js';
import { TermList } from './term-list.js';
import { typoNeighbours, withinOneEdit } from './typo-neighbours.js';

describe('withinOneEdit', () => {
  it('accepts one substitution, insertion or deletion', () => {
    expect(withinOneEdit('smig', 'smug')).toBe(true);
    expect(withinOneEdit('smg', 'smug')).toBe(true);
    expect(withinOneEdit('smugg', 'smug')).toBe(true);
    expect(withinOneEdit('smug', 'smug')).toBe(true);
  });

  it('rejects two edits, including a transposition', () => {
    expect(withinOneEdit('sumg', 'smug')).toBe(false);
    expect(withinOneEdit('smigness', 'smug')).toBe(false);
  });

  it('agrees with Levenshtein distance ≤ 1 on random words', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 6 });
    fc.assert(
      fc.property(word, word, (a, b) => {
        expect(withinOneEdit(a, b)).toBe(levenshtein(a, b) <= 1);
      }),
    );
  });
});

describe('typoNeighbours', () => {
  it('lists the ids of all terms within one edit, ascending', () => {
    expect(typoNeighbours(new TermList('frag frog frogs from smug'), 'frog')).toEqual([0, 1, 2, 3]);
    expect(typoNeighbours(new TermList('frog'), 'frog')).toEqual([0]);
    expect(typoNeighbours(new TermList(''), 'frog')).toEqual([]);
  });

  it('reads a term in place exactly as its own string, for any word and terms', () => {
    const term = fc.string({ minLength: 1, maxLength: 6 }).filter((t) => !t.includes(' '));
    fc.assert(
      fc.property(fc.array(term, { maxLength: 20 }), term, (terms, word) => {
        const list = new TermList(terms.join(' '));
        expect(list.length).toBe(terms.length);
        terms.forEach((t, id) => {
          expect(list.at(id)).toBe(t);
          expect(list.lengthOf(id)).toBe(t.length);
        });
        expect(typoNeighbours(list, word)).toEqual(terms.flatMap((t, id) => (withinOneEdit(word, t) ? [id] : [])));
      }),
    );
  });
});
