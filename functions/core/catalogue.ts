/**
 * Build-time side of the API data: turns the build's records into `CatalogueData` (what
 * the function needs, in a compact pre-escaped form), the JS module text that carries it into the
 * function bundle, and the static by-id files that are byte-equal to the handler's answers.
 */
import { openApiDocument } from './openapi.js';
import { compareRecords, type PepeRecord, type SiteUrls } from './record.js';
import { buildSearchIndex, type SearchDoc, type SearchIndexData } from './search/search-index.js';
import { hashString } from './shuffle.js';
import { openCatalogue } from './catalogue-runtime.js';
import { byIdBodyA, byIdBodyB } from './bodies.js';
import { CHUNK_SIZE, type CatalogueData } from './catalogue-data.js';
import { digitsFor, packNumbers } from './packed-numbers.js';
import { encodeRecord, recordTexts } from './record-codec.js';
import { escapeForSource } from './source-text.js';
import { buildDictionary, dictionaryEncoder, TAG_PIECES, WORD_PIECES } from './text-dictionary.js';

export type { CatalogueData } from './catalogue-data.js';

/** Variant A object, keys in the seed's order, then the extensions: the reference the compact codec is tested against. */
export function recordJsonA(record: PepeRecord, urls: SiteUrls): string {
  const fileName = `${record.id}${record.file_ext}`;
  return JSON.stringify({
    id: record.id,
    file_name: fileName,
    file_ext: record.file_ext,
    file_size: record.file_size,
    tags: record.tags && record.tags.length > 0 ? record.tags : null,
    description: record.description,
    url: `${urls.baseUrl}/images/${fileName}`,
    phash: record.phash,
    created_at: record.created_at,
    updated_at: record.updated_at,
    width: record.width,
    height: record.height,
    blurhash: record.blurhash,
  });
}

/**
 * Encoded records in chunks of CHUNK_SIZE, each chunk = the packed offsets of its records
 * (relative to the end of that header, so reading a record never scans for separators),
 * then its records joined by TAB, each escaped for the source text (catalogue-data.ts).
 * Offsets count the escaped text, so the runtime slices a record straight out of the
 * module source and unescapes only that record, never a whole chunk.
 */
function chunkRecords(encoded: string[]): { chunks: string[]; offsetWidth: number } {
  const groups: string[][] = [];
  for (let start = 0; start < encoded.length; start += CHUNK_SIZE) groups.push(encoded.slice(start, start + CHUNK_SIZE).map(escapeForSource));
  const offsetWidth = digitsFor(Math.max(0, ...groups.map((group) => group.join('\t').length)));
  const chunks = groups.map((group) => {
    const offsets: number[] = [];
    let at = 0;
    for (const line of group) {
      offsets.push(at);
      at += line.length + 1;
    }
    return packNumbers(offsets, offsetWidth) + group.join('\t');
  });
  return { chunks, offsetWidth };
}

export interface CompileOptions {
  /** Makes the search index of the docs in rank order; must return `buildSearchIndex(docs)` (the build passes a memoized one). */
  searchIndex?: (docs: SearchDoc[]) => SearchIndexData;
  /**
   * Encodes the records (in rank order) with the dictionary (its `\t`-joined text); must return
   * `records.map((_, rank) => encode(rank))`. The build passes a memoized one that takes the
   * records it encoded for the same dictionary from its last build.
   */
  encodeRecords?: (dictionary: string, records: readonly PepeRecord[], encode: (rank: number) => string) => string[];
}

const encodeEach: NonNullable<CompileOptions['encodeRecords']> = (_dictionary, records, encode) => records.map((_, rank) => encode(rank));

/** What the build compiles: the data module's contents, plus what only the build needs. */
export interface CompiledCatalogue extends CatalogueData {
  /** Record ids in rank order (not part of the data module: the runtime decodes them from the records). */
  ids: readonly string[];
}

export function compileCatalogue(records: PepeRecord[], urls: SiteUrls, options: CompileOptions = {}): CompiledCatalogue {
  const sorted = [...records].sort(compareRecords);
  // Each record's tags and description JSON, made once: the dictionary is chosen from them, then they are encoded.
  const texts = sorted.map(recordTexts);
  const dictionary = buildDictionary(texts.flatMap(({ tags, description }) => [{ text: tags, pieces: TAG_PIECES }, { text: description, pieces: WORD_PIECES }]));
  const encode = dictionaryEncoder(dictionary);
  const dictionaryText = dictionary.join('\t');
  // encodeRecord throws on an id that is not a lowercase UUID: the build validates sidecars,
  // and this guards the id keys the runtime relies on (record-codec.ts).
  const encoded = (options.encodeRecords ?? encodeEach)(dictionaryText, sorted, (rank) => encodeRecord(sorted[rank]!, encode, texts[rank]));
  const { chunks, offsetWidth } = chunkRecords(encoded);
  const byId = sorted.map((r, rank) => ({ id: r.id, rank })).sort((a, b) => (a.id < b.id ? -1 : 1));
  const idOrder = packNumbers(byId.map((entry) => entry.rank), digitsFor(sorted.length));
  const searchIndex = (options.searchIndex ?? buildSearchIndex)(sorted.map((r) => ({ tags: r.tags, description: r.description })));
  const openapi = `${JSON.stringify(openApiDocument(urls), null, 2)}\n`;
  const [h1, h2] = hashString(`${JSON.stringify(urls)}\n${dictionaryText}\n${encoded.join('\n')}`);
  const version = h1.toString(16).padStart(8, '0') + h2.toString(16).padStart(8, '0');
  return {
    format: 3, version, urls: { ...urls }, count: sorted.length, chunkSize: CHUNK_SIZE, offsetWidth,
    records: () => chunks, dictionary: dictionaryText, idOrder, searchIndex, openapi,
    ids: sorted.map((record) => record.id),
  };
}

/** A JS single-quoted string literal: only backslash, quote and line terminators need escaping. */
function stringLiteral(text: string): string {
  return `'${text.replace(/[\\'\n\r\u2028\u2029]/g, (c) => (c === '\\' ? '\\\\' : c === "'" ? "\\'" : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))}'`;
}

/**
 * Longest string literal written as one piece. V8's scanner copies a literal's buffer each
 * time it grows past 1 MB (quadratic: 240 ms for one 21 MB literal) and strings over
 * ~128 KB go to large-object pages; pieces of ≤ 64 KB joined at import cost 60 ms for the
 * same 21 MB (measured on Node 20, see the README, API, "Data layout, chosen for cold start").
 */
const PIECE = 65_536;

/** A string as one literal, or as `[pieces].join("")` when it is long. */
function longStringLiteral(text: string): string {
  if (text.length <= PIECE) return stringLiteral(text);
  const pieces: string[] = [];
  for (let start = 0; start < text.length; ) {
    let end = Math.min(start + PIECE, text.length);
    // Never cut a surrogate pair: a lone half would not survive the UTF-8 file.
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end--;
    pieces.push(stringLiteral(text.slice(start, end)));
    start = end;
  }
  return `[${pieces.join(',\n')}].join('')`;
}

/** Plain data as a JS literal whose strings are quoted literals (objects stay tiny: a few long strings). */
function jsLiteral(value: unknown): string {
  if (typeof value === 'string') return longStringLiteral(value);
  if (Array.isArray(value)) return `[${value.map(jsLiteral).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${jsLiteral(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The data module (dist/data/catalogue.mjs). Every bulky field is made of string literals
 * (no objects are created at load, unlike an object literal or JSON.parse): the record
 * chunks inside a function the runtime reads as source text without calling it
 * (source-text.ts), the rest in ≤ 64 KB pieces. Records are sliced out of their chunk on
 * demand and the search index is decoded on the first search only. No data literal holds a
 * newline, so esbuild (ours or Netlify's) never turns one into a template literal, which V8
 * scans ~3× slower. Measured in the README, API, "Data layout, chosen for cold start".
 */
export function catalogueModuleSource(data: CatalogueData): string {
  const lines = [
    '// Generated by `pepe build` (functions/core/catalogue.ts). Do not edit.',
    'export default {',
    `  format: ${data.format},`,
    `  version: ${stringLiteral(data.version)},`,
    `  urls: ${JSON.stringify(data.urls)},`,
    `  count: ${data.count},`,
    `  chunkSize: ${data.chunkSize},`,
    `  offsetWidth: ${data.offsetWidth},`,
    // Never called when the runtime can read the chunks from its source text (source-text.ts).
    `  records: function records() {\n    return [\n${data.records().map(stringLiteral).join(',\n')}\n    ];\n  },`,
    `  dictionary: ${longStringLiteral(data.dictionary)},`,
    `  idOrder: ${longStringLiteral(data.idOrder)},`,
    `  searchIndex: ${jsLiteral(data.searchIndex)},`,
    `  openapi: ${longStringLiteral(data.openapi)},`,
    '};',
    '',
  ];
  return lines.join('\n');
}

/** Site-relative static files, each byte-equal to the handler's body for that URL (sorted by path). */
export function precomputedFiles(data: CatalogueData): { path: string; body: string }[] {
  const catalogue = openCatalogue(data);
  const files: { path: string; body: string }[] = [{ path: 'api/openapi.json', body: data.openapi }];
  for (let rank = 0; rank < catalogue.count; rank++) {
    const id = catalogue.id(rank);
    files.push({ path: `api/pepe/${id}`, body: byIdBodyA(catalogue, rank) });
    files.push({ path: `v1/pepe/${id}`, body: byIdBodyB(catalogue, rank) });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
