/**
 * The data the function serves, as `compileCatalogue` produces it and the generated
 * module `dist/data/catalogue.mjs` exports it (its texts in `dist/data/pieces-<version>.txt`).
 * Only type imports, so the function bundle and `catalogue-module.d.ts` can refer to it cheaply.
 */
import type { SiteUrls } from './record.js';
import type { StoredStarts } from './joined-text.js';
import type { PiecedNumbers } from './packed-numbers.js';
import type { StoredSearchIndex } from './search/search-types.js';
import type { StoredFilters } from './filters.js';
import type { StoredHashes, StoredSimilar } from './similar.js';

export interface CatalogueData {
  format: 8;
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
   * Name of the pieces file beside the data module (`data/pieces-<version>.txt`): every text
   * of the data, as pieces each written with `escapeForSource` (source-text.ts: printable ASCII
   * and TAB only), one after the other with nothing between them. The function reads a piece
   * from the file when a request first needs it (piece-file.ts), so a cold start reads a few
   * pieces, not the catalogue: a module holding them all makes Node read, decode and scan the
   * whole text before the first answer (functions/README.md, "Data layout, chosen for cold
   * start"). The fields below point into the pieces by index.
   *
   * Pieces 0 .. chunks - 1 are the record chunks: every record in rank order (ascending
   * created_at, ties by id), each in the compact form of record-codec.ts (14 fields, the id
   * first), `chunkSize` records per chunk. A chunk = the packed offsets (packed-numbers.ts,
   * `offsetWidth` digits) of its records relative to the end of this header, then the
   * records, separated by TAB; the offsets count the escaped text, so a record is unescaped
   * alone, never its whole chunk. Why chunks (and pieces of at most 64 KB for the long
   * texts): a request reads only the pieces it needs.
   */
  piecesFile: string;
  /** Length of each piece as written (bytes = characters: ASCII), so piece i is read at a known offset. */
  pieceLengths: readonly number[];
  /** The piece holding the pieces of text-dictionary.ts that records refer to, separated by TAB. */
  dictionary: number;
  /** Where each piece of the dictionary starts (joined-text.ts): a first answer reads a few, scanning for them cost 6 M instructions. */
  dictionaryStarts: StoredStarts;
  /**
   * Ranks ordered by id, packed (packed-numbers.ts) with the fewest digits that hold `count`:
   * id lookups are a binary search, so no id → rank map is built on a cold start.
   */
  idOrder: PiecedNumbers;
  /** The search helper's index (doc i = rank i), its texts decoded on the first search only. */
  searchIndex: StoredSearchIndex;
  /** The piece holding the OpenAPI document, exactly as served at /api/openapi.json. */
  openapi: number;
  /** The postings of every tag, `animated` and each orientation (filters.ts). */
  filters: StoredFilters;
  /** Each record's similar pepes (similar.ts). */
  similar: StoredSimilar;
  /** Every record's phash, for the search by picture (similar.ts). */
  hashes: StoredHashes;
}

/** Reads piece i of a catalogue's texts, as written (escaped). */
export type PieceSource = (index: number) => string;

/** The data with its pieces in memory, as `compileCatalogue` returns it (tests, benchmarks, the build's precomputed files). */
export interface CatalogueWithPieces extends CatalogueData {
  pieces: () => readonly string[];
}

/** File extensions by their one-digit code in `records`. */
export const EXT_CODES = ['.png', '.jpg', '.gif', '.webp', '.avif'] as const;

/**
 * Longest piece of the long texts (`idOrder`, postings, posting offsets): a piece is what a
 * first request reads. The term list, the dictionary and the OpenAPI document are one piece
 * each, however long.
 */
export const MAX_PIECE = 65_536;

/** Records per chunk: small enough that a record costs one small read (functions/README.md, "Data layout, chosen for cold start"). */
export const CHUNK_SIZE = 256;
