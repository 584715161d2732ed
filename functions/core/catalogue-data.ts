/**
 * The data the function serves, as `compileCatalogue` produces it and the generated
 * module `dist/data/catalogue.mjs` exports it. Only type imports, so the function
 * bundle and `catalogue-module.d.ts` can refer to it cheaply.
 */
import type { SiteUrls } from './record.js';
import type { SearchIndexData } from './search/search-index.js';

export interface CatalogueData {
  format: 1;
  /** Hash of the whole data: changes whenever any answer may change. */
  version: string;
  urls: SiteUrls;
  /** Number of records. */
  count: number;
  /**
   * Every record in rank order (ascending created_at, ties by id), each in the compact
   * form of record-codec.ts (starting with its id), joined by "\n".
   */
  records: string;
  /** The search helper's index data (doc i = rank i): a few long strings, decoded on the first search. */
  searchIndex: SearchIndexData;
  /** The OpenAPI document, exactly as served at /api/openapi.json. */
  openapi: string;
}

/** File extensions by their one-digit code in `records`. */
export const EXT_CODES = ['.png', '.jpg', '.gif', '.webp', '.avif'] as const;
