import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PepeRecord } from './record.js';
import { encodeRecord as encodeWith, recordComposer, recordTexts } from './record-codec.js';
import { recordJsonA, testRecords, TEST_URLS } from '../../tools/testing/test-catalogue.js';
import { buildDictionary, dictionaryEncoder, dictionaryPieces, TAG_PIECES, WORD_PIECES } from './text-dictionary.js';

// A dictionary from the test records plus pieces holding the escape mark, as compileCatalogue builds it.
const sample = [...testRecords(30), ...testRecords(4).map((r) => ({ ...r, tags: ['a~b', 'tilde~'], description: 'Tilde~ words~ here~ ~~ tilde~' }))];
const dictionary = buildDictionary(sample.flatMap((r) => [{ text: recordTexts(r).tags, pieces: TAG_PIECES }, { text: recordTexts(r).description, pieces: WORD_PIECES }]));
const encodeRecord = (r: PepeRecord): string => encodeWith(r, dictionaryEncoder(dictionary));
const composer = recordComposer(TEST_URLS.baseUrl, TEST_URLS.cdnUrl, dictionaryPieces(dictionary.join('\t')));
const jsonB = (r: PepeRecord) => JSON.stringify({ id: r.id, url: `${TEST_URLS.cdnUrl}/images/${r.id}${r.file_ext}`, description: r.description ?? '' });

const text = fc.string({ unit: 'grapheme', maxLength: 30 });
const record: fc.Arbitrary<PepeRecord> = fc.record({
  id: fc.uuid(),
  file_ext: fc.constantFrom('.png', '.jpg', '.gif', '.webp', '.avif'),
  file_size: fc.nat(),
  tags: fc.option(fc.array(fc.oneof(text, fc.constantFrom('a\tb', 'x\ny', '"q"', '\\', '*/', '\u2028', 'a~b', '~', 'smug', 'sad'))), { nil: null }),
  description: fc.option(
    fc.oneof(text, fc.constantFrom('tab\there', 'new\nline', 'quote " and \\ slash', '🐸 ünï', '\u0000', 'Tilde~ words~ ~~ ~', 'Smug pepe grinning~', 'A sad frog in the rain')),
    { nil: null },
  ),
  phash: fc.stringMatching(/^[0-9a-f]{16}$/),
  created_at: fc.date({ min: new Date(-1e12), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString()),
  updated_at: fc.oneof(fc.constant('same'), fc.constant('2024-01-01T00:00:00Z'), fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString())),
  width: fc.integer({ min: 1, max: 20000 }),
  height: fc.integer({ min: 1, max: 20000 }),
  blurhash: fc.constantFrom('LEHV6nWB2yk8pyo0adR*.7kCMdnj', 'L~0k-5051e2;1I3{0i4B220K4F2}', 'L#0RfG352a1e3h1U1h391Q4Q0-1L'),
  artist: fc.option(fc.oneof(text.filter((t) => t !== ''), fc.constantFrom('Matt "MF" Furie', 'tab\there', '\\', '🐸 ünï', '\u2028')), { nil: null }),
  source_url: fc.option(fc.webUrl({ withQueryParameters: true, withFragments: true }), { nil: null }),
  license: fc.option(fc.constantFrom('CC-BY-4.0', 'CC0-1.0', 'All rights reserved', 'MIT OR Apache-2.0'), { nil: null }),
  animated: fc.boolean(),
  // The build's names (compact form) and, rarely, any other name (stored as JSON).
  thumbs: fc.array(fc.record({ width: fc.integer({ min: 1, max: 20000 }), height: fc.integer({ min: 1, max: 20000 }), hash: fc.stringMatching(/^[0-9a-f]{16}$/), odd: fc.boolean() }), { maxLength: 3 }),
}).map(({ thumbs, ...r }) => ({
  ...r,
  updated_at: r.updated_at === 'same' ? r.created_at : r.updated_at,
  thumbnails: thumbs.map((t) => ({ file_name: t.odd ? `other-${t.width}.${t.hash}.webp` : `${r.id}-${t.width}w-${t.hash}.webp`, width: t.width, height: t.height, type: 'image/webp' as const })),
}));

describe('record codec', () => {
  it('composes exactly the bytes of JSON.stringify for both variants (test records)', () => {
    for (const r of testRecords(30)) {
      const line = encodeRecord(r);
      expect(line).not.toMatch(/\n/);
      expect(composer.jsonA(line)).toBe(recordJsonA(r, TEST_URLS));
      expect(composer.jsonB(line)).toBe(jsonB(r));
    }
  });

  it('composes exactly the bytes of JSON.stringify for arbitrary records', () => {
    fc.assert(
      fc.property(record, (r) => {
        const line = encodeRecord(r);
        expect(line.includes('\n')).toBe(false);
        expect(line.split('\t')).toHaveLength(15);
        expect(composer.jsonA(line)).toBe(recordJsonA(r, TEST_URLS));
        expect(composer.jsonB(line)).toBe(jsonB(r));
      }),
      { numRuns: 2000 },
    );
  }, 30_000);

  it('uses the dictionary, and keeps values of unexpected shape as their JSON text', () => {
    expect(dictionary.length).toBeGreaterThan(5);
    expect(testRecords(30).map(encodeRecord).some((line) => line.includes('~'))).toBe(true);
    const odd: PepeRecord = { ...testRecords(1)[0]!, phash: 'NOT-HEX', file_size: 1.5, created_at: '2024-01-01T00:00:00Z', updated_at: '1969-12-31T23:59:59.000Z' };
    const line = encodeRecord(odd);
    expect(line).toContain('!');
    expect(composer.jsonA(line)).toBe(recordJsonA(odd, TEST_URLS));
  });

  it('refuses an id that is not a lowercase UUID (compileCatalogue guarantees one)', () => {
    expect(() => encodeRecord({ ...testRecords(1)[0]!, id: 'ABC' })).toThrow(/not a lowercase UUID/);
  });

  it('is less than a third of the size of the JSON it stands for', () => {
    const records = testRecords(30);
    const compact = records.map(encodeRecord).join('\n').length;
    const json = records.map((r) => recordJsonA(r, TEST_URLS) + jsonB(r)).join('\n').length;
    expect(compact).toBeLessThan(json / 3);
  });
});
