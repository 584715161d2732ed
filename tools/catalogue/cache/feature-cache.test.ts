import { lstat, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeNamedPipe } from '../../testing/named-pipe.js';
import { makeTempDir, type TempDir } from '../../testing/temp-dir.js';
import { frameDocument, readCacheDocuments } from './cache-log.js';
import { CACHE_FILE, type CachedFeatures, FeatureCache, TEXTURE_BYTES, THUMB_BYTES } from './feature-cache.js';
import { sidecarRulesVersion } from '../sidecar.js';

let temp: TempDir;
beforeEach(async () => {
  temp = await makeTempDir('pepe-cache-test-');
});
afterEach(() => temp.cleanup());

const features = (seed: number): CachedFeatures => ({
  format: 'png',
  ext: '.png',
  mime: 'image/png',
  width: 10 + seed,
  height: 20,
  phash: seed.toString(16).padStart(16, '0'),
  blurhash: 'LEHV6nWB2yk8pyo0adR*.7kCMdnj',
  animated: false,
  thumb: new Uint8Array(THUMB_BYTES).fill(seed % 256),
  texture: new Uint8Array(TEXTURE_BYTES).fill((seed * 7) % 256),
});
const sha = (i: number) => i.toString(16).padStart(64, '0');
/** The features as a plain object, the thumbnail read (loaded features read it lazily through a getter). */
const plain = (f: CachedFeatures | undefined) =>
  f && { format: f.format, ext: f.ext, mime: f.mime, width: f.width, height: f.height, phash: f.phash, blurhash: f.blurhash, animated: f.animated, thumb: f.thumb, texture: f.texture };
const stat = (i: number) => ({ size: i, mtimeMs: 1000 + i, ctimeMs: 2000 + i, ino: 7 + i });

/** A cache loaded from the test folder with images `img-0.png` … `img-<count-1>.png` and their features recorded. */
async function cacheWithImages(count: number): Promise<FeatureCache> {
  const cache = await FeatureCache.load(temp.path, 'v1');
  for (let i = 0; i < count; i++) {
    cache.setImageHash(`img-${i}.png`, stat(i), sha(i));
    cache.setFeatures(sha(i), features(i));
  }
  return cache;
}

/** A rebuild's use of images `img-0.png` … `img-<count-1>.png`: each looked up, its features read. */
function useImages(cache: FeatureCache, count: number): void {
  for (let i = 0; i < count; i++) cache.featuresOf(cache.imageHash(`img-${i}.png`, stat(i))!);
}

describe('FeatureCache', () => {
  it('round-trips 10k entries', async () => {
    const cache = await cacheWithImages(10_000);
    expect(await cache.save()).toBe(true);
    const loaded = await FeatureCache.load(temp.path, 'v1');
    expect(loaded.imageHash('img-42.png', stat(42))).toBe(sha(42));
    expect(plain(loaded.featuresOf(sha(9999)))).toEqual(features(9999));
  });

  it('misses when size, mtime, ctime or inode differ', async () => {
    const cache = await FeatureCache.load(temp.path, 'v1');
    cache.setImageHash('a.png', stat(1), sha(1));
    expect(cache.imageHash('a.png', { ...stat(1), mtimeMs: 5 })).toBeUndefined();
    // A file rewritten in place and its mtime put back (touch -r, cp -p): only the ctime shows it.
    expect(cache.imageHash('a.png', { ...stat(1), ctimeMs: 5 })).toBeUndefined();
    expect(cache.imageHash('a.png', { ...stat(1), ino: 5 })).toBeUndefined();
    expect(cache.imageHash('a.png', { ...stat(1), size: 5 })).toBeUndefined();
  });

  it('drops features computed by another feature version but keeps the stat cache', async () => {
    const cache = await FeatureCache.load(temp.path, 'v1');
    cache.setImageHash('a.png', stat(1), sha(1));
    cache.setFeatures(sha(1), features(1));
    await cache.save();
    const next = await FeatureCache.load(temp.path, 'v2');
    expect(next.featuresOf(sha(1))).toBeUndefined();
    expect(next.imageHash('a.png', stat(1))).toBe(sha(1));
  });

  it('drops sidecars parsed under other sidecar rules (a tightened check must reach them), and saves them again under the new rules', async () => {
    const sidecar = { id: '00000000-0000-4000-8000-000000000001', description: null, tags: null, created_at: '2020-01-01T00:00:00.000Z', updated_at: '2020-01-01T00:00:00.000Z', distinct_from: [], artist: null, source_url: null, license: null };
    const cache = await FeatureCache.load(temp.path, 'v1', 'rules-1');
    cache.setSidecar('a.json', stat(1), sidecar);
    await cache.save();
    expect((await FeatureCache.load(temp.path, 'v1', 'rules-1')).sidecar('a.json', stat(1))).toEqual(sidecar);
    const next = await FeatureCache.load(temp.path, 'v1', 'rules-2');
    expect(next.sidecar('a.json', stat(1))).toBeUndefined();
    next.setSidecar('a.json', stat(1), sidecar);
    await next.save();
    expect((await FeatureCache.load(temp.path, 'v1', 'rules-2')).sidecar('a.json', stat(1))).toEqual(sidecar);
    expect((await FeatureCache.load(temp.path, 'v1', 'rules-1')).sidecar('a.json', stat(1))).toBeUndefined();
  });

  it('drops image and sidecar rows written without the ctime (an older cache), keeping the features', async () => {
    const cache = await cacheWithImages(1);
    await cache.save();
    // The same cache as an older version wrote it: 5-field rows, no statRows.
    const [base] = readCacheDocuments(await readFile(join(temp.path, CACHE_FILE)))!.documents as [{ statRows?: string; images: unknown[][] }];
    delete base.statRows;
    base.images = base.images.map(([path, size, mtimeMs, , ino, value]) => [path, size, mtimeMs, ino, value]);
    await writeFile(join(temp.path, CACHE_FILE), frameDocument(base, true));
    const loaded = await FeatureCache.load(temp.path, 'v1');
    expect(loaded.imageHash('img-0.png', stat(0))).toBeUndefined();
    expect(plain(loaded.featuresOf(sha(0)))).toEqual(features(0));
  });

  it('keys sidecars by the text of the rules module by default', async () => {
    expect(sidecarRulesVersion()).toMatch(/^[0-9a-f]{16}$/);
    expect((await FeatureCache.load(temp.path, 'v1')).sidecarRules).toBe(sidecarRulesVersion());
  });

  it('ignores a corrupt cache file', async () => {
    await writeFile(join(temp.path, CACHE_FILE), 'PEPECACHE2\n\x05\x00\x00\x00{{{{{');
    const cache = await FeatureCache.load(temp.path, 'v1');
    expect(cache.featuresOf(sha(1))).toBeUndefined();
  });

  it('prunes the stat rows the run did not use, and keeps unused features (retired), unless asked not to prune', async () => {
    const cache = await FeatureCache.load(temp.path, 'v1');
    cache.setImageHash('a.png', stat(1), sha(1));
    cache.setImageHash('b.png', stat(2), sha(2));
    cache.setFeatures(sha(1), features(1));
    cache.setFeatures(sha(2), features(2));
    await cache.save();
    const keep = await FeatureCache.load(temp.path, 'v1');
    keep.setFeatures(sha(3), features(3));
    await keep.save({ prune: false });
    const all = await FeatureCache.load(temp.path, 'v1');
    expect([1, 2, 3].map((i) => Boolean(all.featuresOf(sha(i))))).toEqual([true, true, true]);
    const pruned = await FeatureCache.load(temp.path, 'v1');
    expect(pruned.imageHash('a.png', stat(1))).toBe(sha(1));
    pruned.featuresOf(sha(1));
    await pruned.save();
    const last = await FeatureCache.load(temp.path, 'v1');
    expect([last.imageHash('a.png', stat(1)), last.imageHash('b.png', stat(2))]).toEqual([sha(1), undefined]);
    expect([1, 2, 3].map((i) => plain(last.featuresOf(sha(i))))).toEqual([1, 2, 3].map((i) => plain(features(i))));
  });
});

describe('FeatureCache retired features (an image gone from the content folder, e.g. on another git branch)', () => {
  const DAY = 24 * 60 * 60 * 1000;
  const start = Date.UTC(2026, 10, 1);
  /** A run that uses the features of `used` only, saved at `now`, through appended deltas or a full rewrite. */
  async function run(used: number[], now: number): Promise<FeatureCache> {
    const cache = await FeatureCache.load(temp.path, 'v1');
    for (const i of used) cache.featuresOf(sha(i));
    await cache.save({ now });
    return cache;
  }
  const present = async (ids: number[]) => {
    const cache = await FeatureCache.load(temp.path, 'v1');
    return ids.filter((i) => cache.featuresOf(sha(i)) !== undefined);
  };

  it('keeps them for 30 days from the first build that did not use them; one that uses them again restarts the count', async () => {
    const first = await cacheWithImages(4);
    await first.save({ now: start });
    // Images 2 and 3 leave (a branch without them), then image 2 comes back on day 20.
    await run([0, 1], start + DAY);
    await run([0, 1], start + 10 * DAY);
    expect(await present([0, 1, 2, 3])).toEqual([0, 1, 2, 3]);
    await run([0, 1, 2], start + 20 * DAY);
    await run([0, 1], start + 25 * DAY);
    expect(await present([0, 1, 2, 3])).toEqual([0, 1, 2, 3]);
    // Day 32: image 3 was unused for 31 days (dropped); image 2 only for 7.
    await run([0, 1], start + 32 * DAY);
    expect(await present([0, 1, 2, 3])).toEqual([0, 1, 2]);
    const reloaded = await FeatureCache.load(temp.path, 'v1');
    expect(plain(reloaded.featuresOf(sha(2)))).toEqual(plain(features(2)));
  });

  it('keeps at most 2000, dropping those retired first', async () => {
    const cache = await cacheWithImages(2010);
    await cache.save({ now: start });
    // 10 leave on day 1, the other 2000 but one on day 2: 2009 retired, the 9 oldest go.
    const firstTen = Array.from({ length: 10 }, (_, i) => i);
    const rest = Array.from({ length: 2000 }, (_, i) => i + 10);
    await run(rest, start + DAY);
    await run([2009], start + 2 * DAY);
    const left = await present([...firstTen, ...rest]);
    expect(left).toHaveLength(2001);
    expect(left.filter((i) => i < 10)).toHaveLength(1);
    expect(left).toContain(2009);
  });
});

describe('FeatureCache thumbnails', () => {
  it('reads lazily loaded thumbnails correctly after a save that compacted or appended', async () => {
    const first = await FeatureCache.load(temp.path, 'v1');
    for (let i = 0; i < 10; i++) first.setFeatures(sha(i), features(i));
    await first.save();
    // Keep 3 of 10 (compaction) and add one.
    const second = await FeatureCache.load(temp.path, 'v1');
    for (const i of [2, 5, 7]) second.featuresOf(sha(i));
    second.setFeatures(sha(50), features(50));
    await second.save();
    expect(second.featuresOf(sha(7))!.thumb[0]).toBe(7);
    const third = await FeatureCache.load(temp.path, 'v1');
    expect([2, 5, 7, 50].map((i) => third.featuresOf(sha(i))!.thumb[100])).toEqual([2, 5, 7, 50]);
    third.setFeatures(sha(60), features(60));
    await third.save();
    expect(third.featuresOf(sha(5))!.thumb[3]).toBe(5);
    const fourth = await FeatureCache.load(temp.path, 'v1');
    expect([2, 5, 7, 50, 60].map((i) => fourth.featuresOf(sha(i))!.thumb[THUMB_BYTES - 1])).toEqual([2, 5, 7, 50, 60]);
  });
});

// A thumbnail file of no slots has the length of a named pipe or of /dev/null: adopted as
// such, the next thumbnails were appended to it, blocking the build for ever waiting for a
// reader, or vanishing into /dev/null (the features then dropped by the next load).
describe.skipIf(process.platform === 'win32')('FeatureCache thumbnail file that is not a file', () => {
  async function emptyCacheWithThumbsAs(make: (file: string) => Promise<() => void>): Promise<() => void> {
    const empty = await FeatureCache.load(temp.path, 'v1');
    empty.setImageHash('a.png', stat(1), sha(1));
    await empty.save();
    const [thumbs] = (await readdir(temp.path)).filter((name) => name.startsWith('thumbs-'));
    expect((await lstat(join(temp.path, thumbs!))).size).toBe(0);
    await rm(join(temp.path, thumbs!));
    return make(join(temp.path, thumbs!));
  }

  it.each([
    ['a named pipe', async (file: string) => makeNamedPipe(file).remove],
    ['a symlink to /dev/null', async (file: string) => (await symlink('/dev/null', file), () => undefined)],
  ])('is not adopted when it is %s: the thumbnails go to a new file, at once', async (_kind, make) => {
    const cleanup = await emptyCacheWithThumbsAs(make);
    try {
      const cache = await FeatureCache.load(temp.path, 'v1');
      cache.setFeatures(sha(2), features(2));
      const saved = await Promise.race([cache.save(), new Promise<'blocked'>((done) => setTimeout(() => done('blocked'), 5000).unref())]);
      expect(saved).toBe(true);
      const loaded = await FeatureCache.load(temp.path, 'v1');
      expect(plain(loaded.featuresOf(sha(2)))).toEqual(features(2));
    } finally {
      cleanup();
    }
  }, 30_000);
});

describe('FeatureCache thumbnails across appends and pruning in one process', () => {
  it('keeps every thumbnail right when an image is pruned, others are appended, and it comes back', async () => {
    const cache = await cacheWithImages(10);
    await cache.save();
    // Run 2: all but image 3 used, one new image appended (no compaction: 9 of 10 slots live).
    const run2 = await FeatureCache.load(temp.path, 'v1');
    for (const i of [0, 1, 2, 4, 5, 6, 7, 8, 9]) run2.featuresOf(sha(i));
    run2.setFeatures(sha(20), features(20));
    await run2.save();
    // Run 3 in the same object: image 3 comes back with its thumbnail, image 21 is new.
    for (const i of [0, 1, 2, 4, 5, 6, 7, 8, 9, 20]) run2.featuresOf(sha(i));
    run2.setFeatures(sha(3), features(3));
    run2.setFeatures(sha(21), features(21));
    await run2.save();
    const expected = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 21];
    expect(expected.map((i) => run2.featuresOf(sha(i))!.thumb[5])).toEqual(expected);
    const reloaded = await FeatureCache.load(temp.path, 'v1');
    expect(expected.map((i) => reloaded.featuresOf(sha(i))!.thumb[THUMB_BYTES - 2])).toEqual(expected);
  });
});

describe('FeatureCache appended deltas', () => {
  it('appends a small delta for one new image instead of rewriting, and reloads base plus delta', async () => {
    const first = await cacheWithImages(200);
    await first.save();
    const before = await readFile(join(temp.path, CACHE_FILE));

    const second = await FeatureCache.load(temp.path, 'v1');
    useImages(second, 200);
    second.setImageHash('new.png', stat(500), sha(500));
    second.setFeatures(sha(500), features(500));
    expect(await second.save()).toBe(true);
    const after = await readFile(join(temp.path, CACHE_FILE));
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(after.length - before.length).toBeLessThan(1000);

    const third = await FeatureCache.load(temp.path, 'v1');
    expect(third.imageHash('new.png', stat(500))).toBe(sha(500));
    expect(plain(third.featuresOf(sha(500)))).toEqual(features(500));
    expect(plain(third.featuresOf(sha(7)))).toEqual(features(7));
  });

  it('applies pruning and retirement recorded in a delta', async () => {
    const day = 24 * 60 * 60 * 1000;
    const first = await cacheWithImages(10);
    await first.save({ now: 0 });
    const second = await FeatureCache.load(temp.path, 'v1');
    // Uses 9 of 10: few enough dead thumbnails that the save appends rather than compacts.
    useImages(second, 9);
    await second.save({ now: day });
    const third = await FeatureCache.load(temp.path, 'v1');
    expect(third.imageHash('img-9.png', stat(9))).toBeUndefined();
    // Retired, not dropped: an image on another branch comes back undecoded.
    expect(plain(third.featuresOf(sha(9)))).toEqual(features(9));
    const fourth = await FeatureCache.load(temp.path, 'v1');
    useImages(fourth, 9);
    await fourth.save({ now: 32 * day });
    const fifth = await FeatureCache.load(temp.path, 'v1');
    expect(fifth.featuresOf(sha(9))).toBeUndefined();
    expect(plain(fifth.featuresOf(sha(8)))).toEqual(features(8));
    expect(readCacheDocuments(await readFile(join(temp.path, CACHE_FILE)))!.documents).toHaveLength(3);
  });

  it('ignores a torn delta (crash mid-append) and rewrites the whole file on the next save', async () => {
    const first = await FeatureCache.load(temp.path, 'v1');
    first.setImageHash('a.png', stat(1), sha(1));
    await first.save();
    const second = await FeatureCache.load(temp.path, 'v1');
    second.imageHash('a.png', stat(1));
    second.setImageHash('b.png', stat(2), sha(2));
    await second.save();
    const file = join(temp.path, CACHE_FILE);
    const whole = await readFile(file);
    await writeFile(file, whole.subarray(0, whole.length - 3));

    const torn = await FeatureCache.load(temp.path, 'v1');
    expect(torn.imageHash('a.png', stat(1))).toBe(sha(1));
    expect(torn.imageHash('b.png', stat(2))).toBeUndefined();
    torn.setImageHash('c.png', stat(3), sha(3));
    await torn.save();
    const rewritten = await FeatureCache.load(temp.path, 'v1');
    expect(rewritten.imageHash('a.png', stat(1))).toBe(sha(1));
    expect(rewritten.imageHash('c.png', stat(3))).toBe(sha(3));
    expect((await readFile(file)).length).toBeLessThan(whole.length + 200);
  });
});

// A change build asks the cache about the few images it reads: new bytes must not cost a parse of every row.
describe('FeatureCache in lookup mode (a change build)', () => {
  it('answers from the file unparsed and appends this run; parses once asked after its save', async () => {
    const first = await cacheWithImages(50);
    await first.save();
    const file = join(temp.path, CACHE_FILE);
    const before = await readFile(file);
    const decode = vi.spyOn(JSON, 'parse');
    const cache = FeatureCache.lookingUp(temp.path, 'v1');
    try {
      expect(cache.featuresOf(sha(500))).toBeUndefined();
      // Known bytes: their row is found in the file, their thumbnail read from its slot.
      expect(plain(cache.featuresOf(sha(7)))).toEqual(features(7));
      cache.setImageHash('new.png', stat(500), sha(500));
      cache.setFeatures(sha(500), features(500));
      expect(await cache.save({ prune: false })).toBe(true);
      // Only the documents' heads were parsed, never a row.
      expect(decode.mock.calls.every(([text]) => String(text).length < 200)).toBe(true);
    } finally {
      decode.mockRestore();
    }
    const after = await readFile(file);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(readCacheDocuments(after)!.documents).toHaveLength(2);
    // Known bytes asked for after the save: the file is parsed, this run's entries with it.
    expect(plain(cache.featuresOf(sha(8)))).toEqual(features(8));
    expect(cache.featuresOf(sha(500))!.thumb[9]).toBe(500 % 256);
    const reloaded = await FeatureCache.load(temp.path, 'v1');
    expect(reloaded.imageHash('new.png', stat(500))).toBe(sha(500));
    expect([7, 49, 500].map((i) => plain(reloaded.featuresOf(sha(i))))).toEqual([features(7), features(49), features(500)]);
  });

  it('keeps what it set before a parse, and rewrites a torn, foreign or other-version file whole', async () => {
    const first = await cacheWithImages(5);
    await first.save();
    const file = join(temp.path, CACHE_FILE);
    const mixed = FeatureCache.lookingUp(temp.path, 'v1');
    mixed.setFeatures(sha(600), features(600));
    expect(plain(mixed.featuresOf(sha(3)))).toEqual(features(3));
    expect(plain(mixed.featuresOf(sha(600)))).toEqual(features(600));
    await mixed.save({ prune: false });
    expect(plain((await FeatureCache.load(temp.path, 'v1')).featuresOf(sha(600)))).toEqual(features(600));

    const whole = await readFile(file);
    for (const [kind, bytes, version] of [
      ['torn', whole.subarray(0, whole.length - 3), 'v1'],
      ['foreign', Buffer.from('not a cache at all'), 'v1'],
      ['of another feature version', whole, 'v2'],
    ] as const) {
      await writeFile(file, bytes);
      const cache = FeatureCache.lookingUp(temp.path, version);
      cache.setImageHash('c.png', stat(3), sha(3));
      cache.setFeatures(sha(700), features(700));
      await cache.save({ prune: false });
      const loaded = await FeatureCache.load(temp.path, version);
      expect([kind, plain(loaded.featuresOf(sha(700)))]).toEqual([kind, features(700)]);
      expect(loaded.imageHash('c.png', stat(3))).toBe(sha(3));
      expect(readCacheDocuments(await readFile(file))!.documents).toHaveLength(1);
    }
  });

  it('searches the sorted rows of an indexed file in place, and indexes a file written before the index at its next full save', async () => {
    const first = await cacheWithImages(400);
    await first.save();
    const file = join(temp.path, CACHE_FILE);
    const [base] = readCacheDocuments(await readFile(file))!.documents as [{ featureRows?: [number, number] }];
    expect(base.featureRows).toHaveLength(2);
    const decode = vi.spyOn(JSON, 'parse');
    const cache = FeatureCache.lookingUp(temp.path, 'v1');
    try {
      for (const i of [0, 1, 199, 200, 398, 399]) expect(plain(cache.featuresOf(sha(i)))).toEqual(features(i));
      for (const i of [400, 10_000]) expect(cache.featuresOf(sha(i))).toBeUndefined();
      // Only the head and the rows found were parsed.
      expect(decode.mock.calls.every(([text]) => String(text).length < 250)).toBe(true);
    } finally {
      decode.mockRestore();
    }
    cache.setFeatures(sha(400), features(400));
    await cache.save({ prune: false });
    // The row appended in a delta is found there; a row damaged in place fails its checksum and the file is parsed (the image analysed again).
    expect(plain(FeatureCache.lookingUp(temp.path, 'v1').featuresOf(sha(400)))).toEqual(features(400));
    const bytes = await readFile(file);
    const row = bytes.indexOf(`["${sha(250)}","png","`);
    bytes.write('9', bytes.indexOf(',260,', row) + 1, 'latin1');
    await writeFile(file, bytes);
    expect(FeatureCache.lookingUp(temp.path, 'v1').featuresOf(sha(250))).toBeUndefined();
    expect(plain(FeatureCache.lookingUp(temp.path, 'v1').featuresOf(sha(251)))).toEqual(features(251));

    // A file whose first document has no index: searched whole, and rewritten with one by the next save that parses it.
    const [{ featureRows: _, ...unindexed }, delta] = readCacheDocuments(await readFile(file))!.documents as [Record<string, unknown>, Record<string, unknown>];
    await writeFile(file, frameDocument({ ...unindexed, thumbs: delta.thumbs }, true));
    expect(plain(FeatureCache.lookingUp(temp.path, 'v1').featuresOf(sha(7)))).toEqual(features(7));
    const full = await FeatureCache.load(temp.path, 'v1');
    useImages(full, 3);
    full.setFeatures(sha(401), features(401));
    await full.save();
    const documents = readCacheDocuments(await readFile(file))!.documents as { featureRows?: unknown }[];
    expect([documents.length, documents[0]!.featureRows]).toEqual([1, expect.any(Array)]);
    expect(plain(FeatureCache.lookingUp(temp.path, 'v1').featuresOf(sha(401)))).toEqual(features(401));
  });

  it('finds features appended in a delta, and none once a later delta dropped them', async () => {
    const first = await cacheWithImages(10);
    await first.save({ now: 0 });
    const second = await FeatureCache.load(temp.path, 'v1');
    useImages(second, 9);
    second.setFeatures(sha(20), features(20));
    // Image 9 retired now, dropped by a save 31 days later (both deltas).
    await second.save({ now: 0 });
    const third = await FeatureCache.load(temp.path, 'v1');
    useImages(third, 9);
    third.featuresOf(sha(20));
    await third.save({ now: 31 * 24 * 60 * 60 * 1000 });
    expect(readCacheDocuments(await readFile(join(temp.path, CACHE_FILE)))!.documents).toHaveLength(3);
    const decode = vi.spyOn(JSON, 'parse');
    const cache = FeatureCache.lookingUp(temp.path, 'v1');
    try {
      expect(plain(cache.featuresOf(sha(20)))).toEqual(features(20));
      // Named again by the later deltas (retired, then dropped): their drop lists read, the file still unparsed.
      expect(cache.featuresOf(sha(9))).toBeUndefined();
      expect(plain(cache.featuresOf(sha(3)))).toEqual(features(3));
      expect(decode.mock.calls.every(([text]) => String(text).length < 200)).toBe(true);
    } finally {
      decode.mockRestore();
    }
    // A feature retired by a later delta but not dropped is still found.
    const fourth = await FeatureCache.load(temp.path, 'v1');
    useImages(fourth, 5);
    await fourth.save({ now: 31 * 24 * 60 * 60 * 1000 });
    expect(plain(FeatureCache.lookingUp(temp.path, 'v1').featuresOf(sha(7)))).toEqual(features(7));
  });
});
