/**
 * Build-time side of the stored index (search-types.ts, StoredSearchIndex): SearchIndexData
 * with its texts handed out as pieces of the catalogue's texts (catalogue.ts). The posting
 * segments are regrouped into pieces of at most `maxPiece` characters, cut between segments,
 * and each term's offset re-packed as (piece, position); a segment longer than `maxPiece`
 * (a bitmap of more than 6 × maxPiece records) gets a piece of its own.
 */
import { storeStarts } from '../joined-text.js';
import { digitsFor, numberAt, packInPieces } from '../packed-numbers.js';
import type { FieldPostings, SearchIndexData, StoredFieldPostings, StoredSearchIndex } from './search-types.js';

/** Number of terms in SearchIndexData.terms (single spaces between terms). */
export function termCount(terms: string): number {
  let count = terms === '' ? 0 : 1;
  for (let at = terms.indexOf(' '); at !== -1; at = terms.indexOf(' ', at + 1)) count++;
  return count;
}

/**
 * One field's postings (`terms` segments) regrouped into pieces of at most `maxPiece`
 * characters, cut between segments, with each term's offset re-packed as (piece, position).
 * Also stores the catalogue's filter postings (../filters.ts).
 */
export function storeFieldPostings(field: FieldPostings, terms: number, maxPiece: number, addPiece: (text: string) => number): StoredFieldPostings {
  const pieces: string[] = [];
  const offsets: number[] = new Array<number>(terms);
  // The segments are contiguous: a piece is one slice of the postings, cut before the segment that would overflow it.
  let pieceStart = 0;
  let start = terms > 0 ? numberAt(field.offsets, field.offsetWidth, 0) : 0;
  for (let t = 0; t < terms; t++) {
    const end = t + 1 < terms ? numberAt(field.offsets, field.offsetWidth, t + 1) : field.postings.length;
    if (start > pieceStart && end - pieceStart > maxPiece) {
      pieces.push(field.postings.slice(pieceStart, start));
      pieceStart = start;
    }
    offsets[t] = pieces.length * maxPiece + start - pieceStart;
    start = end;
  }
  pieces.push(field.postings.slice(pieceStart));
  const postings = pieces.map(addPiece)[0]!;
  const width = digitsFor(offsets.length > 0 ? offsets[offsets.length - 1]! : 0); // ascending
  const packed = packInPieces(offsets, width, maxPiece);
  const first = packed.pieces.map(addPiece)[0]!;
  return { postings, pieceSpan: maxPiece, offsets: { first, width, perPiece: packed.perPiece } };
}

/**
 * `addPiece` appends a text to the catalogue's texts and returns its index; the pieces of one
 * list are added in a row, so they are consecutive.
 */
export function storeSearchIndex(index: SearchIndexData, maxPiece: number, addPiece: (text: string) => number): StoredSearchIndex {
  const terms = termCount(index.terms);
  const storeField = (field: FieldPostings) => storeFieldPostings(field, terms, maxPiece, addPiece);
  const text = addPiece(index.terms);
  // The run time reads a term's start from this table instead of scanning the terms (term-list.ts).
  const termStarts = storeStarts(index.terms, ' ', maxPiece, addPiece);
  return { docCount: index.docCount, terms: text, termStarts, tags: storeField(index.tags), description: storeField(index.description) };
}
