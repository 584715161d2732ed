/**
 * The data the function serves, as `compileCatalogue` produces it and the generated
 * module `dist/data/catalogue.mjs` exports it. Only type imports, so the function
 * bundle and `catalogue-module.d.ts` can refer to it cheaply.
 */
import type { SiteUrls } from './record.js';
import type { PiecedNumbers } from './packed-numbers.js';
import type { StoredSearchIndex } from './search/search-types.js';

export interface CatalogueData {
  format: 4;
  /** Hash of the whole data: changes whenever any answer may change. */
  version: string;
  urls: SiteUrls;
  /** Number of records. */
  count: number;
  /** Records per chunk (every chunk is full except the last). */
  chunkSize: number;
  /** Digits of each packed record offset at the start of a chunk. */
  offsetWidth: number;
  /**
   * Every text of the data, as pieces each written with `escapeForSource` (source-text.ts),
   * returned by a function the runtime reads from its source text without calling it: V8 only
   * pre-parses a function that is not called, so importing the module copies none of these
   * texts into the heap, and a request touches only the pieces it reads. The fields below
   * point into this list by index.
   *
   * Pieces 0 .. chunks - 1 are the record chunks: every record in rank order (ascending
   * created_at, ties by id), each in the compact form of record-codec.ts (11 fields, the id
   * first), `chunkSize` records per chunk. A chunk = the packed offsets (packed-numbers.ts,
   * `offsetWidth` digits) of its records relative to the end of this header, then the
   * records, separated by TAB; the offsets count the escaped text, so a record is unescaped
   * alone, never its whole chunk. Why chunks (and pieces of at most 64 KB for the long
   * texts): V8 copies a string literal's buffer each time it grows by 1 MB while scanning it,
   * and a request only touches the pieces it needs.
   */
  pieces: () => readonly string[];
  /** Length of each piece as written, so the runtime finds piece i without scanning the ones before it. */
  pieceLengths: readonly number[];
  /** The piece holding the pieces of text-dictionary.ts that records refer to, separated by TAB. */
  dictionary: number;
  /**
   * Ranks ordered by id, packed (packed-numbers.ts) with the fewest digits that hold `count`:
   * id lookups are a binary search, so no id → rank map is built on a cold start.
   */
  idOrder: PiecedNumbers;
  /** The search helper's index (doc i = rank i), its texts decoded on the first search only. */
  searchIndex: StoredSearchIndex;
  /** The piece holding the OpenAPI document, exactly as served at /api/openapi.json. */
  openapi: number;
}

/** File extensions by their one-digit code in `records`. */
export const EXT_CODES = ['.png', '.jpg', '.gif', '.webp', '.avif'] as const;

/**
 * Longest piece of the long texts (`idOrder`, postings, posting offsets). V8's scanner copies
 * a literal's buffer each time it grows past 1 MB (quadratic: 240 ms for one 21 MB literal);
 * and a piece is what a first request touches. The term list, the dictionary and the OpenAPI
 * document are one piece each, however long (≈ 37, 37 and 55 KB for 100k synthetic records).
 */
export const MAX_PIECE = 65_536;

/** Records per chunk: ≈ 37 KB of data module text for typical records, near V8's fastest literal size (32–256 KB; see the README, API, "Data layout, chosen for cold start"). */
export const CHUNK_SIZE = 256;
