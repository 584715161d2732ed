import MiniSearch from 'minisearch';
import { digitsFor, packNumbers } from '../packed-numbers.js';
import { encodePosting } from './posting-codec.js';
import { SEARCH_OPTIONS, type IndexedDoc } from './search-options.js';
import { SEARCH_INDEX_FORMAT, type FieldPostings, type SearchDoc, type SearchIndexData } from './search-types.js';

/**
 * Builds the serialised index. MiniSearch (with SEARCH_OPTIONS) tokenises and collects
 * the term dictionary; its per-term postings are then re-encoded compactly, without term
 * frequencies (we never score by them: tags are a set and descriptions are short).
 */
export function buildSearchIndex(docs: SearchDoc[]): SearchIndexData {
  const miniSearch = new MiniSearch<IndexedDoc>(SEARCH_OPTIONS);
  miniSearch.addAll(docs.map((doc, rank) => ({ id: rank, tags: doc.tags, description: doc.description })));
  const plain = miniSearch.toJSON();
  const rankOf = plain.documentIds as Record<string, number>;
  const tagsFieldId = String(plain.fieldIds.tags);
  const descriptionFieldId = String(plain.fieldIds.description);

  const entries = [...plain.index].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const ranksIn = (fieldData: Record<string, unknown> | undefined): number[] =>
    fieldData === undefined ? [] : Object.keys(fieldData).map((shortId) => rankOf[shortId]!).sort((a, b) => a - b);
  const encodeField = (fieldId: string): FieldPostings => {
    const segments = entries.map(([, fields]) => encodePosting(ranksIn(fields[fieldId]), docs.length));
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
    tags: encodeField(tagsFieldId),
    description: encodeField(descriptionFieldId),
  };
}
