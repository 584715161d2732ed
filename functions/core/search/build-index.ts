import MiniSearch from 'minisearch';
import { digitsFor, packNumbers } from '../packed-numbers.js';
import { encodePosting } from './posting-codec.js';
import { SEARCH_OPTIONS, type IndexedDoc } from './search-options.js';
import { SEARCH_INDEX_FORMAT, type FieldPostings, type SearchDoc, type SearchIndexData } from './search-types.js';

/** One term of MiniSearch's index: the ranks of the documents holding it, per field id, ascending. */
export type TermPostings = [term: string, ranksByField: Map<number, number[]>];

/** Field name → MiniSearch's field id, and every term's postings (in MiniSearch's order). */
export interface IndexContents {
  fieldIds: Record<string, number>;
  terms: TermPostings[];
}

const ascending = (a: number, b: number) => a - b;

/** The index's contents through MiniSearch's public serialisation (`toJSON`). */
export function contentsFromJson(miniSearch: MiniSearch<IndexedDoc>): IndexContents {
  const plain = miniSearch.toJSON();
  const rankOf = plain.documentIds as Record<string, string | number>;
  const terms: TermPostings[] = plain.index.map(([term, fields]) => {
    const ranksByField = new Map<number, number[]>();
    for (const [fieldId, freqs] of Object.entries(fields)) ranksByField.set(Number(fieldId), Object.keys(freqs).map((shortId) => Number(rankOf[shortId])).sort(ascending));
    return [term, ranksByField];
  });
  return { fieldIds: plain.fieldIds, terms };
}

const isIterable = (value: unknown): value is Iterable<unknown> => typeof (value as Iterable<unknown> | null)?.[Symbol.iterator] === 'function';

/**
 * The same contents read from MiniSearch's index itself, which `toJSON` copies into plain
 * objects first: at 10k records that copy took ~60 ms and ~35 MB of short-lived objects, more
 * than the rest of the encoding (walking the index directly: ~5 ms). MiniSearch keeps the
 * index in private fields (a map of term → field id → short id → frequency), so the shape is
 * checked on the way and anything unexpected falls back to `toJSON`; a test holds the two
 * equal for the MiniSearch version in the lockfile.
 */
export function indexContents(miniSearch: MiniSearch<IndexedDoc>): IndexContents {
  const internal = miniSearch as unknown as { _index?: unknown; _documentIds?: unknown; _fieldIds?: unknown };
  const { _index: index, _documentIds: documentIds, _fieldIds: fieldIds } = internal;
  if (!isIterable(index) || !(documentIds instanceof Map) || typeof fieldIds !== 'object' || fieldIds === null) return contentsFromJson(miniSearch);
  const terms: TermPostings[] = [];
  for (const entry of index) {
    const [term, fields] = entry as [unknown, unknown];
    if (typeof term !== 'string' || !(fields instanceof Map)) return contentsFromJson(miniSearch);
    const ranksByField = new Map<number, number[]>();
    for (const [fieldId, freqs] of fields as Map<unknown, unknown>) {
      if (typeof fieldId !== 'number' || !(freqs instanceof Map)) return contentsFromJson(miniSearch);
      const ranks: number[] = [];
      for (const shortId of (freqs as Map<unknown, unknown>).keys()) {
        // The document's id as MiniSearch stored it: the rank, as a string (SEARCH_OPTIONS'
        // extractField returns strings for every field, the id field included).
        const rank = Number(documentIds.get(shortId));
        if (!Number.isInteger(rank)) return contentsFromJson(miniSearch);
        ranks.push(rank);
      }
      ranksByField.set(fieldId, ranks.sort(ascending));
    }
    terms.push([term, ranksByField]);
  }
  return { fieldIds: { ...(fieldIds as Record<string, number>) }, terms };
}

/**
 * Builds the serialised index. MiniSearch (with SEARCH_OPTIONS) tokenises and collects
 * the term dictionary; its per-term postings are then re-encoded compactly, without term
 * frequencies (we never score by them: tags are a set and descriptions are short).
 */
export function buildSearchIndex(docs: SearchDoc[]): SearchIndexData {
  const miniSearch = new MiniSearch<IndexedDoc>(SEARCH_OPTIONS);
  miniSearch.addAll(docs.map((doc, rank) => ({ id: rank, tags: doc.tags, description: doc.description })));
  const { fieldIds, terms } = indexContents(miniSearch);
  const entries = terms.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const encodeField = (fieldId: number): FieldPostings => {
    const segments = entries.map(([, ranksByField]) => encodePosting(ranksByField.get(fieldId) ?? [], docs.length));
    const offsets: number[] = [];
    let offset = 0;
    for (const segment of segments) {
      offsets.push(offset);
      offset += segment.length;
    }
    const offsetWidth = digitsFor(offset);
    return { postings: segments.join(''), offsets: packNumbers(offsets, offsetWidth), offsetWidth };
  };
  return {
    format: SEARCH_INDEX_FORMAT,
    docCount: docs.length,
    terms: entries.map(([term]) => term).join(' '),
    tags: encodeField(fieldIds.tags!),
    description: encodeField(fieldIds.description!),
  };
}
