import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import fg from 'fast-glob';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { analyseContent, type ContentAnalysis } from '../build/analyse-content.js';
import { dupeItems } from '../build/near-duplicate-problems.js';
import { findNearDuplicates } from '../dupes/near-duplicates.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { SAMPLE_ENTRIES } from './sample-catalogue.js';
import { sidecarFor } from './sample-files.js';

// The committed catalogue: 55 small images analysed once.
vi.setConfig({ testTimeout: 120_000 });

const CONTENT = resolve(import.meta.dirname, '../../content');
let cache: TempDir;
let analysis: ContentAnalysis;

beforeAll(async () => {
  cache = await makeTempDir('pepe-sample-cache-');
  analysis = await analyseContent({ contentDir: CONTENT, cacheDir: cache.path });
}, 120_000);
afterAll(() => cache.cleanup());

describe('the sample content in content/', () => {
  it('is valid: every image analyses and every sidecar parses', () => {
    expect(analysis.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(analysis.items.length).toBe(SAMPLE_ENTRIES.length);
  });

  it('has no near-duplicate pair, even with a wide phash threshold', () => {
    expect(findNearDuplicates(dupeItems(analysis.items))).toEqual([]);
    expect(findNearDuplicates(dupeItems(analysis.items), { threshold: 16 })).toEqual([]);
  });

  it('has 40–60 small images in several formats and folders, one of them an animated GIF', async () => {
    const images = await fg('**/*.{png,jpg,webp,gif}', { cwd: CONTENT });
    expect(images.length).toBeGreaterThanOrEqual(40);
    expect(images.length).toBeLessThanOrEqual(60);
    expect(new Set(images.map((f) => f.split('.').pop()))).toEqual(new Set(['png', 'jpg', 'webp', 'gif']));
    expect(new Set(images.filter((f) => f.includes('/')).map((f) => f.split('/')[0])).size).toBeGreaterThanOrEqual(2);
    expect(analysis.items.some((item) => item.animated && item.file.endsWith('.gif'))).toBe(true);
    const sizes = await Promise.all(images.map(async (f) => (await stat(join(CONTENT, f))).size));
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThan(3 * 1024 * 1024);
    expect(Math.max(...sizes)).toBeLessThan(60 * 1024);
  });

  it('has the sidecars the generator makes (ids and dates are reproducible), spread over years', async () => {
    const years = new Set<number>();
    for (const [index, entry] of SAMPLE_ENTRIES.entries()) {
      const written = JSON.parse(await readFile(join(CONTENT, `${entry.name.normalize('NFC')}.json`), 'utf8')) as { created_at: string };
      expect(written).toEqual(sidecarFor(entry, index));
      years.add(new Date(written.created_at).getUTCFullYear());
    }
    expect(years.size).toBeGreaterThanOrEqual(4);
  });
});
