import type { Options } from 'minisearch';
import { searchWords } from './normalise.js';

/** The shape MiniSearch indexes: one per record, `id` = the record's rank (position in ascending created_at order). */
export interface IndexedDoc {
  id: number;
  tags: string[] | null;
  description: string | null;
}

/**
 * The ONE MiniSearch configuration of the project: an index must be read with exactly the
 * options it was built with, so the build (build-index.ts) and the benchmark's MiniSearch
 * baseline both import this constant.
 */
export const SEARCH_OPTIONS: Options<IndexedDoc> = {
  /** Records are identified by rank; their uuids live in the catalogue, not in the index. */
  idField: 'id',
  /** Variant A searches both; variant B only `description` (the query side picks). */
  fields: ['tags', 'description'],
  /** Nothing is stored: answers come from the catalogue by rank. */
  storeFields: [],
  /** Tags are a list; joined with a space they tokenise into the same words as free text. */
  extractField: (doc, field) => {
    if (field === 'tags') return doc.tags === null ? '' : doc.tags.join(' ');
    const value = (doc as unknown as Record<string, unknown>)[field];
    return value === null || value === undefined ? '' : String(value);
  },
  /** Our normalisation (NFKD, marks removed, lowercase, split on non-letters/digits) IS the tokenizer. */
  tokenize: (text) => searchWords(text),
  /** Tokens are already normalised; an identity keeps MiniSearch from lowercasing twice. */
  processTerm: (term) => term,
};
