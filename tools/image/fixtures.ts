/** Test helpers: the committed fixtures and their Python reference vectors. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

export const readFixture = (name: string): Buffer => readFileSync(join(FIXTURE_DIR, name));

/** Written by fixtures/reference_phash.py (Pillow 9.4 + scipy), upright size included. */
export const EXPECTED_PHASH = JSON.parse(readFileSync(join(FIXTURE_DIR, 'expected-phash.json'), 'utf8')) as Record<string, { phash: string; width: number; height: number }>;

/**
 * A GIF with a `width`×`height` logical screen and `frames` frames of one pixel each (by
 * default at 0,0): the decode bomb of issue 27 (7000×7000, 50,000 frames, 1.15 MB) when large.
 */
export function bombGif(width: number, height: number, frames: number, frame: { left?: number; width?: number } = {}): Buffer {
  const u16 = (n: number) => [n & 255, n >> 8];
  const parts = [Buffer.from('GIF89a'), Buffer.from([...u16(width), ...u16(height), 0x80, 0, 0, 0, 0, 0, 255, 255, 255])];
  for (let i = 0; i < frames; i++) {
    parts.push(Buffer.from([0x21, 0xf9, 4, 0, 2, 0, 0, 0])); // graphic control: 20 ms
    parts.push(Buffer.from([0x2c, ...u16(frame.left ?? 0), 0, 0, ...u16(frame.width ?? 1), 1, 0, 0]));
    parts.push(Buffer.from([2, 2, 0x44, 0x01, 0])); // LZW: clear, colour 0, end
  }
  parts.push(Buffer.from([0x3b]));
  return Buffer.concat(parts);
}
