import { storedStarts } from '../joined-text.js';
import { lowerBound } from '../lower-bound.js';
import { piecedNumberAt } from '../packed-numbers.js';
import { decodePosting, postingCount, type Posting } from './posting-codec.js';
import { letterCount } from './normalise.js';
import { typoNeighbours } from './typo-neighbours.js';
import { QueryScratch } from './query-scratch.js';
import { TermList } from './term-list.js';
import type { StoredFieldPostings, StoredSearchIndex } from './search-types.js';

/** Piece i of the catalogue's texts (read on first use). */
export type TextPiece = (index: number) => string;

/** Query words shorter than this never get typo tolerance (the specification). */
const FUZZY_MIN_LETTERS = 4;

/** How a term was reached from a query word; relevance weighs them differently. */
export const EXACT = 0;
export const PREFIX = 1;
const TYPO = 2;
export type MatchKind = typeof EXACT | typeof PREFIX | typeof TYPO;

/** One term a query word expands to. */
export interface TermMatch {
  id: number;
  term: string;
  kind: MatchKind;
}

/**
 * Posting lists of one field, decoded one term at a time on first use and then kept. A Map,
 * not an array of termCount slots: a query decodes a few lists, and two arrays of one slot per
 * term would be young heap allocated on the first search of a cold process.
 */
export class FieldLists {
  private readonly decoded = new Map<number, Posting>();
  /** The segment of the term read last: its piece and where it starts there (no tuple: see posting-codec.ts, afterVlq). */
  private text = '';
  private at = 0;

  constructor(
    private readonly field: StoredFieldPostings,
    private readonly piece: TextPiece,
    termCount: number,
    private readonly docCount: number,
  ) {
    // Only the last piece of offsets is read here: its length shows whether the offsets end where the terms do.
    const { perPiece, width, first } = field.offsets;
    const lastPiece = Math.floor(Math.max(0, termCount - 1) / perPiece);
    if (piece(first + lastPiece).length !== (termCount - lastPiece * perPiece) * width) throw new Error('search index: posting offsets do not match the terms; rebuild the catalogue');
  }

  /** Points `text` and `at` at the segment of `termId`. */
  private seek(termId: number): void {
    const value = piecedNumberAt(this.piece, this.field.offsets, termId);
    const p = Math.floor(value / this.field.pieceSpan);
    this.text = this.piece(this.field.postings + p);
    this.at = value - p * this.field.pieceSpan;
  }

  count(termId: number): number {
    const cached = this.decoded.get(termId);
    if (cached) return cached.count;
    this.seek(termId);
    return postingCount(this.text, this.at);
  }

  posting(termId: number): Posting {
    let posting = this.decoded.get(termId);
    if (posting === undefined) {
      this.seek(termId);
      posting = decodePosting(this.text, this.at, this.docCount);
      this.decoded.set(termId, posting);
    }
    return posting;
  }
}

/**
 * The run-time view of SearchIndexData: MiniSearch's term dictionary as a sorted list.
 * Prefix lookup is a binary search (a prefix's terms are one contiguous run) and typo
 * lookup one pass over the list, so loading builds nothing: MiniSearch's radix tree
 * (SearchableMap) would answer the same lookups but costs more to build in a cold process
 * than the whole cold-start budget (tools/bench/README.md).
 */
export class TermDictionary {
  readonly docCount: number;
  readonly tags: FieldLists;
  readonly description: FieldLists;
  readonly scratch: QueryScratch;
  private readonly terms: TermList;

  constructor(data: StoredSearchIndex, piece: TextPiece) {
    this.docCount = data.docCount;
    const text = piece(data.terms);
    this.terms = new TermList(text, data.termStarts && storedStarts(text, data.termStarts, piece, 'search index terms'));
    this.tags = new FieldLists(data.tags, piece, this.terms.length, data.docCount);
    this.description = new FieldLists(data.description, piece, this.terms.length, data.docCount);
    this.scratch = new QueryScratch(data.docCount);
  }

  /** Index of the first term ≥ word (code-unit order, as sorted by the build). */
  private lowerBound(word: string): number {
    return lowerBound(this.terms.length, (index) => this.terms.at(index) < word);
  }

  /**
   * The terms a normalised query word matches: itself and every term it starts with; with
   * `typos`, also (for words of ≥ 4 letters) every whole term at edit distance 1. Typo
   * matches are whole-word only: `smig` finds `smug` but not `smugness` — a prefix that is
   * also allowed a typo matches far too much for a four-letter word.
   */
  expand(word: string, typos: boolean): TermMatch[] {
    const matches: TermMatch[] = [];
    let id = this.lowerBound(word);
    const first = id;
    for (; id < this.terms.length; id++) {
      const term = this.terms.at(id);
      if (!term.startsWith(word)) break;
      matches.push({ id, term, kind: term.length === word.length ? EXACT : PREFIX });
    }
    if (typos && letterCount(word) >= FUZZY_MIN_LETTERS) {
      for (const termId of typoNeighbours(this.terms, word)) {
        // Terms in [first, id) are the prefix matches found above.
        if (termId < first || termId >= id) matches.push({ id: termId, term: this.terms.at(termId), kind: TYPO });
      }
    }
    return matches;
  }
}

