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

  it('names the line and column of a trailing comma in a CRLF, tab-indented file: the comma itself', () => {
    const text = crlf(['{', '\t"id": "x",', '\t"tags": ["a",],', '}']);
    expect(locateJsonSyntaxError(text)).toEqual({ line: 3, column: 14, reason: 'a comma after the last item, which JSON does not allow before "]": remove it' });
    // The comma to remove ends the line above the brace.
    const lastKey = crlf(['{', '\t"id": "x",', '}']);
    expect(locateJsonSyntaxError(lastKey)).toMatchObject({ line: 2, column: 11, reason: expect.stringContaining('a comma after the last property') });
  });

  it('says what was expected: a missing comma, quote, colon, an unclosed object or string', () => {
    expect(locateJsonSyntaxError('{"a": 1;}')).toMatchObject({ line: 1, column: 8, reason: 'found ";" where "," or "}" was expected' });
    expect(locateJsonSyntaxError('{"a" 1}')).toMatchObject({ column: 6, reason: 'found "1" where ":" after the property name was expected' });
    expect(locateJsonSyntaxError('{"a": 1')).toMatchObject({ column: 8, reason: 'found the end of the file where "," or "}" was expected' });
    expect(locateJsonSyntaxError('{"a": "open\n}')).toMatchObject({ line: 1, column: 12, reason: expect.stringMatching(/^a line break inside a string/) });
    expect(locateJsonSyntaxError('{"a": "open')).toMatchObject({ column: 7, reason: 'this string is never closed (a missing ")' });
    expect(locateJsonSyntaxError('{"a": 01}')).toMatchObject({ column: 8 });
    expect(locateJsonSyntaxError('{} {}')).toMatchObject({ column: 4, reason: expect.stringContaining('only one value') });
  });

  // Each mistake at the line and column a person edits, in a sidecar as people write it.
  const sidecar = (...lines: string[]) => ['{', '  "id": "481c955c-1b4e-40a9-aff4-2bf9d33f276c",', ...lines, '  "created_at": "2026-01-01T00:00:00Z"', '}'].join('\n');
  it.each([
    ['a missing comma: at the end of the value on the line above, not at the next key', sidecar('  "description": "A smug frog"', '  "tags": null,'), 3, 31, 'a "," is missing after this value: add one here (JSON needs a comma between properties)'],
    ['a missing comma in a list', sidecar('  "tags": ["smug" "classic"],'), 3, 18, 'a "," is missing after this value: add one here (JSON needs a comma between items)'],
    ['a // comment', sidecar('  "tags": null, // to do', '  "description": null,'), 3, 17, 'a comment, which JSON does not have: remove it (a note about the picture can go in "description")'],
    ['a /* comment */ on a line of its own', sidecar('  /* the old tags */', '  "tags": null,', '  "description": null,'), 3, 3, 'a comment, which JSON does not have: remove it (a note about the picture can go in "description")'],
    ['single quotes around a value', sidecar(`  "description": 'A smug frog',`, '  "tags": null,'), 3, 18, `single quotes, which JSON does not have: write "A smug frog" instead of 'A smug frog'`],
    ['single quotes around a key', sidecar(`  'tags': null,`, '  "description": null,'), 3, 3, `single quotes, which JSON does not have: write "tags" instead of 'tags'`],
    ['an unquoted key', sidecar('  tags: ["smug"],', '  "description": null,'), 3, 3, 'a property name without quotes, which JSON does not have: write "tags"'],
    ['a trailing comma: the comma, on the line above the brace', sidecar('  "tags": null,', '  "description": null,').replace('"2026-01-01T00:00:00Z"', '"2026-01-01T00:00:00Z",'), 5, 39, 'a comma after the last property, which JSON does not allow before "}": remove it'],
    ['a stray character after a value', sidecar('  "tags": ["smug"]],', '  "description": null,'), 3, 19, 'found "]" where "," or "}" was expected'],
  ])('reports %s', (_, text, line, column, reason) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(locateJsonSyntaxError(text)).toEqual({ line, column, reason });
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
        message: 'not valid JSON at line 3, column 14: a comma after the last item, which JSON does not allow before "]": remove it; fix the syntax',
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
