/**
 * Full-text search over the catalogue (api-behaviour.md "Search semantics"), runtime
 * neutral (no node:fs): built at `pepe build` time, bundled into the function, loaded
 * lazily at run time. Design notes: readme-parts/search.md.
 */
import { rankByRelevance } from './relevance.js';
import { matchRanks } from './query-engine.js';
import { TermDictionary } from './term-dictionary.js';
import { SEARCH_INDEX_FORMAT, type SearchIndex, type SearchIndexData } from './search-types.js';

export { SEARCH_OPTIONS } from './search-options.js';
export { buildSearchIndex } from './build-index.js';
export { searchWords } from './normalise.js';
export { RELEVANCE } from './relevance.js';
export type { SearchDoc, SearchField, SearchIndex, SearchIndexData } from './search-types.js';

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
