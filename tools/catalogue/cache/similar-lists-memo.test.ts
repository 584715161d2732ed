import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compileCatalogue, similarLists } from '../../../functions/core/catalogue.js';
import { FIXTURE_URLS } from '../../testing/fixture-catalogue.js';
import { compareRecords, type PepeRecord } from '../../../functions/core/record.js';
import { testId, testRecords } from '../../testing/test-catalogue.js';
import { makeTempDir, type TempDir } from '../../testing/temp-dir.js';
import { memoizedSimilarLists } from './similar-lists-memo.js';

let temp: TempDir;
beforeEach(async () => {
  temp = await makeTempDir('pepe-similar-memo-');
});
afterEach(() => temp.cleanup());

/** Records in rank order, their phashes a few bits from one another: every list is full. */
const near = (n: number, from = 0): PepeRecord[] =>
  testRecords(n + from)
    .slice(from)
    .map((record, i) => ({ ...record, id: testId(from + i), phash: (0x0f0f_0f0f_0f0f_0f0fn ^ BigInt((from + i) % 64)).toString(16).padStart(16, '0') }))
    .sort(compareRecords);

/** One build's use of the memo: make the lists of `records`, save them; returns what it did. */
async function listsOnce(records: PepeRecord[], context = 'context-1') {
  const memo = await memoizedSimilarLists(temp.path, context);
  expect(memo.make(records)).toEqual(similarLists(records));
  await memo.save();
  return memo.run();
}

describe('the similar lists kept in the build cache', () => {
  it('follows a few added, removed or rehashed records from the last build, and searches whole otherwise', async () => {
    const first = near(40);
    expect(await listsOnce(first)).toBe('searched');
    const added = [...first, ...near(2, 40)].sort(compareRecords);
    expect(await listsOnce(added)).toBe('updated');
    expect(await listsOnce(added.filter((_, i) => i !== 5))).toBe('updated');
    expect(await listsOnce(added.map((r, i) => (i === 3 ? { ...r, phash: 'ffffffffffffffff' } : r)))).toBe('updated');
    expect(await listsOnce(near(100, 200))).toBe('searched');
  });

  it('searches whole for other code or URLs, and when its file is damaged', async () => {
    await listsOnce(near(20));
    expect(await listsOnce(near(20), 'context-2')).toBe('searched');
    await writeFile(join(temp.path, 'similar-lists.json'), '{"context":"context-2","ids":[1],"phashes":[],"lists":[]}');
    expect(await listsOnce(near(20), 'context-2')).toBe('searched');
  });

  it('packs what a full compile packs, taking the pieces of the lists a change left in place', async () => {
    // Small pieces: the offsets and entries take many pieces each.
    const maxPiece = 24;
    const compileOnce = async (records: PepeRecord[]) => {
      const memo = await memoizedSimilarLists(temp.path, 'context-1');
      const data = compileCatalogue(records, FIXTURE_URLS, { similarLists: memo.make, similarPieces: memo.pieces, maxPiece });
      await memo.save();
      const plain = compileCatalogue(records, FIXTURE_URLS, { maxPiece });
      expect(data.pieces()).toEqual(plain.pieces());
      expect(data.similar).toEqual(plain.similar);
      return memo.pieces.sameUpTo();
    };
    // Far apart but for a few look-alikes, so most lists are empty and an add at the end leaves them.
    const far = (n: number, from = 0) => near(n, from).map((r, i) => ((from + i) % 4 === 0 ? r : { ...r, phash: (BigInt(from + i + 1) * 0x9e37_79b9_7f4a_7c15n).toString(16).slice(-16).padStart(16, '0') }));
    const first = far(60);
    expect(await compileOnce(first)).toBe(0);
    // Saved as the pieces alone, from which the next build reads its lists back.
    expect(await readFile(join(temp.path, 'similar-lists.json'), 'utf8')).not.toContain('"lists"');
    // The newest, like no other: every list stays, the new one is empty.
    const added = [...first, { ...far(1, 61)[0]!, created_at: '2030-01-01T00:00:00.000Z' }];
    expect(await compileOnce(added)).toBe(60);
    expect(await compileOnce(first)).toBe(60);
    // Rehashed, removed mid-list, all new: lists of other ranks change, and the packing still matches.
    await compileOnce(first.map((r, i) => (i === 40 ? { ...r, phash: 'ffffffffffffffff' } : r)));
    await compileOnce(first.filter((_, i) => i !== 30));
    expect(await compileOnce(near(70, 100))).toBe(0);
  });
});
