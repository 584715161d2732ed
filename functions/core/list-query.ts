/**
 * Query parameters of the list operations of both variants, validated by hand (fast,
 * no zod on the request path) against the limits in api-limits.ts. Every message is one
 * sentence naming the parameter, the value received and what is allowed.
 */
import {
  BOOLEAN_WORDS, DEFAULT_SORT, FIELDS, FILTER_TAGS_MAX, LIMIT_A, LIMIT_B, ORIENTATIONS, PAGE, SEARCH_MAX_LENGTH, SEED_MAX_LENGTH, SORTS, UUID_PATTERN,
  type Field, type Sort,
} from './api-limits.js';
import { normaliseTag, type Filters, type Orientation } from './filters.js';
import { hasControlCharacters, parseQueryString, quote, type Parsed } from './query-string.js';
import { parseHash, type Hash64 } from './multi-index.js';
import { SIMILAR_MAX_DISTANCE } from './similar.js';

export interface ListRequestA {
  limit: number;
  /** Infinity for a page number beyond 15 digits (past the end of any catalogue). */
  page: number;
  /** The page number's digits without leading zeros, echoed in meta.pagination.page. */
  pageText: string;
  /** Trimmed, as received ('' = no search); with field=id, a UUID in any letter case. */
  search: string;
  field: Field;
  sort: Sort;
  random: boolean;
  /** Only kept when random=true. */
  seed: string | null;
  /** null when no filter is in effect. */
  filters: Filters | null;
}

export interface ListRequestB {
  limit: number;
  search: string;
  /** null when no filter is in effect (variant B has tags and exclude_tags only). */
  filters: Filters | null;
}

const A_PARAMS = ['limit', 'page', 'search', 'field', 'sort', 'random', 'seed', 'tags', 'exclude_tags', 'animated', 'orientation'] as const;
const B_PARAMS = ['limit', 'search', 'tags', 'exclude_tags'] as const;

const listWords = (words: readonly string[], quoteEach = true): string => {
  const shown = words.map((w) => (quoteEach ? `"${w}"` : w));
  return shown.length <= 2 ? shown.join(' or ') : `${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}`;
};

/** The digits of a decimal integer (leading zeros allowed, any length) without its leading zeros, or null. */
function decimalDigits(raw: string): string | null {
  if (!/^[0-9]+$/.test(raw)) return null;
  const first = raw.search(/[1-9]/);
  return first === -1 ? '0' : raw.slice(first);
}

function integer(name: string, raw: string | undefined, range: { min: number; max: number; default: number }): Parsed<number> {
  if (raw === undefined) return { ok: true, value: range.default };
  const digits = decimalDigits(raw);
  const value = digits === null ? Number.NaN : Number(digits);
  if (!(value >= range.min && value <= range.max)) {
    return { ok: false, message: `${name} must be an integer from ${range.min} to ${range.max} (got ${quote(raw)})` };
  }
  return { ok: true, value };
}

/**
 * `page`: any decimal integer ≥ 1 (the specification sets no upper bound). One with more than
 * 15 digits is past the end of any catalogue: its value is Infinity, and `text` keeps its
 * exact digits for the echo in `meta.pagination.page`.
 */
function pageNumber(raw: string | undefined): Parsed<{ value: number; text: string }> {
  if (raw === undefined) return { ok: true, value: { value: PAGE.default, text: String(PAGE.default) } };
  const digits = decimalDigits(raw);
  if (digits === null || digits === '0') return { ok: false, message: `page must be an integer of ${PAGE.min} or more (got ${quote(raw)})` };
  return { ok: true, value: { value: digits.length <= 15 ? Number(digits) : Number.POSITIVE_INFINITY, text: digits } };
}

/** Length in characters (code points), as the limits are stated and as JSON Schema's maxLength counts. */
function characters(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    count++;
  }
  return count;
}

function searchText(raw: string | undefined): Parsed<string> {
  // Checked before trimming: trim() would drop a leading or trailing tab or newline unseen.
  if (raw !== undefined && hasControlCharacters(raw)) return { ok: false, message: `search must not contain control characters (got ${quote(raw)})` };
  const value = (raw ?? '').trim();
  const length = characters(value);
  if (length > SEARCH_MAX_LENGTH) {
    return { ok: false, message: `search must be at most ${SEARCH_MAX_LENGTH} characters after trimming (got ${length} characters: ${quote(value)})` };
  }
  return { ok: true, value };
}

/** true/false/1/0 in any letter case, or null when absent. */
function booleanWord(name: string, raw: string | undefined): Parsed<boolean | null> {
  if (raw === undefined) return { ok: true, value: null };
  const word = raw.toLowerCase();
  if (!(BOOLEAN_WORDS as readonly string[]).includes(word)) return { ok: false, message: `${name} must be ${listWords(BOOLEAN_WORDS, false)} (got ${quote(raw)})` };
  return { ok: true, value: word === 'true' || word === '1' };
}

/** `tags` / `exclude_tags`: comma-separated, each normalised as sidecar tags are; '' = none. */
function tagList(name: string, raw: string | undefined): Parsed<string[]> {
  if (raw === undefined || raw.trim() === '') return { ok: true, value: [] };
  if (hasControlCharacters(raw)) return { ok: false, message: `${name} must not contain control characters (got ${quote(raw)})` };
  const tags = raw.split(',').map(normaliseTag);
  if (tags.includes('')) return { ok: false, message: `${name} must be tags separated by commas, none of them empty (got ${quote(raw)})` };
  const distinct = [...new Set(tags)];
  if (distinct.length > FILTER_TAGS_MAX) return { ok: false, message: `${name} must list at most ${FILTER_TAGS_MAX} tags (got ${distinct.length})` };
  return { ok: true, value: distinct };
}

type FilterParams = Partial<Record<'tags' | 'exclude_tags' | 'animated' | 'orientation', string>>;

/** The filters of a query, or null when none is in effect. */
function filtersOf(q: FilterParams): Parsed<Filters | null> {
  const tags = tagList('tags', q.tags);
  if (!tags.ok) return tags;
  const excludeTags = tagList('exclude_tags', q.exclude_tags);
  if (!excludeTags.ok) return excludeTags;
  const animated = booleanWord('animated', q.animated);
  if (!animated.ok) return animated;
  const orientation = (q.orientation ?? null) as Orientation | null;
  if (orientation !== null && !ORIENTATIONS.includes(orientation)) return { ok: false, message: `orientation must be ${listWords(ORIENTATIONS)} (got ${quote(q.orientation!)})` };
  const none = tags.value.length === 0 && excludeTags.value.length === 0 && animated.value === null && orientation === null;
  return { ok: true, value: none ? null : { tags: tags.value, excludeTags: excludeTags.value, animated: animated.value, orientation } };
}

export function parseListQueryA(rawQuery: string): Parsed<ListRequestA> {
  const parsed = parseQueryString(rawQuery, A_PARAMS);
  if (!parsed.ok) return parsed;
  const q = parsed.value;
  const limit = integer('limit', q.limit, LIMIT_A);
  if (!limit.ok) return limit;
  const page = pageNumber(q.page);
  if (!page.ok) return page;
  const search = searchText(q.search);
  if (!search.ok) return search;
  const field = (q.field ?? 'text') as Field;
  if (!FIELDS.includes(field)) return { ok: false, message: `field must be ${listWords(FIELDS)} (got ${quote(q.field!)})` };
  const sort = (q.sort ?? DEFAULT_SORT) as Sort;
  if (!SORTS.includes(sort)) return { ok: false, message: `sort must be ${listWords(SORTS)} (got ${quote(q.sort!)})` };
  const randomWord = booleanWord('random', q.random);
  if (!randomWord.ok) return randomWord;
  // The spec: sort is "Ignored when random is true". So a valid sort is accepted with
  // random=true (echoed in meta.sort, as the specification asks: "the requested or default
  // value, also when random=true") and has no effect on the order; see variant-a.ts. An
  // unknown value was refused above, random or not ("400, also when random=true").
  const random = randomWord.value === true;
  if (q.seed !== undefined) {
    const length = characters(q.seed);
    if (length > SEED_MAX_LENGTH) return { ok: false, message: `seed must be at most ${SEED_MAX_LENGTH} characters (got ${length} characters: ${quote(q.seed)})` };
    if (hasControlCharacters(q.seed)) return { ok: false, message: `seed must not contain control characters (got ${quote(q.seed)})` };
  }
  const text = search.value;
  if (field === 'id' && text !== '' && !UUID_PATTERN.test(text)) return { ok: false, message: `search must be a UUID when field=id (got ${quote(text)})` };
  const filters = filtersOf(q);
  if (!filters.ok) return filters;
  return {
    ok: true,
    value: {
      limit: limit.value, page: page.value.value, pageText: page.value.text, search: text, field, sort, random, seed: random ? (q.seed ?? null) : null, filters: filters.value,
    },
  };
}

export function parseListQueryB(rawQuery: string): Parsed<ListRequestB> {
  const parsed = parseQueryString(rawQuery, B_PARAMS);
  if (!parsed.ok) return parsed;
  const limit = integer('limit', parsed.value.limit, LIMIT_B);
  if (!limit.ok) return limit;
  const search = searchText(parsed.value.search);
  if (!search.ok) return search;
  const filters = filtersOf(parsed.value);
  if (!filters.ok) return filters;
  return { ok: true, value: { limit: limit.value, search: search.value, filters: filters.value } };
}

export interface SimilarRequest {
  hash: Hash64;
  /** The phash in lowercase, echoed in meta.phash. */
  phash: string;
  maxDistance: number;
}

const EXAMPLE_PHASH = 'c3d4e5f60718293a';

/** `GET /api/similar?phash=&max_distance=`: the hash as imagehash writes it (any letter case), a cut-off up to the index's. */
export function parseSimilarQuery(rawQuery: string): Parsed<SimilarRequest> {
  const parsed = parseQueryString(rawQuery, ['phash', 'max_distance']);
  if (!parsed.ok) return parsed;
  const { phash, max_distance: rawDistance } = parsed.value;
  const what = `16 hexadecimal digits, the 64-bit perceptual hash as Python's str(imagehash.phash(image)) writes it, such as ${EXAMPLE_PHASH}`;
  if (phash === undefined) return { ok: false, message: `phash is required: ${what}` };
  const hash = parseHash(phash);
  if (hash === null) return { ok: false, message: `phash must be ${what} (got ${quote(phash)})` };
  const maxDistance = integer('max_distance', rawDistance, { min: 0, max: SIMILAR_MAX_DISTANCE, default: SIMILAR_MAX_DISTANCE });
  if (!maxDistance.ok) return maxDistance;
  return { ok: true, value: { hash, phash: phash.toLowerCase(), maxDistance: maxDistance.value } };
}

/** A path id: any UUID letter case, as received (decoded); look it up lowercased. */
export function parseId(raw: string): Parsed<string> {
  let id = raw;
  try {
    id = decodeURIComponent(raw);
  } catch {
    // keep the raw text: it is not a UUID either way, and the message shows it
  }
  if (!UUID_PATTERN.test(id)) return { ok: false, message: `id must be a UUID like 3f1c2a9e-8b7d-4c5e-9a10-6b2d4e8f1a37 (got ${quote(id)})` };
  return { ok: true, value: id };
}
