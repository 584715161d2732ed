import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildSearchIndex } from '../../../functions/core/search/build-index.js';
import type { SearchDoc } from '../../../functions/core/search/search-types.js';
import type { PepeRecord } from '../../../functions/core/record.js';
import { makeTempDir, type TempDir } from '../../testing/temp-dir.js';
import { memoizedSearchIndex } from './search-index-memo.js';

const docs = (n: number, from = 0): SearchDoc[] =>
  Array.from({ length: n }, (_, i) => ({ tags: (from + i) % 3 === 0 ? null : [`tag${(from + i) % 7}`, 'frog'], description: `a smug frog number ${from + i}` }));

let temp: TempDir;
beforeEach(async () => {
  temp = await makeTempDir('pepe-search-memo-');
});
afterEach(() => temp.cleanup());

/** Records standing for the docs: a doc's digest is its texts, as a record's digest covers them. */
const recordsOf = (list: SearchDoc[]) => list.map((doc) => ({ id: JSON.stringify(doc) }) as PepeRecord);

/** One build's use of the memo: build the index of `list`, save it; returns what it did and the index. */
async function indexOnce(list: SearchDoc[], context = 'context-1') {
  const memo = await memoizedSearchIndex(temp.path, context, new Map(list.map((doc) => [JSON.stringify(doc), JSON.stringify(doc)])));
  const index = memo.build(list, recordsOf(list));
  await memo.save();
  expect(JSON.stringify(index)).toBe(JSON.stringify(buildSearchIndex(list)));
  return memo.run();
}

describe('the search index kept in the build cache', () => {
  it('indexes only appended docs, reuses an index of the same docs, and saves what it built', async () => {
    const first = docs(50);
    expect(await indexOnce(first)).toEqual({ path: 'rebuilt', indexedDocs: 50 });
    const added = [...first, ...docs(2, 50)];
    expect(await indexOnce(added)).toEqual({ path: 'updated', indexedDocs: 2 });
    expect(await indexOnce(added)).toEqual({ path: 'reused', indexedDocs: 0 });
    expect(await indexOnce([...added, ...docs(1, 52)])).toEqual({ path: 'updated', indexedDocs: 1 });
  });

  it('indexes only the edited, removed or inserted docs anywhere in the order', async () => {
    const first = docs(30);
    await indexOnce(first);
    const edited = first.map((doc, i) => (i === 10 ? { ...doc, description: 'an edited description' } : doc));
    expect(await indexOnce([...edited, ...docs(1, 30)])).toEqual({ path: 'updated', indexedDocs: 2 });
    const current = [...edited, ...docs(1, 30)];
    const removed = [...current.slice(0, 3), ...current.slice(4)];
    expect(await indexOnce(removed)).toEqual({ path: 'updated', indexedDocs: 0 });
    const older = [...removed.slice(0, 5), { tags: ['old'], description: 'an image dated in the past' }, ...removed.slice(5)];
    expect(await indexOnce(older)).toEqual({ path: 'updated', indexedDocs: 1 });
  });

  it('indexes everything again when more than half the docs are new', async () => {
    await indexOnce(docs(10));
    expect(await indexOnce([...docs(4), ...docs(7, 100)])).toEqual({ path: 'rebuilt', indexedDocs: 11 });
  });

  it('is not used with another context (URLs, generator code, lockfile)', async () => {
    await indexOnce(docs(20), 'context-1');
    expect(await indexOnce(docs(21), 'context-2')).toEqual({ path: 'rebuilt', indexedDocs: 21 });
  });

  it('ignores a damaged or foreign file and replaces it', async () => {
    const file = join(temp.path, 'search-index.json');
    await indexOnce(docs(20));
    const saved = await readFile(file, 'utf8');
    await writeFile(file, saved.slice(0, saved.length / 2));
    expect(await indexOnce(docs(21))).toEqual({ path: 'rebuilt', indexedDocs: 21 });
    // A JSON file, not framed as the cache's log: read as none.
    await writeFile(file, JSON.stringify({ context: 'context', digests: [], index: { format: 'pepe-search-1', docCount: 0 } }));
    expect(await indexOnce(docs(22))).toEqual({ path: 'rebuilt', indexedDocs: 22 });
    expect(await indexOnce(docs(23))).toEqual({ path: 'updated', indexedDocs: 1 });
  });

  it('writes nothing when it reused the saved index', async () => {
    const file = join(temp.path, 'search-index.json');
    await indexOnce(docs(20));
    const marked = await stat(file);
    expect(await indexOnce(docs(20))).toEqual({ path: 'reused', indexedDocs: 0 });
    expect(await stat(file)).toMatchObject({ ino: marked.ino, mtimeMs: marked.mtimeMs, size: marked.size });
  });
});
