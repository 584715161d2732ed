import MiniSearch from 'minisearch';
import { numberAt } from '../packed-numbers.js';
import { decodePosting, encodeFieldPostings, KIND_LIST } from './posting-codec.js';
import { ranksOf } from './rank-set.js';
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

/**
 * The index's contents through MiniSearch's public serialisation (`toJSON`), the only way its
 * API hands out the postings. Reading its private fields instead is faster on a cold build,
 * but would break silently with a MiniSearch release that reshapes them; a rebuild only indexes the added docs (extendSearchIndex), so the copy costs
 * nothing there (tools/bench/HISTORY.md, "Search index through the public API").
 */
export function indexContents(miniSearch: MiniSearch<IndexedDoc>): IndexContents {
  const plain = miniSearch.toJSON();
  const rankOf = plain.documentIds as Record<string, string | number>;
  const terms: TermPostings[] = plain.index.map(([term, fields]) => {
    const ranksByField = new Map<number, number[]>();
    for (const [fieldId, freqs] of Object.entries(fields)) ranksByField.set(Number(fieldId), Object.keys(freqs).map((shortId) => Number(rankOf[shortId])).sort(ascending));
    return [term, ranksByField];
  });
  return { fieldIds: plain.fieldIds, terms };
}

/** MiniSearch's postings of `docs`, whose ranks start at `firstRank` (terms in MiniSearch's order). */
function indexedContents(docs: readonly SearchDoc[], firstRank: number): IndexContents {
  const miniSearch = new MiniSearch<IndexedDoc>(SEARCH_OPTIONS);
  miniSearch.addAll(docs.map((doc, i) => ({ id: firstRank + i, tags: doc.tags, description: doc.description })));
  return indexContents(miniSearch);
}

const byTerm = ([a]: TermPostings, [b]: TermPostings): number => (a < b ? -1 : a > b ? 1 : 0);

/** The serialised index of `docCount` docs from every term's postings (any term order). */
function encodeIndex({ fieldIds, terms }: IndexContents, docCount: number): SearchIndexData {
  const entries = terms.sort(byTerm);
  const encodeField = (fieldId: number): FieldPostings => encodeFieldPostings(entries.map(([, ranksByField]) => ranksByField.get(fieldId) ?? []), docCount);
  return {
    format: SEARCH_INDEX_FORMAT,
    docCount,
    terms: entries.map(([term]) => term).join(' '),
    tags: encodeField(fieldIds.tags!),
    description: encodeField(fieldIds.description!),
  };
}

/**
 * Builds the serialised index. MiniSearch (with SEARCH_OPTIONS) tokenises and collects
 * the term dictionary; its per-term postings are then re-encoded compactly, without term
 * frequencies (we never score by them: tags are a set and descriptions are short).
 */
export function buildSearchIndex(docs: SearchDoc[]): SearchIndexData {
  return encodeIndex(indexedContents(docs, 0), docs.length);
}

/** The ranks of one decoded segment, ascending. */
function postingRanks(postings: string, offset: number, docCount: number): number[] {
  const posting = decodePosting(postings, offset, docCount);
  return Array.from(posting.kind === KIND_LIST ? posting.ranks : ranksOf(posting.bits));
}

/**
 * `buildSearchIndex(docs)`, byte for byte, given `previous` = `buildSearchIndex` of the first
 * `previous.docCount` of `docs` (the caller proves that; tools/catalogue/cache/search-index-memo.ts).
 * Only the docs after those go through MiniSearch: a document's postings depend on that
 * document alone (MiniSearch indexes each one independently, term → field → document), so the
 * earlier docs' postings are read back from `previous` and the new ranks appended to them.
 * Every posting is re-encoded, since a list's encoding depends on the doc count.
 */
export function extendSearchIndex(previous: SearchIndexData, docs: readonly SearchDoc[]): SearchIndexData {
  const known = previous.docCount;
  if (previous.format !== SEARCH_INDEX_FORMAT || !(known <= docs.length)) throw new Error(`extendSearchIndex: the previous index (${previous.docCount} docs, format ${previous.format}) cannot be the start of ${docs.length} docs`);
  const added = indexedContents(docs.slice(known), known);
  const { fieldIds } = added;
  const byTermText = new Map<string, Map<number, number[]>>();
  const terms = previous.terms === '' ? [] : previous.terms.split(' ');
  for (const [field, fieldId] of [[previous.tags, fieldIds.tags!], [previous.description, fieldIds.description!]] as const) {
    for (let t = 0; t < terms.length; t++) {
      const ranks = postingRanks(field.postings, numberAt(field.offsets, field.offsetWidth, t), known);
      if (ranks.length === 0) continue;
      let ranksByField = byTermText.get(terms[t]!);
      if (ranksByField === undefined) byTermText.set(terms[t]!, (ranksByField = new Map()));
      ranksByField.set(fieldId, ranks);
    }
  }
  for (const [term, addedByField] of added.terms) {
    const ranksByField = byTermText.get(term);
    if (ranksByField === undefined) {
      byTermText.set(term, addedByField);
      continue;
    }
    // The added ranks are all above the known ones: appending keeps each list ascending.
    for (const [fieldId, ranks] of addedByField) ranksByField.set(fieldId, [...(ranksByField.get(fieldId) ?? []), ...ranks]);
  }
  return encodeIndex({ fieldIds, terms: [...byTermText] }, docs.length);
}
