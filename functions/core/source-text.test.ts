import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeForSource, unescapeFromSource } from './source-text.js';

describe('the escape of the pieces', () => {
  it('escapes to printable ASCII and TAB (a character is a byte), and back', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const escaped = escapeForSource(text);
        expect(escaped).toMatch(/^[\t\x20-\x7e]*$/);
        expect(escaped).not.toMatch(/['\\]/);
        expect(unescapeFromSource(escaped)).toBe(text);
      }),
    );
  });
});
