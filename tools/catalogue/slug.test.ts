import { describe, expect, it } from 'vitest';
import { slugify, uniqueSlug } from './add-images.js';

describe('slugify', () => {
  it('folds accents, lowercases and joins words with single dashes', () => {
    expect(slugify('Déjà Vu -- Pepe (Final)!')).toBe('deja-vu-pepe-final');
  });
  it('falls back when nothing URL-safe is left', () => {
    expect(slugify('🐸🐸')).toBe('pepe');
  });
  it('never gives a Windows device name (nul.png cannot be checked out on Windows)', () => {
    expect(['NUL', 'con', 'Aux', 'com1', 'lpt9', 'prn'].map((name) => slugify(name))).toEqual(['nul-pepe', 'con-pepe', 'aux-pepe', 'com1-pepe', 'lpt9-pepe', 'prn-pepe']);
    expect(slugify('console')).toBe('console');
  });
  it('caps the length without a trailing dash', () => {
    const slug = slugify(`${'a'.repeat(59)} b`);
    expect(slug.length).toBeLessThanOrEqual(60);
    expect(slug.endsWith('-')).toBe(false);
  });
});

describe('uniqueSlug', () => {
  it('numbers a taken name from 2 upwards', () => {
    const taken = new Set(['frog', 'frog-2']);
    expect(uniqueSlug('frog', (s) => taken.has(s))).toBe('frog-3');
    expect(uniqueSlug('toad', (s) => taken.has(s))).toBe('toad');
  });
});
