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

  it('folds letters whose upper case is not a single letter or whose case pair is not one to one', () => {
    // A German writes Straße, STRASSE or strasse; a Turkish keyboard lowercases I to ı.
    expect(searchWords('Straße STRASSE strasse ẞ')).toEqual(['strasse', 'strasse', 'strasse', 'ss']);
    expect(searchWords('dıyarbakır')).toEqual(searchWords('DİYARBAKIR'));
    expect(searchWords('Isparta')).toEqual(searchWords('ısparta'));
    expect(searchWords('ᾳδης')).toEqual(searchWords('ΑΙΔΗΣ'));
  });

  it('gives every character the words of its upper- and lower-case forms (case-insensitive for all of Unicode)', () => {
    const mismatches: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      if (c.toUpperCase() === c && c.toLowerCase() === c) continue; // no case: nothing to compare
      const words = searchWords(`a${c}b`).join(' ');
      for (const variant of [c.toUpperCase(), c.toLowerCase()]) {
        if (searchWords(`a${variant}b`).join(' ') !== words) mismatches.push(`U+${cp.toString(16)} ${c} / ${variant}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('gives ASCII text (its fast path) exactly the words of the full Unicode rules', () => {
    const unicodeRules = (text: string) =>
      text.normalize('NFKD').toLowerCase().toUpperCase().toLowerCase().replace(/\p{M}+/gu, '').replace(/\u03c2/g, 'σ').split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
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
