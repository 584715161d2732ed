import { afterAll, describe, expect, it } from 'vitest';
import { analyseImage } from '../image/analyse-image.js';
import { createAnalysePool } from './analyse-pool.js';
import { EXPECTED_PHASH, readFixture } from '../image/fixtures/test-images.js';

// Worker start-up compiles the TypeScript sources with tsx: seconds on a loaded machine.
describe('analyse pool (real worker threads)', { timeout: 60_000 }, () => {
  const pool = createAnalysePool({ workers: 2 });
  afterAll(() => pool.close());

  it('returns the same analyses as analyseImage, for many images at once, and leaves the caller buffer intact', async () => {
    const names = Object.keys(EXPECTED_PHASH);
    const inputs = names.map(readFixture);
    const pooled = await Promise.all(inputs.map((b) => pool.analyse(b)));
    for (const [i, name] of names.entries()) {
      const direct = await analyseImage(inputs[i]!);
      const got = pooled[i]!;
      if (!got.ok || !direct.ok) throw new Error(`${name} failed`);
      expect(got.phash).toBe(EXPECTED_PHASH[name]!.phash);
      expect(got).not.toHaveProperty('pixels');
      expect({ ...got, timings: null, thumb: null }).toEqual({ ...direct, pixels: undefined, timings: null, thumb: null });
      expect(Buffer.from(got.thumb.rgb).equals(Buffer.from(direct.thumb.rgb))).toBe(true);
      expect(inputs[i]!.length).toBeGreaterThan(0); // not detached by the transfer
    }
  });

  it('passes failures back as values', async () => {
    const cut = readFixture('photo.jpg').subarray(0, 1000);
    expect(await pool.analyse(cut)).toMatchObject({ ok: false, code: 'truncated' });
  });
});
