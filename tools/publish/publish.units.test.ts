import { spawnSync } from 'node:child_process';
import { readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE_CACHE_CONTROL, JSON_OBJECT_STORAGE_CACHE_CONTROL } from '../../functions/core/cache-policy.js';
import { AT_ONCE_MS, makeNamedPipe, timed } from '../testing/named-pipe.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { readLocalBuild } from './local-build.js';
import { metadataFor } from './object-metadata.js';
import { checkBucketName, keyForPath, normalisePrefix } from './object-keys.js';
import { imageReferences } from './references.js';
import { S3OperationError } from './s3-operations.js';
import { decideStale } from './stale-policy.js';
import { syntheticRecords, writeSyntheticDist } from './testing/synthetic-dist.js';
import { loadManifest } from '../shared/manifest.js';

let temp: TempDir;
beforeAll(async () => {
  temp = await makeTempDir('pepe-publish-units-');
});
afterAll(async () => temp?.cleanup());

describe('build folder validation', () => {
  it('reports a missing manifest with what to do', async () => {
    const result = await readLocalBuild(join(temp.path, 'nowhere'));
    expect(result).toMatchObject({ ok: false, problems: [{ code: 'missing-manifest' }] });
    if (!result.ok) expect(result.problems[0]!.message).toContain('pepe build');
  });

  it('reports an unparseable or foreign manifest', async () => {
    const dir = join(temp.path, 'bad');
    await writeSyntheticDist(dir, syntheticRecords(1));
    await writeFile(join(dir, 'manifest.json'), '{"format": 1,');
    expect(await readLocalBuild(dir)).toMatchObject({ ok: false, problems: [{ code: 'invalid-manifest' }] });
    await writeFile(join(dir, 'manifest.json'), JSON.stringify({ format: 6, version: 'x', segments: {} }));
    expect(await readLocalBuild(dir)).toMatchObject({ ok: false, problems: [{ code: 'invalid-manifest', message: expect.stringContaining('format 6') }] });
  });

  // The build's own check, so publish never takes a manifest the build would refuse (one without "settings" would go out with no image URL checked).
  it('refuses a manifest without settings, saying to build again from scratch (the build refuses to write over it)', async () => {
    const dir = join(temp.path, 'no-settings');
    await writeSyntheticDist(dir, syntheticRecords(1));
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    delete manifest.settings;
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
    expect(await readLocalBuild(dir)).toMatchObject({
      ok: false,
      problems: [{ code: 'invalid-manifest', file: join(dir, 'manifest.json'), message: "has no \"settings\" object with baseUrl, apiUrl and cdnUrl: delete the build folder and build again with 'pepe build'" }],
    });
  });

  // A named pipe in the build folder blocked `pepe publish` for ever in open(), waiting for a writer.
  it.skipIf(process.platform === 'win32')('refuses a named pipe as the manifest or as a listed file at once, naming it', async () => {
    const dir = join(temp.path, 'piped');
    const records = syntheticRecords(1);
    await writeSyntheticDist(dir, records);
    const listed = join(dir, `site/api/pepe/${records[0]!.id}`);
    const manifest = join(dir, 'manifest.json');
    for (const [file, problem] of [
      [listed, { code: 'missing-file', file: listed, message: "listed in manifest.json but it is a named pipe (FIFO), not a file: delete the build folder and build again with 'pepe build'" }],
      [manifest, { code: 'invalid-manifest', file: manifest, message: "is a named pipe (FIFO), not the build manifest: delete the build folder and build again with 'pepe build' (or pass --dir with a build folder)" }],
    ] as const) {
      const pipe = makeNamedPipe(file);
      try {
        const { ms, value } = await timed(() => readLocalBuild(dir));
        expect(ms).toBeLessThan(AT_ONCE_MS);
        expect(value).toMatchObject({ ok: false, problems: [problem] });
      } finally {
        pipe.remove();
      }
    }
  }, 30_000);

  it('reports every file whose bytes differ from the manifest, not only the first, with its real size and a fix that works', async () => {
    const dir = join(temp.path, 'edited');
    const records = syntheticRecords(3);
    await writeSyntheticDist(dir, records);
    const manifest = (await loadManifest(dir))!;
    const grown = `site/v1/pepe/${records[2]!.id}`;
    await writeFile(join(dir, `site/api/pepe/${records[0]!.id}`), '{}');
    await writeFile(join(dir, `site/images/${records[1]!.id}${records[1]!.ext}`), 'x');
    // Larger than listed: read only one byte past the listed size, then whole for the message.
    await writeFile(join(dir, grown), Buffer.alloc(manifest.files[grown]!.size + 5000, 0x20));
    const result = await readLocalBuild(dir);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.code)).toEqual(['file-mismatch', 'file-mismatch', 'file-mismatch']);
    const grownProblem = result.problems.find((p) => p.file === join(dir, grown))!;
    expect(grownProblem.message).toContain(`(size ${manifest.files[grown]!.size + 5000} vs ${manifest.files[grown]!.size},`);
    // Not "rebuild": a build whose inputs did not change writes nothing into an intact build folder.
    for (const problem of result.problems) expect(problem.message).toMatch(/: the build folder changed after the build; delete the build folder and build again with 'pepe build'$/);
  });

  // A device listed in the build folder (a symlink to /dev/zero) never ends: publish read it
  // for ever, first when checking the build, then when uploading a file that became one.
  // Run in a child process with a time limit: such a read blocks its thread, where no test
  // timeout can stop it.
  it.skipIf(process.platform === 'win32')('refuses a listed file that has become a device while uploading, naming it, at once', async () => {
    const dir = join(temp.path, 'device-upload');
    const records = syntheticRecords(1);
    await writeSyntheticDist(dir, records);
    const path = `site/images/${records[0]!.id}${records[0]!.ext}`;
    const listed = (await loadManifest(dir))!.files[path]!;
    for (const device of ['/dev/zero', '/dev/urandom']) {
      await rm(join(dir, path), { force: true });
      await symlink(device, join(dir, path));
      const script = `import { readVerified } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, 'local-build.ts')).href)};
        process.stdout.write(JSON.stringify(await readVerified(${JSON.stringify(dir)}, ${JSON.stringify({ path, ...listed })})));`;
      const started = Date.now();
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL' });
      expect(child.signal, `${device}: still reading after ${Date.now() - started} ms`).toBeNull();
      expect(JSON.parse(child.stdout), child.stderr).toEqual({
        severity: 'error',
        code: 'missing-file',
        file: join(dir, path),
        message: "became a device during the publish, not a file: delete the build folder and build again with 'pepe build', then publish again",
      });
    }
  }, 60_000);
});

describe('keys and metadata', () => {
  it('maps site files to the prefix root and everything else under _build/', () => {
    expect(keyForPath('p/', 'site/images/a.png')).toBe('p/images/a.png');
    expect(keyForPath('', 'data/catalogue.mjs')).toBe('_build/data/catalogue.mjs');
    expect(keyForPath('p/', 'manifest.json')).toBe('p/_build/manifest.json');
    expect(keyForPath('p/', `manifest/${'a'.repeat(64)}.json`)).toBe(`p/_build/manifest/${'a'.repeat(64)}.json`);
  });

  it('normalises prefixes and refuses bad prefixes and bucket names with the flag named', () => {
    expect(normalisePrefix('pepe')).toBe('pepe/');
    expect(normalisePrefix('')).toBe('');
    expect(() => normalisePrefix('/pepe')).toThrow(/--prefix/);
    expect(() => normalisePrefix('a/../b')).toThrow(/--prefix/);
    expect(() => normalisePrefix('a//b')).toThrow(/--prefix must not contain an empty segment/);
    expect(normalisePrefix('a/b/')).toBe('a/b/');
    expect(() => checkBucketName('ab')).toThrow(/--bucket/);
    expect(() => checkBucketName('Pepe_Bucket')).toThrow(/--bucket/);
    expect(() => checkBucketName('pepe-bucket')).not.toThrow();
  });

  it('names both causes of a 403 whose reply has no error code (a HEAD), and only a permission for AccessDenied', () => {
    const head = new S3OperationError('HeadObject', '_build/publish-run', 403, 'Unknown', 'UnknownError');
    expect(head.message).toContain('access denied or the credentials were refused (the reply names no reason): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and that the credentials need s3:ListBucket');
    expect(head.transient).toBe(false);
    expect(new S3OperationError('PutObject', 'k', 403, 'AccessDenied', 'Access Denied').message).toMatch(/: access denied: the credentials need s3:ListBucket, GetObject, PutObject and DeleteObject on this bucket$/);
  });

  it('gives an extensionless JSON file a JSON Content-Type even without a netlify.toml rule', () => {
    const none = () => ({});
    expect(metadataFor('site/api/other/x', none, () => '{"a":1}')).toEqual({ contentType: 'application/json; charset=utf-8', cacheControl: JSON_OBJECT_STORAGE_CACHE_CONTROL });
    expect(metadataFor('site/blob', none, () => 'plain').contentType).toBe('application/octet-stream');
    // Leading whitespace before the JSON (a pretty-printer's newline) does not hide it.
    expect(metadataFor('site/api/other/y', none, () => '\n  [1]').contentType).toBe('application/json; charset=utf-8');
  });

  it('takes the Content-Type of an extension in any letter case', () => {
    const none = () => ({});
    expect(metadataFor('site/gallery/NOTES.TXT', none, () => '').contentType).toBe('text/plain; charset=utf-8');
    expect(metadataFor('_build/REPORT.Json', none, () => '').contentType).toBe('application/json; charset=utf-8');
  });

  it('overrides the Netlify JSON and image Cache-Control for object storage', () => {
    const netlify = () => ({ 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'public, max-age=60' });
    expect(metadataFor('site/api/pepe/x', netlify, () => '{}').cacheControl).toBe(JSON_OBJECT_STORAGE_CACHE_CONTROL);
    expect(metadataFor('site/images/x.avif', () => ({}), () => '')).toEqual({ contentType: 'image/avif', cacheControl: IMAGE_CACHE_CONTROL });
  });

  it('finds image references behind any configured site URL, and only those', () => {
    const settings = { baseUrl: 'https://a.test', cdnUrl: 'https://cdn.test/' };
    const refs = imageReferences({ data: [{ url: 'https://a.test/images/x.png' }, { url: 'https://cdn.test/images/y.gif?v=1' }, { url: 'https://elsewhere.test/images/z.png' }] }, settings);
    expect([...refs].sort()).toEqual(['site/images/x.png', 'site/images/y.gif']);
  });
});

describe('stale-key policy', () => {
  const isImageKey = (key: string) => key.startsWith('images/');
  const at = (minutes: number) => new Date(Date.parse('2030-01-01T00:00:00Z') + minutes * 60_000);
  const stale = ['api/pepe/a', 'images/a.png'];

  it('deletes nothing without --delete-stale', () => {
    const d = decideStale({ staleKeys: stale, isImageKey, deleteStale: false, previous: { format: 1, retired: {}, gone: {} }, now: at(0), maxAgeSeconds: 300 });
    expect(d.deleteNow).toEqual([]);
    expect(d.keep.map((k) => k.key)).toEqual(stale);
  });

  it('starts an image clock only after the documents that may point at it are gone', () => {
    const first = decideStale({ staleKeys: stale, isImageKey, deleteStale: true, previous: { format: 1, retired: {}, gone: {} }, now: at(0), maxAgeSeconds: 300 });
    expect(first.deleteNow).toEqual([]);
    expect(first.state.retired).toEqual({ 'api/pepe/a': at(0).toISOString() });
    const early = decideStale({ staleKeys: stale, isImageKey, deleteStale: true, previous: first.state, now: at(4.9), maxAgeSeconds: 300 });
    expect(early.deleteNow).toEqual([]);
    const second = decideStale({ staleKeys: stale, isImageKey, deleteStale: true, previous: first.state, now: at(5), maxAgeSeconds: 300 });
    expect(second.deleteNow).toEqual(['api/pepe/a']);
    // The document is deleted by this run, after its decision: cacheable until then, so no image clock yet.
    expect(second.state.retired).toEqual({});
    const third = decideStale({ staleKeys: ['images/a.png'], isImageKey, deleteStale: true, previous: second.state, now: at(6), maxAgeSeconds: 300 });
    expect(third.deleteNow).toEqual([]);
    expect(third.state.retired).toEqual({ 'images/a.png': at(6).toISOString() });
    const fourth = decideStale({ staleKeys: ['images/a.png'], isImageKey, deleteStale: true, previous: third.state, now: at(11), maxAgeSeconds: 300 });
    expect(fourth.deleteNow).toEqual(['images/a.png']);
    expect(fourth.state.retired).toEqual({});
  });
});

