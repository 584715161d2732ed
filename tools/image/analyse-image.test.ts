import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { analyseImage, type ImageAnalysis } from './analyse-image.js';
import { releaseFrame } from './decode.js';
import { bombGif, EXPECTED_PHASH, readFixture } from './fixtures/test-images.js';
import { paintPicture } from '../testing/paint-picture.js';
import { hammingDistance } from './phash.js';

async function analysed(bytes: Buffer, options?: Parameters<typeof analyseImage>[1]): Promise<ImageAnalysis> {
  const result = await analyseImage(bytes, options);
  if (!result.ok) throw new Error(`expected success, got ${result.code}: ${result.message}`);
  return result;
}

const picture = (w: number, h: number, seed: number, noise = 8) => sharp(paintPicture(w, h, seed, { noise }), { raw: { width: w, height: h, channels: 3 } });

describe('phash equals the Python reference (imagehash.phash via Pillow + scipy)', () => {
  it.each(Object.keys(EXPECTED_PHASH))('%s', async (name) => {
    const expected = EXPECTED_PHASH[name]!;
    const result = await analysed(readFixture(name));
    expect(result.phash).toBe(expected.phash);
    expect([result.width, result.height]).toEqual([expected.width, expected.height]);
    expect(result.phash).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('what the analysis reports', () => {
  it('gives the upright size of an EXIF-rotated JPEG (stored 80x120, orientation 6)', async () => {
    const bytes = readFixture('rotated.jpg');
    const meta = await sharp(bytes).metadata();
    expect([meta.width, meta.height, meta.orientation]).toEqual([80, 120, 6]);
    const result = await analysed(bytes);
    expect([result.width, result.height]).toEqual([120, 80]);
    // Hashing the upright pixels: an explicitly rotated copy without EXIF hashes the same.
    const upright = await sharp(bytes).rotate().png().toBuffer();
    expect((await analysed(upright)).phash).toBe(result.phash);
  });

  it('gives the upright size of a large EXIF-rotated JPEG', async () => {
    const bytes = await picture(700, 560, 3).jpeg({ quality: 80 }).withMetadata({ orientation: 8 }).toBuffer();
    const result = await analysed(bytes);
    expect([result.width, result.height]).toEqual([560, 700]);
  });

  it('hashes the first frame of an animated GIF', async () => {
    const bytes = readFixture('animated.gif');
    const result = await analysed(bytes);
    expect(result.animated).toBe(true);
    const first = await sharp(bytes, { pages: 1 }).png().toBuffer();
    const second = await sharp(bytes, { page: 1, pages: 1 }).png().toBuffer();
    expect(result.phash).toBe((await analysed(first)).phash);
    expect(hammingDistance(result.phash, (await analysed(second)).phash)).toBeGreaterThan(10);
    expect([result.width, result.height]).toEqual([48, 40]);
  });

  it('reports format, extension, mime and an RGB 32x32 thumbnail', async () => {
    const result = await analysed(readFixture('still.webp'));
    expect(result).toMatchObject({ format: 'webp', ext: '.webp', mime: 'image/webp', animated: false });
    expect(result.thumb.width).toBe(32);
    expect(result.thumb.rgb).toHaveLength(32 * 32 * 3);
    expect(result.blurhash).toHaveLength(28); // 4x3 components: 1 + 1 + 4 + 2*11
    expect(Object.keys(result.timings).sort()).toEqual(['blurhashMs', 'decodeMs', 'pixelsMs']);
    for (const t of Object.values(result.timings)) expect(Number.isFinite(t)).toBe(true);
  });

  it('frees its decoded frame when released (Node 22+), and leaves a view of a shared buffer alone', async () => {
    const result = await analysed(readFixture('opaque.png'));
    const { width, height, channels } = result.pixels;
    expect(result.pixels.data.byteLength).toBe(width * height * channels);
    releaseFrame(result.pixels);
    const detachable = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === 'function';
    expect(result.pixels.data.byteLength).toBe(detachable ? 0 : width * height * channels);
    // Small Buffers share Node's pool: releasing a view of one must not touch its neighbours.
    const pooled = Buffer.from([1, 2, 3, 4]);
    const neighbour = Buffer.from([5, 6, 7, 8]);
    releaseFrame({ data: new Uint8Array(pooled.buffer, pooled.byteOffset, 4), width: 1, height: 1, channels: 4 });
    expect([...pooled, ...neighbour]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('decodes AVIF', async () => {
    const result = await analysed(readFixture('still.avif'));
    expect(result).toMatchObject({ format: 'avif', ext: '.avif', width: 64, height: 48 });
  });
});

describe('refusals', () => {
  it.each([
    ['JPEG', 'photo.jpg'],
    ['PNG', 'opaque.png'],
    ['large JPEG (reduced decode)', null],
  ])('fails a truncated %s', async (_label, name) => {
    const whole = name ? readFixture(name) : await picture(900, 700, 9).jpeg({ quality: 85 }).toBuffer();
    const cut = whole.subarray(0, Math.floor(whole.length * 0.7));
    // The header is intact, which is why metadata alone would accept it.
    expect((await sharp(cut).metadata()).width).toBeGreaterThan(0);
    const result = await analyseImage(cut);
    expect(result).toMatchObject({ ok: false, code: 'truncated' });
    if (!result.ok) expect(result.message).toMatch(/truncated/);
  });

  it.each([
    ['a PNG without its IEND chunk', 'opaque.png', 12],
    ['a GIF without its trailer', 'animated.gif', 1],
    ['an animated GIF cut after its first frame', 'animated.gif', 0.35],
  ] as const)('fails %s, although its first frame decodes', async (_label, name, cut) => {
    const whole = readFixture(name);
    const bytes = whole.subarray(0, cut < 1 ? Math.floor(whole.length * (1 - cut)) : whole.length - cut);
    // What the decoder sees (the first frame) is whole: only the file's structure tells.
    expect((await sharp(bytes, { failOn: 'truncated', pages: 1 }).raw().toBuffer()).length).toBeGreaterThan(0);
    const result = await analyseImage(bytes);
    expect(result).toMatchObject({ ok: false, code: 'truncated' });
    if (!result.ok) expect(result.message).toMatch(/^the file is truncated \(its (PNG|GIF|WEBP) structure goes on past the end of the file\); re-export/);
  });

  it('fails an empty file as truncated, not as a format to convert', async () => {
    expect(await analyseImage(Buffer.alloc(0))).toEqual({ ok: false, code: 'truncated', message: 'the file is empty (0 bytes); re-export or re-download the image' });
  });

  it('fails a cut animated WebP as truncated (libwebp calls it a corrupt header)', async () => {
    const whole = readFixture('animated.webp');
    const result = await analyseImage(whole.subarray(0, Math.floor(whole.length * 0.7)));
    expect(result).toMatchObject({ ok: false, code: 'truncated' });
  });

  it('fails an image above the pixel limit, naming the limit', async () => {
    const result = await analyseImage(readFixture('photo.jpg'), { maxPixels: 120 * 80 - 1 });
    expect(result).toMatchObject({ ok: false, code: 'too-many-pixels' });
    if (!result.ok) expect(result.message).toContain('9,599');
    expect((await analyseImage(readFixture('photo.jpg'), { maxPixels: 120 * 80 })).ok).toBe(true);
  });

  it('fails the GIF decode bomb (7000×7000 screen, 50,000 frames of 1×1) on its frame count, before decoding', async () => {
    const result = await analyseImage(bombGif(7000, 7000, 50_000));
    expect(result).toMatchObject({ ok: false, code: 'too-many-frames', message: expect.stringMatching(/50,000 frames, more than the 1,000 limit/) });
  });

  it('fails an animation whose frames decode more pixels than the total limit, naming the canvas', async () => {
    const result = await analyseImage(bombGif(4000, 4000, 20));
    expect(result).toMatchObject({ ok: false, code: 'too-many-pixels', message: expect.stringMatching(/20 frames on a 4000×4000 canvas decodes 320,000,000 pixels, more than the 200,000,000 limit/) });
  });

  it('fails a canvas above the pixel limit whatever the size of its frames', async () => {
    const result = await analyseImage(bombGif(8000, 8000, 1));
    expect(result).toMatchObject({ ok: false, code: 'too-many-pixels', message: expect.stringMatching(/canvas is 8000×8000/) });
  });

  it('reports the canvas a viewer sees as the size, not the frame the decoder gave', async () => {
    const result = await analysed(bombGif(7000, 7000, 2));
    expect([result.width, result.height]).toEqual([7000, 7000]);
    expect(result.animated).toBe(true);
  });

  it('fails garbage after a valid signature as undecodable', async () => {
    const bytes = Buffer.concat([readFixture('opaque.png').subarray(0, 8), Buffer.alloc(200, 7)]);
    expect(await analyseImage(bytes)).toMatchObject({ ok: false, code: 'undecodable' });
  });

  it('gives up after the timeout', async () => {
    const bytes = await picture(250, 250, 4, 30).resize(3000, 3000, { kernel: 'nearest' }).png({ compressionLevel: 1 }).toBuffer();
    const result = await analyseImage(bytes, { timeoutMs: 1 });
    expect(result).toMatchObject({ ok: false, code: 'timeout' });
  });
});

describe('near-duplicates stay near, different pictures stay far', () => {
  it('keeps a JPEG q70 re-encode and a 50% resize within a few bits', async () => {
    const original = await picture(640, 480, 21).png().toBuffer();
    const base = (await analysed(original)).phash;
    const reencoded = await sharp(original).jpeg({ quality: 70 }).toBuffer();
    const resized = await sharp(original).resize(320, 240).png().toBuffer();
    expect(hammingDistance(base, (await analysed(reencoded)).phash)).toBeLessThanOrEqual(4);
    expect(hammingDistance(base, (await analysed(resized)).phash)).toBeLessThanOrEqual(4);
  });

  it('puts unrelated pictures far apart', async () => {
    const hashes = await Promise.all([31, 32, 33, 34, 35].map(async (seed) => (await analysed(await picture(300, 200, seed).png().toBuffer())).phash));
    for (let i = 0; i < hashes.length; i++) for (let j = i + 1; j < hashes.length; j++) expect(hammingDistance(hashes[i]!, hashes[j]!)).toBeGreaterThanOrEqual(14);
  });

  it('hashes a transparent sticker as flattened on white, not by its hidden colours', async () => {
    const sticker = readFixture('sticker.png');
    const result = await analysed(sticker);
    const onWhite = await sharp(sticker).flatten({ background: '#ffffff' }).png().toBuffer();
    const hiddenColours = await sharp(sticker).removeAlpha().png().toBuffer();
    expect(hammingDistance(result.phash, (await analysed(onWhite)).phash)).toBeLessThanOrEqual(2);
    expect(hammingDistance(result.phash, (await analysed(hiddenColours)).phash)).toBeGreaterThanOrEqual(8);
    // Transparent corners are white in the thumbnail too.
    expect([...result.thumb.rgb.subarray(0, 3)]).toEqual([255, 255, 255]);
  });
});

