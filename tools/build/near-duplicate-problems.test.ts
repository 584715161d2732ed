import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findNearDuplicates } from '../dupes/near-duplicates.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import type { AnalysedItem } from './analyse-content.js';
import { dupeItems, nearDuplicatePairs } from './near-duplicate-problems.js';

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

/** An item whose picture is `picture` (same thumbnail and phash = a near-duplicate of any other item with it). */
function item(n: number, picture: number, options: { distinctFrom?: string[]; phashOf?: number } = {}): AnalysedItem {
  const thumb = noise(picture + 1, 32 * 32 * 3);
  return {
    record: { id: uuid(n), file_ext: '.png', file_size: 1, tags: null, description: null, phash: hex(options.phashOf ?? picture), created_at: '2020-01-01T00:00:00.000Z', updated_at: '2020-01-01T00:00:00.000Z', width: 64, height: 64, blurhash: 'x' },
    file: `img-${String(n).padStart(3, '0')}.png`,
    abs: `/nowhere/${n}.png`,
    sha256: `sha-${n}-${picture}`,
    get thumb() {
      thumbReads++;
      return thumb;
    },
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
    for (const file of ['near-duplicates.json', 'near-duplicates-items.json']) {
      const path = join(temp.path, file);
      const text = await readFile(path, 'utf8');
      await writeFile(path, text.slice(0, text.length >> 1));
      const changed = [...items, item(40, 3)];
      expect(await nearDuplicatePairs(changed, cache), file).toEqual(findNearDuplicates(dupeItems(changed)));
      expect(() => JSON.parse(readFileSync(path, 'utf8')), file).not.toThrow();
      await nearDuplicatePairs(items, cache);
    }
  });

  it('a cache written for other items still gives the full result', async () => {
    const cache = { dir: temp.path, write: true };
    await nearDuplicatePairs([item(1, 1), item(2, 1)], cache);
    const other = Array.from({ length: 30 }, (_, n) => item(n + 10, n % 15));
    expect(await nearDuplicatePairs(other, cache)).toEqual(findNearDuplicates(dupeItems(other)));
  });
});
