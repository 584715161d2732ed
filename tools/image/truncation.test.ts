import { describe, expect, it } from 'vitest';
import { classifyDecodeFailure } from './decode.js';
import { readFixture } from './fixtures/test-images.js';
import { detectFormat } from './format.js';
import { isTruncated } from './truncation.js';

const FIXTURES = ['photo.jpg', 'large.jpg', 'rotated.jpg', 'opaque.png', 'sticker.png', 'grey.png', 'animated.gif', 'animated.webp', 'still.webp', 'still.avif'];
const limits = { maxPixels: 50_000_000, timeoutMs: 1000 };

describe('isTruncated', () => {
  it.each(FIXTURES)('accepts the complete %s', (name) => {
    const bytes = readFixture(name);
    expect(isTruncated(bytes, detectFormat(bytes)!.format)).toBe(false);
  });

  it.each(FIXTURES.flatMap((name) => [0.5, 0.9].map((keep) => [name, keep] as const)))('notices %s cut to %s of its length', (name, keep) => {
    const whole = readFixture(name);
    const cut = whole.subarray(0, Math.floor(whole.length * keep));
    expect(isTruncated(cut, detectFormat(whole)!.format)).toBe(true);
  });

  it('notices a file missing only its last bytes', () => {
    for (const name of ['photo.jpg', 'opaque.png', 'animated.gif', 'still.webp']) {
      const whole = readFixture(name);
      expect(isTruncated(whole.subarray(0, whole.length - 2), detectFormat(whole)!.format)).toBe(true);
    }
  });
});

describe('classifyDecodeFailure', () => {
  const photo = readFixture('photo.jpg');
  const cut = photo.subarray(0, Math.floor(photo.length * 0.7));

  it('classifies a lost ("Unknown error") message by the file structure', () => {
    expect(classifyDecodeFailure('Unknown error', cut, limits).code).toBe('truncated');
    expect(classifyDecodeFailure('', cut, limits).code).toBe('truncated');
    expect(classifyDecodeFailure('Unknown error', photo, limits).code).toBe('undecodable');
  });

  it('says the decoder gave no reason when its message was lost, never "()" (regression: an empty message gave "cannot be decoded ()")', () => {
    for (const lost of ['', 'Unknown error', '  unknown error.\n']) {
      const failure = classifyDecodeFailure(lost, photo, limits);
      expect(failure).toEqual({ code: 'undecodable', message: 'the image cannot be decoded (the decoder gave no reason); re-export it as PNG, JPEG, WebP, GIF or AVIF' });
    }
  });

  it('trusts an informative message', () => {
    expect(classifyDecodeFailure('VipsJpeg: Premature end of input file', cut, limits).code).toBe('truncated');
    // libvips' shared error buffer may add later lines to the same failure: the message keeps the cause.
    const alone = classifyDecodeFailure('Input buffer has corrupt header: VipsJpeg: premature end of JPEG image', cut, limits);
    const withMore = classifyDecodeFailure('Input buffer has corrupt header: VipsJpeg: premature end of JPEG image\nVipsJpeg: JPEG datastream contains no image\n', cut, limits);
    expect(withMore).toEqual(alone);
    expect(alone.message).toBe('the file is truncated (Input buffer has corrupt header: VipsJpeg: premature end of JPEG image); re-export or re-download the image');
    expect(classifyDecodeFailure('Input file has corrupt header', photo, limits).code).toBe('undecodable');
  });
});
