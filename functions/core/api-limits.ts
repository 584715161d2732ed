/**
 * The accepted values of every API parameter (api-behaviour.md), in one place: the query
 * parser enforces them, the zod schemas (and so the OpenAPI document) describe them.
 */

export const LIMIT_A = { min: 1, max: 25, default: 1 } as const;
export const LIMIT_B = { min: 1, max: 100, default: 1 } as const;
/** Pages are 1-indexed, with no upper bound (a page past the end is an empty page). */
export const PAGE = { min: 1, default: 1 } as const;
/** Characters (code points) of the trimmed search text. */
export const SEARCH_MAX_LENGTH = 200;
export const SEED_MAX_LENGTH = 64;
/**
 * A longer raw query string is refused before any parsing work (protects the function). Above
 * the longest valid query: a 200-character search percent-encodes to at most 2,400 characters
 * (12 per 4-byte character) and a 64-character seed to 768.
 */
export const QUERY_MAX_LENGTH = 4096;

export const FIELDS = ['text', 'id'] as const;
export type Field = (typeof FIELDS)[number];

export const SORTS = ['created_at_desc', 'created_at_asc', 'relevance'] as const;
export type Sort = (typeof SORTS)[number];
export const DEFAULT_SORT: Sort = 'created_at_desc';

export const BOOLEAN_WORDS = ['true', 'false', '1', '0'] as const;

/** `tags` and `exclude_tags`: at most this many distinct tags each. */
export const FILTER_TAGS_MAX = 20;
/** `orientation`, from the upright width and height. */
export const ORIENTATIONS = ['portrait', 'landscape', 'square'] as const;

/** Any UUID shape, any letter case (lookups are case-insensitive; ids are stored lowercase). */
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Variant A list operation and its aliases (same answers on every path). */
export const VARIANT_A_LIST_PATHS = ['/api/pepe', '/api/pepe_image', '/api/public/pepe', '/api/public/pepes'] as const;
export const VARIANT_B_LIST_PATH = '/v1/pepe';
export const OPENAPI_PATH = '/api/openapi.json';
/** Every tag with its count (a static file). */
export const TAGS_PATH = '/api/tags';
/** `/api/similar/{id}`: a static file per record; `/api/similar?phash=`: the function. */
export const SIMILAR_PATH = '/api/similar';
/** The pepe of the day (`?date=YYYY-MM-DD`). */
export const DAILY_PATH = '/api/daily';

/**
 * The listing as static files a bare bucket can serve: `/api/pages/<order>/<n>` is the answer
 * to `/api/pepe?limit=25&page=<n>&sort=<order>`, for n from 1 to the last page (page 1 also
 * when the catalogue is empty).
 */
export const PAGES_PATH = '/api/pages';
export const PAGE_SORTS = ['created_at_desc', 'created_at_asc'] as const;
export type PageSort = (typeof PAGE_SORTS)[number];

/** The published image formats: extension (from the detected format) → Content-Type. */
export const IMAGE_TYPES = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
} as const;

/** The dataset files the build publishes (site-documents.ts) and `pepe export` mirrors. */
export const DATASET = { jsonl: '/dataset/pepes.jsonl', sums: '/dataset/images.sha256', manifest: '/dataset/manifest.json' } as const;

/** What `dataset/manifest.json` holds: `pepe export` reads it first and checks every file against it. */
export interface DatasetManifest {
  /** Records in the JSONL. */
  count: number;
  /** The catalogue data's version (changes whenever any answer may change). */
  catalogue_version: string;
  /** Site-relative paths (no leading slash), bytes and sha256 of the JSONL and of the image checksums. */
  jsonl: { path: string; size: number; sha256: string };
  image_sha256: { path: string; size: number; sha256: string };
}
