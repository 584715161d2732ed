import { describe, expect, it } from 'vitest';
import { captureIo } from '../testing/capture-io.js';
import { printProblems, printSummary, withProgress } from './print-results.js';

const CLEAR_LINE = '\r\x1b[2K';

describe('withProgress', () => {
  it('draws progress on a terminal and clears the line before the caller prints', async () => {
    const io = captureIo({ isTTY: true });
    const value = await withProgress(io, async (onProgress) => {
      onProgress({ done: 1, total: 1, decoded: 1, elapsedMs: 10 });
      return 42;
    });
    expect(value).toBe(42);
    expect(io.err()).toMatch(/^\r\x1b\[2K1\/1 images, .*\r\x1b\[2K$/);
  });

  it('clears the line also when the call throws, so a stack trace starts on a clean line', async () => {
    const io = captureIo({ isTTY: true });
    await expect(
      withProgress(io, async (onProgress) => {
        onProgress({ done: 1, total: 2, decoded: 1, elapsedMs: 10 });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(io.err().endsWith(CLEAR_LINE)).toBe(true);
  });

  it('prints nothing at all when stderr is not a terminal (CI logs)', async () => {
    const io = captureIo();
    await withProgress(io, async (onProgress) => onProgress({ done: 1, total: 1, decoded: 1, elapsedMs: 10 }));
    expect(io.err()).toBe('');
  });
});

describe('printProblems and printSummary', () => {
  it('print one line per problem, then the summary, on stderr', () => {
    const io = captureIo();
    printProblems(io, [
      { severity: 'error', code: 'invalid-json', file: 'a.json', message: 'not valid JSON' },
      { severity: 'warning', code: 'extension-mismatch', message: 'renamed' },
    ]);
    printSummary(io, 'content has errors', { images: 1, warnings: 1, errors: 1, cacheHits: 0, seconds: 0.5 });
    expect(io.err()).toBe(
      'error: a.json: not valid JSON [invalid-json]\nwarning: renamed [extension-mismatch]\ncontent has errors: 1 image, 1 warning, 1 error, 0 cache hits, 0.50 s\n',
    );
  });
});
