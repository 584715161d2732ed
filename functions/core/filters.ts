/**
 * The filters of the list operations (`tags`, `exclude_tags`, `animated`, `orientation`) and
 * the tag list of `GET /api/tags`, over one posting list per facet (search/posting-codec.ts),
 * built with the catalogue and read like the search index's: a list is decoded on first use,
 * from the one piece that holds it, then kept. Facets, in this order: every tag (sorted by
 * code unit), then `animated`, then each orientation.
 */
import { ORIENTATIONS } from './api-limits.js';
import { lowerBound } from './lower-bound.js';
import { encodeFieldPostings } from './search/posting-codec.js';
import { orPosting } from './search/rank-set.js';
import type { StoredFieldPostings } from './search/search-types.js';
import { storeFieldPostings } from './search/stored-index.js';
import { FieldLists, type TextPiece } from './search/term-dictionary.js';

export type Orientation = (typeof ORIENTATIONS)[number];

/** From the upright width and height: taller than wide is portrait, wider than tall landscape. */
export const orientationOf = (width: number, height: number): Orientation => (height > width ? 'portrait' : width > height ? 'landscape' : 'square');

/**
 * A tag as sidecar tags are normalised: trimmed, lowercased, Unicode NFC. `İ` (Turkish capital
 * dotted I) lowercases, by Unicode's default rules, to `i` + U+0307 COMBINING DOT ABOVE: `İzmir`
 * became a tag `i̇zmir` that shows a stray dot and is not the string `izmir`. Its lowercase in
 * Turkish, the language that writes it, is a plain `i`. (Plain `I` stays `i`: lowercasing it to
 * Turkish `ı` would break every other language.) NFC: the same word typed precomposed or
 * decomposed is one tag.
 */
export const normaliseTag = (raw: string): string => raw.trim().replaceAll('\u0130', 'i').toLowerCase().normalize('NFC');

/** The filters of one request; empty lists and nulls filter nothing. Tags are normalised. */
export interface Filters {
  tags: readonly string[];
  excludeTags: readonly string[];
  animated: boolean | null;
  orientation: Orientation | null;
}

/** What the filters are built from, per record in rank order. */
export interface FilterFacts {
  tags: readonly string[] | null;
  animated: boolean;
  width: number;
  height: number;
}

/** The filter postings as the catalogue stores them: pieces of its texts. */
export interface StoredFilters {
  /** The piece holding the JSON array of every tag, sorted by code unit (facet i = tag i). */
  tags: number;
  /** Postings of the tags, then `animated`, then each of ORIENTATIONS. */
  postings: StoredFieldPostings;
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Build time: the facets of `records` (rank order), each text handed to `addPiece`. */
export function storeFilters(records: readonly FilterFacts[], maxPiece: number, addPiece: (text: string) => number): StoredFilters {
  const byTag = new Map<string, number[]>();
  const animated: number[] = [];
  const oriented: number[][] = ORIENTATIONS.map(() => []);
  records.forEach((record, rank) => {
    // A record's tags are distinct (normalised), so every list is ascending and without repeats.
    for (const tag of record.tags ?? []) {
      const ranks = byTag.get(tag);
      if (ranks) ranks.push(rank);
      else byTag.set(tag, [rank]);
    }
    if (record.animated) animated.push(rank);
    oriented[ORIENTATIONS.indexOf(orientationOf(record.width, record.height))]!.push(rank);
  });
  const tags = [...byTag.keys()].sort(byCodeUnit);
  const lists = [...tags.map((tag) => byTag.get(tag)!), animated, ...oriented];
  return { tags: addPiece(JSON.stringify(tags)), postings: storeFieldPostings(encodeFieldPostings(lists, records.length), lists.length, maxPiece, addPiece) };
}

export interface TagCount {
  tag: string;
  count: number;
}

export interface FilterIndex {
  /** Every tag with its number of records, by count descending, then tag (code unit). */
  tagCounts(): TagCount[];
  /**
   * The ranks the filters keep, as a bitset (bit r of word r >>> 5): a buffer reused by every
   * call, valid until the next one (requests are answered synchronously): a fresh pair of
   * bitsets per request is garbage enough to start full marks of the heap (functions/README.md).
   */
  bits(filters: Filters): Uint32Array;
}

/** `piece(i)` is piece i of the catalogue's texts, unescaped; nothing is read before the first call. */
export function openFilters(stored: StoredFilters, piece: TextPiece, docCount: number): FilterIndex {
  let tags: string[] | undefined;
  let lists: FieldLists | undefined;
  const words = Math.ceil(docCount / 32);
  let buffers: [Uint32Array, Uint32Array] | undefined;
  const ready = (): { tags: string[]; lists: FieldLists } => {
    tags ??= JSON.parse(piece(stored.tags)) as string[];
    lists ??= new FieldLists(stored.postings, piece, tags.length + 1 + ORIENTATIONS.length, docCount);
    return { tags, lists };
  };
  const tagId = (all: string[], tag: string): number => {
    const at = lowerBound(all.length, (index) => all[index]! < tag);
    return all[at] === tag ? at : -1;
  };
  return {
    tagCounts() {
      const { tags: all, lists: facets } = ready();
      return all.map((tag, id) => ({ tag, count: facets.count(id) })).sort((a, b) => b.count - a.count || byCodeUnit(a.tag, b.tag));
    },
    bits(filters) {
      const { tags: all, lists: facets } = ready();
      const [bits, scratch] = (buffers ??= [new Uint32Array(words), new Uint32Array(words)]);
      bits.fill(0xffffffff);
      if (docCount % 32 !== 0) bits[words - 1] = (2 ** (docCount % 32) - 1) >>> 0;
      const keep = (facet: number, wanted: boolean) => {
        scratch.fill(0);
        orPosting(scratch, facets.posting(facet));
        if (wanted) for (let i = 0; i < words; i++) bits[i]! &= scratch[i]!;
        else for (let i = 0; i < words; i++) bits[i]! &= ~scratch[i]!;
      };
      for (const tag of filters.tags) {
        const id = tagId(all, tag);
        // A tag no record has: nothing has all the tags.
        if (id === -1) return bits.fill(0);
        keep(id, true);
      }
      for (const tag of filters.excludeTags) {
        const id = tagId(all, tag);
        if (id !== -1) keep(id, false);
      }
      if (filters.animated !== null) keep(all.length, filters.animated);
      if (filters.orientation !== null) keep(all.length + 1 + ORIENTATIONS.indexOf(filters.orientation), true);
      return bits;
    },
  };
}
