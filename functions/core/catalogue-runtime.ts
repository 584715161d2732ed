/**
 * The served side of `CatalogueData`: record JSON by rank, id → rank lookup and search,
 * each prepared on first use so a cold start only pays for what its first request needs.
 * Nothing is decoded up front: a record is sliced out of its chunk through the chunk's
 * packed offsets, an id is found by binary search over the packed id order.
 */
import type { CatalogueData } from './catalogue-data.js';
import { digitsFor, numberAt } from './packed-numbers.js';
import { ID_KEY_LENGTH, idFromKey, idKey, recordComposer } from './record-codec.js';
import { loadSearchIndex } from './search/load-index.js';
import type { SearchField, SearchIndex } from './search/search-types.js';
import { chunkSource, unescapeFromSource } from './source-text.js';
import { dictionaryPieces } from './text-dictionary.js';

export interface Catalogue {
  readonly count: number;
  readonly data: CatalogueData;
  /** Variant A JSON of the record at this rank. */
  jsonA(rank: number): string;
  /** Variant B JSON of the record at this rank. */
  jsonB(rank: number): string;
  id(rank: number): string;
  /** Rank of a lowercase id, or -1. */
  rankOf(id: string): number;
  /** Matching ranks, ascending. */
  match(query: string, field: SearchField): Uint32Array;
  /** Matching ranks, best score first. */
  matchByRelevance(query: string, field: SearchField): Uint32Array;
}

export function openCatalogue(data: CatalogueData): Catalogue {
  if (data.format !== 3) throw new Error(`catalogue data format ${String(data.format)} is not supported; rebuild with this version of pepe`);
  const { count, chunkSize, offsetWidth, idOrder } = data;
  const chunkCount = Math.ceil(count / chunkSize);
  let sources: readonly string[] | undefined;
  /**
   * Chunk c as written in the module (escaped), read from the source text on first use (or,
   * failing that, by calling the function). Never unescaped as a whole: a first answer
   * touches up to 25 chunks, and copying each (≈ 37 KB) cost more than the answer itself.
   */
  const chunkAt = (c: number): string => {
    if (!sources) {
      sources = chunkSource(data.records, chunkCount) ?? data.records();
      if (sources.length !== chunkCount) throw new Error(`catalogue data holds ${sources.length} chunks of ${chunkSize} records but says ${count} records`);
    }
    return sources[c]!;
  };
  const idWidth = digitsFor(count);
  let index: SearchIndex | undefined;
  let composer: ReturnType<typeof recordComposer> | undefined;
  // The dictionary's pieces are located on the first record composed, not at load.
  const compose = () => (composer ??= recordComposer(data.urls.baseUrl, data.urls.cdnUrl, dictionaryPieces(data.dictionary)));

  /** Start of the record in its (escaped) chunk, and its end (exclusive, before the TAB). */
  const bounds = (rank: number): { chunk: string; start: number; end: number } => {
    const c = Math.floor(rank / chunkSize);
    const chunk = chunkAt(c);
    const i = rank - c * chunkSize;
    const records = Math.min(chunkSize, count - c * chunkSize);
    const header = records * offsetWidth;
    const start = header + numberAt(chunk, offsetWidth, i);
    const end = i + 1 < records ? header + numberAt(chunk, offsetWidth, i + 1) - 1 : chunk.length;
    return { chunk, start, end };
  };
  const line = (rank: number): string => {
    const { chunk, start, end } = bounds(rank);
    return unescapeFromSource(chunk.slice(start, end));
  };
  /** The id key (record-codec.ts) of a rank: keys sort like ids, so lookups never decode one. */
  const key = (rank: number): string => {
    const { chunk, start } = bounds(rank);
    return chunk.slice(start, start + ID_KEY_LENGTH);
  };
  const id = (rank: number): string => {
    const { chunk, start } = bounds(rank);
    return idFromKey(chunk, start);
  };
  const searchIndex = (): SearchIndex => (index ??= loadSearchIndex(data.searchIndex));
  return {
    count,
    data,
    jsonA: (rank) => compose().jsonA(line(rank)),
    jsonB: (rank) => compose().jsonB(line(rank)),
    id,
    rankOf(wantedId) {
      const wanted = idKey(wantedId);
      if (wanted === null) return -1;
      let lo = 0;
      let hi = count;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (key(numberAt(idOrder, idWidth, mid)) < wanted) lo = mid + 1;
        else hi = mid;
      }
      const rank = lo < count ? numberAt(idOrder, idWidth, lo) : -1;
      return rank !== -1 && key(rank) === wanted ? rank : -1;
    },
    match: (query, field) => searchIndex().match(query, field),
    matchByRelevance: (query, field) => searchIndex().matchByRelevance(query, field),
  };
}
