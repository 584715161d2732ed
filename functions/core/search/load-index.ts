/**
 * The run-time half of search: wraps the index data that `pepe build` serialised. Kept apart
 * from search-index.ts, which also re-exports the build-time `buildSearchIndex` (minisearch):
 * the function imports this module only, so no bundler has to drop minisearch by tree-shaking.
 * Netlify's bundler keeps every package external (tools/build/netlify-bundle.test.ts), so an
 * import of search-index.ts from the function would make the deployed function load
 * minisearch from node_modules at every cold start.
 */
import { rankByRelevance } from './relevance.js';
import { matchRanks } from './query-engine.js';
import { TermDictionary } from './term-dictionary.js';
import { SEARCH_INDEX_FORMAT, type SearchIndex, type SearchIndexData } from './search-types.js';

/**
 * Wraps serialised index data. Costs nothing until the first query, which reads the sorted
 * term dictionary and the posting offsets (no radix tree: see the README, Search "Design");
 * each posting list is decoded on first use.
 * Throws (a build bug, not a user error) when the data is not an index of this format.
 */
export function loadSearchIndex(data: SearchIndexData): SearchIndex {
  if (data === null || typeof data !== 'object' || data.format !== SEARCH_INDEX_FORMAT) {
    const found = data !== null && typeof data === 'object' ? JSON.stringify((data as { format?: unknown }).format) : typeof data;
    throw new Error(`loadSearchIndex: expected search index format "${SEARCH_INDEX_FORMAT}", got ${found}; rebuild the catalogue with \`pepe build\``);
  }
  let dictionary: TermDictionary | undefined;
  const ready = (): TermDictionary => (dictionary ??= new TermDictionary(data));
  return {
    match: (query, field) => matchRanks(ready(), query, field),
    matchByRelevance: (query, field) => rankByRelevance(ready(), query, field),
  };
}
