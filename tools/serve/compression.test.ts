import { describe, expect, it } from 'vitest';
import { etagForEncoding, negotiateEncoding, stripEncodingSuffix, varyWithEncoding } from './compression.js';

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
  ])('%j → %j', (header, expected) => {
    expect(negotiateEncoding(header)).toBe(expected);
  });
});

describe('ETag suffixes', () => {
  it('marks a compressed representation and maps it back', () => {
    const tag = etagForEncoding('"abc"', 'br');
    expect(tag).toBe('"abc-br"');
    expect(stripEncodingSuffix(`W/"x", ${tag}, "y-gz"`)).toBe('W/"x", "abc", "y"');
  });
});

describe('varyWithEncoding', () => {
  it('adds Accept-Encoding once', () => {
    expect(varyWithEncoding(null)).toBe('Accept-Encoding');
    expect(varyWithEncoding('Origin')).toBe('Origin, Accept-Encoding');
    expect(varyWithEncoding('origin, accept-encoding')).toBe('origin, accept-encoding');
  });
});
