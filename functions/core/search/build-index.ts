import MiniSearch from 'minisearch';
import { numberAt } from '../packed-numbers.js';
import { decodePosting, encodeFieldPostings, keepsEncoding, KIND_LIST } from './posting-codec.js';
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
 * but would break silently with a MiniSearch release that reshapes them; a rebuild only indexes the changed docs (updateSearchIndex), so the copy costs
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

/** MiniSearch's postings of `docs`, doc i at rank `rankOf(i)` (terms in MiniSearch's order). */
function indexedContents(docs: readonly SearchDoc[], rankOf: (i: number) => number = (i) => i): IndexContents {
  const miniSearch = new MiniSearch<IndexedDoc>(SEARCH_OPTIONS);
  miniSearch.addAll(docs.map((doc, i) => ({ id: rankOf(i), tags: doc.tags, description: doc.description })));
  return indexContents(miniSearch);
}

const byTerm = ([a]: TermPostings, [b]: TermPostings): number => (a < b ? -1 : a > b ? 1 : 0);

/** The serialised index of `docCount` docs from every term's postings (any term order); `written`: rank lists whose segment is known. */
function encodeIndex({ fieldIds, terms }: IndexContents, docCount: number, written?: ReadonlyMap<readonly number[], string>): SearchIndexData {
  const entries = terms.sort(byTerm);
  const known = written && ((ranks: readonly number[]) => written.get(ranks));
  const encodeField = (fieldId: number): FieldPostings => encodeFieldPostings(entries.map(([, ranksByField]) => ranksByField.get(fieldId) ?? []), docCount, known);
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
  return encodeIndex(indexedContents(docs), docs.length);
}

/** Two ascending lists of distinct ranks as one. */
function mergeRanks(a: readonly number[], b: readonly number[]): number[] {
  if (b.length === 0) return a as number[];
  if (a.length === 0 || a[a.length - 1]! < b[0]!) return [...a, ...b];
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) out.push(j >= b.length || (i < a.length && a[i]! < b[j]!) ? a[i++]! : b[j++]!);
  return out;
}

/**
 * `buildSearchIndex(docs)`, byte for byte, given `previous` = `buildSearchIndex` of an earlier
 * list of docs and `previousRank[i]` = the rank there of a doc equal to `docs[i]`, or -1 for a
 * doc to index (the caller proves the equality; tools/catalogue/cache/search-index-memo.ts).
 * Only those docs go through MiniSearch: a document's postings depend on that document alone
 * (MiniSearch indexes each one independently, term → field → document), so every other doc's
 * postings are read back from `previous` under its new rank, and the docs gone are dropped.
 * Every posting is re-encoded, since a list's encoding depends on the ranks and the doc count.
 */
export function updateSearchIndex(previous: SearchIndexData, docs: readonly SearchDoc[], previousRank: ArrayLike<number>): SearchIndexData {
  const known = previous.docCount;
  if (previous.format !== SEARCH_INDEX_FORMAT || previousRank.length !== docs.length) throw new Error(`updateSearchIndex: an index of format ${previous.format} with ${previousRank.length} previous ranks for ${docs.length} docs`);
  // Previous rank → rank now, -1 for a doc gone or indexed again.
  const rankNow = new Int32Array(known).fill(-1);
  const fresh: number[] = [];
  let inOrder = true;
  for (let rank = 0, last = -1; rank < docs.length; rank++) {
    const before = previousRank[rank]!;
    if (before === -1) fresh.push(rank);
    else if (!(Number.isInteger(before) && before >= 0 && before < known && rankNow[before] === -1)) throw new Error(`updateSearchIndex: previous rank ${before} of doc ${rank} is not one of ${known} unclaimed ranks`);
    else {
      rankNow[before] = rank;
      if (before < last) inOrder = false;
      last = before;
    }
  }
  const added = indexedContents(fresh.map((rank) => docs[rank]!), (i) => fresh[i]!);
  const { fieldIds } = added;
  const byTermText = new Map<string, Map<number, number[]>>();
  const terms = previous.terms === '' ? [] : previous.terms.split(' ');
  // A posting whose docs all kept their rank, and which gains none, keeps its segment as written: a change re-encodes only the postings it touches.
  const written = new Map<readonly number[], string>();
  for (const [field, fieldId] of [[previous.tags, fieldIds.tags!], [previous.description, fieldIds.description!]] as const) {
    for (let t = 0, start = 0; t < terms.length; t++) {
      start = t === 0 ? numberAt(field.offsets, field.offsetWidth, 0) : start;
      const end = t + 1 < terms.length ? numberAt(field.offsets, field.offsetWidth, t + 1) : field.postings.length;
      const posting = decodePosting(field.postings, start, known);
      const ranks: number[] = [];
      let kept = keepsEncoding(posting.kind, known, docs.length);
      for (const before of posting.kind === KIND_LIST ? posting.ranks : ranksOf(posting.bits)) {
        const rank = rankNow[before]!;
        if (rank !== -1) ranks.push(rank);
        if (rank !== before) kept = false;
      }
      if (kept && ranks.length > 0) written.set(ranks, field.postings.slice(start, end));
      start = end;
      if (ranks.length === 0) continue;
      if (!inOrder) ranks.sort(ascending);
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
    for (const [fieldId, ranks] of addedByField) ranksByField.set(fieldId, mergeRanks(ranksByField.get(fieldId) ?? [], ranks));
  }
  return encodeIndex({ fieldIds, terms: [...byTermText] }, docs.length, written);
}
