/**
 * Response bodies of both variants, composed from the pre-serialised record JSON (no
 * parse/stringify of records per request). The build's static by-id files use the same
 * functions, which is what makes them byte-equal to the handler's answers.
 */
import type { Catalogue } from './catalogue-runtime.js';
import type { ErrorCode } from './schemas.js';
import type { Sort } from './api-limits.js';
import type { Filters } from './filters.js';

export function byIdBodyA(catalogue: Catalogue, rank: number): string {
  return `{"data":${catalogue.jsonA(rank)},"error":null}`;
}

export function byIdBodyB(catalogue: Catalogue, rank: number): string {
  return `{"result":${catalogue.jsonB(rank)},"status":"success"}`;
}

export function errorBodyA(code: ErrorCode, message: string): string {
  return JSON.stringify({ data: null, error: { code, message } });
}

export function errorBodyB(code: ErrorCode, message: string): string {
  return JSON.stringify({ result: null, status: 'error', error: { code, message } });
}

const searchMeta = (terms: string, found: boolean): string => `{"terms":${JSON.stringify(terms)},"found":${found}}`;

/** `,"filters":{…}` echoing the filters in effect; nothing when there are none. */
const filtersMeta = (filters: Filters | null): string =>
  filters === null
    ? ''
    : `,"filters":${JSON.stringify({ tags: filters.tags, exclude_tags: filters.excludeTags, animated: filters.animated, orientation: filters.orientation })}`;

/** limit=1: one object (or null), meta.search (and meta.filters) only. */
export function singleBodyA(catalogue: Catalogue, rank: number | null, terms: string, found: boolean, filters: Filters | null = null): string {
  return `{"data":${rank === null ? 'null' : catalogue.jsonA(rank)},"meta":{"search":${searchMeta(terms, found)}${filtersMeta(filters)}},"error":null}`;
}

export interface PageInfo {
  /** Infinity beyond 15 digits; `pageText` (its exact digits) is what the body echoes. */
  page: number;
  pageText: string;
  limit: number;
  totalItems: number;
}

/** limit>1: a page of objects with pagination, search and sort meta. */
export function listBodyA(catalogue: Catalogue, ranks: ArrayLike<number>, info: PageInfo, terms: string, sort: Sort, filters: Filters | null = null): string {
  const items: string[] = [];
  for (let i = 0; i < ranks.length; i++) items.push(catalogue.jsonA(ranks[i]!));
  const totalPages = Math.ceil(info.totalItems / info.limit);
  const pagination =
    `{"page":${info.pageText},"limit":${info.limit},"total_items":${info.totalItems},"total_pages":${totalPages},` +
    `"has_next":${info.page < totalPages},"has_previous":${info.page > 1}}`;
  return `{"data":[${items.join(',')}],"meta":{"pagination":${pagination},"search":${searchMeta(terms, info.totalItems > 0)},"sort":"${sort}"${filtersMeta(filters)}},"error":null}`;
}

export function listBodyB(catalogue: Catalogue, ranks: ArrayLike<number>): string {
  const items: string[] = [];
  for (let i = 0; i < ranks.length; i++) items.push(catalogue.jsonB(ranks[i]!));
  return `{"result":[${items.join(',')}],"status":"success"}`;
}
