import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PHASH_THRESHOLD, findNearDuplicates } from '../dupes/near-duplicates.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import type { AnalysedItem } from './analyse-content.js';
import { dupeItems, nearDuplicatePairs, nearDuplicateProblems } from './near-duplicate-problems.js';
import { cacheFrames } from './cache/cache-log.js';

let temp: TempDir;
beforeEach(async () => {
  temp = await makeTempDir('pepe-dupes-cache-test-');
});
afterEach(() => temp.cleanup());

/** Deterministic pseudo-random bytes (xorshift), so the fixture is the same on every run. */
function noise(seed: number, length: number): Uint8Array {
  let x = seed * 2654435761 || 1;
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const hex = (seed: number) => Array.from(noise(seed + 1000, 8), (b) => b.toString(16).padStart(2, '0')).join('');
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
let thumbReads = 0;
/** `phash` with its lowest `bits` bits flipped: that many bits away. */
const flipBits = (phash: string, bits: number) => (BigInt(`0x${phash}`) ^ ((1n << BigInt(bits)) - 1n)).toString(16).padStart(16, '0');

/** An item whose picture is `picture` (same thumbnail and phash = a near-duplicate of any other item with it). */
function item(n: number, picture: number, options: { distinctFrom?: string[]; phashOf?: number; phash?: string } = {}): AnalysedItem {
  const thumb = noise(picture + 1, 32 * 32 * 3);
  return {
    record: { id: uuid(n), file_ext: '.png', file_size: 1, tags: null, description: null, phash: options.phash ?? hex(options.phashOf ?? picture), created_at: '2020-01-01T00:00:00.000Z', updated_at: '2020-01-01T00:00:00.000Z', width: 64, height: 64, blurhash: 'x', thumbnails: [], artist: null, source_url: null, license: null, animated: false },
    file: `img-${String(n).padStart(3, '0')}.png`,
    abs: `/nowhere/${n}.png`,
    sha256: `sha-${n}-${picture}`,
    get thumb() {
      thumbReads++;
      return thumb;
    },
    texture: noise(picture + 1, 32 * 32),
    animated: false,
    distinctFrom: options.distinctFrom ?? [],
  };
}

describe('near-duplicate pairs from the cache', () => {
  it('updates the cached pairs incrementally to exactly what a full detection finds', async () => {
    // 80 pictures; items 80..85 copy pictures 1..6; items 86..89 share a phash with picture 7 but are different pictures.
    const base = [...Array.from({ length: 80 }, (_, n) => item(n, n)), ...Array.from({ length: 6 }, (_, k) => item(80 + k, k + 1)), ...Array.from({ length: 4 }, (_, k) => item(86 + k, 200 + k, { phashOf: 7 }))];
    const cache = { dir: temp.path, write: true };
    const first = await nearDuplicatePairs(base, cache);
    expect(first).toEqual(findNearDuplicates(dupeItems(base)));
    expect(first).toHaveLength(6);

    // Remove a copy, add a new copy of picture 9, acknowledge one pair, change one image's bytes (new picture).
    const next = base.filter((x) => x.file !== 'img-080.png').map((x) => (x.file === 'img-082.png' ? item(82, 3, { distinctFrom: [uuid(3)] }) : x.file === 'img-010.png' ? item(10, 300) : x));
    next.push(item(90, 9));
    thumbReads = 0;
    const incremental = await nearDuplicatePairs(next, cache);
    const incrementalReads = thumbReads;
    const full = findNearDuplicates(dupeItems(next));
    expect(incremental).toEqual(full);
    expect(incremental.map((p) => [p.a.file, p.b.file])).toContainEqual(['img-009.png', 'img-090.png']);
    expect(incremental).toHaveLength(5);
    // Only the changed items and their phash neighbours were compared.
    expect(incrementalReads).toBeLessThan(10);
  });

  it('a torn or foreign cache file gives the full result and is written again', async () => {
    const cache = { dir: temp.path, write: true };
    const items = Array.from({ length: 20 }, (_, n) => item(n, n % 12));
    await nearDuplicatePairs(items, cache);
    for (const file of ['near-duplicates.json', 'near-duplicates-keys.bin']) {
      const path = join(temp.path, file);
      const bytes = await readFile(path);
      await writeFile(path, bytes.subarray(0, bytes.length >> 1));
      const changed = [...items, item(40, 3)];
      expect(await nearDuplicatePairs(changed, cache), file).toEqual(findNearDuplicates(dupeItems(changed)));
      // The keys file is a cache log: written again whole, every frame of it reads.
      const whole = readFileSync(path);
      if (file === 'near-duplicates-keys.bin') expect(cacheFrames(whole)?.validBytes, file).toBe(whole.length);
      else expect(() => JSON.parse(whole.toString('utf8')), file).not.toThrow();
      await nearDuplicatePairs(items, cache);
    }
  });

  it('lines the items up with the packed keys when no change build names them, over a run of changes', async () => {
    const cache = { dir: temp.path, write: true };
    let items = Array.from({ length: 30 }, (_, n) => item(n, n % 20));
    await nearDuplicatePairs(items, cache);
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % n);
    for (let round = 0; round < 12; round++) {
      const at = rnd(items.length);
      const change = rnd(3);
      // Add a copy of some picture, remove an item, or give one new bytes (another picture).
      if (change === 0) items = [...items.slice(0, at), item(100 + round, rnd(25)), ...items.slice(at)];
      else if (change === 1) items = items.filter((_, k) => k !== at);
      else items = items.map((x, k) => (k === at ? item(Number(x.file.slice(4, 7)), 60 + round) : x));
      const before = thumbReads;
      const pairs = await nearDuplicatePairs(items, cache);
      // Unchanged items' thumbnail keys came from the keys file: a full detection reads every thumbnail (30 or more) for its key alone.
      expect(thumbReads - before, `round ${round}`).toBeLessThan(items.length);
      expect(pairs, `round ${round}`).toEqual(findNearDuplicates(dupeItems(items)));
    }
  }, 60_000);

  it('in a change build compares only the items read, by the packed keys, and finds what a full detection finds', async () => {
    let items = Array.from({ length: 30 }, (_, n) => item(n, n % 20));
    let fingerprint = 'build-0';
    await nearDuplicatePairs(items, { dir: temp.path, write: true, fingerprint });
    let seed = 11;
    const rnd = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31), seed % n);
    const keysFrames = async () => cacheFrames(await readFile(join(temp.path, 'near-duplicates-keys.bin')))!.frames.length;
    const memoKey = async (dir: string) => (JSON.parse(await readFile(join(dir, 'near-duplicates.json'), 'utf8')) as { key: string }).key;
    let frames = 1;
    for (let round = 0; round < 16; round++) {
      const at = rnd(items.length);
      const kind = rnd(4);
      // Add a copy of some picture (a new pair), remove an item (its pairs go), give one new bytes, or read one again unchanged (a tag edit).
      let changed: AnalysedItem[] = [];
      let removed: string[] = [];
      if (kind === 0) items = [...items.slice(0, at), (changed = [item(100 + round, rnd(25))])[0]!, ...items.slice(at)];
      else if (kind === 1) (removed = [items[at]!.file]), (items = items.filter((_, k) => k !== at));
      else if (kind === 2) items = items.map((x, k) => (k === at ? (changed = [item(Number(x.file.slice(4, 7)), 60 + round)])[0]! : x));
      else changed = [items[at]!];
      const before = thumbReads;
      const change = { items: changed, removed, from: fingerprint };
      fingerprint = `build-${round + 1}`;
      const pairs = await nearDuplicatePairs(items, { dir: temp.path, write: true, fingerprint, change });
      // Only the changed items' and their few partners' thumbnails are read (every other key is packed); none for a tag edit.
      expect(thumbReads - before, `round ${round} kind ${kind}`).toBeLessThan(kind === 3 || changed.length === 0 ? 1 : items.length);
      expect(pairs, `round ${round}`).toEqual(findNearDuplicates(dupeItems(items)));
      // A frame per change of the items; a tag edit leaves the key, and the keys, as they were.
      if (kind !== 3) frames++;
      expect(await keysFrames(), `round ${round}`).toBe(frames);
    }
    // The key kept by the changes is the one a full detection of these items computes: `pepe check` trusts it.
    const fresh = join(temp.path, 'fresh');
    await nearDuplicatePairs(items, { dir: fresh, write: true });
    expect(await memoKey(temp.path)).toBe(await memoKey(fresh));
    // A memo another build saved (not the one the change starts from) is not trusted: the result is still exact.
    const stray = [...items, item(300, 3)];
    expect(await nearDuplicatePairs(stray, { dir: temp.path, write: true, fingerprint: 'x', change: { items: [stray.at(-1)!], removed: [], from: 'not-the-last' } })).toEqual(findNearDuplicates(dupeItems(stray)));
  }, 60_000);

  it('a cache written for other items still gives the full result', async () => {
    const cache = { dir: temp.path, write: true };
    await nearDuplicatePairs([item(1, 1), item(2, 1)], cache);
    const other = Array.from({ length: 30 }, (_, n) => item(n + 10, n % 15));
    expect(await nearDuplicatePairs(other, cache)).toEqual(findNearDuplicates(dupeItems(other)));
  });

  it('finds the partner of a changed item at exactly the threshold distance, as a full detection does', async () => {
    const cache = { dir: temp.path, write: true };
    const base = Array.from({ length: 10 }, (_, n) => item(n, n));
    expect(await nearDuplicatePairs(base, cache)).toEqual([]);
    // A new copy of picture 3 whose phash is DEFAULT_PHASH_THRESHOLD bits from the original's: the last distance a candidate may have.
    const next = [...base, item(20, 3, { phash: flipBits(hex(3), DEFAULT_PHASH_THRESHOLD) })];
    const full = findNearDuplicates(dupeItems(next));
    expect(full.map((p) => [p.a.file, p.b.file, p.distance])).toEqual([['img-003.png', 'img-020.png', DEFAULT_PHASH_THRESHOLD]]);
    expect(await nearDuplicatePairs(next, cache)).toEqual(full);
  });

  it('finds the partner of a changed item by its thumbnail key, its phash far off, reading only the changed thumbnails and candidates', async () => {
    const cache = { dir: temp.path, write: true };
    const base = Array.from({ length: 40 }, (_, n) => item(n, n));
    expect(await nearDuplicatePairs(base, cache)).toEqual([]);
    // A new copy of picture 3 whose phash moved 24 bits (as JPEG q40 or a crop can move a cartoon's).
    const next = [...base, item(50, 3, { phash: flipBits(hex(3), 24) })];
    thumbReads = 0;
    const incremental = await nearDuplicatePairs(next, cache);
    expect(thumbReads).toBeLessThan(10);
    const full = findNearDuplicates(dupeItems(next));
    expect(full.map((p) => [p.a.file, p.b.file])).toEqual([['img-003.png', 'img-050.png']]);
    expect(incremental).toEqual(full);
  });

  it('does not build on pairs cached by other detection code', async () => {
    const cache = { dir: temp.path, write: true };
    const items = Array.from({ length: 10 }, (_, n) => item(n, n));
    const pairsPath = join(temp.path, 'near-duplicates.json');
    // A pair between two unchanged items, as a looser detector (an older tools/dupes/) might have cached it.
    const planted = { a: { id: uuid(1), file: 'img-001.png' }, b: { id: uuid(2), file: 'img-002.png' }, distance: 9 };
    const plantCache = async (code?: string) => {
      await nearDuplicatePairs(items, cache);
      const pairs = JSON.parse(await readFile(pairsPath, 'utf8'));
      await writeFile(pairsPath, JSON.stringify({ ...pairs, code: code ?? pairs.code, pairs: [planted] }));
    };
    const next = [...items, item(30, 30)];
    // Same code: the cached verdict on unchanged items is trusted (what makes the next check meaningful).
    await plantCache();
    expect(await nearDuplicatePairs(next, cache)).toEqual([planted]);
    await plantCache('another detector');
    expect(await nearDuplicatePairs(next, cache)).toEqual(findNearDuplicates(dupeItems(next)));
    expect(findNearDuplicates(dupeItems(next))).toEqual([]);
  });
});

describe('near-duplicate problems', () => {
  it('names both files and tells which sidecar the distinct_from goes into', async () => {
    const problems = await nearDuplicateProblems([item(1, 1), item(2, 1)], 'warning');
    expect(problems).toEqual([
      {
        severity: 'warning',
        code: 'near-duplicate',
        file: 'img-001.png',
        message: `looks like the same picture as img-002.png (id ${uuid(2)}, distance 0): remove one of them, or if they are knowingly different pictures add "distinct_from": ["${uuid(2)}"] to img-001.json`,
      },
    ]);
  });
});
