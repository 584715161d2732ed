import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { syntheticImageCorpus } from './synthetic-images.js';
import { detectFormat } from '../image/format.js';
import sharp from 'sharp';

describe('synthetic benchmark corpus', { timeout: 120_000 }, () => {
  let dir = '';
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('paints a deterministic mix of formats and sizes within the size window, and reuses a complete corpus', async () => {
    dir = await mkdtemp(join(tmpdir(), 'pepe-corpus-test-'));
    const first = await syntheticImageCorpus(join(dir, 'a'), 10, 3);
    expect(first.files).toHaveLength(10);
    const formats = new Set<string>();
    let total = 0;
    for (const file of first.files) {
      const bytes = await readFile(file);
      const info = detectFormat(bytes);
      expect(info, file).not.toBeNull();
      formats.add(info!.format);
      expect(file.endsWith(info!.ext)).toBe(true);
      const size = await sharp(bytes).metadata();
      expect(Math.min(size.width, size.height)).toBeGreaterThanOrEqual(256);
      expect(Math.max(size.width, size.height)).toBeLessThanOrEqual(2048);
      expect(bytes.length).toBeLessThanOrEqual(1_000_000);
      total += bytes.length;
    }
    expect(formats.size).toBeGreaterThanOrEqual(2);
    expect(first.bytes).toBe(total);

    // Same seed elsewhere: byte-identical files.
    const again = await syntheticImageCorpus(join(dir, 'b'), 3, 3);
    for (const [i, file] of again.files.entries()) {
      expect(basename(file)).toBe(basename(first.files[i]!));
      expect((await readFile(file)).equals(await readFile(first.files[i]!))).toBe(true);
    }

    // Complete corpus: reused from the marker, nothing rewritten.
    const before = (await stat(first.files[0]!)).mtimeMs;
    const reused = await syntheticImageCorpus(join(dir, 'a'), 10, 3);
    expect(reused).toEqual(first);
    expect((await stat(first.files[0]!)).mtimeMs).toBe(before);
  });
});
