import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildDictionary, dictionaryEncoder, dictionaryPieces, expandText as expandWith, TAG_PIECES, WORD_PIECES } from './text-dictionary.js';

/** Expands through the run-time lookup over the TAB-joined text, as the function does. */
const expandText = (text: string, dictionary: string[]) => expandWith(text, dictionaryPieces(dictionary.join('\t')));

const words = (texts: string[]) => texts.map((text) => ({ text, pieces: WORD_PIECES }));

describe('text dictionary', () => {
  it('looks up every piece of the TAB-joined dictionary text by its index, as split would', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' }).filter((piece) => !piece.includes('\t')), { minLength: 1, maxLength: 50 }), (pieces) => {
        const piece = dictionaryPieces(pieces.join('\t'));
        pieces.forEach((expected, index) => expect(piece(index)).toBe(expected));
      }),
    );
    expect(() => dictionaryPieces(Array.from({ length: 4097 }, (_, i) => `w${i}`).join('\t'))).toThrow(/more than 4096 pieces; rebuild the catalogue/);
  });

  it('replaces frequent words by short references and expands them back exactly', () => {
    const texts = Array.from({ length: 20 }, (_, i) => `"Smug frog number ${i} is smug and ribbiting"`);
    const dictionary = buildDictionary(words(texts));
    expect(dictionary).toContain('ribbiting');
    expect(dictionary).toContain('frog ');
    const encode = dictionaryEncoder(dictionary);
    for (const text of texts) {
      const encoded = encode(text, WORD_PIECES);
      expect(encoded.length).toBeLessThan(text.length * 0.7);
      expect(expandText(encoded, dictionary)).toBe(text);
    }
  });

  it('keeps every code when counts move but the chosen pieces do not', () => {
    const texts = [...Array.from({ length: 11 }, () => '"smug "'), ...Array.from({ length: 10 }, () => '"frog "')];
    const before = buildDictionary(words(texts));
    // Two more uses of "frog " put it ahead of "smug " by saving; the codes must not move.
    const after = buildDictionary(words([...texts, '"frog frog "']));
    expect(before).toEqual(['frog ', 'smug ']);
    expect(after).toEqual(before);
    const text = '"smug frog "';
    expect(dictionaryEncoder(after)(text, WORD_PIECES)).toBe(dictionaryEncoder(before)(text, WORD_PIECES));
  });

  it('leaves rare or short pieces alone (they would cost more than they save)', () => {
    const dictionary = buildDictionary(words(['"a once-only-word"', '"a b"']));
    expect(dictionary).toEqual([]);
  });

  it('keeps a literal escape mark intact, inside or outside dictionary pieces', () => {
    const tags = Array.from({ length: 10 }, () => '["a~b","~","smug"]');
    const dictionary = buildDictionary(tags.map((text) => ({ text, pieces: TAG_PIECES })));
    expect(dictionary).toContain('"a~b",');
    const encode = dictionaryEncoder(dictionary);
    for (const text of ['["a~b","~","smug"]', '["~~","x~"]', '~', '~~~']) expect(expandText(encode(text, TAG_PIECES), dictionary)).toBe(text);
  });

  it('round-trips any text with any dictionary built from similar texts', () => {
    const piece = fc.constantFrom('smug ', 'Frog', 'frog ', '~', '"', '\\"', ',', ' ', 'ü', 'rare', 'pepe ', 'x');
    const text = fc.array(piece, { maxLength: 30 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 20 }), (texts) => {
        const dictionary = buildDictionary([...words(texts), ...texts.map((t) => ({ text: JSON.stringify(t.split(' ')), pieces: TAG_PIECES }))]);
        const encode = dictionaryEncoder(dictionary);
        for (const t of texts) {
          expect(expandText(encode(t, WORD_PIECES), dictionary)).toBe(t);
          const tags = JSON.stringify(t.split(' '));
          expect(expandText(encode(tags, TAG_PIECES), dictionary)).toBe(tags);
        }
      }),
    );
  });

  it('encodes description words by a plain scan exactly as the regex would, for any text', () => {
    const piece = fc.constantFrom('smug ', 'Frog', 'frog ', 'frogs', '~', '~~', '"', '\\"', ',', ' ', '  ', 'ü', 'é ', 'rare', 'pepe ', 'x', 'Z', '9', '\n', '-', '\u2028');
    const text = fc.array(piece, { maxLength: 30 }).map((parts) => parts.join(''));
    // Another RegExp object with the same source takes the regex path of the encoder.
    const sameWordsByRegex = new RegExp(WORD_PIECES.source, 'g');
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 20 }), (texts) => {
        const encode = dictionaryEncoder(buildDictionary(words(texts)));
        for (const t of [...texts, JSON.stringify(texts.join(' '))]) expect(encode(t, WORD_PIECES)).toBe(encode(t, sameWordsByRegex));
      }),
      { numRuns: 300 },
    );
  });

  it('encodes tags by a plain scan exactly as the regex would, for any text', () => {
    const piece = fc.constantFrom('"smug",', '"frog"', '"a~b",', '"~",', '"', '\\', '\\"', '\\n', '\\\n', '\\\u2028', ',', '[', ']', '~', '~~', ' ', 'ü', 'x', '"rare pepe",', 'null');
    const text = fc.array(piece, { maxLength: 30 }).map((parts) => parts.join(''));
    const sameTagsByRegex = new RegExp(TAG_PIECES.source, 'g');
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 20 }), (texts) => {
        const tagLists = texts.map((t) => JSON.stringify(t.split(' ')));
        const encode = dictionaryEncoder(buildDictionary([...texts, ...tagLists].map((t) => ({ text: t, pieces: TAG_PIECES }))));
        for (const t of [...texts, ...tagLists]) expect(encode(t, TAG_PIECES)).toBe(encode(t, sameTagsByRegex));
      }),
      { numRuns: 300 },
    );
  });
});
