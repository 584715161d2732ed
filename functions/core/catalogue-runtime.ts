/**
 * The served side of `CatalogueData`: record JSON by rank, id → rank lookup and search,
 * each prepared on first use so a cold start only pays for what its first request needs.
 */
import type { CatalogueData } from './catalogue-data.js';
import { recordComposer } from './record-codec.js';
import { loadSearchIndex, type SearchField, type SearchIndex } from './search/search-index.js';


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
  if (data.format !== 1) throw new Error(`catalogue data format ${String(data.format)} is not supported; rebuild with this version of pepe`);
  const count = data.count;
  // split() keeps slices of the one big literal: no copies, no JSON parsing.
  const lines = count === 0 ? [] : data.records.split('\n');
  let ranks: Map<string, number> | undefined;
  let index: SearchIndex | undefined;
  const compose = recordComposer(data.urls.baseUrl, data.urls.cdnUrl);
  if (lines.length !== count) throw new Error(`catalogue data holds ${lines.length} records but says ${count}`);

  const id = (rank: number): string => lines[rank]!.slice(0, 36);
  const searchIndex = (): SearchIndex => (index ??= loadSearchIndex(data.searchIndex));
  return {
    count,
    data,
    jsonA: (rank) => compose.jsonA(lines[rank]!),
    jsonB: (rank) => compose.jsonB(lines[rank]!),
    id,
    rankOf(wanted) {
      if (!ranks) {
        ranks = new Map();
        for (let rank = 0; rank < count; rank++) ranks.set(id(rank), rank);
      }
      return ranks.get(wanted) ?? -1;
    },
    match: (query, field) => searchIndex().match(query, field),
    matchByRelevance: (query, field) => searchIndex().matchByRelevance(query, field),
  };
}
