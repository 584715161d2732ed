import { describe, expect, it } from 'vitest';
import { etagForEncoding, negotiateEncoding, varyWithEncoding } from './compression.js';

describe('negotiateEncoding', () => {
  it.each([
    [undefined, null],
    ['', null],
    ['identity', null],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', null],
    ['*', 'br'],
    ['br;q=0, *', 'gzip'],
    ['GZIP', 'gzip'],
    // "Anything but these" set to weight 0 refuses every coding but identity.
    ['*;q=0', null],
    ['identity, *;q=0', null],
  ])('%j → %j', (header, expected) => {
    expect(negotiateEncoding(header)).toBe(expected);
  });
});

describe('ETag suffixes', () => {
  it('marks a compressed representation', () => {
    expect(etagForEncoding('"abc"', 'br')).toBe('"abc-br"');
    expect(etagForEncoding('"abc"', 'gzip')).toBe('"abc-gz"');
  });
});

describe('varyWithEncoding', () => {
  it('adds Accept-Encoding once', () => {
    expect(varyWithEncoding(null)).toBe('Accept-Encoding');
    expect(varyWithEncoding('Origin')).toBe('Origin, Accept-Encoding');
    expect(varyWithEncoding('origin, accept-encoding')).toBe('origin, accept-encoding');
    // "*" already says the answer varies with anything: adding a field to it is meaningless.
    expect(varyWithEncoding('*')).toBe('*');
  });
});
