/** Shared types of the search modules (see search-index.ts for the public surface). */
import type { StoredStarts } from '../joined-text.js';
import type { PiecedNumbers } from '../packed-numbers.js';

/** What is indexed of one record. Docs are given in ascending created_at order: doc i has rank i. */
export interface SearchDoc {
  tags: string[] | null;
  description: string | null;
}

/** `all`: tags and description (variant A); `description`: description only (variant B). */
export type SearchField = 'all' | 'description';

/** Posting lists of one field: per term (in `terms` order) a segment of `postings`. */
export interface FieldPostings {
  /** Concatenated segments (see posting-codec.ts). */
  postings: string;
  /**
   * Start of each term's segment in `postings`, in term order, packed with `offsetWidth`
   * digits (../packed-numbers.ts): read one at a time, so loading decodes nothing.
   */
  offsets: string;
  offsetWidth: number;
}

/**
 * The serialised index: plain JSON, opaque outside this folder. Everything is text so
 * JSON.parse of the bundled catalogue does almost no work for it; decoding is deferred
 * to the first query, and each posting list to the first query that needs it.
 */
export interface SearchIndexData {
  format: typeof SEARCH_INDEX_FORMAT;
  /** Number of indexed records (ranks are 0 .. docCount - 1). */
  docCount: number;
  /** Every distinct normalised word, sorted by code unit, separated by single spaces. */
  terms: string;
  tags: FieldPostings;
  description: FieldPostings;
}

/**
 * One field's postings as the catalogue stores them (stored-index.ts): in pieces of its
 * texts, each read on first use, so a cold process's first search touches only the pieces
 * holding the terms it looks up instead of copying every posting at import.
 */
export interface StoredFieldPostings {
  /** The piece holding the first segments; the others follow it. A segment never straddles two pieces. */
  postings: number;
  /** A term's offset `v` is position `v % pieceSpan` of piece `postings + floor(v / pieceSpan)`. */
  pieceSpan: number;
  /** One offset per term, in term order. */
  offsets: PiecedNumbers;
}

/** SearchIndexData as the catalogue stores it: numbers only, every text a piece of the catalogue's texts. */
export interface StoredSearchIndex {
  docCount: number;
  /** The piece holding the terms (SearchIndexData.terms). */
  terms: number;
  /**
   * Where each of the `count` terms starts in that piece (unescaped), and one more number, its
   * length + 1 (term-list.ts). Absent for an index held in memory (loadSearchIndex): its terms
   * are scanned once instead.
   */
  termStarts?: StoredStarts;
  tags: StoredFieldPostings;
  description: StoredFieldPostings;
}

/** Changes whenever the layout of SearchIndexData changes, so an old index is refused, not misread. */
export const SEARCH_INDEX_FORMAT = 'pepe-search-3' as const;

export interface SearchIndex {
  /**
   * Ranks of all docs matching every query word (AND, prefix, typo fallback), ascending. Empty
   * when the query has no words. With `keep` (a bitset of ranks, filters.ts), only the matches it
   * holds; the typo fallback still depends on the unfiltered strict matches alone.
   */
  match(query: string, field: SearchField, keep?: Uint32Array | null): Uint32Array;
  /** The same set as a bitset (bit r of word r >>> 5): the index's buffer, valid until its next query; null when nothing matches. */
  matchBits(query: string, field: SearchField, keep?: Uint32Array | null): Uint32Array | null;
  /** Same set ordered by relevance (tags weigh more than description), ties: higher rank (newer) first. */
  matchByRelevance(query: string, field: SearchField, keep?: Uint32Array | null): Uint32Array;
}
