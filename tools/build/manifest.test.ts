import { describe, expect, it } from 'vitest';
import { FIXTURE_URLS } from '../testing/fixture-catalogue.js';
import { createHash } from 'node:crypto';
import { catalogueVersion, createManifest, type Manifest, manifestJson, sameHeader, stableJson } from './manifest.js';

const entries = new Map([
  ['site/v1/pepe/b', { sha256: 'bb', size: 2 }],
  ['data/catalogue.mjs', { sha256: 'cc', size: 30 }],
  ['site/api/pepe/a', { sha256: 'aa', size: 1 }],
]);

describe('manifest serialisation', () => {
  it('manifestJson is byte-equal to the generic stable JSON', () => {
    const manifest = createManifest(entries, FIXTURE_URLS, { records: 1, images: 1 });
    expect(manifestJson(manifest)).toBe(stableJson(manifest));
    const empty = createManifest(new Map(), FIXTURE_URLS, { records: 0, images: 0 });
    expect(manifestJson(empty)).toBe(stableJson(empty));
    const odd = createManifest(new Map([['site/images/é "q".png', { sha256: 'dd', size: 0 }], ...entries]), FIXTURE_URLS, { records: 2, images: 2 });
    expect(manifestJson(odd)).toBe(stableJson(odd));
    expect(JSON.parse(manifestJson(odd))).toEqual(odd);
    // Every character class the plain-string shortcut must leave to JSON.stringify: backslash, quote, controls, DEL, non-ASCII, lone surrogates.
    const oddPaths = ['back\\slash', 'quo"te', 'tab\t', 'del\u007f', 'ctl\u0001', 'ü', 'lone\ud800'];
    const escaped = createManifest(new Map([...oddPaths.map((path) => [path, { sha256: path, size: 1.5 }] as const), ...entries]), FIXTURE_URLS, { records: 2, images: 2 });
    expect(manifestJson(escaped)).toBe(stableJson(escaped));
    expect(manifestJson(manifest).indexOf('data/catalogue.mjs')).toBeLessThan(manifestJson(manifest).indexOf('site/api/pepe/a'));
  });

  it('the version is the sha256 of the files member as written, and a parsed manifest serialises to the same bytes', () => {
    const manifest = createManifest(entries, FIXTURE_URLS, { records: 1, images: 1 });
    const text = manifestJson(manifest);
    const member = '\n  "files": ';
    const files = text.slice(text.indexOf(member) + member.length, text.indexOf(',\n  "format"'));
    expect(JSON.parse(files)).toEqual(manifest.files);
    expect(manifest.version).toBe(createHash('sha256').update(files).digest('hex'));
    expect(catalogueVersion(manifest.files)).toBe(manifest.version);
    const parsed = JSON.parse(text) as Manifest;
    expect(manifestJson(parsed)).toBe(text);
    expect(catalogueVersion(parsed.files)).toBe(manifest.version);
    // Any change to a file's entry is a new version.
    const changed = createManifest(new Map([...entries, ['site/api/pepe/a', { sha256: 'aa', size: 2 }]]), FIXTURE_URLS, { records: 1, images: 1 });
    expect(changed.version).not.toBe(manifest.version);
  });

  it('sameHeader notices a settings or count change', () => {
    const a = createManifest(entries, FIXTURE_URLS, { records: 1, images: 1 });
    expect(sameHeader(a, createManifest(entries, FIXTURE_URLS, { records: 1, images: 1 }))).toBe(true);
    expect(sameHeader(a, createManifest(entries, { ...FIXTURE_URLS, cdnUrl: 'https://cdn.example' }, { records: 1, images: 1 }))).toBe(false);
    expect(sameHeader(a, createManifest(entries, FIXTURE_URLS, { records: 2, images: 1 }))).toBe(false);
  });
});
