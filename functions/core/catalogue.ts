/**
 * Build-time side of the API data: turns the build's records into `CatalogueData` (what
 * the function needs, in a compact pre-escaped form), the JS module and the pieces file that
 * carry it to the function, and the static by-id files that are byte-equal to the handler's answers.
 */
import { openApiDocument } from './openapi.js';
import { compareRecords, type PepeRecord, type SiteUrls } from './record.js';
import { buildSearchIndex, type SearchDoc, type SearchIndexData } from './search/search-index.js';
import { storeSearchIndex } from './search/stored-index.js';
import { SEARCH_INDEX_FORMAT } from './search/search-types.js';
import { hashString } from './shuffle.js';
import type { Catalogue } from './catalogue-runtime.js';
import { byIdBodyA, byIdBodyB } from './bodies.js';
import { similarBody, tagsBody } from './discovery.js';
import { CHUNK_SIZE, MAX_PIECE, type CatalogueData, type CatalogueWithPieces } from './catalogue-data.js';
import { digitsFor, packInPieces, packNumbers } from './packed-numbers.js';
import { dictionaryFields, encodeRecord, recordTexts, type RecordTexts } from './record-codec.js';
import { escapeForSource } from './source-text.js';
import { storeStarts } from './joined-text.js';
import { storeFilters } from './filters.js';
import { pairsWithinDistance, parseHash, popcount32, type Hash64 } from './multi-index.js';
import { SIMILAR_LIMIT, SIMILAR_MAX_DISTANCE, storeHashes, storeSimilar, type HashPieceReuse, type Neighbour, type SimilarPiecesReuse } from './similar.js';
import { buildDictionary, dictionaryEncoder } from './text-dictionary.js';

export type { CatalogueData } from './catalogue-data.js';

/** A chunk as compiled, with what the next compile needs to keep it: the length of its records joined (it sets the offset width) and its hash (the version's). */
export interface CompiledChunk {
  text: string;
  joined: number;
  hash: string;
}

/**
 * What a compile may take from the last one instead of making it again (the build passes a
 * memo of the last build's, tools/catalogue/cache/record-encoding-memo.ts); the result must be
 * what the compile would make itself.
 */
export interface CompileReuse {
  /**
   * The dictionary `buildDictionary` chooses from the records' texts (in rank order;
   * `texts(rank)` = `recordTexts(records[rank])`): the memo moves the last build's piece
   * counts by the records that are new or gone.
   */
  dictionary(records: readonly PepeRecord[], texts: (rank: number) => RecordTexts): string[];
  /** Chunk `index` as the last compile made it, when it held these very encodings with this dictionary; its offset width is `keptWidth`. */
  keptChunk(index: number): CompiledChunk | undefined;
  keptWidth(): number;
  /** Told every chunk this compile made, with their offset width. */
  madeChunks(chunks: readonly CompiledChunk[], offsetWidth: number): void;
  /** The ranks of the records in id order, from the last compile's and the records new or gone; undefined: sort them. */
  idOrder(records: readonly PepeRecord[]): number[] | undefined;
  /** Told the id order this compile made. */
  madeIdOrder(ranks: readonly number[]): void;
  /** The phashes' pieces (`storeHashes`) kept from the last compile where their records are the same at the same ranks. */
  hashes?: HashPieceReuse;
  /** The OpenAPI document's text, `make()` or the last compile's (it depends on the URLs and the code alone). */
  openapi?(make: () => string): string;
}

const hashHex = (text: string): string => hashString(text).map((h) => h.toString(16).padStart(8, '0')).join('');

/**
 * Encoded records in chunks of CHUNK_SIZE, each chunk = the packed offsets of its records
 * (relative to the end of that header, so reading a record never scans for separators),
 * then its records joined by TAB, each escaped for the source text (catalogue-data.ts).
 * Offsets count the escaped text, so the runtime slices a record straight out of the
 * module source and unescapes only that record, never a whole chunk. A chunk `kept` gives
 * is taken as it is while the offset width is the one it was made with.
 */
function chunkRecords(records: number, escaped: (rank: number) => string, kept: (index: number) => CompiledChunk | undefined = () => undefined, keptWidth = 0): { chunks: CompiledChunk[]; offsetWidth: number } {
  const count = Math.ceil(records / CHUNK_SIZE);
  const escapedGroup = (index: number): string[] => {
    const group: string[] = [];
    for (let rank = index * CHUNK_SIZE; rank < Math.min(records, (index + 1) * CHUNK_SIZE); rank++) group.push(escaped(rank));
    return group;
  };
  const keptChunks: (CompiledChunk | undefined)[] = [];
  const groups: (string[] | undefined)[] = [];
  let longest = 0;
  for (let index = 0; index < count; index++) {
    const chunk = kept(index);
    keptChunks.push(chunk);
    const group = chunk === undefined ? escapedGroup(index) : undefined;
    groups.push(group);
    longest = Math.max(longest, chunk?.joined ?? group!.reduce((sum, line) => sum + line.length + 1, -1));
  }
  const offsetWidth = digitsFor(longest);
  const chunks = keptChunks.map((chunk, index): CompiledChunk => {
    if (chunk !== undefined && keptWidth === offsetWidth) return chunk;
    const group = groups[index] ?? escapedGroup(index);
    const offsets: number[] = [];
    let at = 0;
    for (const line of group) {
      offsets.push(at);
      at += line.length + 1;
    }
    const text = packNumbers(offsets, offsetWidth) + group.join('\t');
    return { text, joined: at - 1, hash: hashHex(text) };
  });
  return { chunks, offsetWidth };
}

/** A neighbour as the pieces store it (similar.ts): rank × 32 + distance. */
const entryOf = (neighbour: Neighbour): number => neighbour.rank * 32 + neighbour.distance;

/**
 * Each record's neighbours (records in rank order) as entries (rank × 32 + distance): distance
 * ascending, ties by id; never itself. Build time only (the function never loads the index): the
 * one import of tools/ in this folder.
 */
export function similarLists(records: readonly { id: string; phash: string }[]): number[][] {
  const hashes: Hash64[] = [];
  const ranks: number[] = [];
  records.forEach((record, rank) => {
    const hash = parseHash(record.phash);
    if (hash === null) return;
    hashes.push(hash);
    ranks.push(rank);
  });
  // Most records have no neighbour: they share one empty list rather than allocate one each.
  const none: Neighbour[] = [];
  const lists: Neighbour[][] = new Array<Neighbour[]>(records.length).fill(none);
  const add = (rank: number, neighbour: Neighbour) => (lists[rank] === none ? (lists[rank] = [neighbour]) : lists[rank]!.push(neighbour));
  for (const { i, j, distance } of pairsWithinDistance(hashes, SIMILAR_MAX_DISTANCE)) {
    add(ranks[i]!, { rank: ranks[j]!, distance });
    add(ranks[j]!, { rank: ranks[i]!, distance });
  }
  const idOf = (n: Neighbour) => records[n.rank]!.id;
  const entries: number[][] = new Array<number[]>(records.length).fill([]);
  for (let rank = 0; rank < lists.length; rank++) {
    const list = lists[rank]!;
    if (list.length > 0) entries[rank] = list.sort((a, b) => a.distance - b.distance || (idOf(a) < idOf(b) ? -1 : 1)).slice(0, SIMILAR_LIMIT).map(entryOf);
  }
  return entries;
}

/** A build's similar lists with what they were made from: ids and phashes in rank order, each list as ranks (similarLists' order). */
export interface SimilarListsOf {
  ids: readonly string[];
  phashes: readonly string[];
  lists: readonly ArrayLike<number>[];
}

/** Records whose phash is new or gone, and lists that lost a member, beyond which `updateSimilarLists` does the whole search again. */
const MAX_SIMILAR_UPDATES = 64;

/**
 * `similarLists(records)`, made from a previous build's lists when few records were added,
 * removed or given another phash: those are compared with every record (a pass over 8 bytes a
 * record), and a list that lost a member to them is made again the same way. Every other list
 * keeps its members (their phashes are unchanged) and takes in the new ones within reach:
 * what the whole search finds, since a removed record outside a list's nearest SIMILAR_LIMIT
 * never decided it. Null when more changed than MAX_SIMILAR_UPDATES: then search it all.
 */
export function updateSimilarLists(previous: SimilarListsOf, records: readonly { id: string; phash: string }[], previousRanks?: ArrayLike<number>): ArrayLike<number>[] | null {
  let ranksBefore = previousRanks;
  if (ranksBefore === undefined) {
    const previousRank = new Map<string, number>();
    previous.ids.forEach((id, rank) => previousRank.set(id, rank));
    ranksBefore = records.map((record) => previousRank.get(record.id) ?? -1);
  }
  // Previous rank → current rank, -1 when that record is gone or has another phash now.
  const rankNow = new Int32Array(previous.ids.length).fill(-1);
  const fresh: number[] = [];
  for (let rank = 0; rank < records.length; rank++) {
    const before = ranksBefore[rank]!;
    if (before !== -1 && previous.phashes[before] === records[rank]!.phash) rankNow[before] = rank;
    else fresh.push(rank);
  }
  let gone = 0;
  for (let before = 0; before < rankNow.length; before++) if (rankNow[before] === -1) gone++;
  if (fresh.length + gone > MAX_SIMILAR_UPDATES) return null;
  // Every phash as two words, parsed once and only when a record is compared with all others.
  let words: Uint32Array | null = null;
  let hashed: Uint8Array | null = null;
  const within = (rank: number): Neighbour[] => {
    if (words === null || hashed === null) {
      words = new Uint32Array(records.length * 2);
      hashed = new Uint8Array(records.length);
      for (let at = 0; at < records.length; at++) hashed[at] = hexWords(records[at]!.phash, words, at * 2) ? 1 : 0;
    }
    const out: Neighbour[] = [];
    if (hashed[rank] === 0) return out;
    const hi = words[rank * 2]!;
    const lo = words[rank * 2 + 1]!;
    for (let other = 0; other < records.length; other++) {
      if (other === rank || hashed[other] === 0) continue;
      const distance = popcount32((hi ^ words[other * 2]!) >>> 0) + popcount32((lo ^ words[other * 2 + 1]!) >>> 0);
      if (distance <= SIMILAR_MAX_DISTANCE) out.push({ rank: other, distance });
    }
    return out;
  };
  const nearest = (list: Neighbour[]) => list.sort((a, b) => a.distance - b.distance || (records[a.rank]!.id < records[b.rank]!.id ? -1 : 1)).slice(0, SIMILAR_LIMIT).map(entryOf);
  const none: number[] = [];
  const lists = new Array<ArrayLike<number>>(records.length).fill(none);
  const isFresh = new Uint8Array(records.length);
  for (const rank of fresh) isFresh[rank] = 1;
  // The fresh records' neighbours, and each of them as a neighbour of those.
  const gained = new Map<number, Neighbour[]>();
  for (const rank of fresh) {
    const found = within(rank);
    if (found.length > 0) lists[rank] = nearest(found);
    for (const { rank: other, distance } of found) if (!isFresh[other]) gained.set(other, [...(gained.get(other) ?? []), { rank, distance }]);
  }
  let remade = 0;
  for (let before = 0; before < previous.ids.length; before++) {
    const rank = rankNow[before]!;
    if (rank === -1 || ((previous.lists[before]?.length ?? 0) === 0 && !gained.has(rank))) continue;
    const was = previous.lists[before] ?? none;
    // A list whose members all keep their rank is the very list saved, not copied.
    let moved = false;
    let lost = false;
    for (let i = 0; i < was.length && !lost; i++) {
      const member = rankNow[Math.floor(was[i]! / 32)]!;
      lost = member === -1;
      moved ||= member * 32 !== was[i]! - (was[i]! % 32);
    }
    if (lost && ++remade > MAX_SIMILAR_UPDATES) return null;
    const more = gained.get(rank);
    if (!lost && more === undefined) {
      if (was.length > 0) lists[rank] = moved ? Array.from(was, (entry) => rankNow[Math.floor(entry / 32)]! * 32 + (entry % 32)) : was;
      continue;
    }
    const kept: Neighbour[] = lost ? within(rank) : Array.from(was, (entry) => ({ rank: rankNow[Math.floor(entry / 32)]!, distance: entry % 32 }));
    const list = lost ? kept : [...kept, ...more!];
    if (list.length > 0) lists[rank] = nearest(list);
  }
  return lists;
}

const HEX_DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX_DIGIT['0123456789abcdef'.charCodeAt(i)] = HEX_DIGIT['0123456789ABCDEF'.charCodeAt(i)] = i;

/** `parseHash(hex)` written into words[at] (high) and words[at + 1] (low); false when not 16 hex digits. Read without a regular expression or an object per hash: a new record compares itself with every phash. */
function hexWords(hex: string, words: Uint32Array, at: number): boolean {
  if (hex.length !== 16) return false;
  let hi = 0;
  let lo = 0;
  for (let i = 0; i < 16; i++) {
    const code = hex.charCodeAt(i);
    const digit = code < 128 ? HEX_DIGIT[code]! : -1;
    if (digit === -1) return false;
    if (i < 8) hi = hi * 16 + digit;
    else lo = lo * 16 + digit;
  }
  words[at] = hi;
  words[at + 1] = lo;
  return true;
}

export interface CompileOptions {
  /** Makes the search index of the docs of the records (both in rank order); must return `buildSearchIndex(docs)` (the build passes a memoized one). */
  searchIndex?: (docs: readonly SearchDoc[], records: readonly PepeRecord[]) => SearchIndexData;
  /**
   * Encodes the records (in rank order) with the dictionary (its `\t`-joined text); must return
   * a function whose value at each rank is `escapeForSource(encode(rank))`, as a chunk holds it,
   * asked once for each record of a chunk not kept whole. The build passes a memoized one that takes the records it encoded for the
   * same dictionary from its last build's chunks.
   */
  encodeRecords?: (dictionary: string, records: readonly PepeRecord[], encode: (rank: number) => string) => (rank: number) => string;
  /** Makes each record's similar pepes (records in rank order with their ids, entries rank × 32 + distance); must return `similarLists(records)` (the build passes a memoized one). */
  similarLists?: (records: readonly PepeRecord[], ids: readonly string[]) => readonly ArrayLike<number>[];
  /** The similar lists' packed pieces the last compile made, kept where its lists are the same (the memo of `similarLists`). */
  similarPieces?: SimilarPiecesReuse;
  /** What to take from the last compile (`CompileReuse`). */
  reuse?: CompileReuse;
  /** The records are in `compareRecords` order already (the build sorts them): not sorted again. */
  sorted?: boolean;
  /** Longest piece of the long texts (default MAX_PIECE); tests make it small to cut every list into several pieces. */
  maxPiece?: number;
}

const encodeEach: NonNullable<CompileOptions['encodeRecords']> = (_dictionary, _records, encode) => (rank) => escapeForSource(encode(rank));

/** What the build compiles: the data module's contents and its pieces, plus what only the build needs. */
export interface CompiledCatalogue extends CatalogueWithPieces {
  /** Record ids in rank order (not part of the data module: the runtime decodes them from the records). */
  ids: readonly string[];
}

export function compileCatalogue(records: PepeRecord[], urls: SiteUrls, options: CompileOptions = {}): CompiledCatalogue {
  const sorted = options.sorted ? records : [...records].sort(compareRecords);
  // Each record's tags and description JSON, made once and only when needed: the dictionary is chosen from them, then they are encoded.
  const texts = new Array<RecordTexts | undefined>(sorted.length);
  const textsOf = (rank: number): RecordTexts => (texts[rank] ??= recordTexts(sorted[rank]!));
  const { reuse } = options;
  const dictionary = reuse?.dictionary(sorted, textsOf) ?? buildDictionary(sorted.flatMap((_, rank) => dictionaryFields(textsOf(rank))));
  const encode = dictionaryEncoder(dictionary);
  const dictionaryText = dictionary.join('\t');
  // encodeRecord throws on an id that is not a lowercase UUID: the build validates sidecars,
  // and this guards the id keys the runtime relies on (record-codec.ts).
  const encoded = (options.encodeRecords ?? encodeEach)(dictionaryText, sorted, (rank) => encodeRecord(sorted[rank]!, encode, textsOf(rank)));
  const { chunks: compiledChunks, offsetWidth } = chunkRecords(sorted.length, encoded, reuse && ((index) => reuse.keptChunk(index)), reuse?.keptWidth());
  reuse?.madeChunks(compiledChunks, offsetWidth);
  const chunks = compiledChunks.map((chunk) => chunk.text);
  const maxPiece = options.maxPiece ?? MAX_PIECE;
  // Pieces 0 .. chunks - 1 are the chunks (already escaped); every other text is appended as escaped pieces.
  const pieces = [...chunks];
  const addPiece = (text: string): number => pieces.push(escapeForSource(text)) - 1;
  const dictionaryPiece = addPiece(dictionaryText);
  const dictionaryStarts = storeStarts(dictionaryText, '\t', maxPiece, addPiece);
  const ranksById = reuse?.idOrder(sorted) ?? sorted.map((r, rank) => ({ id: r.id, rank })).sort((a, b) => (a.id < b.id ? -1 : 1)).map((entry) => entry.rank);
  reuse?.madeIdOrder(ranksById);
  const idWidth = digitsFor(sorted.length);
  const idPieces = packInPieces(ranksById, idWidth, maxPiece);
  const idOrder = { first: idPieces.pieces.map(addPiece)[0]!, width: idWidth, perPiece: idPieces.perPiece };
  const searchIndex = storeSearchIndex((options.searchIndex ?? buildSearchIndex)(sorted, sorted), maxPiece, addPiece);
  const openapiText = () => `${JSON.stringify(openApiDocument(urls), null, 2)}\n`;
  const openapi = addPiece(reuse?.openapi?.(openapiText) ?? openapiText());
  const filters = storeFilters(sorted, maxPiece, addPiece);
  const ids = sorted.map((record) => record.id);
  const similar = storeSimilar((options.similarLists ?? similarLists)(sorted, ids), maxPiece, addPiece, options.similarPieces);
  const hashes = storeHashes(sorted.map((record) => record.phash), maxPiece, addPiece, reuse?.hashes);
  // `animated` is the one record field the encoded records do not hold (the filters do).
  const animated = sorted.map((record) => (record.animated ? '1' : '0')).join('');
  // The formats too: the pieces file's name carries the version, and its layout changes with them. The
  // chunks stand for the encoded records by their hashes, so a change build hashes the chunks it made alone.
  const version = hashHex(`8 ${SEARCH_INDEX_FORMAT}\n${JSON.stringify(urls)}\n${dictionaryText}\n${compiledChunks.map((chunk) => chunk.hash).join('')}\n${animated}`);
  return {
    format: 8, version, urls: { ...urls }, count: sorted.length, chunkSize: CHUNK_SIZE, offsetWidth,
    piecesFile: `pieces-${version}.txt`, pieces: () => pieces, pieceLengths: pieces.map((piece) => piece.length), dictionary: dictionaryPiece, dictionaryStarts, idOrder, searchIndex, openapi, filters, similar, hashes,
    ids,
  };
}

/**
 * The data module (dist/data/catalogue.mjs): what the function needs to find its way in the
 * pieces, a few KB however large the catalogue. The pieces themselves go to their own file
 * (`piecesFileText`), which the function reads piece by piece (piece-file.ts).
 */
export function catalogueModuleSource(data: CatalogueData): string {
  const lines = [
    '// Generated by `pepe build` (functions/core/catalogue.ts). Do not edit.',
    'export default {',
    `  format: ${data.format},`,
    `  version: ${JSON.stringify(data.version)},`,
    `  urls: ${JSON.stringify(data.urls)},`,
    `  count: ${data.count},`,
    `  chunkSize: ${data.chunkSize},`,
    `  offsetWidth: ${data.offsetWidth},`,
    `  piecesFile: ${JSON.stringify(data.piecesFile)},`,
    `  pieceLengths: ${JSON.stringify(data.pieceLengths)},`,
    `  dictionary: ${data.dictionary},`,
    `  dictionaryStarts: ${JSON.stringify(data.dictionaryStarts)},`,
    `  idOrder: ${JSON.stringify(data.idOrder)},`,
    `  searchIndex: ${JSON.stringify(data.searchIndex)},`,
    `  openapi: ${data.openapi},`,
    `  filters: ${JSON.stringify(data.filters)},`,
    `  similar: ${JSON.stringify(data.similar)},`,
    `  hashes: ${JSON.stringify(data.hashes)},`,
    '};',
    '',
  ];
  return lines.join('\n');
}

/**
 * The pieces file (dist/data/<piecesFile>): every piece as written, end to end. Pieces are
 * ASCII (a character is a byte), so each is copied in as Latin-1: no joined text of the whole
 * file, and no UTF-8 encoding pass over it.
 */
export function piecesFileBytes(data: CatalogueWithPieces): Buffer {
  let size = 0;
  for (const length of data.pieceLengths) size += length;
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  for (const piece of data.pieces()) at += bytes.write(piece, at, 'latin1');
  return bytes;
}

/** Where the function's two data files go, as paths below the output folder. */
export const catalogueDataPaths = (data: Pick<CatalogueData, 'piecesFile'>): { module: string; pieces: string } => ({ module: 'data/catalogue.mjs', pieces: `data/${data.piecesFile}` });

/** Both files of the function's data, as paths below the output folder: what the benchmarks copy (the build writes the pieces one by one). */
export function catalogueDataFiles(data: CatalogueWithPieces): [{ path: string; body: string }, { path: string; body: Buffer }] {
  const paths = catalogueDataPaths(data);
  return [
    { path: paths.module, body: catalogueModuleSource(data) },
    { path: paths.pieces, body: piecesFileBytes(data) },
  ];
}

/**
 * The precomputed answers that depend on the whole catalogue (site-relative paths), rendered
 * on every build: the OpenAPI document and the tags. (The static listing is the build's:
 * tools/catalogue/static-listing.ts.)
 */
export function catalogueAnswerFiles(catalogue: Catalogue): { path: string; body: string }[] {
  return [{ path: 'api/openapi.json', body: catalogue.openapi() }, { path: 'api/tags', body: tagsBody(catalogue) }];
}

/**
 * The precomputed answers of the record at `rank` (site-relative paths), bodies rendered on
 * demand. `own`: the answer depends on this record alone, so a build may keep it while the
 * record is unchanged. `shows`: the answer depends on these other records and their distances
 * alone (the similar pepes), so a build may keep it while they are the same and unchanged.
 */
export function recordAnswerFiles(catalogue: Catalogue, rank: number, id: string): RecordAnswerFile[] {
  return [
    { path: `api/pepe/${id}`, body: () => byIdBodyA(catalogue, rank), own: true },
    { path: `v1/pepe/${id}`, body: () => byIdBodyB(catalogue, rank), own: true },
    { path: `api/similar/${id}`, body: () => similarBody(catalogue, rank), own: false, shows: () => catalogue.similar(rank) },
  ];
}

export interface RecordAnswerFile {
  path: string;
  body: () => string;
  own: boolean;
  shows?: () => readonly Neighbour[];
}

