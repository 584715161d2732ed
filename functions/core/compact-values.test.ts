import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeHex, decodeUint, encodedHexLength, encodeHex, encodeUint } from './compact-values.js';

describe('compact values', () => {
  it('round-trips unsigned integers', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (n) => {
        expect(decodeUint(encodeUint(n))).toBe(n);
      }),
    );
    expect(encodeUint(0)).toHaveLength(1);
  });

  it('round-trips lowercase hex of any length, also behind a prefix', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{0,40}$/), fc.string({ maxLength: 3 }), (hex, prefix) => {
        const encoded = encodeHex(hex);
        expect(encoded).toHaveLength(encodedHexLength(hex.length));
        expect(decodeHex(prefix + encoded, hex.length, prefix.length)).toBe(hex);
      }),
    );
  });

  it('keeps its text form (the data module of earlier builds holds it)', () => {
    expect([encodeHex('0123456789abcdef'), encodeHex('f'), encodeHex('ab'), encodeHex('fff000')]).toEqual(['-HC4OsafnTE', 'E', '9A', 'zz--']);
  });

  it('passes over a skipped character: a UUID encodes as its digits alone', () => {
    fc.assert(
      fc.property(fc.uuid(), (uuid) => {
        expect(encodeHex(uuid, '-'.charCodeAt(0))).toBe(encodeHex(uuid.replaceAll('-', '')));
      }),
    );
  });

  it('keeps the order of equal-length hex, so encoded ids compare like ids', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{32}$/), fc.stringMatching(/^[0-9a-f]{32}$/), (a, b) => {
        expect(encodeHex(a) < encodeHex(b)).toBe(a < b);
        expect(encodeHex(a) === encodeHex(b)).toBe(a === b);
      }),
    );
  });
});
