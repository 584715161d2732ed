import { decode, encode } from 'blurhash';
import { describe, expect, it } from 'vitest';
import { analyseImage } from './analyse-image.js';
import { encodeBlurhash } from './blurhash-encoder.js';
import { readFixture } from './fixtures/test-images.js';
import { seededRandom } from '../shared/seeded-random.js';
import { paintPicture } from '../testing/paint-picture.js';
import sharp from 'sharp';

const toRgba = (rgb: Uint8Array): Uint8ClampedArray => {
  const out = new Uint8ClampedArray((rgb.length / 3) * 4);
  for (let i = 0, o = 0; i < rgb.length; i += 3, o += 4) {
    out[o] = rgb[i]!;
    out[o + 1] = rgb[i + 1]!;
    out[o + 2] = rgb[i + 2]!;
    out[o + 3] = 255;
  }
  return out;
};

const toLinear = (v: number) => (v / 255 <= 0.04045 ? v / 255 / 12.92 : Math.pow((v / 255 + 0.055) / 1.055, 2.4));
const toSrgb = (l: number) => 255 * (l <= 0.0031308 ? l * 12.92 : 1.055 * Math.pow(l, 1 / 2.4) - 0.055);

describe('table-driven blurhash encoder', () => {
  it('produces exactly the npm encoder string on many random images, sizes and component counts', { timeout: 60_000 }, () => {
    const rnd = seededRandom(2024);
    for (let n = 0; n < 160; n++) {
      const w = n < 120 ? 32 : 1 + Math.floor(rnd() * 40);
      const h = n < 120 ? 32 : 1 + Math.floor(rnd() * 40);
      const cx = n < 120 ? 4 : 1 + Math.floor(rnd() * 9);
      const cy = n < 120 ? 3 : 1 + Math.floor(rnd() * 9);
      // Half pure noise, half smooth pictures (the latter exercise small AC values).
      const rgb = n % 2 === 0 ? Uint8Array.from({ length: w * h * 3 }, () => Math.floor(rnd() * 256)) : new Uint8Array(paintPicture(w, h, n, { noise: 3 }));
      expect(encodeBlurhash(rgb, w, h, cx, cy, 3)).toBe(encode(toRgba(rgb), w, h, cx, cy));
    }
  });

  it('accepts RGBA input like the npm encoder (alpha ignored)', () => {
    const rnd = seededRandom(7);
    const rgba = Uint8Array.from({ length: 32 * 32 * 4 }, () => Math.floor(rnd() * 256));
    expect(encodeBlurhash(rgba, 32, 32, 4, 3, 4)).toBe(encode(new Uint8ClampedArray(rgba), 32, 32, 4, 3));
  });

  it('matches the npm encoder on a flat colour (no AC energy)', () => {
    const rgb = new Uint8Array(32 * 32 * 3).fill(200);
    expect(encodeBlurhash(rgb, 32, 32, 4, 3)).toBe(encode(toRgba(rgb), 32, 32, 4, 3));
  });
});

describe('the catalogue blurhash', () => {
  it('is the npm encoding of the 32x32 thumbnail, and decodes to its average colours', async () => {
    for (const name of ['photo.jpg', 'sticker.png', 'still.webp', 'animated.gif']) {
      const result = await analyseImage(readFixture(name));
      if (!result.ok) throw new Error(result.message);
      expect(result.blurhash).toBe(encode(toRgba(result.thumb.rgb), 32, 32, 4, 3));
      const decoded = decode(result.blurhash, 32, 32);
      for (let c = 0; c < 3; c++) {
        let thumbSum = 0;
        let decodedSum = 0;
        for (let i = 0; i < 32 * 32; i++) {
          thumbSum += toLinear(result.thumb.rgb[i * 3 + c]!);
          decodedSum += toLinear(decoded[i * 4 + c]!);
        }
        // Blurhash's DC term is the mean in linear light; the decoded picture keeps it
        // up to quantisation and the truncated AC terms: a few sRGB levels.
        expect(Math.abs(toSrgb(thumbSum / 1024) - toSrgb(decodedSum / 1024))).toBeLessThanOrEqual(4);
      }
    }
  });

  it('keeps where the colours are: a red-left/blue-right image decodes red on the left', async () => {
    const w = 64;
    const px = Buffer.alloc(w * w * 3);
    for (let i = 0; i < w * w; i++) px.set(i % w < w / 2 ? [220, 30, 30] : [30, 30, 220], i * 3);
    const png = await sharp(px, { raw: { width: w, height: w, channels: 3 } }).png().toBuffer();
    const result = await analyseImage(png);
    if (!result.ok) throw new Error(result.message);
    const decoded = decode(result.blurhash, 32, 32);
    const at = (x: number, y: number) => [...decoded.subarray((y * 32 + x) * 4, (y * 32 + x) * 4 + 3)];
    const [lr, , lb] = at(4, 16);
    const [rr, , rb] = at(28, 16);
    expect(lr! > lb! && rb! > rr!).toBe(true);
  });
});
