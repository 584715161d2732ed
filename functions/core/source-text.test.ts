import { transform } from 'esbuild';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeForSource, sourcePieces, unescapeFromSource } from './source-text.js';

/** Imports module text (as a bundler would emit it) and returns its default export. */
async function importText(code: string): Promise<() => readonly string[]> {
  return (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)).default;
}

const chunks = [escapeForSource('a"b\tc ^ it\'s \\ é 🐸 \n'), escapeForSource('{"x":[1,2]}~~'), ''];

describe('source text', () => {
  it('escapes to characters that are their own source text, and back', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const escaped = escapeForSource(text);
        expect(escaped).toMatch(/^[\t\x20-\x7e]*$/);
        expect(escaped).not.toMatch(/['\\]/);
        expect(unescapeFromSource(escaped)).toBe(text);
      }),
    );
  });

  /** How often the generated functions below were called (they count their calls on globalThis). */
  const calls = (): number => (globalThis as { piecesCalls?: number }).piecesCalls ?? 0;
  const counted = (pieces: string) => `export default function pieces() {\n  globalThis.piecesCalls = (globalThis.piecesCalls ?? 0) + 1;\n  return [\n${pieces}\n  ];\n}\n`;
  const lengths = chunks.map((c) => c.length);

  it('reads each piece from the source of the function, without calling it, after esbuild (ours, or default options as on Netlify)', async () => {
    const module = counted(chunks.map((c) => `'${c}'`).join(',\n'));
    for (const options of [{ minify: true, supported: { 'template-literal': false } }, { minify: false }, { minify: true }]) {
      const { code } = await transform(module, { format: 'esm', ...options });
      const fn = await importText(code);
      const before = calls();
      const read = sourcePieces(fn, lengths);
      // Last piece first: locating one does not need the others read.
      expect([2, 0, 1].map(read)).toEqual([chunks[2], chunks[0], chunks[1]]);
      expect(unescapeFromSource(read(0))).toBe('a"b\tc ^ it\'s \\ é 🐸 \n');
      expect(calls()).toBe(before);
      expect(() => read(3)).toThrow(RangeError);
    }
  });

  it('calls the function instead when the source is not exactly the pieces it lists', async () => {
    const cases: [string, number[]][] = [
      [`'a\\\\b'`, [3]], // an escape in the literal (same length as written)
      [`'a\\\\b'`, [4]], // an escape in the literal, the length of its source text
      [`'ab', 'c'`, [2, 2]], // wrong length
      [`'ab', 'c'`, [2, 1, 0]], // more lengths than pieces
    ];
    for (const [pieces, given] of cases) {
      const fn = await importText(counted(pieces));
      const expected = fn();
      const before = calls();
      const read = sourcePieces(fn, given);
      if (expected.length !== given.length) {
        expect(() => given.map((_, i) => read(i)), pieces).toThrow(/rebuild the catalogue/);
        continue;
      }
      expect(given.map((_, i) => read(i)), pieces).toEqual(expected);
      expect(calls(), pieces).toBe(before + 1);
    }
    const closure = ['x'];
    expect(sourcePieces(() => closure, [1])(0)).toBe('x');
  });
});
