import { describe, expect, it } from 'vitest';
import { formatProgress, formatSummary, ttyProgress } from './progress.js';

describe('progress and summary text', () => {
  it('shows done/total, images per second and time left', () => {
    expect(formatProgress({ done: 50, total: 150, decoded: 50, elapsedMs: 2000 })).toBe('50/150 images, 25 images/s, 4 s left');
  });

  it('draws only on a terminal and clears its line at the end', () => {
    let written = '';
    const off = ttyProgress((t) => void (written += t), false);
    off.onProgress({ done: 1, total: 1, decoded: 1, elapsedMs: 10 });
    off.done();
    expect(written).toBe('');
    const on = ttyProgress((t) => void (written += t), true, 0);
    on.onProgress({ done: 1, total: 2, decoded: 1, elapsedMs: 1000 });
    on.done();
    expect(written).toBe('\r\x1b[2K1/2 images, 1 images/s, 1 s left\r\x1b[2K');
  });

  it('summarises a run in one line', () => {
    expect(formatSummary('built dist', { images: 1, warnings: 2, errors: 0, cacheHits: 1, seconds: 0.314 })).toBe('built dist: 1 image, 2 warnings, 0 errors, 1 cache hit, 0.31 s');
  });
});
