/** Variant A answers: list/search/random/pagination (GET /api/pepe and aliases) and by-id. */
import { DEFAULT_SORT, LIMIT_A, PAGE_SORTS, PAGES_PATH, type PageSort } from './api-limits.js';
import type { Catalogue } from './catalogue-runtime.js';
import { byIdBodyA, errorBodyA, listBodyA, singleBodyA } from './bodies.js';
import type { Answer } from './http.js';
import { quote } from './query-string.js';
import { parseId, parseListQueryA, type ListRequestA } from './list-query.js';
import { rankSelector, ranksOf } from './search/rank-set.js';
import { seededRandom, shuffledSlice, type RandomSource } from './shuffle.js';

export const validationErrorA = (message: string): Answer => ({ status: 400, body: errorBodyA('VALIDATION_ERROR', message), caching: 'error' });

/** The result set in the order in effect: `size` items, item k = `at(k)` (a rank). */
interface ResultSet {
  size: number;
  at(k: number): number;
}

const ranksSet = (ranks: ArrayLike<number>): ResultSet => ({ size: ranks.length, at: (k) => ranks[k]! });

/** The matches that `keep` holds (null: all) in ascending rank order. */
function ascendingMatches(catalogue: Catalogue, q: ListRequestA, keep: Uint32Array | null): ResultSet {
  if (q.search === '' && keep === null) return { size: catalogue.count, at: (k) => k };
  if (q.search !== '' && q.field === 'id') {
    const rank = catalogue.rankOf(q.search.toLowerCase());
    return ranksSet(rank === -1 || (keep !== null && ((keep[rank >>> 5]! >>> (rank & 31)) & 1) === 0) ? [] : [rank]);
  }
  // A buffer (the filters' or the search's) that nothing overwrites before the page is picked.
  const bits = q.search === '' ? keep : catalogue.matchBits(q.search, 'all', keep);
  if (bits === null) return ranksSet([]);
  // A shuffle reads positions anywhere: list them once. A sorted page reads a run of them in place.
  return q.random ? ranksSet(ranksOf(bits)) : rankSelector(bits);
}

function orderedResultSet(catalogue: Catalogue, q: ListRequestA): ResultSet {
  // random=true ignores sort (the spec's letter): the shuffle always starts from the default
  // order, so a seeded shuffle stays a function of (seed, search, filters, catalogue) alone.
  const sort = q.random ? DEFAULT_SORT : q.sort;
  const keep = q.filters === null ? null : catalogue.filters().bits(q.filters);
  if (sort === 'relevance' && q.search !== '' && q.field === 'text') {
    const byScore = catalogue.matchByRelevance(q.search, 'all', keep);
    return { size: byScore.length, at: (k) => byScore[k]! };
  }
  const ascending = ascendingMatches(catalogue, q, keep);
  // relevance without a text search: every score ties, and ties are ordered as desc.
  if (sort === 'created_at_asc') return ascending;
  const { size } = ascending;
  return { size, at: (k) => ascending.at(size - 1 - k) };
}

/** Positions start..end-1 of the result set, shuffled when random=true. */
function pick(set: ResultSet, start: number, end: number, q: ListRequestA, random: RandomSource): number[] {
  if (q.random) {
    const source = q.seed === null ? random : seededRandom(q.seed);
    return shuffledSlice(set.size, start, end, source).map((k) => set.at(k));
  }
  const out: number[] = [];
  for (let k = start; k < Math.min(end, set.size); k++) out.push(set.at(k));
  return out;
}

export function listA(catalogue: Catalogue, rawQuery: string, random: RandomSource): Answer {
  const parsed = parseListQueryA(rawQuery);
  if (!parsed.ok) return validationErrorA(parsed.message);
  const q = parsed.value;
  const set = orderedResultSet(catalogue, q);
  const caching = q.random ? 'no-store' : 'deterministic';
  const start = (q.page - 1) * q.limit;
  if (q.limit === 1) {
    if (set.size === 0) {
      // Documented by the reference service: a search that finds nothing still shows a pepe.
      // With random=true and a seed, that pepe is the seed's too, so the answer repeats.
      // With filters, the fallback is drawn from the records they keep (none kept: null).
      const source = q.random && q.seed !== null ? seededRandom(`${q.seed}\n${q.search}`) : random;
      const pool = q.filters === null ? null : ranksOf(catalogue.filters().bits(q.filters));
      const poolSize = pool === null ? catalogue.count : pool.length;
      const drawn = q.search !== '' && poolSize > 0 ? Math.floor(source() * poolSize) : null;
      const fallback = drawn === null || pool === null ? drawn : pool[drawn]!;
      return { status: 200, body: singleBodyA(catalogue, fallback, q.search, false, q.filters), caching: fallback === null ? caching : 'no-store' };
    }
    const [rank] = start < set.size ? pick(set, start, start + 1, q, random) : [];
    return { status: 200, body: singleBodyA(catalogue, rank ?? null, q.search, true, q.filters), caching };
  }
  const ranks = start < set.size ? pick(set, start, start + q.limit, q, random) : [];
  const body = listBodyA(catalogue, ranks, { page: q.page, pageText: q.pageText, limit: q.limit, totalItems: set.size }, q.search, q.sort, q.filters);
  return { status: 200, body, caching };
}

/** The list query a sorted page answers (PAGES_PATH). */
export const sortedPageQuery = (sort: PageSort, page: number | string): string => `limit=${LIMIT_A.max}&page=${page}&sort=${sort}`;

/** Pages of a sorted listing: the last page, at least 1 (an empty catalogue still has its empty page 1). */
export const sortedPageCount = (catalogue: Catalogue): number => Math.max(1, Math.ceil(catalogue.count / LIMIT_A.max));

/**
 * `/api/pages/<sort>/<n>` (the rest of the path after PAGES_PATH), deprecated: exactly the answer
 * of its list query, as the static files of earlier releases held it; a page that was never a
 * file is a 404 naming the pages there are.
 */
export function sortedPageA(catalogue: Catalogue, rest: string): Answer {
  const [sort, page, extra] = rest.split('/');
  const last = sortedPageCount(catalogue);
  const known = (PAGE_SORTS as readonly string[]).includes(sort ?? '') && extra === undefined && /^[1-9][0-9]{0,15}$/.test(page ?? '') && Number(page) <= last;
  if (!known) {
    const message = `No sorted page ${quote(rest)}; use ${PAGES_PATH}/<${PAGE_SORTS.join('|')}>/<n> with n from 1 to ${last}`;
    return { status: 404, body: errorBodyA('NOT_FOUND', message), caching: 'error' };
  }
  return listA(catalogue, sortedPageQuery(sort as PageSort, page!), Math.random);
}

/** A variant A answer about one pepe by id (by-id, similar): 400 for a malformed id, 404 for an unknown one, else `body(rank)`. */
export function answerForIdA(catalogue: Catalogue, rawId: string, body: (rank: number) => string): Answer {
  const parsed = parseId(rawId);
  if (!parsed.ok) return validationErrorA(parsed.message);
  const rank = catalogue.rankOf(parsed.value.toLowerCase());
  if (rank === -1) return { status: 404, body: errorBodyA('NOT_FOUND', `No pepe with id ${parsed.value}`), caching: 'error' };
  return { status: 200, body: body(rank), caching: 'deterministic' };
}

export function byIdA(catalogue: Catalogue, rawId: string): Answer {
  return answerForIdA(catalogue, rawId, (rank) => byIdBodyA(catalogue, rank));
}
