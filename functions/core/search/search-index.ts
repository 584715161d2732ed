/**
 * Full-text search over the catalogue (the specification, "Search"), runtime
 * neutral (no node:fs): built at `pepe build` time, bundled into the function, loaded
 * lazily at run time. Design notes: functions/README.md, "Search".
 */

export { loadSearchIndex } from './load-index.js';
export { SEARCH_OPTIONS } from './search-options.js';
export { buildSearchIndex } from './build-index.js';
export { searchWords } from './normalise.js';
export type { SearchDoc, SearchField, SearchIndex, SearchIndexData } from './search-types.js';
