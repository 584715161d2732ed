import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { letterCount, searchWords } from './normalise.js';

describe('searchWords', () => {
  it('lowercases and removes accents', () => {
    expect(searchWords('Café NAÏVE Crème Brûlée')).toEqual(['cafe', 'naive', 'creme', 'brulee']);
  });

  it('splits on punctuation, whitespace and symbols, dropping empty words', () => {
    expect(searchWords('  smug-frog, (feels) good!!  man\t#1 ')).toEqual(['smug', 'frog', 'feels', 'good', 'man', '1']);
    expect(searchWords('pepe🐸frog')).toEqual(['pepe', 'frog']);
  });

  it('keeps letters and digits of any script', () => {
    expect(searchWords('Лягушка 青蛙 ١٢٣ grenouille2024')).toEqual(['лягушка', '青蛙', '١٢٣', 'grenouille2024']);
  });

  it('applies compatibility decomposition (ligatures, superscripts, full-width)', () => {
    expect(searchWords('ﬁne x² ＰＥＰＥ')).toEqual(['fine', 'x2', 'pepe']);
  });

  it('folds the Greek final sigma so either spelling matches', () => {
    expect(searchWords('ΒΑΤΡΑΧΟΣ')).toEqual(searchWords('βατραχοσ'));
  });

  it('folds dotted capital I to plain i', () => {
    expect(searchWords('İstanbul')).toEqual(['istanbul']);
  });

  it('gives ASCII text (its fast path) exactly the words of the full Unicode rules', () => {
    const unicodeRules = (text: string) =>
      text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/\u03c2/g, 'σ').split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
    fc.assert(
      fc.property(fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)) }), (text) => {
        expect(searchWords(text)).toEqual(unicodeRules(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('returns no words for text without letters or digits', () => {
    expect(searchWords('!!! --- ...')).toEqual([]);
    expect(searchWords('')).toEqual([]);
  });
});

describe('letterCount', () => {
  it('counts code points, not UTF-16 units', () => {
    expect(letterCount('smug')).toBe(4);
    expect(letterCount('𝒶𝒷')).toBe(2);
  });
});
