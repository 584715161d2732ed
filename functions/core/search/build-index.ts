import MiniSearch from 'minisearch';
import { lowerBound } from '../lower-bound.js';
import { digitsFor, numberAt, packNumbers } from '../packed-numbers.js';
import { decodePosting, encodeBitmapPosting, encodeFieldPostings, encodePosting, keepsEncoding, keptListCount, KIND_BITMAP, KIND_LIST, remapBitmap, remapList, SegmentCodes, segmentKind } from './posting-codec.js';
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
/** The gains of a term that gains none: one list, not one per term. */
const NONE: readonly number[] = [];

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
export function buildSearchIndex(docs: readonly SearchDoc[]): SearchIndexData {
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
 * A posting is encoded again only when the change touches it (a member moved, left or joined,
 * or the doc count resizes its bitmap): otherwise its segment is copied as written.
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
  const addedRanks = new Map(added.terms);
  const previousTerms = previous.terms === '' ? [] : previous.terms.split(' ');
  const addedTerms = added.terms.map(([term]) => term).filter((term) => !sortedHas(previousTerms, term)).sort();
  // The postings gained by index among the previous terms and among the new ones: looking every term up by its text hashed each.
  const gainedAt = new Map<number, Map<number, number[]>>();
  for (const [term, ranksByField] of added.terms) {
    const t = lowerBound(previousTerms.length, (index) => previousTerms[index]! < term);
    if (previousTerms[t] === term) gainedAt.set(t, ranksByField);
  }
  const gainedNew = addedTerms.map((term) => addedRanks.get(term)!);
  // Whether a segment written for `known` docs is what encodePosting writes for `docs.length`, by kind.
  const keeps = { [KIND_LIST]: keepsEncoding(KIND_LIST, known, docs.length), [KIND_BITMAP]: keepsEncoding(KIND_BITMAP, known, docs.length) };
  // Every previous doc at its rank (an add of the newest): a term that gains nothing is its segments as written, unread but for a header when a bitmap's size moves.
  let appendOnly = true;
  for (let before = 0; appendOnly && before < known; before++) appendOnly = rankNow[before] === before;
  const keptUnread = (postings: string, start: number) => (keeps[KIND_LIST] && keeps[KIND_BITMAP]) || (segmentKind(postings, start) === KIND_LIST ? keeps[KIND_LIST] : keeps[KIND_BITMAP]);
  const fields = [
    { field: previous.tags, fieldId: added.fieldIds.tags!, out: new FieldOutput(previous.tags.postings) },
    { field: previous.description, fieldId: added.fieldIds.description!, out: new FieldOutput(previous.description.postings) },
  ];
  const terms: string[] = [];
  // A field's segment for the term: a string, where a kept one starts (`ends` where it ends), or null when written into the field's codes (`ends` its length).
  const segmentsOf: (string | number | null)[] = new Array(fields.length);
  const ends: number[] = new Array(fields.length);
  // The previous terms and the new ones, merged in code unit order (encodeIndex's).
  for (let t = 0, a = 0; t < previousTerms.length || a < addedTerms.length; ) {
    const fromPrevious = a >= addedTerms.length || (t < previousTerms.length && previousTerms[t]! < addedTerms[a]!);
    const term = fromPrevious ? previousTerms[t]! : addedTerms[a]!;
    let any = false;
    const gainedFields = fromPrevious ? gainedAt.get(t) : gainedNew[a];
    for (let f = 0; f < fields.length; f++) {
      const { field, fieldId } = fields[f]!;
      const gained = gainedFields?.get(fieldId) ?? NONE;
      let ranks: number[] = NONE as number[];
      if (fromPrevious) {
        const start = numberAt(field.offsets, field.offsetWidth, t);
        const end = t + 1 < previousTerms.length ? numberAt(field.offsets, field.offsetWidth, t + 1) : field.postings.length;
        // Every term of an index some doc holds (a term none holds is dropped): kept, it still is.
        if (appendOnly && gained.length === 0 && keptUnread(field.postings, start)) {
          segmentsOf[f] = start;
          ends[f] = end;
          any = true;
          continue;
        }
        // A list whose docs all keep their rank and which gains none is the segment as written: checked without decoding it.
        const members = gained.length === 0 && keeps[KIND_LIST] ? keptListCount(field.postings, start, rankNow) : -1;
        if (members !== -1) {
          segmentsOf[f] = start;
          ends[f] = end;
          any ||= members > 0;
          continue;
        }
        // Ranks moved in order (a removal or a back-dated add moves every later one): the segment written again as it is read.
        if (inOrder) {
          const { out } = fields[f]!;
          const written = remapList(field.postings, start, rankNow, gained, docs.length, out.codes);
          if (written > 0) {
            segmentsOf[f] = null;
            ends[f] = written;
            // One character is the empty list: the field holds the term in no doc.
            any ||= written > 1;
            continue;
          }
          const bitmap = appendOnly ? null : remapBitmap(field.postings, start, known, rankNow, gained, docs.length);
          if (bitmap !== null) {
            segmentsOf[f] = bitmap;
            any = true;
            continue;
          }
        }
        const posting = decodePosting(field.postings, start, known);
        // A bitmap whose docs all keep their rank (an add of the newest) takes its gains as bits: listing its ranks cost most of the update.
        if (appendOnly && posting.kind === KIND_BITMAP) {
          const bits = new Uint32Array(Math.ceil(docs.length / 32));
          bits.set(posting.bits.subarray(0, Math.min(posting.bits.length, bits.length)));
          for (const rank of gained) bits[rank >>> 5]! |= 1 << (rank & 31);
          const segment = encodeBitmapPosting(bits, posting.count + gained.length, docs.length);
          if (segment !== null) {
            segmentsOf[f] = segment;
            any = true;
            continue;
          }
        }
        const stored = posting.kind === KIND_LIST ? posting.ranks : ranksOf(posting.bits);
        let kept = gained.length === 0 && keeps[posting.kind];
        for (let i = 0; kept && i < stored.length; i++) kept = rankNow[stored[i]!] === stored[i];
        if (kept) {
          segmentsOf[f] = start;
          ends[f] = end;
          any ||= stored.length > 0;
          continue;
        }
        ranks = [];
        for (let i = 0; i < stored.length; i++) {
          const rank = rankNow[stored[i]!]!;
          if (rank !== -1) ranks.push(rank);
        }
        if (!inOrder) ranks.sort(ascending);
      }
      ranks = mergeRanks(ranks, gained);
      segmentsOf[f] = encodePosting(ranks, docs.length);
      any ||= ranks.length > 0;
    }
    if (fromPrevious) t++;
    else a++;
    // A term no doc holds any more is dropped, as a build from scratch never sees it.
    if (!any) {
      for (let f = 0; f < fields.length; f++) if (segmentsOf[f] === null) fields[f]!.out.codes.length -= ends[f]!;
      continue;
    }
    terms.push(term);
    for (let f = 0; f < fields.length; f++) {
      const segment = segmentsOf[f]!;
      if (typeof segment === 'number') fields[f]!.out.keep(segment, ends[f]!);
      else if (segment === null) fields[f]!.out.written(ends[f]!);
      else fields[f]!.out.add(segment);
    }
  }
  const [tags, description] = fields.map(({ out }) => out.done());
  // The same terms (none new, none dropped): the text as it was, not joined again.
  const sameTerms = terms.length === previousTerms.length && addedTerms.length === 0;
  return { format: SEARCH_INDEX_FORMAT, docCount: docs.length, terms: sameTerms ? previous.terms : terms.join(' '), tags: tags!, description: description! };
}

/**
 * One field's postings written term by term (`fieldPostings`' result): a segment kept from the
 * previous postings is taken with its neighbours as one slice, so a change build copies runs,
 * not every segment.
 */
class FieldOutput {
  /** Segments written as codes (`written`), not yet taken as text. */
  readonly codes = new SegmentCodes();
  private readonly parts: string[] = [];
  private readonly offsets: number[] = [];
  private length = 0;
  private runStart = 0;
  private runEnd = 0;

  constructor(private readonly previous: string) {}

  keep(start: number, end: number): void {
    this.takeCodes();
    if (start !== this.runEnd) {
      this.flush();
      this.runStart = start;
    }
    this.runEnd = end;
    this.offsets.push(this.length);
    this.length += end - start;
  }

  add(segment: string): void {
    this.flush();
    this.takeCodes();
    this.offsets.push(this.length);
    this.length += segment.length;
    this.parts.push(segment);
  }

  /** A segment of `chars` characters, written into `codes` after the segments before it. */
  written(chars: number): void {
    this.flush();
    this.offsets.push(this.length);
    this.length += chars;
  }

  done(): FieldPostings {
    this.flush();
    this.takeCodes();
    const offsetWidth = digitsFor(this.length);
    return { postings: this.parts.join(''), offsets: packNumbers(this.offsets, offsetWidth), offsetWidth };
  }

  private takeCodes(): void {
    if (this.codes.length > 0) this.parts.push(this.codes.take());
  }

  private flush(): void {
    if (this.runEnd > this.runStart) this.parts.push(this.previous.slice(this.runStart, this.runEnd));
    this.runStart = this.runEnd;
  }
}

/** Whether `term` is one of `sorted` (ascending by code unit). */
function sortedHas(sorted: readonly string[], term: string): boolean {
  return sorted[lowerBound(sorted.length, (index) => sorted[index]! < term)] === term;
}
