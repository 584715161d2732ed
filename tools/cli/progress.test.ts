import { describe, expect, it } from 'vitest';
import { formatProgress, formatSummary, ttyProgress } from './progress.js';

describe('progress and summary text', () => {
  it('shows done/total, images per second and time left', () => {
    expect(formatProgress({ done: 50, total: 150, decoded: 50, elapsedMs: 2000 })).toBe('50/150 images, 25 images/s, 4 s left');
  });

  it('draws only on a terminal, at most once per interval but always the last', () => {
    const drawn: string[] = [];
    ttyProgress((line) => drawn.push(line), false)({ done: 1, total: 1, decoded: 1, elapsedMs: 10 });
    expect(drawn).toEqual([]);
    const on = ttyProgress((line) => drawn.push(line), true, 60_000);
    on({ done: 1, total: 3, decoded: 1, elapsedMs: 1000 });
    on({ done: 2, total: 3, decoded: 2, elapsedMs: 2000 });
    on({ done: 3, total: 3, decoded: 3, elapsedMs: 3000 });
    expect(drawn).toEqual(['1/3 images, 1 images/s, 2 s left', '3/3 images, 1 images/s, 0 s left']);
  });

  it('summarises a run in one line', () => {
    expect(formatSummary('built dist', { images: 1, warnings: 2, errors: 0, cacheHits: 1, seconds: 0.314 })).toBe('built dist: 1 image, 2 warnings, 0 errors, 1 cache hit, 0.31 s');
  });
});
