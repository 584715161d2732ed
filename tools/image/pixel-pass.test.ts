import { describe, expect, it } from 'vitest';
import { seededRandom } from '../shared/seeded-random.js';
import { readFileSync } from 'node:fs';
import { compilePixelPassWat } from './pixel-pass-source.js';
import { PIXEL_PASS_WASM, gridFeatures, pixelPass, pixelPassApplies, referenceGridFeatures, releasePixelPass, runPixelPass } from './pixel-pass.js';
import type { RawImage } from './pixels.js';

/**
 * Smooth gradients plus noise (so Lanczos rounding is exercised). Alpha, when there is one:
 * 0, 255 or anything per pixel (`transparency: 'all rows'`), or only in every third row
 * (the rest fully opaque: the pass takes its opaque and its transparent row paths in turn),
 * or none at all (255 everywhere).
 */
function frame(width: number, height: number, channels: number, seed: number, transparency: 'all rows' | 'some rows' | 'none' = 'all rows'): RawImage {
  const random = seededRandom(seed);
  const data = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels;
      for (let c = 0; c < Math.min(channels, 3); c++) data[i + c] = Math.max(0, Math.min(255, Math.round(((x * (c + 1) + y * (3 - c)) % 256) + (random() - 0.5) * 60)));
      if (channels === 4 || channels === 2) {
        const r = random();
        const transparent = transparency === 'all rows' || (transparency === 'some rows' && y % 3 === 1);
        data[i + channels - 1] = !transparent || r >= 0.3 ? (r < 0.7 ? 255 : Math.floor(random() * 256)) : 0;
        if (!transparent) data[i + channels - 1] = 255;
      }
    }
  }
  return { data, width, height, channels };
}

const reference = referenceGridFeatures;

describe('pixel-pass.wasm', () => {
  it('is the committed compilation of pixel-pass.wat (else run `npm run build:wasm`)', async () => {
    expect(Buffer.from(await compilePixelPassWat()).equals(readFileSync(PIXEL_PASS_WASM))).toBe(true);
  });
});

describe('the WebAssembly pixel pass equals the reference JS (Pillow greyscale + LANCZOS, area-weighted thumbnail)', () => {
  // Sides that are not multiples of 32 put pixels across cell borders on both axes, where
  // the pass splits a row between two bands and a column between two cells.
  const sizes: [number, number][] = [
    [32, 32],
    [48, 40],
    [33, 200],
    [45, 1001],
    [700, 35],
    [257, 256],
    [1000, 777],
    [2048, 97],
  ];
  for (const channels of [3, 4]) {
    it.each(sizes)(`%ix%i, ${channels} channels`, async (width, height) => {
      const image = frame(width, height, channels, width * 7 + height + channels);
      const got = runPixelPass(pixelPass(), image);
      const want = reference(image);
      expect(Buffer.from(got.grey32).equals(Buffer.from(want.grey32))).toBe(true);
      expect(Buffer.from(got.thumb).equals(Buffer.from(want.thumb))).toBe(true);
      expect(Buffer.from(got.texture).equals(Buffer.from(want.texture))).toBe(true);
    });
  }

  it.each(['some rows', 'none'] as const)('RGBA with transparency in %s (opaque rows take the SIMD path)', (transparency) => {
    for (const [width, height] of sizes) {
      const image = frame(width, height, 4, width + height, transparency);
      const got = runPixelPass(pixelPass(), image);
      const want = reference(image);
      expect(Buffer.from(got.grey32).equals(Buffer.from(want.grey32)), `${width}x${height}`).toBe(true);
      expect(Buffer.from(got.thumb).equals(Buffer.from(want.thumb)), `${width}x${height}`).toBe(true);
      expect(Buffer.from(got.texture).equals(Buffer.from(want.texture)), `${width}x${height}`).toBe(true);
    }
  });

  it('leaves nothing of a larger frame behind in its memory for the next, smaller one', async () => {
    const pass = pixelPass();
    runPixelPass(pass, frame(1500, 1200, 4, 1));
    const small = frame(90, 64, 3, 2);
    const got = runPixelPass(pass, small);
    const want = reference(small);
    expect([...got.grey32]).toEqual([...want.grey32]);
    expect([...got.thumb]).toEqual([...want.thumb]);
    expect([...got.texture]).toEqual([...want.texture]);
  });

  it('after releasePixelPass, the next frame gets a fresh instance with small memory, and the same results', () => {
    const before = pixelPass();
    runPixelPass(before, frame(1200, 900, 4, 7));
    releasePixelPass();
    const after = pixelPass();
    expect(after).not.toBe(before);
    expect(after.memory.buffer.byteLength).toBeLessThan(before.memory.buffer.byteLength);
    const image = frame(300, 200, 3, 8);
    expect([...runPixelPass(after, image).grey32]).toEqual([...reference(image).grey32]);
  });

  it('takes RGB and RGBA frames of at least 32x32; gridFeatures gives the reference result for the rest', async () => {
    expect(pixelPassApplies(frame(32, 32, 3, 1))).toBe(true);
    expect(pixelPassApplies(frame(31, 64, 3, 1))).toBe(false);
    expect(pixelPassApplies(frame(64, 64, 1, 1))).toBe(false);
    for (const image of [frame(64, 48, 1, 3), frame(64, 48, 2, 4), frame(20, 90, 4, 5), frame(500, 400, 4, 6)]) {
      const got = gridFeatures(image);
      const want = reference(image);
      expect([...got.grey32], `${image.width}x${image.height}x${image.channels}`).toEqual([...want.grey32]);
      expect([...got.thumb]).toEqual([...want.thumb]);
      expect([...got.texture]).toEqual([...want.texture]);
    expect([...got.texture]).toEqual([...want.texture]);
    }
  });

  it('refuses a frame it cannot handle instead of reading past it', async () => {
    expect(() => runPixelPass({ memory: new WebAssembly.Memory({ initial: 1 }), rows: () => undefined, vertical: () => undefined }, frame(16, 16, 3, 1))).toThrow(/16x16/);
  });
});
