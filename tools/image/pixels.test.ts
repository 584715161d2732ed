import { describe, expect, it } from 'vitest';
import { seededRandom } from '../shared/seeded-random.js';
import { gridFeatures } from './pixel-pass.js';
import { areaThumbnail, cellWeights } from './pixels.js';

/** Random RGB, so that any cell that takes a wrong share of any pixel shows. */
function noise(width: number, height: number, seed: number): Uint8Array {
  const random = seededRandom(seed);
  return Uint8Array.from({ length: width * height * 3 }, () => Math.floor(random() * 256));
}

/** Every pixel repeated k times across and k times down: the same picture, k times larger. */
function enlarged(rgb: Uint8Array, width: number, height: number, k: number): Uint8Array {
  const out = new Uint8Array(width * k * height * k * 3);
  for (let y = 0; y < height * k; y++) {
    for (let x = 0; x < width * k; x++) {
      const s = (Math.floor(y / k) * width + Math.floor(x / k)) * 3;
      out.set(rgb.subarray(s, s + 3), (y * width * k + x) * 3);
    }
  }
  return out;
}

describe('cellWeights', () => {
  it.each([
    [32, 32],
    [48, 32],
    [45, 32],
    [1001, 32],
    [7, 32],
  ])('shares %i pixels among %i cells by area: each cell gets the whole size, each pixel is shared out whole', (size, n) => {
    const w = cellWeights(size, n);
    const perPixel = new Array<number>(size).fill(0);
    for (let i = 0; i < n; i++) {
      let cell = 0;
      for (let x = w.first[i]!; x < w.end[i]!; x++) {
        const weight = x === w.first[i] ? w.head[i]! : x === w.end[i]! - 1 ? w.tail[i]! : n;
        expect(weight).toBeGreaterThan(0);
        cell += weight;
        perPixel[x]! += weight;
      }
      expect(cell, `cell ${i}`).toBe(size);
    }
    expect(perPixel.every((total) => total === n)).toBe(true);
  });
});

describe('areaThumbnail', () => {
  it('splits a pixel on a cell border between the two cells', () => {
    // 48 columns in 32 cells: 1.5 pixels a cell, so column 1 is half in cell 0 and half in
    // cell 1. Columns go black, white, white: cell 0 = (0·1 + 255·0.5) / 1.5 = 85, cell 1 =
    // (255·0.5 + 255·1) / 1.5 = 255. (A box over whole pixels gave cell 0 black.)
    const width = 48;
    const height = 32;
    const rgb = new Uint8Array(width * height * 3);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if (x % 3 !== 0) rgb.fill(255, (y * width + x) * 3, (y * width + x) * 3 + 3);
    const thumb = areaThumbnail(rgb, width, height);
    expect([...thumb.subarray(0, 6)]).toEqual([85, 85, 85, 255, 255, 255]);
  });

  // A copy at another size must give the same thumbnail, or near-duplicate confirmation
  // sees a moved outline. Enlarging by whole pixels is the one resize with no resampler
  // blur, so the thumbnails must be equal to the byte, on both paths (gridFeatures takes
  // the WebAssembly pass for frames of 32 px and more, the JS reference below that).
  it.each([
    [45, 37, 2],
    [33, 50, 3],
    [40, 40, 3],
    [20, 13, 5],
    [100, 71, 2],
  ])('gives a %ix%i picture enlarged %i times by whole pixels the same thumbnail', (width, height, k) => {
    const rgb = noise(width, height, width * height + k);
    const big = enlarged(rgb, width, height, k);
    const small = areaThumbnail(rgb, width, height);
    expect(Buffer.from(areaThumbnail(big, width * k, height * k)).equals(Buffer.from(small))).toBe(true);
    const viaPass = gridFeatures({ data: big, width: width * k, height: height * k, channels: 3 }).thumb;
    expect(Buffer.from(viaPass).equals(Buffer.from(small))).toBe(true);
  });
});
