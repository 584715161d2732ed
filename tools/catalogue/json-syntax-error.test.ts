import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { locateJsonSyntaxError } from './json-syntax-error.js';
import { parseSidecar } from './sidecar.js';

/** A sidecar as Windows Notepad saves it: CRLF line ends, tab indents. */
const crlf = (lines: string[]): string => lines.join('\r\n');

describe('locateJsonSyntaxError', () => {
  it('finds nothing in valid JSON', () => {
    expect(locateJsonSyntaxError('{"a": [1, -2.5e3, true, false, null, "x\\n\\u00e9"], "b": {}}')).toBeNull();
    expect(locateJsonSyntaxError(' [] \r\n')).toBeNull();
  });

  it('names the line and column of a trailing comma in a CRLF, tab-indented file', () => {
    const text = crlf(['{', '\t"id": "x",', '\t"tags": ["a",],', '}']);
    expect(locateJsonSyntaxError(text)).toEqual({ line: 3, column: 15, reason: 'found "]" right after a comma (JSON allows no comma before "]": remove it)' });
    const lastKey = crlf(['{', '\t"id": "x",', '}']);
    expect(locateJsonSyntaxError(lastKey)).toMatchObject({ line: 3, column: 1, reason: expect.stringContaining('no comma before "}"') });
  });

  it('says what was expected: a missing comma, quote, colon, an unclosed object or string', () => {
    expect(locateJsonSyntaxError('{\n  "a": 1\n  "b": 2\n}')).toMatchObject({ line: 3, column: 3, reason: 'found """ where "," or "}" was expected' });
    expect(locateJsonSyntaxError("{'a': 1}")).toMatchObject({ line: 1, column: 2, reason: `found "'" where a property name in double quotes or "}" was expected` });
    expect(locateJsonSyntaxError('{"a" 1}')).toMatchObject({ column: 6, reason: 'found "1" where ":" after the property name was expected' });
    expect(locateJsonSyntaxError('{"a": 1')).toMatchObject({ column: 8, reason: 'found the end of the file where "," or "}" was expected' });
    expect(locateJsonSyntaxError('{"a": "open\n}')).toMatchObject({ line: 1, column: 12, reason: expect.stringMatching(/^a line break inside a string/) });
    expect(locateJsonSyntaxError('{"a": "open')).toMatchObject({ column: 7, reason: 'this string is never closed (a missing ")' });
    expect(locateJsonSyntaxError('{"a": 01}')).toMatchObject({ column: 8 });
    expect(locateJsonSyntaxError('{} {}')).toMatchObject({ column: 4, reason: expect.stringContaining('only one value') });
  });

  it('names an invisible character by its code point', () => {
    expect(locateJsonSyntaxError('\ufeff{}')).toMatchObject({ line: 1, column: 1, reason: expect.stringContaining('U+FEFF (a byte order mark)') });
    expect(locateJsonSyntaxError('{"a":\u00a01}')).toMatchObject({ reason: expect.stringContaining('U+00A0') });
  });

  it('copes with nesting far deeper than a recursive parser could', () => {
    expect(locateJsonSyntaxError('['.repeat(100_000) + ']'.repeat(100_000))).toBeNull();
    expect(locateJsonSyntaxError('['.repeat(100_000))).toMatchObject({ column: 100_001 });
  });

  it('agrees with JSON.parse on what is valid (random JSON, then one character changed)', () => {
    const mutated = fc.tuple(fc.json(), fc.nat(), fc.constantFrom(',', ']', '}', '"', ':', ' ', '\n', 'x', '0', '\\', '-', '.')).map(([json, at, char]) => {
      const index = at % (json.length + 1);
      return json.slice(0, index) + char + json.slice(index);
    });
    fc.assert(
      fc.property(fc.oneof(fc.json(), mutated), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        expect(locateJsonSyntaxError(text) === null).toBe(valid);
      }),
      { seed: 20261125, numRuns: 3000 },
    );
  });
});

describe('parseSidecar on invalid JSON', () => {
  it('reports the line and column, counted after a byte order mark, not the parser escaping \\r\\n', () => {
    const text = '\ufeff' + crlf(['{', '\t"id": "481c955c-1b4e-40a9-aff4-2bf9d33f276c",', '\t"tags": ["a",],', '}', '']);
    const result = parseSidecar('new/frog.json', text);
    expect(!result.ok && result.problems).toEqual([
      {
        severity: 'error',
        code: 'invalid-json',
        file: 'new/frog.json',
        message: 'not valid JSON at line 3, column 15: found "]" right after a comma (JSON allows no comma before "]": remove it); fix the syntax',
      },
    ]);
  });
});

describe('parseSidecar on a sidecar left with a git merge conflict', () => {
  it('says so, with the first marker line, instead of a JSON syntax error', () => {
    const text = crlf(['{', '  "id": "481c955c-1b4e-40a9-aff4-2bf9d33f276c",', '<<<<<<< HEAD', '  "tags": ["smug", "classic"],', '=======', '  "tags": ["smug"],', '>>>>>>> feature', '}', '']);
    const result = parseSidecar('new/frog.json', text);
    expect(!result.ok && result.problems.map((p) => p.message)).toEqual([
      'has an unresolved git merge conflict (the "<<<<<<<" marker at line 3): keep the version you want, delete the <<<<<<<, ======= and >>>>>>> lines, then git add the file',
    ]);
  });

  it('does not mistake a string holding marker-like text for a conflict', () => {
    const result = parseSidecar('new/frog.json', '{"id": "481c955c-1b4e-40a9-aff4-2bf9d33f276c", "description": "=======", "tags": null, "created_at": "2026-01-01T00:00:00Z"}');
    expect(result.ok).toBe(true);
  });
});
