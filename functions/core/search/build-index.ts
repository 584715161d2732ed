import { digitsFor, packNumbers } from '../packed-numbers.js';
import { encodePosting } from './posting-codec.js';
import { SEARCH_OPTIONS, type IndexedDoc } from './search-options.js';
import { SEARCH_INDEX_FORMAT, type FieldPostings, type SearchDoc, type SearchIndexData } from './search-types.js';

type FieldName = 'tags' | 'description';

/**
 * The terms of one field of one doc, exactly as MiniSearch would index them with
 * SEARCH_OPTIONS (the run-time loader and the baseline read the index with those options):
 * extractField, then tokenize, then processTerm, whose falsy results are dropped.
 */
function fieldTerms(doc: IndexedDoc, field: FieldName): string[] {
  const { extractField, tokenize, processTerm } = SEARCH_OPTIONS;
  const text = extractField!(doc, field);
  if (text === undefined || text === null) return [];
  const out: string[] = [];
  for (const token of tokenize!(String(text), field)) {
    const processed = processTerm!(token, field);
    if (Array.isArray(processed)) {
      for (const term of processed) if (term) out.push(term);
    } else if (processed) out.push(processed);
  }
  return out;
}

/**
 * Builds the serialised index: per distinct term (sorted by code unit) the ranks of the
 * records holding it in each field, re-encoded compactly without term frequencies (we never
 * score by them: tags are a set and descriptions are short). The postings are collected
 * directly rather than through a MiniSearch instance: its radix tree, frequency maps and
 * toJSON cost ~2/3 of a 10k build's index time and only the term → ranks sets were used.
 * build-index.test.ts pins the output to what a MiniSearch instance yields.
 */
export function buildSearchIndex(docs: SearchDoc[]): SearchIndexData {
  const postings = new Map<string, { tags: number[]; description: number[] }>();
  const add = (term: string, field: FieldName, rank: number) => {
    let entry = postings.get(term);
    if (entry === undefined) {
      entry = { tags: [], description: [] };
      postings.set(term, entry);
    }
    const ranks = entry[field];
    // Docs come in rank order, so a repeated word of the same doc is always the last rank.
    if (ranks[ranks.length - 1] !== rank) ranks.push(rank);
  };
  docs.forEach((doc, rank) => {
    const indexed: IndexedDoc = { id: rank, tags: doc.tags, description: doc.description };
    for (const term of fieldTerms(indexed, 'tags')) add(term, 'tags', rank);
    for (const term of fieldTerms(indexed, 'description')) add(term, 'description', rank);
  });

  const terms = [...postings.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const encodeField = (field: FieldName): FieldPostings => {
    const segments = terms.map((term) => encodePosting(postings.get(term)![field], docs.length));
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
    terms: terms.join(' '),
    tags: encodeField('tags'),
    description: encodeField('description'),
  };
}
