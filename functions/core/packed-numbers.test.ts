import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { digitsFor, numberAt, packNumbers } from './packed-numbers.js';

describe('packed numbers', () => {
  it('sizes the digits to the largest value', () => {
    expect([0, 63, 64, 4095, 4096, 262_143, 262_144].map(digitsFor)).toEqual([1, 1, 2, 2, 3, 3, 4]);
  });

  it('reads back every value at its index, also behind a prefix', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 2 ** 30 })), fc.string({ maxLength: 5 }), (values, prefix) => {
        const width = digitsFor(Math.max(0, ...values));
        const packed = prefix + packNumbers(values, width);
        expect(packed.length).toBe(prefix.length + values.length * width);
        values.forEach((value, i) => expect(numberAt(packed, width, i, prefix.length)).toBe(value));
      }),
    );
  });

  it('refuses a value that does not fit (a build bug)', () => {
    expect(() => packNumbers([64], 1)).toThrow(/does not fit/);
    expect(() => packNumbers([-1], 2)).toThrow(/does not fit/);
  });
});
