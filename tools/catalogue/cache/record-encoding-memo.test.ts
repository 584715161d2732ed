import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileCatalogue } from '../../../functions/core/catalogue.js';
import type { PepeRecord } from '../../../functions/core/record.js';
import { FIXTURE_URLS } from '../../testing/fixture-catalogue.js';
import { sha256Of } from '../../shared/manifest.js';
import { makeTempDir, type TempDir } from '../../testing/temp-dir.js';
import { memoizedRecordEncoding } from './record-encoding-memo.js';
import { memoizedSearchIndex } from './search-index-memo.js';
import { memoizedSimilarLists } from './similar-lists-memo.js';

const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
// Every seventh description holds what a chunk escapes (a quote, a backquote, a backslash, text outside ASCII).
const record = (n: number, description: string | null = n % 7 === 0 ? `it's a \`smug\` frog \\ number ${n % 5}, très chic` : `a smug frog number ${n % 5} with a hat`): PepeRecord => ({
  id: uuid(n),
  file_ext: '.png',
  file_size: 1000 + n,
  tags: ['frog', `tag${n % 3}`],
  description,
  phash: 'f0f0f0f0f0f0f0f0',
  created_at: new Date(Date.UTC(2024, 0, 1) + n * 60_000).toISOString(),
  updated_at: new Date(Date.UTC(2024, 0, 1) + n * 60_000).toISOString(),
  width: 64,
  height: 64,
  blurhash: 'LEHV6nWB2yk8pyo0adR*.7kCMdnj',
  thumbnails: [],
  artist: null,
  source_url: null,
  license: null,
  animated: false,
});
const records = (n: number, from = 0) => Array.from({ length: n }, (_, i) => record(from + i));
// Distinct phashes, a few not 16 hex digits (stored as missing), so a wrongly spliced piece of them shows.
const hashed = (n: number): PepeRecord => ({ ...record(n), phash: n % 37 === 5 ? 'not a phash' : (Math.imul(n + 1, 2654435761) >>> 0).toString(16).padStart(8, '0').repeat(2) });

let temp: TempDir;
beforeEach(async () => {
  temp = await makeTempDir('pepe-encoding-memo-');
});
afterEach(() => temp.cleanup());

/** One build's use of the memo: compile `list` with it, save; checks the data against a compile without it; returns what it did. */
async function compileOnce(list: PepeRecord[], context = 'context-1') {
  const memo = await memoizedRecordEncoding(temp.path, context, new Map(list.map((r) => [r.id, sha256Of(JSON.stringify(r))])));
  const data = compileCatalogue(list, FIXTURE_URLS, { encodeRecords: memo.encode, reuse: memo.reuse });
  await memo.save();
  const plain = compileCatalogue(list, FIXTURE_URLS);
  expect(data.pieces()).toEqual(plain.pieces());
  expect(data.version).toBe(plain.version);
  return memo.run();
}

describe('the encoded records kept in the build cache', () => {
  it('encodes only new or changed records while the dictionary stays, and saves what it encoded', async () => {
    const first = records(40);
    expect(await compileOnce(first)).toEqual({ reused: 0, encoded: 40 });
    expect(await compileOnce([...first, record(40)])).toEqual({ reused: 40, encoded: 1 });
    const edited = [...first, record(40)].map((r, i) => (i === 7 ? { ...r, file_size: 1 } : r));
    expect(await compileOnce(edited)).toEqual({ reused: 40, encoded: 1 });
    expect(await compileOnce(edited)).toEqual({ reused: 41, encoded: 0 });
  });

  it('encodes everything again when the dictionary changed', async () => {
    await compileOnce(records(40));
    // Twenty records with new words: new dictionary pieces, so every code may have moved.
    const worded = Array.from({ length: 20 }, (_, i) => record(40 + i, 'ribbiting marshland chorus'));
    expect(await compileOnce([...records(40), ...worded])).toEqual({ reused: 0, encoded: 60 });
  });

  it('is not used with another context (URLs, generator code)', async () => {
    await compileOnce(records(20), 'context-1');
    expect(await compileOnce(records(20), 'context-2')).toEqual({ reused: 0, encoded: 20 });
  });

  it('ignores a damaged or foreign file and replaces it', async () => {
    const file = join(temp.path, 'encoded-records.json');
    await compileOnce(records(20));
    const saved = await readFile(file, 'utf8');
    await writeFile(file, saved.slice(0, saved.length / 2));
    expect(await compileOnce(records(20))).toEqual({ reused: 0, encoded: 20 });
    // A JSON file of the memo's shape, not framed as the cache's log: another tool's, read as none.
    await writeFile(file, JSON.stringify({ context: 'context', dictionary: '', digests: [], encoded: [] }));
    expect(await compileOnce(records(20))).toEqual({ reused: 0, encoded: 20 });
    expect(await compileOnce(records(20))).toEqual({ reused: 20, encoded: 0 });
  });

  it('saves a change by appending what changed to the file, and reads it back; a torn delta reads as none', async () => {
    const file = join(temp.path, 'encoded-records.json');
    // Two chunks: an add and a removal of the newest record change the last one alone.
    await compileOnce(records(300));
    const full = await readFile(file);
    expect(await compileOnce(records(301))).toEqual({ reused: 300, encoded: 1 });
    expect(await compileOnce(records(300))).toEqual({ reused: 300, encoded: 0 });
    const logged = await readFile(file);
    // The full document is kept as it was; two small deltas follow it (each the last chunk and the phashes' one piece, whole).
    expect(logged.subarray(0, full.length)).toEqual(full);
    expect(logged.length - full.length).toBeLessThan(full.length / 3);
    expect(await compileOnce(records(300))).toEqual({ reused: 300, encoded: 0 });
    await writeFile(file, logged.subarray(0, logged.length - 3));
    expect(await compileOnce(records(301))).toEqual({ reused: 0, encoded: 301 });
  }, 30_000);

  it('compiles what a full compile does over random changes, taking the chunks, phash pieces, postings and similar lists no change touched, lined up by the change or by digest', async () => {
    let seed = 37;
    const random = (below: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % below;
    let list = Array.from({ length: 400 }, (_, n) => hashed(n));
    let next = 400;
    await compileOnce(list);
    const kept: number[] = [];
    const keptHashes: number[] = [];
    // Small pieces: the phashes take 14 pieces of 30 records.
    const maxPiece = 320;
    let newDictionaries = 0;
    // The last round's digests and their sum, which the memos line up by (a wrong sum now and then: lined up by digest).
    let before: { digests: Map<string, string>; sum?: string } = { digests: new Map() };
    for (let round = 0; round < 20; round++) {
      const sorted = [...list].sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
      const change = random(7);
      if (change === 0) list = [...list, hashed(next++)]; // the newest
      else if (change === 1) list = [...list, { ...hashed(next++), created_at: sorted[random(sorted.length)]!.created_at }]; // back-dated
      else if (change === 2) list = list.filter((r) => r !== sorted[random(sorted.length)]);
      else if (change === 3) list = list.filter((r) => r !== sorted[255]); // the last record of the first chunk
      else if (change === 6) list = list.filter((r) => r !== sorted[sorted.length - 1]); // the last record of the last chunk
      else if (change === 4) list = list.map((r) => (r === sorted[random(sorted.length)] ? { ...r, tags: [...(r.tags ?? []), 'edited'] } : r));
      // New words often enough to enter the dictionary: every encoding may change.
      else list = list.map((r) => (r === sorted[random(sorted.length)] ? { ...r, description: `ribbiting marshland chorus ${round} `.repeat(40) } : r));
      const digests = new Map(list.map((r) => [r.id, sha256Of(JSON.stringify(r))]));
      const sum = sha256Of([...digests.values()].sort().join(' '));
      const changed = new Set([...digests].filter(([id, digest]) => before.digests.get(id) !== digest).map(([id]) => id));
      const lineUp = { before: round % 5 === 4 ? 'another build' : before.sum, after: sum, changed };
      before = { digests, sum };
      // With the other memos of a build's compile: the search index and the similar lists are spliced too.
      const [memo, searchIndex, similar] = await Promise.all([memoizedRecordEncoding(temp.path, 'context-1', digests, lineUp), memoizedSearchIndex(temp.path, 'context-1', digests, lineUp), memoizedSimilarLists(temp.path, 'context-1')]);
      const data = compileCatalogue(list, FIXTURE_URLS, { encodeRecords: memo.encode, reuse: memo.reuse, searchIndex: searchIndex.build, similarLists: similar.make, similarPieces: similar.pieces, maxPiece });
      await Promise.all([memo.save(), searchIndex.save(), similar.save()]);
      const plain = compileCatalogue(list, FIXTURE_URLS, { maxPiece });
      expect(data.pieces()).toEqual(plain.pieces());
      expect(data.hashes).toEqual(plain.hashes);
      expect(data.version).toBe(plain.version);
      if (round > 0) expect(searchIndex.run()?.path).not.toBe('rebuilt');
      kept.push(memo.keptChunks());
      keptHashes.push(memo.keptHashPieces());
      if (memo.run()?.reused === 0) newDictionaries++;
    }
    // A change leaves most chunks as they were; some changes brought a new dictionary (all encoded again).
    expect(kept.filter((count) => count > 0).length).toBeGreaterThan(5);
    expect(keptHashes.filter((count) => count > 0).length).toBeGreaterThan(5);
    // Some rounds remade some phash pieces and kept others.
    expect(keptHashes.some((count) => count > 0 && count < Math.ceil(list.length / 30))).toBe(true);
    expect(newDictionaries).toBeGreaterThan(0);
  }, 60_000);

  it('writes nothing when every record was reused', async () => {
    const file = join(temp.path, 'encoded-records.json');
    await compileOnce(records(20));
    const marked = await stat(file);
    expect(await compileOnce(records(20))).toEqual({ reused: 20, encoded: 0 });
    expect(await stat(file)).toMatchObject({ ino: marked.ino, mtimeMs: marked.mtimeMs, size: marked.size });
  });
});
