import { describe, expect, it } from 'vitest';
import { chunkEnds, chunkHash, contentChunks, cutChunks, recutChunks } from './content-chunks.js';
import { seededRandom } from './seeded-random.js';

const ids = (n: number, salt = ''): string[] => Array.from({ length: n }, (_, i) => `${salt}id-${i.toString(16).padStart(6, '0')}`);
const chunkKeys = (keys: string[], mean: number, max: number): string[][] => contentChunks(keys, (k) => k, { mean, max });

describe('contentChunks', () => {
  it('pins the hash, so chunks are the same on every machine and in every language', () => {
    // Values from an independent implementation (FNV-1a 32 + fmix32 in Python).
    expect([chunkHash(''), chunkHash('a'), chunkHash('3f2b8c1e-9a4d-4e6b-8c2d-1a2b3c4d5e6f')]).toEqual([2872998923, 444641715, 2229613968]);
  });

  it('cuts every item once, in order, with chunks near the mean and never over the max', () => {
    const keys = ids(20_000);
    const chunks = chunkKeys(keys, 25, 100);
    expect(chunks.flat()).toEqual(keys);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(100);
    const mean = keys.length / chunks.length;
    expect(mean).toBeGreaterThan(18);
    expect(mean).toBeLessThan(33);
  });

  it('changes only the chunk an insert, a removal or an edit falls in, and at most one neighbour', () => {
    const keys = ids(5_000);
    const before = chunkKeys(keys, 25, 100).map((c) => c.join());
    const changed = (after: string[][]): number => {
      const kept = new Set(before);
      return after.map((c) => c.join()).filter((c) => !kept.has(c)).length;
    };
    for (const at of [0, 17, 2_500, 4_999]) {
      const inserted = [...keys.slice(0, at), 'new-key', ...keys.slice(at)];
      expect(changed(chunkKeys(inserted, 25, 100))).toBeLessThanOrEqual(2);
      const removed = keys.filter((_, i) => i !== at);
      expect(changed(chunkKeys(removed, 25, 100))).toBeLessThanOrEqual(2);
    }
    const appended = [...keys, ...ids(3, 'z')];
    expect(changed(chunkKeys(appended, 25, 100))).toBeLessThanOrEqual(2);
  });

  it('cuts a run without a boundary at the max, and gives no chunk for no items', () => {
    const noBoundary = ids(5_000).filter((k) => chunkHash(k) % 1_000_000 !== 0);
    expect(chunkEnds(noBoundary.slice(0, 250), { mean: 1_000_000, max: 100 })).toEqual([100, 200, 250]);
    expect(chunkEnds([], { mean: 25, max: 100 })).toEqual([]);
    expect(() => chunkEnds(['a'], { mean: 0, max: 1 })).toThrow(/positive integers/);
  });

  it('cuts the open last chunk into tail pieces, an append rewriting only the last, and folds them into one chunk once a boundary closes it', () => {
    const shape = { mean: 100, max: 400, tail: { mean: 5, max: 10 } };
    const keys = ids(3_000);
    const lastBoundary = keys.findLastIndex((k) => chunkHash(k) % 100 === 0);
    // Stop short of the next boundary: the items after the last one are an open chunk, cut in pieces.
    const open = keys.slice(0, lastBoundary + 1 + 57);
    const ends = chunkEnds(open, shape);
    const whole = chunkEnds(open, { mean: 100, max: 400 });
    expect(ends.slice(0, whole.length - 1)).toEqual(whole.slice(0, -1));
    const pieces = ends.slice(whole.length - 1);
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.every((end, i) => end - (ends[whole.length - 2 + i] ?? 0) <= 10)).toBe(true);
    // An append keeps every piece but the last.
    const appended = chunkEnds([...open, 'appended'], shape);
    expect(appended.slice(0, ends.length - 1)).toEqual(ends.slice(0, -1));
    // The next boundary closes the chunk: one chunk again, as without a tail.
    const closer = ids(100_000, 'c').find((k) => chunkHash(k) % 100 === 0)!;
    expect(chunkEnds([...open, closer], shape)).toEqual(chunkEnds([...open, closer], { mean: 100, max: 400 }));
  });

  it('recuts a changed list from its previous cut exactly as a full cut, naming the chunks made of the same items', () => {
    const random = seededRandom(38);
    const pick = (n: number) => Math.floor(random() * n);
    for (const shape of [{ mean: 5, max: 12 }, { mean: 7, max: 9, tail: { mean: 2, max: 3 } }, { mean: 1000, max: 6 }]) {
      for (let round = 0; round < 80; round++) {
        const before = ids(pick(120), `r${round}-`);
        const cut = cutChunks(before, shape);
        const starts = [0, ...cut.ends.slice(0, -1)];
        const saved = { firsts: starts.map((start) => before[start]!), counts: cut.ends.map((end, j) => end - starts[j]!), closed: cut.closed };
        // Adds, removals, edits and moves, a few of each; moved and edited items keep their key, so they are marked dirty.
        const after: { key: string; dirty: boolean }[] = before.map((key) => ({ key, dirty: false }));
        for (let change = 1 + pick(4); change > 0; change--) {
          const kind = pick(4);
          if (kind === 0 || after.length === 0) after.splice(pick(after.length + 1), 0, { key: `new-${round}-${change}-${pick(1e9)}`, dirty: true });
          else if (kind === 1) after.splice(pick(after.length), 1);
          else if (kind === 2) after[pick(after.length)]!.dirty = true;
          else {
            const [moved] = after.splice(pick(after.length), 1);
            after.splice(pick(after.length + 1), 0, { ...moved!, dirty: true });
          }
        }
        const keys = after.map((item) => item.key);
        const dirty = after.flatMap((item, i) => (item.dirty ? [i] : []));
        const recut = recutChunks(keys, shape, saved, dirty);
        expect(recut.ends).toEqual(chunkEnds(keys, shape));
        expect(recut.closed).toBe(cutChunks(keys, shape).closed);
        recut.same.forEach((k, j) => {
          if (k < 0) return;
          const start = j === 0 ? 0 : recut.ends[j - 1]!;
          expect(keys.slice(start, recut.ends[j])).toEqual(before.slice(starts[k], cut.ends[k]));
          expect(dirty.some((i) => i >= start && i < recut.ends[j]!)).toBe(false);
        });
      }
    }
  });

  it('takes the chunks a change does not reach from the previous cut, not scanning them again', () => {
    const keys = ids(20_000);
    const shape = { mean: 25, max: 100 };
    const cut = cutChunks(keys, shape);
    const starts = [0, ...cut.ends.slice(0, -1)];
    const saved = { firsts: starts.map((start) => keys[start]!), counts: cut.ends.map((end, j) => end - starts[j]!), closed: cut.closed };
    const inserted = [...keys.slice(0, 10_000), 'new-key', ...keys.slice(10_000)];
    const recut = recutChunks(inserted, shape, saved, [10_000]);
    expect(recut.ends).toEqual(chunkEnds(inserted, shape));
    expect(recut.same.filter((k) => k < 0).length).toBeLessThanOrEqual(2);
  });
});
