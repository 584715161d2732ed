import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeFirstFrame } from '../image/decode.js';
import { encodeRenditions } from '../image/renditions.js';
import { encodeOnly, fullDecodeFreed, fullDecodeOnly, reducedCopies, streamedDecodeOnly } from './naive-pipeline.js';

/** A 300×200 noisy RGB picture (noise, so that compression cannot make rows trivially cheap). */
async function picture(format: 'png' | 'jpeg' | 'webp'): Promise<Buffer> {
  const raw = Buffer.alloc(300 * 200 * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761) >>> 24;
  return sharp(raw, { raw: { width: 300, height: 200, channels: 3 } })[format]().toBuffer();
}

describe('the full-decode floors of the build bench', () => {
  it.each(['png', 'jpeg', 'webp'] as const)('decode a whole %s frame: to memory, or keeping only its last row', async (format) => {
    const bytes = await picture(format);
    expect(await fullDecodeOnly(bytes)).toBe(300 * 200 * 3);
    expect(await fullDecodeFreed(bytes)).toBe(300 * 200 * 3);
    expect(await streamedDecodeOnly(bytes)).toBe(300 * 3);
  });

  it('take the first frame of an animation only', async () => {
    const frame = (shade: number) => sharp({ create: { width: 40, height: 30, channels: 3, background: { r: shade, g: 80, b: 40 } } }).png().toBuffer();
    const gif = await sharp(await Promise.all([10, 120, 230].map(frame)), { join: { animated: true } }).gif({ loop: 0 }).toBuffer();
    const { pages, height, channels } = await sharp(gif).metadata();
    expect([pages, height]).toEqual([3, 30]);
    expect(await streamedDecodeOnly(gif)).toBe(40 * channels!);
    expect(await fullDecodeOnly(gif)).toBe(40 * 30 * channels!);
  });

  it('read the file to its end: a cut JPEG fails in each, although its first row alone still decodes', async () => {
    const bytes = await picture('jpeg');
    const cut = bytes.subarray(0, Math.floor(bytes.length * 0.6));
    await expect(fullDecodeOnly(cut)).rejects.toThrow(/premature end/);
    await expect(fullDecodeFreed(cut)).rejects.toThrow(/premature end/);
    await expect(streamedDecodeOnly(cut)).rejects.toThrow(/premature end/);
    // The control: the failure comes from reading on to the last row, past the cut.
    await expect(sharp(cut).extract({ left: 0, top: 0, width: 300, height: 1 }).raw().toBuffer()).resolves.toHaveLength(300 * 3);
  });
});

describe("the renditions' encode floor", () => {
  it.each([
    ['wider than every copy', 700, 'png'],
    ['between the widths (a copy at its own width)', 400, 'jpeg'],
  ] as const)('encodes the very copies the build makes of an image %s', async (_, width, format) => {
    const raw = Buffer.alloc(width * 300 * 3);
    for (let i = 0; i < raw.length; i++) raw[i] = ((i % (width * 3)) * 7 + Math.floor(i / (width * 3)) * 3) & 0xff;
    const bytes = await sharp(raw, { raw: { width, height: 300, channels: 3 } })[format]().toBuffer();
    const decoded = await decodeFirstFrame(bytes, { maxPixels: 1e7, timeoutMs: 30_000 });
    if (!decoded.ok) throw new Error(decoded.message);
    const build = await encodeRenditions({ bytes, width, animated: false, pixels: decoded.image }, { maxPixels: 1e7, timeoutMs: 30_000 });
    const copies = await reducedCopies(bytes);
    expect(copies.map((copy) => copy.width)).toEqual(build.map((copy) => copy.width));
    // Byte for byte the same encodes: the floor times the build's own encoder work, no more, no less.
    expect(await encodeOnly(copies)).toBe(build.reduce((sum, copy) => sum + copy.bytes.length, 0));
  });
});
