import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { fullDecodeFreed, fullDecodeOnly, streamedDecodeOnly } from './naive-pipeline.js';

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
