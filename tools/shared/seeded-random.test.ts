import { describe, expect, it } from 'vitest';
import { seededRandom } from './seeded-random.js';

describe('seededRandom', () => {
  it('draws the same sequence for the same seed, in [0, 1)', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const drawn = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(drawn);
    expect(drawn.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it('keeps the published mulberry32 sequence (content/ and fixtures are drawn from it)', () => {
    // mulberry32(1) starts 0.6270739405…; if these change, committed sample pictures change with them.
    const rand = seededRandom(1);
    expect(Array.from({ length: 3 }, () => Math.floor(rand() * 2 ** 32))).toEqual([2693262067, 11749833, 2265367787]);
  });

  it('treats seeds modulo 2^32, so derived seeds (index * prime + k) never fail', () => {
    expect(seededRandom(2 ** 32 + 5)()).toBe(seededRandom(5)());
    expect(seededRandom(-1)()).toBe(seededRandom(0xffffffff)());
  });
});
