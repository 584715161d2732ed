/**
 * The last build's search index, kept in the build cache so that the next build indexes only
 * the docs that are new or changed. A doc's postings depend on that doc alone, so each doc
 * whose record is unchanged (same digest: build-extras.ts `buildInputs`, which covers its
 * tags and description) keeps its postings under its new rank, whatever was added, removed
 * or moved around it, and MiniSearch runs over the others alone (`updateSearchIndex`). When
 * more than half the docs are new, the index is built from scratch, which costs no more.
 *
 * `search-index.json` holds the index, the digest and id of each doc's record in rank order, the
 * build's digest sum (a memo of the last build lines up by the change: `linedUpByChange`), and
 * the build context (URLs and generator code, which includes the tokenizer and the
 * lockfile's MiniSearch): it is used only when the context is the same.
 */
import { buildSearchIndex, updateSearchIndex } from '../../../functions/core/search/build-index.js';
import { SEARCH_INDEX_FORMAT, type SearchDoc, type SearchIndexData } from '../../../functions/core/search/search-types.js';
import type { PepeRecord } from '../../../functions/core/record.js';
import { cacheMemo, digestsInOrder, hasLineUpFields, type LineUp, linedUpByChange, matchedIndexes } from './memo.js';

interface SavedIndex {
  context: string;
  /** The digest of each indexed doc's record, in rank order. */
  digests: string[];
  /** The record ids in rank order and the build's digest sum (`LineUp`); absent in a memo saved before they were kept. */
  ids?: string[];
  sum?: string;
  index: SearchIndexData;
}

/** How the index of a build was made: docs indexed by MiniSearch in this build, and from what. */
export interface SearchIndexRun {
  path: 'reused' | 'updated' | 'rebuilt';
  indexedDocs: number;
}

const isSaved = (value: unknown): value is SavedIndex => {
  const saved = value as SavedIndex | null;
  return (
    typeof saved?.context === 'string' &&
    Array.isArray(saved.digests) &&
    saved.index?.format === SEARCH_INDEX_FORMAT &&
    saved.index.docCount === saved.digests.length &&
    hasLineUpFields(saved)
  );
};

const SEARCH_INDEX = cacheMemo('search-index.json', isSaved, (saved) => saved.context, { deltas: true });

/** The memo saved for `context`, or null: what `memoizedSearchIndex` starts from. */
export const readSearchIndexMemo = (cacheDir: string, context: string) => SEARCH_INDEX.load(cacheDir, context);

/**
 * The search index builder for one build (`compileCatalogue`'s `searchIndex` option),
 * reading the saved index first. `digests`: record id → digest of the record, for every
 * record of the build. `save()` keeps what it built for the next build. The saved index is
 * only ever used for the very docs it was built from (their digests prove it), so saving it
 * is safe whether or not the build then writes its output.
 */
export async function memoizedSearchIndex(cacheDir: string, context: string, digests: ReadonlyMap<string, string>, lineUp?: LineUp, read = readSearchIndexMemo(cacheDir, context)) {
  const saved = await read;
  let built: SavedIndex | null = null;
  let run: SearchIndexRun | null = null;
  return {
    build(docs: readonly SearchDoc[], records: readonly PepeRecord[]): SearchIndexData {
      const lined = saved === null ? null : linedUpByChange(saved, records, digests, lineUp);
      const recordDigests = lined?.digests ?? digestsInOrder(records, digests, 'memoizedSearchIndex');
      const previousRank = saved === null ? new Int32Array(docs.length).fill(-1) : (lined?.savedAt ?? matchedIndexes(saved.digests, recordDigests));
      // Each saved doc stands for one doc at most (a guard: the ids, hence the digests, are distinct).
      const claimed = new Uint8Array(saved?.digests.length ?? 0);
      let fresh = 0;
      let inPlace = docs.length === saved?.index.docCount;
      for (let rank = 0; rank < previousRank.length; rank++) {
        const before = previousRank[rank]!;
        if (before !== -1 && claimed[before] === 0) claimed[before] = 1;
        else previousRank[rank] = -1;
        if (previousRank[rank] === -1) fresh++;
        if (previousRank[rank] !== rank) inPlace = false;
      }
      let index: SearchIndexData;
      if (saved !== null && fresh === 0 && inPlace) {
        index = saved.index;
        run = { path: 'reused', indexedDocs: 0 };
      } else if (saved !== null && fresh <= docs.length / 2) {
        index = updateSearchIndex(saved.index, docs, previousRank);
        run = { path: 'updated', indexedDocs: fresh };
      } else {
        index = buildSearchIndex(docs);
        run = { path: 'rebuilt', indexedDocs: docs.length };
      }
      built = { context, digests: recordDigests, ids: lined?.ids ?? records.map((record) => record.id), sum: lineUp?.after, index };
      return index;
    },
    /** What `build` did, or null before it ran. */
    run: (): SearchIndexRun | null => run,
    /** Saves the index `build` made, unless it is the saved one. */
    async save(): Promise<void> {
      if (built !== null && (built.index !== saved?.index || saved.sum !== built.sum || saved.ids === undefined)) await SEARCH_INDEX.save(cacheDir, built, saved);
    },
  };
}
