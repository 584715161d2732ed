import { describe, expect, it } from 'vitest';
import { FIXTURE_URLS } from '../testing/fixture-catalogue.js';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { catalogueVersion, createManifest, loadManifest, loadManifestSync, type Manifest, MANIFEST_FILE, manifestJson, readManifest, readManifestSync, sameHeader, sha256Of, stableJson, UnusableManifestError } from './manifest.js';
import { makeNamedPipe, timed } from '../testing/named-pipe.js';
import { makeTempDir } from '../testing/temp-dir.js';

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

  it('sha256Of gives the hex sha256 of bytes, and of text as its UTF-8 bytes', () => {
    expect(sha256Of('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Of('é "q"')).toBe(createHash('sha256').update(Buffer.from('é "q"', 'utf8')).digest('hex'));
    expect(sha256Of(new Uint8Array([0xff, 0x00]))).toBe(sha256Of(Buffer.from([0xff, 0x00])));
    expect(sha256Of(new Uint8Array([0xff, 0x00]))).not.toBe(sha256Of('\u00ff\u0000'));
  });

  it('sameHeader notices a settings or count change', () => {
    const a = createManifest(entries, FIXTURE_URLS, { records: 1, images: 1 });
    expect(sameHeader(a, createManifest(entries, FIXTURE_URLS, { records: 1, images: 1 }))).toBe(true);
    expect(sameHeader(a, createManifest(entries, { ...FIXTURE_URLS, cdnUrl: 'https://cdn.example' }, { records: 1, images: 1 }))).toBe(false);
    expect(sameHeader(a, createManifest(entries, FIXTURE_URLS, { records: 2, images: 1 }))).toBe(false);
    expect(sameHeader(a, { ...a, version: 'other' })).toBe(false);
  });

  it('sorts the paths whatever order the build found them in', () => {
    // Every order, including strictly descending (the already-sorted check compares neighbours).
    const sorted = createManifest(new Map([['a', { sha256: '1', size: 1 }], ['b', { sha256: '2', size: 2 }]]), FIXTURE_URLS, { records: 0, images: 0 });
    const reversed = createManifest(new Map([['b', { sha256: '2', size: 2 }], ['a', { sha256: '1', size: 1 }]]), FIXTURE_URLS, { records: 0, images: 0 });
    expect(Object.keys(reversed.files)).toEqual(['a', 'b']);
    expect(manifestJson(reversed)).toBe(manifestJson(sorted));
    expect(catalogueVersion({ b: { sha256: '2', size: 2 }, a: { sha256: '1', size: 1 } })).toBe(sorted.version);
  });

  it("orders paths as `.sort()` does (code units), astral and accented ones included", () => {
    const paths = ['site/b', 'site/B', 'site/é', 'site/e\u0301', 'site/\u{1F438}', 'site/\uFFFD', 'site/a/b', 'site/a-b', 'site/a.b', 'data/x', 'site/10', 'site/9'];
    const shuffled = [...paths.slice(5), ...paths.slice(0, 5).reverse()];
    const manifest = createManifest(new Map(shuffled.map((p, i) => [p, { sha256: String(i), size: i }])), FIXTURE_URLS, { records: 0, images: 0 });
    expect(Object.keys(manifest.files)).toEqual([...paths].sort());
  });
});

/** `entries` with real sha256s: what a build writes, and all that readManifest takes. */
const hashed = new Map([...entries].map(([path, { size }]) => [path, { sha256: createHash('sha256').update(path).digest('hex'), size }]));

describe('reading the previous manifest', () => {
  it('reads a manifest of ours and treats any other file as no manifest (no reuse from it)', async () => {
    const temp = await makeTempDir('pepe-manifest-test-');
    try {
      const manifest = createManifest(hashed, FIXTURE_URLS, { records: 1, images: 1 });
      await writeFile(join(temp.path, MANIFEST_FILE), manifestJson(manifest));
      expect((await readManifest(temp.path))?.version).toBe(manifest.version);
      expect(readManifestSync(temp.path)?.version).toBe(manifest.version);
      // Another format (a later version of the tool) describes files this build cannot trust.
      await writeFile(join(temp.path, MANIFEST_FILE), manifestJson(manifest).replace('"format": 1', '"format": 2'));
      expect(await readManifest(temp.path)).toBeNull();
      expect(readManifestSync(temp.path)).toBeNull();
      for (const text of ['{"format": 1}', 'null', '{"format": 1, "files": ']) {
        await writeFile(join(temp.path, MANIFEST_FILE), text);
        expect(await readManifest(temp.path), text).toBeNull();
        expect(readManifestSync(temp.path), text).toBeNull();
      }
    } finally {
      await temp.cleanup();
    }
  });

  // The build checked only `format` and that `files` was of type object: `"files": null`, a
  // missing `settings` or `counts` or a null entry then failed later with a TypeError, and a
  // `../` path was a file the build would remove from outside its output folder.
  it('says what is wrong with a manifest that is there but damaged, naming the file', async () => {
    const temp = await makeTempDir('pepe-manifest-test-');
    const file = join(temp.path, MANIFEST_FILE);
    const good = JSON.parse(manifestJson(createManifest(hashed, FIXTURE_URLS, { records: 1, images: 1 }))) as Record<string, unknown>;
    const goodFiles = good.files as Record<string, unknown>;
    const cases: [unknown, string][] = [
      [null, 'is not a JSON object'],
      [{ ...good, format: 2 }, 'has format 2, this version of pepe reads format 1'],
      [{ ...good, version: 7 }, 'has no "version" string'],
      [{ ...good, files: null }, 'has no "files" object'],
      [{ ...good, files: [] }, 'has no "files" object'],
      [{ ...good, settings: undefined }, 'has no "settings" object with baseUrl, apiUrl and cdnUrl'],
      [{ ...good, settings: { ...FIXTURE_URLS, cdnUrl: null } }, 'has no "settings" object with baseUrl, apiUrl and cdnUrl'],
      [{ ...good, counts: { records: 1, images: 1 } }, 'has no "counts" object with records, images and files'],
      [{ ...good, files: { ...goodFiles, 'site/x': null } }, 'lists "site/x" without a valid {sha256, size}'],
      [{ ...good, files: { ...goodFiles, 'site/x': { sha256: 'aa', size: 1 } } }, 'lists "site/x" without a valid {sha256, size}'],
      [{ ...good, files: { ...goodFiles, 'site/x': { sha256: 'a'.repeat(64), size: -1 } } }, 'lists "site/x" without a valid {sha256, size}'],
      [{ ...good, files: { ...goodFiles, '../x': { sha256: 'a'.repeat(64), size: 1 } } }, 'lists an invalid path "../x"'],
      [{ ...good, files: { ...goodFiles, '/etc/x': { sha256: 'a'.repeat(64), size: 1 } } }, 'lists an invalid path "/etc/x"'],
      [{ ...good, files: { ...goodFiles, 'manifest.json': { sha256: 'a'.repeat(64), size: 1 } } }, 'lists an invalid path "manifest.json"'],
    ];
    try {
      for (const [value, why] of cases) {
        await writeFile(file, JSON.stringify(value));
        const error = await loadManifest(temp.path).catch((e: unknown) => e);
        expect(error, why).toBeInstanceOf(UnusableManifestError);
        expect((error as Error).message, why).toBe(`${file} ${why}`);
        expect(() => loadManifestSync(temp.path), why).toThrow(`${file} ${why}`);
        expect(await readManifest(temp.path), why).toBeNull();
      }
      await writeFile(file, '{"format": 1, "files": ');
      await expect(loadManifest(temp.path)).rejects.toThrow(`${file} is not valid JSON`);
      await writeFile(file, manifestJson(createManifest(hashed, FIXTURE_URLS, { records: 1, images: 1 })));
      expect(await loadManifest(temp.path)).toEqual(good);
      expect(await loadManifest(join(temp.path, 'nowhere'))).toBeNull();
    } finally {
      await temp.cleanup();
    }
  });
});

describe('a manifest.json that is not a file', () => {
  // A named pipe there blocked `pepe build` for ever in open(), waiting for a writer; it is now no manifest, at once.
  it.skipIf(process.platform === 'win32')('is read as no manifest at once, not waited on', async () => {
    const temp = await makeTempDir('pepe-manifest-pipe-');
    const pipe = makeNamedPipe(join(temp.path, MANIFEST_FILE));
    try {
      for (const read of [() => readManifest(temp.path), () => readManifestSync(temp.path)]) {
        const { ms, value } = await timed(read);
        expect(ms).toBeLessThan(1000);
        expect(value).toBeNull();
      }
    } finally {
      pipe.remove();
      await temp.cleanup();
    }
  }, 20_000);
});
