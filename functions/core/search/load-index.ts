/**
 * The run-time half of search: wraps the index data that `pepe build` serialised. Kept apart
 * from search-index.ts, which also re-exports the build-time `buildSearchIndex` (minisearch):
 * the function imports this module only, so no bundler has to drop minisearch by tree-shaking.
 * Netlify's bundler keeps every package external (tools/catalogue/netlify-bundle.test.ts), so an
 * import of search-index.ts from the function would make the deployed function load
 * minisearch from node_modules at every cold start.
 */
import { rankByRelevance } from './relevance.js';
import { matchRanks, resolveKept } from './query-engine.js';
import { TermDictionary, type TextPiece } from './term-dictionary.js';
import { SEARCH_INDEX_FORMAT, type SearchIndex, type SearchIndexData, type StoredSearchIndex } from './search-types.js';

/**
 * Wraps the index as the catalogue stores it (stored-index.ts), `piece(i)` being piece i of
 * the catalogue's texts. Costs nothing until the first query, which reads the sorted term
 * dictionary and the posting offsets (no radix tree: see functions/README.md, "Search"); each
 * posting list is decoded on first use, from the one piece that holds it.
 */
export function openSearchIndex(stored: StoredSearchIndex, piece: TextPiece): SearchIndex {
  let dictionary: TermDictionary | undefined;
  const ready = (): TermDictionary => (dictionary ??= new TermDictionary(stored, piece));
  return {
    match: (query, field, keep) => matchRanks(ready(), query, field, keep ?? null),
    matchBits: (query, field, keep) => resolveKept(ready(), query, field, keep ?? null)?.bits ?? null,
    matchByRelevance: (query, field, keep) => rankByRelevance(ready(), query, field, keep ?? null),
  };
}

/**
 * Wraps serialised index data as `buildSearchIndex` returns it (each field's postings one
 * piece, its offsets unchanged: a position in a piece longer than the postings is the
 * offset itself). Throws (a build bug, not a user error) when the data is not an index of
 * this format.
 */
export function loadSearchIndex(data: SearchIndexData): SearchIndex {
  if (data === null || typeof data !== 'object' || data.format !== SEARCH_INDEX_FORMAT) {
    const found = data !== null && typeof data === 'object' ? JSON.stringify((data as { format?: unknown }).format) : typeof data;
    throw new Error(`loadSearchIndex: expected search index format "${SEARCH_INDEX_FORMAT}", got ${found}; rebuild the catalogue with \`pepe build\``);
  }
  const texts = [data.terms, data.tags.postings, data.tags.offsets, data.description.postings, data.description.offsets];
  const field = (postings: number, { postings: text, offsetWidth }: SearchIndexData['tags']) => ({
    postings,
    pieceSpan: text.length + 1,
    // One piece of offsets however many terms: no index ever reaches the next piece.
    offsets: { first: postings + 1, width: offsetWidth, perPiece: Number.MAX_SAFE_INTEGER },
  });
  return openSearchIndex({ docCount: data.docCount, terms: 0, tags: field(1, data.tags), description: field(3, data.description) }, (i) => texts[i]!);
}
