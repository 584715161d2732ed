import { describe, expect, it } from 'vitest';
import { piecedNumberAt } from '../packed-numbers.js';
import { openSearchIndex } from './load-index.js';
import { buildSearchIndex, loadSearchIndex, type SearchDoc } from './search-index.js';
import { storeSearchIndex, termCount } from './stored-index.js';

/** 600 docs, each with a word of its own and a few shared ones, so the postings fill many small pieces. */
const DOCS: SearchDoc[] = Array.from({ length: 600 }, (_, i) => ({
  tags: [`tag${i % 7}`],
  description: `frog number w${i}q ${i % 2 ? 'smug' : 'sad'}`,
}));
const built = buildSearchIndex(DOCS);

/** The stored form with `maxPiece`, and the pieces each query reads. */
function stored(maxPiece: number) {
  const pieces: string[] = [];
  const data = storeSearchIndex(built, maxPiece, (text) => pieces.push(text) - 1);
  const read = new Set<number>();
  const index = openSearchIndex(data, (i) => {
    read.add(i);
    return pieces[i]!;
  });
  return { pieces, data, read, index };
}

describe('the stored search index', () => {
  it('cuts postings between segments into pieces of at most maxPiece characters (a longer segment alone)', () => {
    const { pieces, data } = stored(64);
    for (const field of [data.tags, data.description]) {
      const postingPieces = pieces.slice(field.postings, field.offsets.first);
      expect(postingPieces.length).toBeGreaterThan(5);
      // Which piece each term's segment starts in: a piece longer than maxPiece holds one segment.
      const termsIn = new Map<number, number>();
      for (let t = 0; t < termCount(built.terms); t++) {
        const piece = Math.floor(piecedNumberAt((i) => pieces[i]!, field.offsets, t) / field.pieceSpan);
        termsIn.set(piece, (termsIn.get(piece) ?? 0) + 1);
      }
      postingPieces.forEach((piece, p) => expect(piece.length <= 64 || termsIn.get(p) === 1, `piece ${p}`).toBe(true));
      expect(postingPieces.some((piece) => piece.length > 64)).toBe(true); // the bitmaps of frequent terms (600 docs: 100 characters)
      expect(postingPieces.join('')).toBe((field === data.tags ? built.tags : built.description).postings);
    }
  });

  it('reads nothing until the first query, which reads only the pieces holding its terms and their offsets', () => {
    const { pieces, data, read, index } = stored(64);
    expect(read.size).toBe(0);
    expect([...index.match("w5q", "description")]).toEqual([5]);
    const postingsRead = [...read].filter((i) => i >= data.description.postings && i < data.description.offsets.first);
    expect(postingsRead).toHaveLength(1);
    // The term starts the binary search probes: never the whole table.
    const { count, at } = data.termStarts!;
    const startPieces = Math.ceil((count + 1) / at.perPiece);
    const startsRead = [...read].filter((i) => i >= at.first && i < at.first + startPieces);
    expect(startPieces).toBeGreaterThan(10);
    expect(startsRead.length).toBeLessThanOrEqual(Math.ceil(Math.log2(count)) + 2);
    // Besides those: the terms, the last piece of each field's offsets (checked at open) and the piece of this term's offset.
    expect(read.size - startsRead.length).toBeLessThanOrEqual(5);
    expect(pieces.length).toBeGreaterThan(40);
  });

  it('answers every query as the index read whole', () => {
    const whole = loadSearchIndex(built);
    for (const maxPiece of [1, 7, 64, 65_536]) {
      const { index } = stored(maxPiece);
      for (const query of ['w5q', 'smug', 'sa', 'frog w1', 'tag3 smug', 'smig', 'nothing']) {
        for (const field of ['all', 'description'] as const) {
          expect([...index.match(query, field)], `${query} ${maxPiece}`).toEqual([...whole.match(query, field)]);
          expect([...index.matchByRelevance(query, field)], `${query} ${maxPiece}`).toEqual([...whole.matchByRelevance(query, field)]);
        }
      }
    }
  });

  it('counts the terms of a space-separated list', () => {
    expect([termCount(''), termCount('a'), termCount('a bb c')]).toEqual([0, 1, 3]);
  });
});
