/**
 * Deterministic synthetic pictures (raw RGB) for tests, fixtures and the benchmark corpus:
 * a four-corner gradient, a few filled ellipses and rectangles, and pixel noise. Photo-like
 * enough that encoders produce realistic file sizes, and different seeds give unrelated
 * pictures (far apart in phash).
 */

import { seededRandom } from '../shared/seeded-random.js';

export interface PaintOptions {
  /** Noise amplitude in grey levels (0 = clean cartoon-like fills). */
  noise?: number;
  shapes?: number;
}

export function paintPicture(width: number, height: number, seed: number, options: PaintOptions = {}): Buffer {
  const rnd = seededRandom(seed);
  const colour = () => [rnd() * 255, rnd() * 255, rnd() * 255] as const;
  const corners = [colour(), colour(), colour(), colour()];
  const shapes = Array.from({ length: options.shapes ?? 6 }, () => ({
    ellipse: rnd() < 0.5,
    cx: rnd() * width,
    cy: rnd() * height,
    rx: (0.05 + rnd() * 0.3) * width,
    ry: (0.05 + rnd() * 0.3) * height,
    c: colour(),
  }));
  const noise = options.noise ?? 12;
  const out = Buffer.alloc(width * height * 3);
  const px = new Float64Array(3);
  for (let y = 0; y < height; y++) {
    const v = height > 1 ? y / (height - 1) : 0;
    for (let x = 0; x < width; x++) {
      const u = width > 1 ? x / (width - 1) : 0;
      for (let i = 0; i < 3; i++) {
        px[i] = (1 - u) * (1 - v) * corners[0]![i]! + u * (1 - v) * corners[1]![i]! + (1 - u) * v * corners[2]![i]! + u * v * corners[3]![i]!;
      }
      for (const s of shapes) {
        const dx = (x - s.cx) / s.rx;
        const dy = (y - s.cy) / s.ry;
        if (s.ellipse ? dx * dx + dy * dy <= 1 : Math.abs(dx) <= 1 && Math.abs(dy) <= 1) {
          px[0] = s.c[0];
          px[1] = s.c[1];
          px[2] = s.c[2];
        }
      }
      const o = (y * width + x) * 3;
      for (let i = 0; i < 3; i++) out[o + i] = Math.max(0, Math.min(255, Math.round(px[i]! + (noise ? (rnd() - 0.5) * 2 * noise : 0))));
    }
  }
  return out;
}
