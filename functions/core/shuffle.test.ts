import { describe, expect, it } from 'vitest';
import { seededRandom, shuffledSlice } from './shuffle.js';

describe('shuffledSlice', () => {
  it('gives the same permutation whether drawn page by page or at once, sparse or dense', () => {
    for (const size of [10, 3000, 5000]) {
      const whole = shuffledSlice(size, 0, size, seededRandom('k'));
      expect([...whole].sort((a, b) => a - b)).toEqual(Array.from({ length: size }, (_, i) => i));
      const pages: number[] = [];
      for (let start = 0; start < size; start += 7) pages.push(...shuffledSlice(size, start, start + 7, seededRandom('k')));
      expect(pages).toEqual(whole);
    }
  });

  it('is a pure function of the seed', () => {
    expect(shuffledSlice(100, 0, 20, seededRandom('a'))).toEqual(shuffledSlice(100, 0, 20, seededRandom('a')));
    expect(shuffledSlice(100, 0, 20, seededRandom('a'))).not.toEqual(shuffledSlice(100, 0, 20, seededRandom('b')));
  });

  it('returns nothing past the end without drawing', () => {
    let draws = 0;
    expect(shuffledSlice(10, 10, 20, () => (draws++, 0.5))).toEqual([]);
    expect(draws).toBe(0);
  });

  it('spreads first picks roughly uniformly', () => {
    const counts = new Array(5).fill(0);
    const random = seededRandom('uniform');
    for (let i = 0; i < 5000; i++) counts[shuffledSlice(5, 0, 1, random)[0]!]++;
    for (const c of counts) expect(c).toBeGreaterThan(850);
  });
});
