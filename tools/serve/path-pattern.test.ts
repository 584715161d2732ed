import { describe, expect, it } from 'vitest';
import { compilePathPattern, PathPatternError } from './path-pattern.js';

describe('compilePathPattern (URLPattern pathname subset)', () => {
  it('matches a literal path exactly and case-sensitively', () => {
    const p = compilePathPattern('/api');
    expect(p.match('/api')).toEqual({});
    expect(p.match('/api/')).toBeNull();
    expect(p.match('/API')).toBeNull();
    expect(p.match('/apix')).toBeNull();
  });

  it('lets * match the rest including slashes and nothing, but not the missing slash', () => {
    const p = compilePathPattern('/api/*');
    expect(p.match('/api/')).toEqual({ 0: '' });
    expect(p.match('/api/pepe/x/y')).toEqual({ 0: 'pepe/x/y' });
    expect(p.match('/api')).toBeNull();
    expect(p.match('/apix/y')).toBeNull();
  });

  it('captures :id as one non-empty segment, raw (percent-encoding kept)', () => {
    const p = compilePathPattern('/v1/pepe/:id');
    expect(p.match('/v1/pepe/abc')).toEqual({ id: 'abc' });
    expect(p.match('/v1/pepe/a%20b')).toEqual({ id: 'a%20b' });
    expect(p.match('/v1/pepe/')).toBeNull();
    expect(p.match('/v1/pepe/a/b')).toBeNull();
  });

  it('numbers several wildcards and keeps names and wildcards apart', () => {
    expect(compilePathPattern('/:kind/*/x/*').match('/a/b/c/x/d')).toEqual({ kind: 'a', 0: 'b/c', 1: 'd' });
  });

  it('treats regex characters, hyphens included, as literal text', () => {
    expect(compilePathPattern('/my-api/:id').match('/my-api/x')).toEqual({ id: 'x' });
    const p = compilePathPattern('/a.b');
    expect(p.match('/a.b')).toEqual({});
    expect(p.match('/aXb')).toBeNull();
  });

  it.each(['/a/{b}?', '/a/:id?', '/a/(\\d+)', '/a+', 'api'])('refuses %s, which it cannot match like production', (source) => {
    expect(() => compilePathPattern(source)).toThrow(PathPatternError);
    expect(() => compilePathPattern(source)).toThrow(source);
  });

  it('refuses a parameter named twice', () => {
    expect(() => compilePathPattern('/:id/:id')).toThrow(/names the parameter :id twice/);
  });
});
