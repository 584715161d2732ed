import { describe, expect, it } from 'vitest';
import { captureIo } from '../testing/capture-io.js';
import { printProblems, printSummary, statusLine, terminalIo, terminalText, withProgress } from './print-results.js';

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

/** What a hostile file name, sidecar or server answer may hold: ESC sequences (erase, retitle), BEL, C1 CSI, a bidi override, CR, tab, a line separator. */
const HOSTILE = 'a\u001b[2J\u001b]0;pwned\u0007b\u009b1Ac\u202egnp.exe\rd\te\u2028f\u007f';
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

describe('terminalIo', () => {
  it('escapes every control and bidi character on stdout and stderr, keeping line feeds', () => {
    const raw = captureIo();
    const io = terminalIo(raw);
    io.stdout(`${HOSTILE}\n`);
    io.stderr(`${HOSTILE}\n`);
    const shown = 'a\\u001b[2J\\u001b]0;pwned\\u0007b\\u009b1Ac\\u202egnp.exe\\rd\\te\\u2028f\\u007f\n';
    expect(raw.out()).toBe(shown);
    expect(raw.err()).toBe(shown);
    expect(raw.out() + raw.err()).not.toMatch(UNSAFE);
    // Wrapping twice escapes once.
    expect(terminalIo(io)).toBe(io);
  });

  it('keeps a JSON document valid JSON with the same value', () => {
    const value = [{ file: HOSTILE, description: 'é \u{1f438} \u0085' }];
    const text = terminalText(JSON.stringify(value, null, 2));
    expect(text).not.toMatch(UNSAFE);
    expect(JSON.parse(text)).toEqual(value);
  });

  it('draws the status line with its own control sequence and escapes its text', () => {
    const raw = captureIo({ isTTY: true });
    const line = statusLine(terminalIo(raw));
    line.clear();
    expect(raw.err()).toBe('');
    line.draw(`uploading ${HOSTILE}`);
    line.clear();
    expect(raw.err()).toBe(`${CLEAR_LINE}uploading ${terminalText(HOSTILE)}${CLEAR_LINE}`);
    expect(raw.err().replaceAll(CLEAR_LINE, '')).not.toMatch(UNSAFE);
  });
});
