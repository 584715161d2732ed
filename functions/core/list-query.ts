/**
 * Query parameters of the list operations of both variants, validated by hand (fast,
 * no zod on the request path) against the limits in api-limits.ts. Every message is one
 * sentence naming the parameter, the value received and what is allowed.
 */
import {
  BOOLEAN_WORDS, DEFAULT_SORT, FIELDS, LIMIT_A, LIMIT_B, PAGE, SEARCH_MAX_LENGTH, SEED_MAX_LENGTH, SORTS, UUID_PATTERN,
  type Field, type Sort,
} from './api-limits.js';
import { hasControlCharacters, parseQueryString, quote, type Parsed } from './query-string.js';

export interface ListRequestA {
  limit: number;
  page: number;
  /** Trimmed; '' = no search. With field=id, a lowercase UUID. */
  search: string;
  field: Field;
  sort: Sort;
  random: boolean;
  /** Only kept when random=true. */
  seed: string | null;
}

export interface ListRequestB {
  limit: number;
  search: string;
}

const A_PARAMS = ['limit', 'page', 'search', 'field', 'sort', 'random', 'seed'] as const;
const B_PARAMS = ['limit', 'search'] as const;

const listWords = (words: readonly string[], quoteEach = true): string => {
  const shown = words.map((w) => (quoteEach ? `"${w}"` : w));
  return shown.length <= 2 ? shown.join(' or ') : `${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}`;
};

function integer(name: string, raw: string | undefined, range: { min: number; max: number; default: number }): Parsed<number> {
  if (raw === undefined) return { ok: true, value: range.default };
  const value = /^[0-9]{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= range.min && value <= range.max)) {
    return { ok: false, message: `${name} must be an integer from ${range.min} to ${range.max} (got ${quote(raw)})` };
  }
  return { ok: true, value };
}

function searchText(raw: string | undefined): Parsed<string> {
  const value = (raw ?? '').trim();
  if (value.length > SEARCH_MAX_LENGTH) {
    return { ok: false, message: `search must be at most ${SEARCH_MAX_LENGTH} characters after trimming (got ${value.length})` };
  }
  if (hasControlCharacters(value)) return { ok: false, message: `search must not contain control characters (got ${quote(value)})` };
  return { ok: true, value };
}

export function parseListQueryA(rawQuery: string): Parsed<ListRequestA> {
  const parsed = parseQueryString(rawQuery, A_PARAMS);
  if (!parsed.ok) return parsed;
  const q = parsed.value;
  const limit = integer('limit', q.limit, LIMIT_A);
  if (!limit.ok) return limit;
  const page = integer('page', q.page, PAGE);
  if (!page.ok) return page;
  const search = searchText(q.search);
  if (!search.ok) return search;
  const field = (q.field ?? 'text') as Field;
  if (!FIELDS.includes(field)) return { ok: false, message: `field must be ${listWords(FIELDS)} (got ${quote(q.field!)})` };
  const sort = (q.sort ?? DEFAULT_SORT) as Sort;
  if (!SORTS.includes(sort)) return { ok: false, message: `sort must be ${listWords(SORTS)} (got ${quote(q.sort!)})` };
  const randomWord = (q.random ?? 'false').toLowerCase();
  if (!(BOOLEAN_WORDS as readonly string[]).includes(randomWord)) {
    return { ok: false, message: `random must be ${listWords(BOOLEAN_WORDS, false)} (got ${quote(q.random!)})` };
  }
  const random = randomWord === 'true' || randomWord === '1';
  if (random && q.sort !== undefined) {
    return { ok: false, message: `sort cannot be combined with random=true (got sort=${quote(q.sort)}); leave sort out for a shuffled order` };
  }
  if (q.seed !== undefined && q.seed.length > SEED_MAX_LENGTH) {
    return { ok: false, message: `seed must be at most ${SEED_MAX_LENGTH} characters (got ${q.seed.length})` };
  }
  let text = search.value;
  if (field === 'id' && text !== '') {
    if (!UUID_PATTERN.test(text)) return { ok: false, message: `search must be a UUID when field=id (got ${quote(text)})` };
    text = text.toLowerCase();
  }
  return {
    ok: true,
    value: { limit: limit.value, page: page.value, search: text, field, sort, random, seed: random ? (q.seed ?? null) : null },
  };
}

export function parseListQueryB(rawQuery: string): Parsed<ListRequestB> {
  const parsed = parseQueryString(rawQuery, B_PARAMS);
  if (!parsed.ok) return parsed;
  const limit = integer('limit', parsed.value.limit, LIMIT_B);
  if (!limit.ok) return limit;
  const search = searchText(parsed.value.search);
  if (!search.ok) return search;
  return { ok: true, value: { limit: limit.value, search: search.value } };
}

/** A path id: any UUID letter case, returned lowercase. */
export function parseId(raw: string): Parsed<string> {
  let id = raw;
  try {
    id = decodeURIComponent(raw);
  } catch {
    // keep the raw text: it is not a UUID either way, and the message shows it
  }
  if (!UUID_PATTERN.test(id)) return { ok: false, message: `id must be a UUID like 3f1c2a9e-8b7d-4c5e-9a10-6b2d4e8f1a37 (got ${quote(id)})` };
  return { ok: true, value: id.toLowerCase() };
}
