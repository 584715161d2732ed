import { cp, link, mkdir, readdir, readFile, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { analyseImage } from '../image/analyse-image.js';
import { bombGif } from '../image/fixtures/test-images.js';
import { FIXTURE_URLS, fixtureId, fixtureImage, makeFixtureContent } from '../testing/fixture-catalogue.js';
import { snapshotDir } from '../testing/snapshot-dir.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import type { AnalyseFn } from './analyse-content.js';
import { cacheFrames, frameBytes } from './cache/cache-log.js';
import { FeatureCache } from './cache/feature-cache.js';
import { buildCatalogue, type BuildOptions } from './build-catalogue.js';
import { catalogueDataFiles, catalogueModuleSource, compileCatalogue } from '../../functions/core/catalogue.js';
import { catalogueVersion, createManifest, loadManifest, manifestJson, segmentFiles, segmentFile, writeManifestFiles } from '../shared/manifest.js';

// Real builds (analysis + esbuild bundle) on a machine shared with other jobs.
vi.setConfig({ testTimeout: 60_000 });

let temp: TempDir;
let baseContent: string;
let goodDist: string;
let cacheDir: string;
let goodSnapshot: Awaited<ReturnType<typeof snapshotDir>>;
let caseNumber = 0;

/** Counts decodes: the build must decode only images whose bytes it has not seen. */
function countingAnalyse(): { analyse: AnalyseFn; calls: () => number } {
  let calls = 0;
  return {
    analyse: (bytes, options) => {
      calls++;
      return analyseImage(bytes, options);
    },
    calls: () => calls,
  };
}

const build = (options: Partial<BuildOptions> & { contentDir: string }) => buildCatalogue({ outDir: goodDist, cacheDir, urls: FIXTURE_URLS, ...options });

/** A fresh copy of the good content, changed by `mutate`. */
async function contentWith(mutate: (dir: string) => Promise<void>): Promise<string> {
  const dir = join(temp.path, `case-${++caseNumber}`, 'content');
  await cp(baseContent, dir, { recursive: true });
  await mutate(dir);
  return dir;
}

beforeAll(async () => {
  temp = await makeTempDir('pepe-build-test-');
  baseContent = join(temp.path, 'base', 'content');
  goodDist = join(temp.path, 'dist');
  cacheDir = join(temp.path, 'cache');
  await makeFixtureContent(baseContent, { count: 6 });
  const result = await build({ contentDir: baseContent });
  expect(result.problems).toEqual([]);
  expect(result.ok).toBe(true);
  goodSnapshot = await snapshotDir(goodDist);
}, 60_000);

afterAll(() => temp.cleanup());

describe('bad content: exactly its problem, output left byte-for-byte untouched', () => {
  const cases: [string, string, (dir: string) => Promise<void>, Partial<BuildOptions>?][] = [
    ['invalid JSON', 'invalid-json', (d) => writeFile(join(d, 'frog-000.json'), '{"id": "x",')],
    [
      'a misspelt key',
      'sidecar-unknown-key',
      async (d) => {
        const s = JSON.parse(await readFile(join(d, 'frog-000.json'), 'utf8'));
        s.descripton = s.description;
        await writeFile(join(d, 'frog-000.json'), JSON.stringify(s));
      },
    ],
    [
      'a schema error',
      'sidecar-invalid',
      async (d) => {
        const s = JSON.parse(await readFile(join(d, 'frog-000.json'), 'utf8'));
        await writeFile(join(d, 'frog-000.json'), JSON.stringify({ ...s, tags: 'smug' }));
      },
    ],
    [
      // JSON.parse reads any depth; printing the value in the message overflowed the stack (a crash, not a problem).
      'a field nested 10,000 lists deep',
      'sidecar-invalid',
      async (d) => {
        const s = JSON.parse(await readFile(join(d, 'frog-000.json'), 'utf8'));
        await writeFile(join(d, 'frog-000.json'), JSON.stringify({ ...s, description: 0 }).replace('"description":0', `"description":${'['.repeat(10_000)}${']'.repeat(10_000)}`));
      },
    ],
    [
      // Valid ISO 8601, but in UTC it is year 10000: published as "+010000-01-01T23:58:59.000Z", not an RFC 3339 date-time.
      'a created_at past the year 9999 in UTC',
      'sidecar-invalid',
      async (d) => {
        const s = JSON.parse(await readFile(join(d, 'frog-000.json'), 'utf8'));
        await writeFile(join(d, 'frog-000.json'), JSON.stringify({ ...s, created_at: '9999-12-31T23:59:59-23:59' }));
      },
    ],
    [
      // Read whole, a 600 MB sidecar ended the build with "Cannot create a string longer than 0x1fffffe8 characters".
      'a sidecar over 1 MB',
      'file-too-large',
      async (d) => {
        const s = JSON.parse(await readFile(join(d, 'frog-000.json'), 'utf8'));
        await writeFile(join(d, 'frog-000.json'), JSON.stringify({ ...s, description: 'smug '.repeat(220_000) }));
      },
    ],
    [
      // Published as "\\ud800", which strict JSON readers refuse (with every list answer holding it).
      'a description and a tag holding a lone surrogate escape',
      'sidecar-bad-character',
      async (d) => {
        const s = JSON.parse(await readFile(join(d, 'frog-000.json'), 'utf8'));
        await writeFile(join(d, 'frog-000.json'), JSON.stringify({ ...s, description: 'smug \ud800 frog', tags: ['ok', 'x\udc00'] }));
      },
    ],
    [
      // The listing does not walk into it: refused, else its images would be left out without a word.
      'a folder named with a line break',
      'line-break-in-name',
      async (d) => {
        await mkdir(join(d, 'new\nfolder'));
        for (const name of ['frog-000.png', 'frog-000.json']) await rename(join(d, name), join(d, 'new\nfolder', name));
      },
    ],
    [
      // A name a line-based tool cannot hold: refused rather than skipped without a word.
      'an image and sidecar named with line breaks',
      'line-break-in-name',
      async (d) => {
        for (const ext of ['.jpg', '.json']) await rename(join(d, `frog-001${ext}`), join(d, `line\r\nbreak\u2028${ext}`));
      },
    ],
    [
      'a duplicate id',
      'duplicate-id',
      async (d) => {
        const s = JSON.parse(await readFile(join(d, 'frog-000.json'), 'utf8'));
        const other = JSON.parse(await readFile(join(d, 'frog-001.json'), 'utf8'));
        await writeFile(join(d, 'frog-001.json'), JSON.stringify({ ...other, id: s.id.toUpperCase() }));
      },
    ],
    ['an image without a sidecar', 'missing-sidecar', (d) => rm(join(d, 'frog-000.json'))],
    ['a sidecar without an image', 'orphan-sidecar', (d) => rm(join(d, 'frog-000.png'))],
    [
      'two images sharing one sidecar name',
      'name-collision',
      async (d) => writeFile(join(d, 'frog-000.jpg'), await sharp(join(d, 'frog-000.png')).jpeg().toBuffer()),
    ],
    [
      'a truncated JPEG',
      'truncated',
      async (d) => {
        const bytes = await readFile(join(d, 'frog-001.jpg'));
        await writeFile(join(d, 'frog-001.jpg'), bytes.subarray(0, Math.floor(bytes.length / 2)));
      },
    ],
    [
      'an undecodable PNG',
      'undecodable',
      async (d) => {
        const bytes = await readFile(join(d, 'frog-000.png'));
        await writeFile(join(d, 'frog-000.png'), Buffer.concat([bytes.subarray(0, 8), Buffer.alloc(200, 7)]));
      },
    ],
    ['a GIF decode bomb (a 7000×7000 screen, 50,000 frames of 1×1)', 'too-many-frames', (d) => writeFile(join(d, 'frog-000.png'), bombGif(7000, 7000, 50_000))],
    ['a folder named like the image its sidecar describes', 'not-a-file', async (d) => {
      await rm(join(d, 'frog-000.png'));
      await mkdir(join(d, 'frog-000.png'));
    }],
    ['an oversized file', 'file-too-large', async () => {}, { limits: { maxFileBytes: 2200 } }],
    ['too many pixels', 'too-many-pixels', async () => {}, { limits: { maxPixels: 64 * 64 } }],
    ['an SVG file', 'unsupported-format', (d) => writeFile(join(d, 'drawing.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')],
    [
      'an SVG disguised as PNG',
      'unsupported-format',
      (d) => writeFile(join(d, 'frog-000.png'), '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"/>'),
    ],
    ['a symlink inside the content folder', 'symlink', (d) => symlink(join(d, 'frog-000.png'), join(d, 'linked.png'))],
    [
      'a symlink to a file outside the content folder',
      'outside-content-root',
      async (d) => {
        await writeFile(join(d, '..', 'secret.png'), await readFile(join(d, 'frog-000.png')));
        await rename(join(d, 'frog-000.png'), join(d, '..', 'moved.png'));
        await symlink(join(d, '..', 'secret.png'), join(d, 'frog-000.png'));
      },
    ],
  ];

  for (const [name, code, mutate, extra] of cases) {
    it(`reports ${name} as ${code}`, async () => {
      const contentDir = await contentWith(mutate);
      const result = await build({ contentDir, ...extra });
      expect(result.ok).toBe(false);
      expect(result.changed).toBe(false);
      const codes = [...new Set(result.problems.filter((p) => p.severity === 'error').map((p) => p.code))];
      expect(codes, JSON.stringify(result.problems)).toEqual([code]);
      for (const problem of result.problems) expect(problem.message.length).toBeGreaterThan(20);
      expect(await snapshotDir(goodDist)).toEqual(goodSnapshot);
    });
  }

  it('says that frog.png beside frog.json is a folder, not that the sidecar describes no image', async () => {
    const contentDir = await contentWith(async (d) => {
      await rm(join(d, 'frog-000.png'));
      await mkdir(join(d, 'frog-000.png'));
    });
    const result = await build({ contentDir });
    expect(result.problems.map((p) => [p.code, p.file, p.message])).toEqual([['not-a-file', 'frog-000.png', 'is a folder, not the image "frog-000.json" describes: put the image file itself at this path (or rename the folder)']]);
  });

  it('names both files of a duplicate id and suggests pepe add for a missing sidecar', async () => {
    const contentDir = await contentWith(async (d) => {
      const s = JSON.parse(await readFile(join(d, 'frog-000.json'), 'utf8'));
      const other = JSON.parse(await readFile(join(d, 'frog-001.json'), 'utf8'));
      await writeFile(join(d, 'frog-001.json'), JSON.stringify({ ...other, id: s.id }));
      await rm(join(d, 'archive', 'frog-002.json'));
    });
    const result = await build({ contentDir });
    const dup = result.problems.find((p) => p.code === 'duplicate-id')!;
    expect(dup.message).toContain('frog-000.json');
    expect(dup.message).toContain('frog-001.json');
    const missing = result.problems.find((p) => p.code === 'missing-sidecar')!;
    expect(missing.file).toBe('archive/frog-002.webp');
    expect(missing.message).toContain('npx pepe add');
  });

  it('reports every problem of a run at once', async () => {
    const contentDir = await contentWith(async (d) => {
      await writeFile(join(d, 'frog-000.json'), 'nope');
      await rm(join(d, 'frog-001.json'));
      await writeFile(join(d, 'notes.txt'), 'hello');
    });
    const result = await build({ contentDir });
    expect(result.problems.map((p) => p.code).sort()).toEqual(['invalid-json', 'missing-sidecar', 'unsupported-format']);
  });

  it('validates the sidecars of refused images and orphan sidecars in the same run', async () => {
    const contentDir = await contentWith(async (d) => {
      await writeFile(join(d, 'drawing.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
      await writeFile(join(d, 'drawing.json'), '{bad');
      await writeFile(join(d, 'orphan.json'), JSON.stringify({ id: 'zzz', descripton: 1 }));
    });
    const result = await build({ contentDir });
    const byFile = result.problems.map((p) => `${p.file} ${p.code}`).sort();
    expect(byFile).toContain('drawing.json invalid-json');
    expect(byFile).toContain('drawing.svg unsupported-format');
    expect(byFile).toContain('orphan.json orphan-sidecar');
    expect(byFile).toContain('orphan.json sidecar-unknown-key');
  });

  it('reports a duplicate id in the same run when one of the images is refused or a sidecar has no image, and knows those ids as records', async () => {
    const imageOf = async (d: string, name: string) => (await readdir(join(d, name, '..'))).find((f) => f.startsWith(`${name.split('/').pop()}.`) && !f.endsWith('.json'))!;
    const contentDir = await contentWith(async (d) => {
      const first = JSON.parse(await readFile(join(d, 'frog-000.json'), 'utf8'));
      const second = JSON.parse(await readFile(join(d, 'frog-001.json'), 'utf8'));
      // frog-001 takes frog-000's id, and its image is cut short.
      await writeFile(join(d, 'frog-001.json'), JSON.stringify({ ...second, id: first.id }));
      const image = join(d, await imageOf(d, 'frog-001'));
      await writeFile(image, (await readFile(image)).subarray(0, 200));
      // A sidecar left behind (its image moved away) holds archive/frog-002's id.
      await cp(join(d, 'archive', 'frog-002.json'), join(d, 'left-behind.json'));
      // frog-003 acknowledges frog-005, whose image is unsupported: a record with a broken image, not an unknown id.
      const third = JSON.parse(await readFile(join(d, 'frog-003.json'), 'utf8'));
      const fifth = JSON.parse(await readFile(join(d, 'frog-005.json'), 'utf8'));
      await writeFile(join(d, 'frog-003.json'), JSON.stringify({ ...third, distinct_from: [fifth.id] }));
      await rm(join(d, await imageOf(d, 'frog-005')));
      await writeFile(join(d, 'frog-005.bmp'), 'BM not really');
    });
    const result = await build({ contentDir });
    const byFile = result.problems.map((p) => `${p.file} ${p.code}`).sort();
    expect(byFile).toEqual([
      'archive/frog-002.json duplicate-id',
      'frog-000.json duplicate-id',
      expect.stringMatching(/^frog-001\.\w+ truncated$/),
      'frog-005.bmp unsupported-format',
      'left-behind.json orphan-sidecar',
    ]);
    const dups = result.problems.filter((p) => p.code === 'duplicate-id').map((p) => p.message);
    expect(dups).toEqual([expect.stringMatching(/is used by archive\/frog-002\.json and left-behind\.json: /), expect.stringMatching(/is used by frog-000\.json and frog-001\.json: /)]);
    expect(await snapshotDir(goodDist)).toEqual(goodSnapshot);
  });
});

describe('a good build', () => {
  it('publishes a misnamed image under its detected extension with a warning', async () => {
    const out = join(temp.path, 'dist-mismatch');
    const contentDir = await contentWith((d) => rename(join(d, 'frog-000.png'), join(d, 'frog-000.jpg')));
    const result = await buildCatalogue({ contentDir, outDir: out, cacheDir, urls: FIXTURE_URLS });
    expect(result.ok).toBe(true);
    expect(result.problems.map((p) => [p.code, p.severity, p.file])).toEqual([['extension-mismatch', 'warning', 'frog-000.jpg']]);
    const id = fixtureId('fixture-0');
    expect(result.records.find((r) => r.id === id)?.file_ext).toBe('.png');
    await expect(stat(join(out, 'site', 'images', `${id}.png`))).resolves.toBeTruthy();
  });

  it('writes records normalised and sorted, with the exact image bytes', async () => {
    const result = await build({ contentDir: baseContent });
    const [first] = result.records;
    expect(first?.created_at).toBe('2019-03-14T09:26:53.000Z');
    const sad = result.records.find((r) => r.id === fixtureId('fixture-1'))!;
    expect(sad.tags).toEqual(['sad', 'rain']);
    expect(sad.updated_at).toBe('2025-06-01T12:00:00.000Z');
    const noTags = result.records.find((r) => r.id === fixtureId('fixture-2'))!;
    expect([noTags.tags, noTags.description, noTags.updated_at]).toEqual([null, null, noTags.created_at]);
    const { bytes } = await fixtureImage(1);
    expect(await readFile(join(goodDist, 'site', 'images', `${sad.id}.jpg`))).toEqual(bytes);
    expect(sad.file_size).toBe(bytes.length);
  });

  it('writes the data module and its pieces file, of exactly the records it returns', async () => {
    const result = await build({ contentDir: baseContent });
    const expected = catalogueDataFiles(compileCatalogue(result.records, FIXTURE_URLS));
    expect((await readdir(join(goodDist, 'data'))).sort()).toEqual(expected.map((file) => file.path.slice('data/'.length)).sort());
    for (const { path, body } of expected) expect(await readFile(join(goodDist, path), 'utf8'), path).toBe(body.toString());
  });

  it('writes a manifest listing every other output file with its sha256 and size', async () => {
    const manifest = (await loadManifest(goodDist))!;
    const snapshot = await snapshotDir(goodDist);
    const listed = Object.keys(manifest.files);
    // Every file but the root and its segments, each segment named by its hash.
    expect(listed).toEqual(Object.keys(snapshot).filter((p) => p !== 'manifest.json' && !p.startsWith('manifest/')));
    expect(Object.keys(snapshot).filter((p) => p.startsWith('manifest/')).sort()).toEqual(segmentFiles(manifest).sort());
    expect(listed).toEqual([...listed].sort());
    for (const path of listed) {
      expect(manifest.files[path]!.sha256).toBe(snapshot[path]!.sha256);
      expect(manifest.files[path]!.size).toBe((await stat(join(goodDist, path))).size);
    }
    expect(manifest.version).toBe(catalogueVersion(manifest));
    expect(manifest.counts).toEqual({ records: 6, images: 6, files: listed.length });
    expect(manifest.settings).toEqual(FIXTURE_URLS);
    expect(manifest.format).toBe(5);
    expect(listed).toContain('functions/pepe.mjs');
    expect(listed).toContain('data/catalogue.mjs');
  });

  it('refuses to replace a non-empty folder that is not a previous build', async () => {
    const out = join(temp.path, 'precious');
    await mkdir(out);
    await writeFile(join(out, 'thesis.txt'), 'do not delete');
    const result = await buildCatalogue({ contentDir: baseContent, outDir: out, cacheDir, urls: FIXTURE_URLS });
    expect(result.problems.map((p) => p.code)).toEqual(['bad-out-dir']);
    expect(await readFile(join(out, 'thesis.txt'), 'utf8')).toBe('do not delete');
  });

  // A damaged previous manifest used to stop the build with a TypeError ("files": null, no
  // "settings"), or be trusted: a "../" path it listed was a file to remove, outside the output.
  it('refuses an output folder whose manifest.json is damaged, saying what is wrong with it, and touches nothing', async () => {
    const damages: [string, (manifest: Record<string, unknown>) => void, string][] = [
      ['segments-null', (m) => void (m.segments = null), 'has no "segments" object'],
      ['no-settings', (m) => void delete m.settings, 'has no "settings" object with baseUrl, apiUrl and cdnUrl'],
      ['version', (m) => void (m.version = 'a'.repeat(64)), 'has a "version" that is not the sha256 of its "segments" and "trees"'],
    ];
    for (const [name, damage, why] of damages) {
      const out = join(temp.path, `damaged-${name}`, 'dist');
      await cp(goodDist, out, { recursive: true });
      await writeFile(join(out, '..', 'victim.txt'), 'mine');
      const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')) as Record<string, unknown>;
      damage(manifest);
      await writeFile(join(out, 'manifest.json'), JSON.stringify(manifest));
      const before = await snapshotDir(out);
      const result = await buildCatalogue({ contentDir: baseContent, outDir: out, cacheDir, urls: FIXTURE_URLS });
      expect(result.problems, name).toEqual([
        {
          severity: 'error',
          code: 'bad-out-dir',
          message: `the output folder "${out}" is not empty and holds no usable manifest.json of a previous build ("${join(out, 'manifest.json')}" ${why}); it would be replaced: empty it or choose another --out`,
        },
      ]);
      expect(await snapshotDir(out), name).toEqual(before);
      expect(await readFile(join(out, '..', 'victim.txt'), 'utf8'), name).toBe('mine');
    }
  });

  // The build skips the shape check for the manifest it wrote itself (its recorded stat still
  // holds after the read); an edit since then changes that stat, so the check must come back.
  it('checks a manifest edited after the build that wrote it, and touches nothing outside the output', async () => {
    const root = join(temp.path, 'edited-after-build');
    const out = join(root, 'dist');
    const cache = join(root, 'cache');
    expect((await buildCatalogue({ contentDir: baseContent, outDir: out, cacheDir: cache, urls: FIXTURE_URLS })).ok).toBe(true);
    await writeFile(join(root, 'victim.txt'), 'mine');
    // A consistent forgery: a segment listing a path outside the output, named by its hash, and a root naming it.
    const built = (await loadManifest(out))!;
    const entries = new Map(Object.entries(built.files)).set('../victim.txt', { sha256: 'a'.repeat(64), size: 4 });
    await writeManifestFiles(out, createManifest(entries, built.settings, built.counts));
    const result = await buildCatalogue({ contentDir: baseContent, outDir: out, cacheDir: cache, urls: FIXTURE_URLS });
    expect(result.ok).toBe(false);
    expect(result.problems.map((p) => p.message).join('\n')).toContain('lists an invalid path "../victim.txt"');
    expect(await readFile(join(root, 'victim.txt'), 'utf8')).toBe('mine');
  });

  // The build's own manifest is read a segment on first use, so a segment damaged in place is found midway.
  it('refuses a segment of its own manifest damaged in place since, naming it, and leaves the output as it was', async () => {
    const root = join(temp.path, 'segment-damaged');
    const out = join(root, 'dist');
    const cache = join(root, 'cache');
    expect((await buildCatalogue({ contentDir: baseContent, outDir: out, cacheDir: cache, urls: FIXTURE_URLS })).ok).toBe(true);
    const segment = join(out, segmentFile((await loadManifest(out))!.segments['data']!.sha256));
    await writeFile(`${segment}.tmp`, '{"files":{}}\n');
    await rename(`${segment}.tmp`, segment);
    const before = await snapshotDir(out);
    const result = await buildCatalogue({ contentDir: baseContent, outDir: out, cacheDir: cache, urls: { ...FIXTURE_URLS, baseUrl: 'https://elsewhere.example' } });
    expect(result.problems.map((p) => [p.code, p.message])).toEqual([['bad-out-dir', expect.stringContaining(`${segment} lists 0 files, the manifest says`)]]);
    expect(await snapshotDir(out)).toEqual(before);
  });
});

describe('incremental rebuilds', () => {
  it('reads the format-3 manifest of the previous version, and writes format 5 on the next build', async () => {
    const out = join(temp.path, 'dist-format-3');
    const cache = join(temp.path, 'cache-format-3');
    expect((await buildCatalogue({ contentDir: baseContent, outDir: out, cacheDir: cache, urls: FIXTURE_URLS })).ok).toBe(true);
    const built = (await loadManifest(out))!;
    expect(built.delta).toBeUndefined();
    // The root as the previous version wrote it: a full build has no delta, so the same members and version.
    await writeFile(join(out, 'manifest.json'), manifestJson({ ...built, format: 3 }));
    expect((await loadManifest(out))!.format).toBe(3);
    expect((await buildCatalogue({ contentDir: baseContent, outDir: out, cacheDir: cache, urls: FIXTURE_URLS })).ok).toBe(true);
    const upgraded = (await loadManifest(out))!;
    expect(upgraded.format).toBe(5);
    expect(upgraded.version).toBe(built.version);
    expect(upgraded.files).toEqual(built.files);
  });

  it('decodes nothing and writes nothing when nothing changed', async () => {
    const spy = countingAnalyse();
    const distInode = (await stat(goodDist)).ino;
    const result = await build({ contentDir: baseContent, analyse: spy.analyse });
    expect(result.ok).toBe(true);
    expect(spy.calls()).toBe(0);
    expect(result.stats.hashed).toBe(0);
    expect(result.changed).toBe(false);
    expect((await stat(goodDist)).ino).toBe(distInode);
    expect(await snapshotDir(goodDist)).toEqual(goodSnapshot);
  });

  it('writes nothing even without the last-build shortcut, when every output file is identical', async () => {
    await rm(join(cacheDir, 'last-build.json'));
    const result = await build({ contentDir: baseContent });
    expect(result.changed).toBe(false);
    expect(result.stats.written).toBe(0);
    expect(await snapshotDir(goodDist)).toEqual(goodSnapshot);
  });

  it('decodes exactly one image when one is added, and keeps unchanged files (same inode and mtime)', async () => {
    const out = join(temp.path, 'dist-incremental');
    const contentDir = join(temp.path, 'incremental', 'content');
    await cp(baseContent, contentDir, { recursive: true });
    await buildCatalogue({ contentDir, outDir: out, cacheDir, urls: FIXTURE_URLS });
    const before = await snapshotDir(out);

    const { bytes, ext } = await fixtureImage(40);
    await writeFile(join(contentDir, `new${ext}`), bytes);
    const id = fixtureId('added');
    await writeFile(join(contentDir, 'new.json'), JSON.stringify({ id, description: 'new', tags: null, created_at: '2026-01-01T00:00:00Z' }));
    const spy = countingAnalyse();
    const result = await buildCatalogue({ contentDir, outDir: out, cacheDir, urls: FIXTURE_URLS, analyse: spy.analyse });
    expect(result.ok).toBe(true);
    expect(spy.calls()).toBe(1);
    expect(result.stats.hashed).toBe(1);
    const after = await snapshotDir(out);
    expect(after[`site/images/${id}${ext}`]?.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    for (const [path, old] of Object.entries(before)) {
      if (path.startsWith('site/images/') || path.startsWith('site/api/pepe/') || path.startsWith('site/v1/pepe/')) {
        expect(after[path], path).toEqual(old);
      }
    }
    expect(after['data/catalogue.mjs']?.sha256).not.toBe(before['data/catalogue.mjs']?.sha256);
    // The data alone changed: the bundle is the saved template filled with the new data module, no esbuild run (bundle-function.ts).
    expect(result.stats.generated).toEqual({ bundle: true, gallery: true });
    const bundled = await import(`${pathToFileURL(join(out, 'functions/pepe.mjs')).href}?added`);
    expect((await (await bundled.default(new Request('https://pepe.example/api/pepe?sort=created_at_desc&limit=2'))).json()).data[0].id).toBe(id);
    // The newest image's doc comes last: only it went through MiniSearch (search-index-memo.ts),
    // and the data module is what a build from scratch writes.
    expect(result.stats.searchIndex).toEqual({ path: 'updated', indexedDocs: 1 });
    // Its description ('new') joins no dictionary piece: only its record was encoded (record-encoding-memo.ts).
    expect(result.stats.recordEncoding).toEqual({ reused: result.records.length - 1, encoded: 1 });
    expect(await readFile(join(out, 'data/catalogue.mjs'), 'utf8')).toBe(catalogueModuleSource(compileCatalogue(result.records, FIXTURE_URLS)));
    // The new pieces file replaced the old one: the function of this build reads only its own.
    const { piecesFile } = compileCatalogue(result.records, FIXTURE_URLS);
    expect((await readdir(join(out, 'data'))).sort()).toEqual(['catalogue.mjs', piecesFile]);
    expect(before[`data/${piecesFile}`]).toBeUndefined();
  });

  it('in a fresh clone with the cache restored: decodes nothing, runs no esbuild, and writes what a cold build writes, byte for byte', async () => {
    // New inodes and mtimes for every content file, as a git clone gives; the cache copied as CI restores it.
    // The CI run before: a cold build of the same content with a cache of its own (the shared one holds other tests' builds).
    const ci = join(temp.path, 'ci-run');
    expect((await buildCatalogue({ contentDir: baseContent, outDir: join(ci, 'dist'), cacheDir: join(ci, 'cache'), urls: FIXTURE_URLS })).stats.generated).toEqual({ bundle: false, gallery: false });
    const clone = join(temp.path, 'fresh-clone');
    await cp(baseContent, join(clone, 'content'), { recursive: true });
    await cp(join(ci, 'cache'), join(clone, 'cache'), { recursive: true });
    const spy = countingAnalyse();
    const options = { contentDir: join(clone, 'content'), outDir: join(clone, 'dist'), cacheDir: join(clone, 'cache'), urls: FIXTURE_URLS, analyse: spy.analyse };
    const result = await buildCatalogue(options);
    expect(result.ok).toBe(true);
    expect(spy.calls()).toBe(0);
    expect(result.stats.generated).toEqual({ bundle: true, gallery: true });
    const sha256s = (snapshot: Awaited<ReturnType<typeof snapshotDir>>) => Object.fromEntries(Object.entries(snapshot).map(([path, file]) => [path, file.sha256]));
    expect(sha256s(await snapshotDir(options.outDir))).toEqual(sha256s(goodSnapshot));

    // A generated file altered in the cache (its text, not its recorded hash) is not trusted: made again, and right.
    const generatedFile = join(options.cacheDir, 'generated.json');
    const groups = JSON.parse(await readFile(generatedFile, 'utf8')) as { files: Record<string, { text: string }> }[];
    for (const group of groups) for (const file of Object.values(group.files)) file.text = `${file.text}\n// altered`;
    await writeFile(generatedFile, JSON.stringify(groups));
    await rm(options.outDir, { recursive: true });
    const again = await buildCatalogue(options);
    expect(again.stats.generated).toEqual({ bundle: false, gallery: false });
    expect(sha256s(await snapshotDir(options.outDir))).toEqual(sha256s(goodSnapshot));
  });

  it('warns when an image was edited in place under its id (its URL is immutable), naming the content file', async () => {
    const out = join(temp.path, 'dist-image-edited');
    const contentDir = join(temp.path, 'image-edited', 'content');
    // Its own cache: saving prunes the features of images the content no longer has (the original frog-000), which later tests reuse.
    const cacheDir = join(temp.path, 'cache-image-edited');
    await cp(baseContent, contentDir, { recursive: true });
    const first = await buildCatalogue({ contentDir, outDir: out, cacheDir, urls: FIXTURE_URLS });
    expect(first.problems).toEqual([]);
    // Same format, other pixels; the sidecar (and so the id) stays.
    const target = 'frog-000.png';
    const edited = await sharp(join(contentDir, target)).negate({ alpha: false }).png().toBuffer();
    await writeFile(join(contentDir, target), edited);
    const second = await buildCatalogue({ contentDir, outDir: out, cacheDir, urls: FIXTURE_URLS });
    expect(second.ok).toBe(true);
    const changed = second.problems.filter((problem) => problem.code === 'image-changed');
    expect(changed.map((problem) => problem.file)).toEqual([target]);
    expect(changed[0]!.message).toMatch(/give the changed picture a new id/);
    expect(second.stats.warnings).toBe(1);
    // An added image is new, not changed: no warning.
    const { bytes, ext } = await fixtureImage(41);
    await writeFile(join(contentDir, `added${ext}`), bytes);
    await writeFile(join(contentDir, 'added.json'), JSON.stringify({ id: fixtureId('added-not-changed'), description: 'new', tags: null, created_at: '2026-01-01T00:00:00Z' }));
    const third = await buildCatalogue({ contentDir, outDir: out, cacheDir, urls: FIXTURE_URLS });
    expect(third.ok).toBe(true);
    expect(third.problems.filter((problem) => problem.code === 'image-changed')).toEqual([]);
  });

  it('survives every JSON file of its cache torn in half (a crash mid-write): the next build is right', async () => {
    const contentDir = join(temp.path, 'torn', 'content');
    await cp(baseContent, contentDir, { recursive: true });
    const own = { contentDir, outDir: join(temp.path, 'dist-torn'), cacheDir: join(temp.path, 'cache-torn'), urls: FIXTURE_URLS };
    expect((await buildCatalogue(own)).ok).toBe(true);
    const files = ['answers.json', 'encoded-records.json', 'search-index.json', 'near-duplicates.json', 'generated.json', 'last-build.json'];
    for (const [n, file] of files.entries()) {
      const path = join(own.cacheDir, file);
      const text = await readFile(path, 'utf8');
      await writeFile(path, text.slice(0, text.length >> 1));
      // A change, so that the build uses (and rewrites) every cache file.
      const { bytes, ext } = await fixtureImage(50 + n);
      await writeFile(join(contentDir, `torn-${n}${ext}`), bytes);
      await writeFile(join(contentDir, `torn-${n}.json`), JSON.stringify({ id: fixtureId(`torn-${n}`), description: `torn ${n}`, tags: null, created_at: `2027-01-0${n + 1}T00:00:00Z` }));
      const result = await buildCatalogue(own);
      expect(result.ok, `${file}: ${JSON.stringify(result.problems)}`).toBe(true);
      expect(await readFile(join(own.outDir, 'data/catalogue.mjs'), 'utf8'), file).toBe(catalogueModuleSource(compileCatalogue(result.records, FIXTURE_URLS)));
    }
  });

  it('keeps the manifest true to the bytes on disk across rebuilds that edit a record, change a URL and add an image', async () => {
    const contentDir = join(temp.path, 'edits', 'content');
    await cp(baseContent, contentDir, { recursive: true });
    const own = { contentDir, outDir: join(temp.path, 'dist-edits'), cacheDir: join(temp.path, 'cache-edits'), urls: FIXTURE_URLS };
    const verify = async () => {
      const manifest = (await loadManifest(own.outDir))!;
      const snapshot = await snapshotDir(own.outDir);
      expect(Object.keys(manifest.files)).toEqual(Object.keys(snapshot).filter((p) => p !== 'manifest.json' && !p.startsWith('manifest/')));
      // Only the segments the root names are left.
      expect(Object.keys(snapshot).filter((p) => p.startsWith('manifest/')).sort()).toEqual(segmentFiles(manifest).sort());
      for (const [path, entry] of Object.entries(manifest.files)) expect(entry.sha256, path).toBe(snapshot[path]!.sha256);
      return manifest;
    };
    await buildCatalogue(own);
    const first = await verify();
    const sidecarPath = join(contentDir, 'frog-001.json');
    const sidecar = JSON.parse(await readFile(sidecarPath, 'utf8')) as { id: string; description: string | null };
    await writeFile(sidecarPath, JSON.stringify({ ...sidecar, description: 'an edited description' }));
    const editBuild = await buildCatalogue(own);
    expect(editBuild.ok).toBe(true);
    expect(editBuild.stats.searchIndex).toEqual({ path: 'updated', indexedDocs: 1 });
    expect(editBuild.stats.recordEncoding?.encoded).toBeGreaterThanOrEqual(1);
    expect(await readFile(join(own.outDir, 'data/catalogue.mjs'), 'utf8')).toBe(catalogueModuleSource(compileCatalogue(editBuild.records, FIXTURE_URLS)));
    const edited = await verify();
    expect(edited.files[`site/api/pepe/${sidecar.id}`]!.sha256).not.toBe(first.files[`site/api/pepe/${sidecar.id}`]!.sha256);
    expect(await readFile(join(own.outDir, 'site/api/pepe', sidecar.id), 'utf8')).toContain('an edited description');
    // Every answer embeds an image URL: new URLs must rewrite every by-id file.
    const moving = { baseUrl: 'https://pepes.example', apiUrl: 'https://api.pepes.example', cdnUrl: 'https://cdn.pepes.example' };
    expect((await buildCatalogue({ ...own, urls: moving })).ok).toBe(true);
    const moved = await verify();
    const byId = Object.keys(moved.files).filter((p) => p.startsWith('site/v1/pepe/') || p.startsWith('site/api/pepe/'));
    expect(byId).toHaveLength(12);
    for (const path of byId) expect(moved.files[path]!.sha256, path).not.toBe(edited.files[path]!.sha256);
    const { bytes, ext } = await fixtureImage(41);
    await writeFile(join(contentDir, `added${ext}`), bytes);
    await writeFile(join(contentDir, 'added.json'), JSON.stringify({ id: fixtureId('edits-added'), description: null, tags: null, created_at: '2026-01-01T00:00:00Z' }));
    expect((await buildCatalogue({ ...own, urls: moving })).ok).toBe(true);
    await verify();
  });

  describe('the no-change fast path (unchanged-content.ts)', () => {
    let own: BuildOptions;
    let first: Awaited<ReturnType<typeof buildCatalogue>>;
    beforeAll(async () => {
      const contentDir = join(temp.path, 'fast', 'content');
      await cp(baseContent, contentDir, { recursive: true });
      // A misnamed image: a warning that every rebuild must report again.
      await rename(join(contentDir, 'frog-000.png'), join(contentDir, 'frog-000.jpg'));
      own = { contentDir, outDir: join(temp.path, 'dist-fast'), cacheDir: join(temp.path, 'cache-fast'), urls: FIXTURE_URLS };
      first = await buildCatalogue(own);
      expect(first.ok).toBe(true);
      expect(first.problems.map((p) => p.code)).toEqual(['extension-mismatch']);
    });

    it('answers an identical rebuild with the result of the last build, reading no content', async () => {
      const spy = countingAnalyse();
      const before = await snapshotDir(own.outDir);
      const result = await buildCatalogue({ ...own, analyse: spy.analyse });
      expect(result.stats.shortcut).toBe('listing');
      expect(result.changed).toBe(false);
      expect(spy.calls()).toBe(0);
      expect(result.problems).toEqual(first.problems);
      expect(result.stats).toMatchObject({ images: 6, records: 6, warnings: 1, errors: 0, written: 0, kept: first.stats.kept + first.stats.written });
      expect(result.records).toEqual(first.records);
      expect(result.manifest).toEqual(first.manifest);
      expect(await snapshotDir(own.outDir)).toEqual(before);
    });

    it('analyses again when a file was only touched, then takes the fast path again', async () => {
      const sidecar = join(own.contentDir, 'frog-001.json');
      const later = new Date(Date.now() + 60_000);
      await utimes(sidecar, later, later);
      const records = await stat(join(own.cacheDir!, 'records.bin'));
      const touched = await buildCatalogue(own);
      expect(touched.stats.shortcut).toBe('records');
      expect(touched.changed).toBe(false);
      // The same records as the last build left: its file is kept as it is.
      expect(await stat(join(own.cacheDir!, 'records.bin'))).toMatchObject({ ino: records.ino, mtimeMs: records.mtimeMs, size: records.size });
      expect((await buildCatalogue(own)).stats.shortcut).toBe('listing');
    });

    it('rebuilds an edited sidecar, then takes the fast path at once with the new records', async () => {
      const sidecarPath = join(own.contentDir, 'frog-003.json');
      const sidecar = JSON.parse(await readFile(sidecarPath, 'utf8')) as { id: string };
      await writeFile(sidecarPath, JSON.stringify({ ...sidecar, description: 'edited for the fast path' }));
      const edited = await buildCatalogue(own);
      expect(edited.stats.shortcut).toBeNull();
      expect(edited.changed).toBe(true);
      const again = await buildCatalogue(own);
      expect(again.stats.shortcut).toBe('listing');
      expect(again.records.find((r) => r.id === sidecar.id)?.description).toBe('edited for the fast path');
    });

    it('keeps its records by appended deltas across an add, an edit and a removal, answering what the change build did', async () => {
      const recordsFile = join(own.cacheDir!, 'records.bin');
      const { bytes, ext } = await fixtureImage(70);
      await writeFile(join(own.contentDir, `delta-added${ext}`), bytes);
      await writeFile(join(own.contentDir, 'delta-added.json'), JSON.stringify({ id: fixtureId('delta-added'), description: null, tags: ['delta'], created_at: '2026-03-01T00:00:00Z' }));
      const base = await stat(recordsFile);
      const changes = [
        async () => undefined,
        // Moves the record to the front of the order: the delta is folded, then sorted.
        async () => {
          const path = join(own.contentDir, 'frog-005.json');
          await writeFile(path, JSON.stringify({ ...JSON.parse(await readFile(path, 'utf8')), created_at: '1999-01-01T00:00:00Z' }));
        },
        async () => {
          await rm(join(own.contentDir, `delta-added${ext}`));
          await rm(join(own.contentDir, 'delta-added.json'));
        },
      ];
      for (const change of changes) {
        await change();
        const changed = await buildCatalogue(own);
        expect(changed.stats.shortcut).toBeNull();
        const fast = await buildCatalogue(own);
        expect(fast.stats.shortcut).toBe('listing');
        expect(fast.records).toEqual(changed.records);
      }
      // Appended to, never rewritten: the same file, grown.
      const after = await stat(recordsFile);
      expect(after.ino).toBe(base.ino);
      expect(after.size).toBeGreaterThan(base.size);
      // A torn last delta is no records file: the next build analyses, and writes it whole.
      await writeFile(recordsFile, (await readFile(recordsFile)).subarray(0, after.size - 3));
      const torn = await buildCatalogue(own);
      expect(torn.stats.shortcut).toBe('records');
      expect((await buildCatalogue(own)).records).toEqual(torn.records);
    });

    it('reads only the pairs that changed, and the build cache only for what the last build did not have; a torn pairs file, or one whose rows are out of order or ranks not each once, reads as none', async () => {
      const load = vi.spyOn(FeatureCache, 'load');
      const lookingUp = vi.spyOn(FeatureCache, 'lookingUp');
      try {
        const spy = countingAnalyse();
        const path = join(own.contentDir, 'frog-003.json');
        await writeFile(path, JSON.stringify({ ...JSON.parse(await readFile(path, 'utf8')), tags: ['edited'] }));
        const edited = await buildCatalogue({ ...own, analyse: spy.analyse });
        expect(edited.stats).toMatchObject({ changed: { read: 1, removed: 0 }, hashed: 0, decoded: 0, records: 6 });
        // The misnamed frog-000 was not read: its warning is the last build's.
        expect(edited.problems).toEqual(first.problems);
        expect(load.mock.calls.length + lookingUp.mock.calls.length).toBe(0);
        // The same bytes under another name: read and hashed, never decoded.
        const image = (await readdir(own.contentDir)).find((file) => file.startsWith('frog-001.') && !file.endsWith('.json'))!;
        await mkdir(join(own.contentDir, 'moved'));
        await rename(join(own.contentDir, image), join(own.contentDir, 'moved', image));
        await rename(join(own.contentDir, 'frog-001.json'), join(own.contentDir, 'moved', 'frog-001.json'));
        const moved = await buildCatalogue({ ...own, analyse: spy.analyse });
        expect(moved.stats).toMatchObject({ changed: { read: 1, removed: 1 }, hashed: 1, decoded: 0, records: 6 });
        expect(spy.calls()).toBe(0);
        expect(load).not.toHaveBeenCalled();
      } finally {
        load.mockRestore();
        lookingUp.mockRestore();
      }
      // Rows out of order, ranks that are not each rank once, or an earlier layout, in a file of the stat last-build.json records: read as none.
      const pairs = join(own.cacheDir!, 'pairs.bin');
      const lastBuild = join(own.cacheDir!, 'last-build.json');
      const words = (bytes: Buffer) => Array.from({ length: bytes.length / 4 }, (_, at) => bytes.readUInt32LE(4 * at));
      const packed = (numbers: number[]) => Buffer.from(new Uint32Array(numbers).buffer);
      for (const [tag, edit] of [
        [
          'swapped',
          ([head, text, ends, ...rest]: Buffer[]) => {
            const [first, second] = words(ends!);
            const rows = text!.toString('latin1');
            return [head!, Buffer.from(rows.slice(first, second) + rows.slice(0, first) + rows.slice(second), 'latin1'), packed([second! - first!, ...words(ends!).slice(1)]), ...rest];
          },
        ],
        ['ranked twice', ([head, text, ends, ranks, ...rest]: Buffer[]) => [head!, text!, ends!, packed([words(ranks!)[1]!, ...words(ranks!).slice(1)]), ...rest]],
        ['earlier layout', ([head, ...rest]: Buffer[]) => [Buffer.from(head!.toString().replace('"layout":3', '"layout":2')), ...rest]],
      ] as const) {
        const bytes = await readFile(pairs);
        const frames = cacheFrames(bytes)!.frames.map(([start, end]) => bytes.subarray(start, end));
        const edited = edit(frames);
        expect(edited.map((frame) => frame.length)).toEqual(frames.map((frame) => frame.length));
        await writeFile(pairs, Buffer.concat(edited.map((frame, at) => frameBytes(frame, at === 0))));
        const { size, mtimeMs, ino } = await stat(pairs);
        await writeFile(lastBuild, JSON.stringify({ ...JSON.parse(await readFile(lastBuild, 'utf8')), pairsStat: { size, mtimeMs, ino } }));
        await writeFile(join(own.contentDir, 'frog-003.json'), JSON.stringify({ ...JSON.parse(await readFile(join(own.contentDir, 'frog-003.json'), 'utf8')), tags: [tag] }));
        const turnedBuild = await buildCatalogue(own);
        expect(turnedBuild.ok).toBe(true);
        expect(turnedBuild.stats.changed).toBeNull();
      }
      await writeFile(pairs, (await readFile(pairs)).subarray(0, 40));
      await writeFile(join(own.contentDir, 'frog-003.json'), JSON.stringify({ ...JSON.parse(await readFile(join(own.contentDir, 'frog-003.json'), 'utf8')), tags: ['edited', 'again'] }));
      const torn = await buildCatalogue(own);
      expect(torn.ok).toBe(true);
      expect(torn.stats.changed).toBeNull();
      expect((await buildCatalogue(own)).stats.shortcut).toBe('listing');
    });

    it('analyses every pair again when the build cache lost a thumbnail the near-duplicate search needs', async () => {
      await rm(join(own.cacheDir!, 'build-cache.bin'));
      await rm(join(own.cacheDir!, 'near-duplicates-keys.bin'));
      await rm(join(own.cacheDir!, 'near-duplicates.json'));
      const path = join(own.contentDir, 'frog-003.json');
      await writeFile(path, JSON.stringify({ ...JSON.parse(await readFile(path, 'utf8')), tags: ['lost'] }));
      const spy = countingAnalyse();
      const built = await buildCatalogue({ ...own, analyse: spy.analyse });
      expect(built.ok).toBe(true);
      expect(built.stats.changed).toBeNull();
      expect(spy.calls()).toBe(built.stats.records);
      expect(built.records).toEqual((await buildCatalogue({ ...own, outDir: join(temp.path, 'lost-out'), cacheDir: join(temp.path, 'lost-cache') })).records);
    });

    it('reports a near-duplicate pair a change build creates, and drops it when the change is undone', async () => {
      const image = (await readdir(own.contentDir)).find((file) => file.startsWith('frog-003.') && !file.endsWith('.json'))!;
      const copy = `zz-copy${image.slice(image.lastIndexOf('.'))}`;
      await writeFile(join(own.contentDir, copy), await readFile(join(own.contentDir, image)));
      await writeFile(join(own.contentDir, 'zz-copy.json'), JSON.stringify({ id: fixtureId('zz-copy'), description: 'a copy', tags: ['copy'], created_at: '2026-01-01T00:00:00.000Z' }));
      // The change builds compare only what they read: each appends one frame to the packed keys.
      const frames = async () => cacheFrames(await readFile(join(own.cacheDir!, 'near-duplicates-keys.bin')))!.frames.length;
      const before = await frames();
      const added = await buildCatalogue(own);
      expect(added.stats.changed).toMatchObject({ read: 1, removed: 0 });
      expect(await frames()).toBe(before + 1);
      const pairs = (result: typeof added) => result.problems.filter((problem) => problem.code === 'near-duplicate').map((problem) => `${problem.file} ${problem.message.split(' (')[0]}`);
      expect(pairs(added)).toEqual([`${image} looks like the same picture as ${copy}`]);
      // A tag edit changes no item the detector reads: no frame, and the next change build still compares only what it read.
      await writeFile(join(own.contentDir, 'zz-copy.json'), JSON.stringify({ id: fixtureId('zz-copy'), description: 'a copy', tags: ['copy', 'edited'], created_at: '2026-01-01T00:00:00.000Z' }));
      expect((await buildCatalogue(own)).stats.changed).toMatchObject({ read: 1, removed: 0 });
      expect(await frames()).toBe(before + 1);
      await rm(join(own.contentDir, copy));
      await rm(join(own.contentDir, 'zz-copy.json'));
      const removed = await buildCatalogue(own);
      expect(removed.stats.changed).toMatchObject({ read: 0, removed: 1 });
      expect(pairs(removed)).toEqual([]);
      expect(await frames()).toBe(before + 2);
      expect(removed.records).toHaveLength(added.records.length - 1);
    });

    it('is not taken for other URLs, nor without its records file', async () => {
      const moving = { baseUrl: 'https://fast.example', apiUrl: 'https://fast.example', cdnUrl: 'https://fast.example' };
      expect((await buildCatalogue({ ...own, urls: moving })).stats.shortcut).toBeNull();
      expect((await buildCatalogue(own)).stats.shortcut).toBeNull();
      expect((await buildCatalogue(own)).stats.shortcut).toBe('listing');
      await rm(join(own.cacheDir!, 'records.bin'));
      const withoutRecords = await buildCatalogue(own);
      expect(withoutRecords.stats.shortcut).toBe('records');
      expect(withoutRecords.records).toHaveLength(6);
      expect((await buildCatalogue(own)).stats.shortcut).toBe('listing');
    });

    it('is not taken when the manifest of the output changed since', async () => {
      const manifestPath = join(own.outDir, 'manifest.json');
      await writeFile(manifestPath, await readFile(manifestPath));
      expect((await buildCatalogue(own)).stats.shortcut).not.toBe('listing');
    });
  });

  it('rebuilds a sidecar rewritten in place to the same size with its mtime put back (touch -r): the ctime shows the change', async () => {
    const contentDir = join(temp.path, 'same-size', 'content');
    await cp(baseContent, contentDir, { recursive: true });
    const own = { contentDir, outDir: join(temp.path, 'dist-same-size'), cacheDir: join(temp.path, 'cache-same-size'), urls: FIXTURE_URLS };
    expect((await buildCatalogue(own)).ok).toBe(true);
    // The build recorded the listing for the no-change fast path, which must not answer either.
    expect((await buildCatalogue(own)).stats.shortcut).toBe('listing');
    const sidecarPath = join(contentDir, 'frog-001.json');
    const before = await stat(sidecarPath);
    const text = await readFile(sidecarPath, 'utf8');
    const edited = text.replace('2020-07-01T12:00:00+02:00', '2020-07-01T12:00:01+02:00');
    expect(edited).not.toBe(text);
    await writeFile(sidecarPath, edited);
    await utimes(sidecarPath, before.atime, before.mtime);
    // Date has millisecond precision: put back the exact mtime, as `touch -r` or `cp -p` would.
    const after = await stat(sidecarPath);
    if (after.mtimeMs !== before.mtimeMs) await utimes(sidecarPath, before.atime, before.mtimeMs / 1000);
    expect([(await stat(sidecarPath)).size, (await stat(sidecarPath)).ino]).toEqual([before.size, before.ino]);
    const result = await buildCatalogue(own);
    expect(result.stats.shortcut).toBeNull();
    expect(result.records.find((r) => r.id === fixtureId('fixture-1'))?.created_at).toBe('2020-07-01T10:00:01.000Z');
  });

  it('reuses features for an identical image under another name (hashes it, decodes nothing)', async () => {
    const contentDir = await contentWith(async (d) => {
      await rename(join(d, 'frog-000.png'), join(d, 'renamed.png'));
      await rename(join(d, 'frog-000.json'), join(d, 'renamed.json'));
    });
    await link(join(contentDir, 'renamed.png'), join(contentDir, '..', 'keep-inode.png'));
    const spy = countingAnalyse();
    const result = await build({ contentDir, analyse: spy.analyse });
    expect(result.ok).toBe(true);
    expect(spy.calls()).toBe(0);
    expect(result.stats.cacheHits).toBe(6);
  });
});
