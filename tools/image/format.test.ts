import { describe, expect, it } from 'vitest';
import { analyseImage, detectFormat } from './analyse-image.js';
import { describeUnsupported, frameLayout } from './format.js';
import { bombGif, readFixture } from './fixtures/test-images.js';

describe('detectFormat', () => {
  it.each([
    ['opaque.png', 'png', '.png', 'image/png'],
    ['photo.jpg', 'jpeg', '.jpg', 'image/jpeg'],
    ['animated.gif', 'gif', '.gif', 'image/gif'],
    ['still.webp', 'webp', '.webp', 'image/webp'],
    ['animated.webp', 'webp', '.webp', 'image/webp'],
    ['still.avif', 'avif', '.avif', 'image/avif'],
  ])('recognises %s from its magic bytes', (name, format, ext, mime) => {
    expect(detectFormat(readFixture(name))).toEqual({ format, ext, mime });
  });

  it('ignores what a file claims to be and reads the bytes (a PNG is a PNG whatever its name)', () => {
    expect(detectFormat(readFixture('opaque.png'))?.format).toBe('png');
    expect(detectFormat(Buffer.from('not an image at all'))).toBeNull();
  });

  it.each([
    ['<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>', 'an SVG drawing'],
    ['<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>', 'an SVG drawing'],
    ['II*\0\x08\0\0\0', 'a TIFF image'],
    ['BM\x36\0\0\0\0\0', 'a BMP image'],
    ['\0\0\0\x18ftypheic\0\0\0\0mif1heic', 'a HEIC/HEIF image'],
    ['%PDF-1.7', 'a PDF document'],
  ])('refuses %j and names what it looks like', async (text, looksLike) => {
    const bytes = Buffer.from(text, 'latin1');
    expect(detectFormat(bytes)).toBeNull();
    expect(describeUnsupported(bytes)).toBe(looksLike);
    const result = await analyseImage(bytes);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe('unsupported-format');
    expect(result.message).toContain(looksLike);
    expect(result.message).toContain('PNG, JPEG, GIF, WebP');
  });

  it('refuses an SVG that references another file instead of handing it to librsvg', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><image href="../secret.png"/></svg>');
    const result = await analyseImage(svg);
    expect(result).toMatchObject({ ok: false, code: 'unsupported-format' });
  });

  it('tells animated GIF/WebP from still ones without decoding', () => {
    expect(frameLayout(readFixture('animated.gif'), 'gif').frames).toBeGreaterThan(1);
    expect(frameLayout(readFixture('animated.webp'), 'webp').frames).toBeGreaterThan(1);
    expect(frameLayout(readFixture('still.webp'), 'webp').frames).toBe(1);
    expect(frameLayout(readFixture('opaque.png'), 'png').frames).toBe(1);
  });

  it('reads the canvas a viewer allocates, not a frame: a 7000×7000 GIF screen of 1×1 frames', () => {
    expect(frameLayout(bombGif(7000, 7000, 3), 'gif')).toEqual({ frames: 3, canvas: { width: 7000, height: 7000 } });
    // A frame outside the screen grows the canvas to hold it.
    expect(frameLayout(bombGif(10, 10, 1, { left: 30, width: 5 }), 'gif').canvas).toEqual({ width: 35, height: 10 });
  });
});
