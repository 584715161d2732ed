/**
 * The served side of `CatalogueData`: record JSON by rank, id → rank lookup and search,
 * each prepared on first use so a cold start only pays for what its first request needs.
 * Nothing is decoded or even read up front: every text is a piece, read (from the pieces
 * file, piece-file.ts) when a request first needs it; a record is sliced out of its chunk
 * through the chunk's packed offsets, an id is found by binary search over the packed id order.
 */
import type { CatalogueData, CatalogueWithPieces, PieceSource } from './catalogue-data.js';
import { numberAt, piecedNumberAt } from './packed-numbers.js';
import { createdAtMs, ID_KEY_LENGTH, idFromKey, idKey, recordComposer } from './record-codec.js';
import { openFilters, type FilterIndex } from './filters.js';
import { hashSearcher, similarReader, type Neighbour } from './similar.js';
import type { Hash64 } from './multi-index.js';
import { openSearchIndex } from './search/load-index.js';
import type { SearchField, SearchIndex } from './search/search-types.js';
import { unescapeFromSource } from './source-text.js';
import { dictionaryPieces } from './text-dictionary.js';
import { storedStarts } from './joined-text.js';

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
  /** Matching ranks (of those `keep` holds: filters().bits), ascending. */
  match(query: string, field: SearchField, keep?: Uint32Array | null): Uint32Array;
  /** The same as a bitset, valid until the next search; null when nothing matches. */
  matchBits(query: string, field: SearchField, keep?: Uint32Array | null): Uint32Array | null;
  /** Matching ranks (of those `keep` holds), best score first. */
  matchByRelevance(query: string, field: SearchField, keep?: Uint32Array | null): Uint32Array;
  /** The OpenAPI document, exactly as served at /api/openapi.json. */
  openapi(): string;
  /** The tag list and the filters of the list operations. */
  filters(): FilterIndex;
  /** The similar pepes of a rank, nearest first. */
  similar(rank: number): Neighbour[];
  /** Every record within `maxDistance` bits of a phash, in rank order. */
  nearHash(hash: Hash64, maxDistance: number): Neighbour[];
  /** created_at of the record at this rank, in epoch milliseconds (ascending with the rank). */
  createdAt(rank: number): number;
}

/** The pieces of data compiled in this process; data imported from a module has none (its pieces are in its file). */
function piecesInMemory(data: CatalogueData): PieceSource {
  const pieces = (data as Partial<CatalogueWithPieces>).pieces;
  if (typeof pieces !== 'function') throw new Error('catalogue data has no pieces in memory: pass the reader of its pieces file (piece-file.ts)');
  const all = pieces();
  if (all.length !== data.pieceLengths.length) throw new Error(`catalogue data holds ${all.length} pieces of text but lists ${data.pieceLengths.length} lengths; rebuild the catalogue`);
  return (index) => {
    const piece = all[index];
    if (piece === undefined) throw new RangeError(`catalogue data has no piece ${index}`);
    return piece;
  };
}

/** `pieces` reads piece i as written; by default, the pieces of data compiled in this process. */
export function openCatalogue(data: CatalogueData, pieces?: PieceSource): Catalogue {
  if (data.format !== 8) throw new Error(`catalogue data format ${String(data.format)} is not supported; rebuild with this version of pepe`);
  const { count, chunkSize, offsetWidth, idOrder } = data;
  const chunkCount = Math.ceil(count / chunkSize);
  // The chunks are pieces 0 .. chunkCount - 1 and the dictionary is the first text after them.
  if (chunkCount !== data.dictionary || !(data.openapi < data.pieceLengths.length)) {
    throw new Error(`catalogue data holds ${Math.min(data.dictionary, data.pieceLengths.length)} chunks of ${chunkSize} records but says ${count} records; rebuild the catalogue`);
  }
  /**
   * Piece i as written (escaped). A chunk is never unescaped as a whole: a first answer
   * touches up to 25 chunks, and copying each would cost more than the answer itself.
   */
  const written = pieces ?? piecesInMemory(data);
  /** Piece i unescaped (the texts other than chunks), kept: most hold no escape mark, so this is the piece itself. */
  const texts: string[] = [];
  const text = (i: number): string => (texts[i] ??= unescapeFromSource(written(i)));
  let index: SearchIndex | undefined;
  let composer: ReturnType<typeof recordComposer> | undefined;
  // The dictionary's pieces are located on the first record composed, not at load.
  const compose = () => (composer ??= recordComposer(data.urls.baseUrl, data.urls.cdnUrl, dictionaryPieces(text(data.dictionary), storedStarts(text(data.dictionary), data.dictionaryStarts, text, 'catalogue dictionary'))));

  /** Start of the record in its (escaped) chunk, and its end (exclusive, before the TAB). */
  const bounds = (rank: number): { chunk: string; start: number; end: number } => {
    const c = Math.floor(rank / chunkSize);
    const chunk = written(c);
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
  const searchIndex = (): SearchIndex => (index ??= openSearchIndex(data.searchIndex, text));
  let filterIndex: FilterIndex | undefined;
  let similar: ((rank: number) => Neighbour[]) | undefined;
  let nearHash: ReturnType<typeof hashSearcher> | undefined;
  const rankAt = (position: number): number => piecedNumberAt(text, idOrder, position);
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
        if (key(rankAt(mid)) < wanted) lo = mid + 1;
        else hi = mid;
      }
      const rank = lo < count ? rankAt(lo) : -1;
      return rank !== -1 && key(rank) === wanted ? rank : -1;
    },
    match: (query, field, keep) => searchIndex().match(query, field, keep),
    matchBits: (query, field, keep) => searchIndex().matchBits(query, field, keep),
    matchByRelevance: (query, field, keep) => searchIndex().matchByRelevance(query, field, keep),
    openapi: () => text(data.openapi),
    filters: () => (filterIndex ??= openFilters(data.filters, text, count)),
    similar: (rank) => (similar ??= similarReader(data.similar, text))(rank),
    nearHash: (hash, maxDistance) => (nearHash ??= hashSearcher(data.hashes, count, text))(hash, maxDistance),
    createdAt: (rank) => createdAtMs(line(rank)),
  };
}
