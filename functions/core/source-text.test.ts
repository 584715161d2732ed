import { transform } from 'esbuild';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkSource, escapeForSource, unescapeFromSource } from './source-text.js';

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

  it('reads the chunks from the source of the function, without calling it, after esbuild (ours, or default options as on Netlify)', async () => {
    const module = `export default function records() {\n  return [\n${chunks.map((c) => `'${c}'`).join(',\n')}\n  ];\n}\n`;
    for (const options of [{ minify: true, supported: { 'template-literal': false } }, { minify: false }, { minify: true }]) {
      const { code } = await transform(module, { format: 'esm', ...options });
      const fn = await importText(code);
      const read = chunkSource(() => {
        throw new Error('must not be called');
      }, 3);
      expect(read).toBeNull(); // a function whose source holds no literals
      expect(chunkSource(fn, 3)).toEqual(fn());
      expect(chunkSource(fn, 3)!.map(unescapeFromSource)[0]).toBe('a"b\tc ^ it\'s \\ é 🐸 \n');
    }
  });

  it('refuses (null) a source it cannot read exactly, so the caller calls the function', async () => {
    expect(chunkSource(await importText(`export default () => ['a\\\\b']`), 1)).toBeNull(); // an escape in the literal
    expect(chunkSource(await importText(`export default () => ['a', 'b']`), 3)).toBeNull(); // wrong count
    const closure = ['x'];
    expect(chunkSource(() => closure, 1)).toBeNull();
  });
});
