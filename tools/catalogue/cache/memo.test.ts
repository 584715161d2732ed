import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, type TempDir } from '../../testing/temp-dir.js';
import { cacheMemo, matchedIndexes } from './memo.js';

let temp: TempDir;
beforeEach(async () => {
  temp = await makeTempDir('pepe-memo-');
});
afterEach(() => temp.cleanup());

type Value = { s: string; a: string[]; l: number[][]; n: number };
const isValue = (value: unknown): value is Value => typeof value === 'object' && value !== null;

/** A seeded generator, so that a failing run can be replayed. */
function random(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % n;
  };
}

describe('a memo saved by deltas', () => {
  it('reads back every value saved, over a run of random edits of its strings, lists and numbers', async () => {
    const memo = cacheMemo('memo.json', isValue, undefined, { deltas: true });
    const rnd = random(35);
    const text = (n: number) => Array.from({ length: n }, () => 'abcdef'[rnd(6)]).join('');
    let value: Value = { s: text(20_000), a: Array.from({ length: 3000 }, () => text(3)), l: Array.from({ length: 300 }, () => [rnd(5), rnd(5)]), n: 1 };
    await memo.save(temp.path, value);
    let appended = 0;
    for (let round = 0; round < 200; round++) {
      const loaded = await memo.load(temp.path);
      expect(loaded, `round ${round}`).toEqual(value);
      const next = structuredClone(value);
      const at = rnd(next.s.length);
      next.s = next.s.slice(0, at) + text(rnd(50)) + next.s.slice(at + rnd(50));
      next.a.splice(rnd(next.a.length), rnd(3), ...Array.from({ length: rnd(3) }, () => text(3)));
      if (rnd(2) === 1) next.l[rnd(next.l.length)] = [rnd(5)];
      if (rnd(3) === 0) next.l.push([rnd(5)]);
      if (rnd(5) === 0) next.l.splice(rnd(next.l.length), 1);
      if (rnd(4) === 0) next.n++;
      if (rnd(20) === 0) next.s = text(rnd(9000) + 1);
      const before = (await readFile(join(temp.path, 'memo.json'))).length;
      await memo.save(temp.path, next, loaded);
      if ((await readFile(join(temp.path, 'memo.json'))).length > before) appended++;
      value = next;
    }
    // Most saves appended a small delta; some rewrote the file once the deltas reached half of it.
    expect(appended).toBeGreaterThan(100);
  }, 120_000);

  it('rewrites the file whole when it changed since it was read', async () => {
    const memo = cacheMemo('memo.json', isValue, undefined, { deltas: true });
    await memo.save(temp.path, { s: 'one', a: [], l: [], n: 1 });
    const loaded = await memo.load(temp.path);
    const other = cacheMemo('memo.json', isValue, undefined, { deltas: true });
    await other.save(temp.path, { s: 'two', a: ['x'], l: [], n: 2 });
    await memo.save(temp.path, { s: 'three', a: [], l: [], n: 3 }, loaded);
    expect(await memo.load(temp.path)).toEqual({ s: 'three', a: [], l: [], n: 3 });
    // Plain JSON in its place (another tool's file) reads as none.
    await writeFile(join(temp.path, 'memo.json'), JSON.stringify({ s: 'three', a: [], l: [], n: 3 }));
    expect(await memo.load(temp.path)).toBeNull();
  });
});

describe('a memo\'s first document', () => {
  it('keeps long ASCII texts and lists of them raw, reads back any other value as JSON, and reads a damaged raw frame as none', async () => {
    const memo = cacheMemo('memo.json', isValue, undefined, { deltas: true });
    const digests = Array.from({ length: 100 }, (_, i) => i.toString(16).padStart(64, '0'));
    const value = { s: 'a\\b"c'.repeat(200), a: digests, l: [[1, 2]], n: 3, mixed: ['x'.repeat(40), ...Array.from({ length: 40 }, (_, i) => 'y'.repeat(i))], wide: ['é'.repeat(600), ...Array.from({ length: 40 }, () => 'ü')], empty: Array.from({ length: 40 }, () => ''), deep: [{ t: 'z'.repeat(700) }] };
    await memo.save(temp.path, value as Value);
    expect(await memo.load(temp.path)).toEqual(value);
    const bytes = await readFile(join(temp.path, 'memo.json'));
    // Neither the digests nor the escaped text went through JSON.
    expect(bytes.includes(`"${digests[1]}"`)).toBe(false);
    expect(bytes.includes(digests.join(''))).toBe(true);
    expect(bytes.includes('a\\b"c'.repeat(200))).toBe(true);
    // The raw frame cut short, though framed as whole: its texts fall out of bounds.
    const head = bytes.readUInt32LE(11);
    const rawAt = 11 + 4 + head;
    const cut = Buffer.concat([bytes.subarray(0, rawAt), Buffer.alloc(4), bytes.subarray(rawAt + 4, rawAt + 4)]);
    await writeFile(join(temp.path, 'memo.json'), cut);
    expect(await memo.load(temp.path)).toBeNull();
    // The layout before (the value framed as one JSON document) reads as none.
    await writeFile(join(temp.path, 'memo.json'), Buffer.concat([bytes.subarray(0, 11), frame(JSON.stringify(value))]));
    expect(await memo.load(temp.path)).toBeNull();
  });
});

const frame = (text: string): Buffer => {
  const body = Buffer.from(text);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(body.length);
  return Buffer.concat([length, body]);
};

describe('matchedIndexes', () => {
  it('finds each key where a map of every key would, over random inserts, removals, edits and moves', () => {
    const rnd = random(36);
    let next = 0;
    for (let round = 0; round < 300; round++) {
      const before = Array.from({ length: rnd(40) }, () => `k${next++}`);
      const after = [...before];
      for (let change = rnd(4); change > 0; change--) {
        const at = rnd(after.length + 1);
        const kind = rnd(4);
        if (kind === 0) after.splice(at, 0, `k${next++}`);
        else if (kind === 1) after.splice(at, 1);
        else if (kind === 2 && at < after.length) after[at] = `k${next++}`;
        else if (at < after.length) after.splice(rnd(after.length), 0, ...after.splice(at, 1));
      }
      const everyKey = new Map(before.map((key, i) => [key, i]));
      expect([...matchedIndexes(before, after)], `round ${round}`).toEqual(after.map((key) => everyKey.get(key) ?? -1));
    }
  });
});
