/**
 * The data the function serves, as `compileCatalogue` produces it and the generated
 * module `dist/data/catalogue.mjs` exports it. Only type imports, so the function
 * bundle and `catalogue-module.d.ts` can refer to it cheaply.
 */
import type { SiteUrls } from './record.js';
import type { SearchIndexData } from './search/search-index.js';

export interface CatalogueData {
  format: 3;
  /** Hash of the whole data: changes whenever any answer may change. */
  version: string;
  urls: SiteUrls;
  /** Number of records. */
  count: number;
  /** Records per element of `records` (every chunk is full except the last). */
  chunkSize: number;
  /** Digits of each packed record offset at the start of a chunk. */
  offsetWidth: number;
  /**
   * Every record in rank order (ascending created_at, ties by id), each in the compact
   * form of record-codec.ts (11 fields, the id first), `chunkSize` records per
   * chunk. A chunk = the packed offsets (packed-numbers.ts, `offsetWidth` digits) of its
   * records relative to the end of this header, then the records, separated by TAB, each
   * written with `escapeForSource` (source-text.ts); the offsets count the escaped text, so
   * a record is unescaped alone, never its whole chunk. A function returning the chunks: the
   * runtime reads them from its source text without calling it. Why chunks: V8 copies a
   * string literal of more than 1 MB again and again while scanning it (its literal buffer
   * grows by 1 MB steps), and a request only touches the chunks of the records it returns.
   */
  records: () => readonly string[];
  /** The pieces of text-dictionary.ts that records refer to, separated by TAB. */
  dictionary: string;
  /**
   * Ranks ordered by id, packed (packed-numbers.ts) with the fewest digits that hold `count`:
   * id lookups are a binary search, so no id → rank map is built on a cold start.
   */
  idOrder: string;
  /** The search helper's index data (doc i = rank i): a few long strings, decoded on the first search. */
  searchIndex: SearchIndexData;
  /** The OpenAPI document, exactly as served at /api/openapi.json. */
  openapi: string;
}

/** File extensions by their one-digit code in `records`. */
export const EXT_CODES = ['.png', '.jpg', '.gif', '.webp', '.avif'] as const;

/** Records per chunk: ≈ 37 KB of data module text for typical records, near V8's fastest literal size (32–256 KB; see the README, API, "Data layout, chosen for cold start"). */
export const CHUNK_SIZE = 256;
