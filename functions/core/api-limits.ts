/**
 * The accepted values of every API parameter (the specification), in one place: the query
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
 * Deprecated (replaced by LISTING_PATH, removed in the next release): `/api/pages/<order>/<n>`,
 * answered by the function with `/api/pepe?limit=25&page=<n>&sort=<order>`, for n from 1 to
 * the last page (page 1 also when the catalogue is empty).
 */
export const PAGES_PATH = '/api/pages';
export const PAGE_SORTS = ['created_at_desc', 'created_at_asc'] as const;
export type PageSort = (typeof PAGE_SORTS)[number];

/**
 * The static listing a bare bucket serves: pages `/api/listing/<first-id>` (the records of one
 * content-defined chunk of the catalogue's order, tools/shared/content-chunks.ts), linked
 * older/newer, and their head `/api/listing/head`. A page is named by its oldest record's id, so
 * one change rewrites the page it falls in and the head, not every page. The head is a file in
 * the pages' folder because a build folder cannot hold both a file and a folder `api/listing`.
 */
export const LISTING_PATH = '/api/listing';
export const LISTING_HEAD_PATH = `${LISTING_PATH}/head`;
/** How the listing is cut: about 25 records a page, at most 100. */
export const LISTING_CHUNKS = { mean: 25, max: 100 } as const;

/** The published image formats: extension (from the detected format) → Content-Type. */
export const IMAGE_TYPES = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
} as const;

/** The dataset's index (site-documents.ts writes it, `pepe export` reads it first); its shards live under `dataset/shards/`. */
export const DATASET = { index: '/dataset/index.json' } as const;

/** A published file, by a URL relative to the index's own (`shards/<sha256>.jsonl`): a mirror serves it under its own address. */
export interface DatasetFile {
  url: string;
  size: number;
  sha256: string;
}

/** One shard: consecutive records (variant A, oldest first, one per line; ~500, at most 1,000, the newest in pieces of at most 100 until one shard replaces them), named by its bytes' sha256, with its images' checksums. */
export interface DatasetShard extends DatasetFile {
  /** Records in the shard, and the ids of its first and last. */
  count: number;
  first_id: string;
  last_id: string;
  /** The shard's images' sha256 in `sha256sum -c` form (`<hex>  images/<file_name>`, the shard's order), named by its own sha256. */
  image_sha256: DatasetFile;
}

/** What `dataset/index.json` holds: the shards in order (their concatenation is every record, oldest first). */
export interface DatasetIndex {
  /** Records in all shards. */
  count: number;
  /** The catalogue data's version (changes whenever any answer may change). */
  catalogue_version: string;
  /** Bytes of all shards' JSONL together. */
  size: number;
  shards: DatasetShard[];
}
