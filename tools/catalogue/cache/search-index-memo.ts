/**
 * The last build's search index, kept in the build cache so that the next build indexes only
 * what is new. Docs are in rank order (ascending created_at), so an image added with the
 * newest date (what `pepe add` does) appends one doc: every earlier doc is as it was, and
 * `extendSearchIndex` runs MiniSearch over the new doc alone (~110 ms → ~15 ms at 10k
 * images, see tools/catalogue/README.md). A build whose records changed but whose searchable texts did not
 * (an image replaced, a date fixed after the last rank) reuses the index as it is. Anything
 * else (an edited description, a removed image, an image dated in the past) is indexed
 * from scratch.
 *
 * `search-index.json` holds the index, the number of docs and a hash of those docs' texts
 * in order, and the build context (URLs and generator code, which includes the tokenizer
 * and the lockfile's MiniSearch): it is used only when the context is the same and the
 * hash of the first `docCount` current docs equals the saved one.
 */
import { createHash, type Hash } from 'node:crypto';
import { join } from 'node:path';
import { buildSearchIndex, extendSearchIndex } from '../../../functions/core/search/build-index.js';
import { SEARCH_INDEX_FORMAT, type SearchDoc, type SearchIndexData } from '../../../functions/core/search/search-types.js';
import { readCacheJson } from './cache-files.js';
import { replaceFile } from '../../shared/replace-file.js';
import { makeFolders } from '../../shared/make-folders.js';

const FILE = 'search-index.json';

interface SavedIndex {
  context: string;
  docsHash: string;
  index: SearchIndexData;
}

/** How the index of a build was made: docs indexed by MiniSearch in this build, and from what. */
export interface SearchIndexRun {
  path: 'reused' | 'extended' | 'rebuilt';
  indexedDocs: number;
}

/** One line per doc: its texts as JSON, which cannot hold a raw newline. */
const feed = (hash: Hash, docs: readonly SearchDoc[], from: number, to: number): void => {
  const lines: string[] = [];
  for (let i = from; i < to; i++) lines.push(`${JSON.stringify([docs[i]!.tags, docs[i]!.description])}\n`);
  hash.update(lines.join(''));
};

const isSaved = (value: unknown): value is SavedIndex => {
  const saved = value as SavedIndex | null;
  return typeof saved?.context === 'string' && typeof saved.docsHash === 'string' && saved.index?.format === SEARCH_INDEX_FORMAT && Number.isSafeInteger(saved.index.docCount);
};

async function loadSaved(cacheDir: string, context: string): Promise<SavedIndex | null> {
  // None yet, or damaged (null): built from scratch and saved again.
  const saved = await readCacheJson(join(cacheDir, FILE));
  return isSaved(saved) && saved.context === context ? saved : null;
}

/**
 * The search index builder for one build (`compileCatalogue`'s `searchIndex` option),
 * reading the saved index first. `save()` keeps what it built for the next build. The saved
 * index is only ever used for the very docs it was built from (the hash proves it), so saving
 * it is safe whether or not the build then writes its output.
 */
export async function memoizedSearchIndex(cacheDir: string, context: string) {
  const saved = await loadSaved(cacheDir, context);
  let built: SavedIndex | null = null;
  let run: SearchIndexRun | null = null;
  return {
    build(docs: SearchDoc[]): SearchIndexData {
      const hash = createHash('sha256');
      const known = saved !== null && saved.index.docCount <= docs.length ? saved.index.docCount : 0;
      feed(hash, docs, 0, known);
      const prefixMatches = saved !== null && hash.copy().digest('hex') === saved.docsHash;
      feed(hash, docs, known, docs.length);
      const docsHash = hash.digest('hex');
      let index: SearchIndexData;
      if (prefixMatches && known === docs.length) {
        index = saved.index;
        run = { path: 'reused', indexedDocs: 0 };
      } else if (prefixMatches) {
        index = extendSearchIndex(saved.index, docs);
        run = { path: 'extended', indexedDocs: docs.length - known };
      } else {
        index = buildSearchIndex(docs);
        run = { path: 'rebuilt', indexedDocs: docs.length };
      }
      built = { context, docsHash, index };
      return index;
    },
    /** What `build` did, or null before it ran. */
    run: (): SearchIndexRun | null => run,
    /** Saves the index `build` made, unless it is the saved one; written whole, then renamed into place. */
    async save(): Promise<void> {
      if (built === null || built.docsHash === saved?.docsHash) return;
      await makeFolders(cacheDir);
      await replaceFile(join(cacheDir, FILE), JSON.stringify(built));
    },
  };
}
