import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { drawFrogSvg, renderFrog } from './draw-frog.js';
import { ACCESSORIES, DETAILS, EXPRESSIONS, PATTERNS, withParams } from './frog-params.js';

describe('drawFrogSvg', () => {
  const all = withParams({ accessories: [...ACCESSORIES], details: [...DETAILS] });

  it('references nothing outside the SVG (sharp is only ever given our own self-contained drawing)', () => {
    for (const pattern of PATTERNS) {
      const svg = drawFrogSvg({ ...all, background: { ...all.background, pattern } });
      expect(svg).not.toMatch(/href\s*=|<image|<script|@import/i);
      expect(svg.match(/url\(([^)]*)\)/g)?.every((u) => u.startsWith('url(#')) ?? true).toBe(true);
    }
  });

  it('renders every expression as a different picture at the requested size', async () => {
    const hashes = new Set<string>();
    for (const expression of EXPRESSIONS) {
      const { data, info } = await renderFrog(withParams({ expression }), 64).raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height, info.channels]).toEqual([64, 64, 3]);
      hashes.add(data.toString('base64'));
    }
    expect(hashes.size).toBe(EXPRESSIONS.length);
  });

  it('keeps transparency for a sticker and is opaque otherwise', async () => {
    const sticker = await renderFrog(withParams({ background: { color: 'none', pattern: 'solid', accent: 'none' } }), 64).png().toBuffer();
    const stats = await sharp(sticker).stats();
    expect(stats.isOpaque).toBe(false);
    expect((await sharp(await renderFrog(all, 64).png().toBuffer()).stats()).isOpaque).toBe(true);
  });
});
