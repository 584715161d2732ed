/**
 * The API's data shapes as zod 4 schemas: the single source of truth for the OpenAPI
 * document (`z.toJSONSchema`, see openapi.ts), for the error codes the core uses
 * (`ErrorCode`, `z.infer`) and for the tests that validate real responses against them. The request path never runs zod (the function
 * bundle stays small and cold starts stay fast); query-parser tests hold the hand-written
 * parser equal to `listQueryA`/`listQueryB` below.
 */
import { z } from 'zod';
import {
  IMAGE_TYPES, DEFAULT_SORT, FIELDS, FILTER_TAGS_MAX, LIMIT_A, LIMIT_B, ORIENTATIONS, PAGE, SEARCH_MAX_LENGTH, SEED_MAX_LENGTH, SORTS,
} from './api-limits.js';
import { normaliseTag } from './filters.js';
import { SIMILAR_MAX_DISTANCE } from './similar.js';

const EXAMPLE_ID = '3f1c2a9e-8b7d-4c5e-9a10-6b2d4e8f1a37';
const isoDate = z.iso.datetime({ offset: true });

export const pepeA = z
  .object({
    id: z.guid().meta({ description: 'Unique identifier (UUID, lowercase).', example: EXAMPLE_ID }),
    file_name: z.string().meta({ description: 'File name including extension: `<id><file_ext>`.', example: `${EXAMPLE_ID}.png` }),
    file_ext: z.enum(Object.keys(IMAGE_TYPES) as [keyof typeof IMAGE_TYPES, ...(keyof typeof IMAGE_TYPES)[]]).meta({ description: 'Extension of the detected image format, with a leading dot.', example: '.png' }),
    file_size: z.int().nonnegative().meta({ description: 'Image size in bytes.', example: 48213 }),
    tags: z.array(z.string()).nullable().meta({ description: 'Lowercase tags in first-seen order; null when untagged.', example: ['smug', 'classic'] }),
    description: z.string().nullable().meta({ description: 'Human-readable description; null when none.', example: 'Smug pepe with a knowing grin' }),
    url: z.url().meta({ description: 'Public URL of the image: `{base_url}/images/<file_name>`.', example: `https://example.org/images/${EXAMPLE_ID}.png` }),
    phash: z.string().regex(/^[0-9a-f]{16}$/).meta({ description: '64-bit DCT perceptual hash, 16 lowercase hex characters (as Python imagehash.phash).', example: 'c3d4e5f60718293a' }),
    created_at: isoDate.meta({ description: 'When the image was added (ISO 8601, UTC).', example: '2024-03-01T12:00:00.000Z' }),
    updated_at: isoDate.meta({ description: 'When the record was last modified; equals created_at when never modified.', example: '2024-03-01T12:00:00.000Z' }),
    width: z.int().positive().meta({ description: 'Extension: upright width in pixels (after EXIF orientation).', example: 512 }),
    height: z.int().positive().meta({ description: 'Extension: upright height in pixels (after EXIF orientation).', example: 512 }),
    blurhash: z.string().min(6).meta({ description: 'Extension: blurhash placeholder (4×3 components).', example: 'LEHV6nWB2yk8pyo0adR*.7kCMdnj' }),
    thumbnails: z
      .array(
        z
          .object({
            url: z.url().meta({ description: 'Immutable URL of the copy: `{base_url}/images/<id>-<width>w-<hash>.webp` (a new encoding gets a new URL).', example: `https://example.org/images/${EXAMPLE_ID}-256w-0f3a9c21d4b7e856.webp` }),
            width: z.int().positive().meta({ description: 'Width in pixels.', example: 256 }),
            height: z.int().positive().meta({ description: 'Height in pixels (of one frame when animated).', example: 256 }),
            type: z.literal('image/webp').meta({ description: 'Content-Type of the copy; an animated image gives an animated WebP.' }),
          })
          .meta({ description: 'A smaller copy of the image.' }),
      )
      .meta({ description: 'Extension: smaller WebP copies of the image, smallest first: 256 and 512 px wide, and the image\'s own width when it falls between; never wider than the image (empty when the image is narrower than 256 px).' }),
    artist: z.string().nullable().meta({ description: 'Extension (credits): who made the picture; null when not known.', example: 'Matt Furie' }),
    source_url: z.url({ protocol: /^https?$/ }).nullable().meta({ description: 'Extension (credits): the http(s) page the picture comes from; null when not known.', example: 'https://example.org/pepe/123' }),
    license: z.string().nullable().meta({ description: 'Extension (credits): the licence it is shared under, e.g. an SPDX id; null when not known.', example: 'CC-BY-4.0' }),
  })
  .meta({ description: 'A pepe image, variant A.' });

/**
 * One catalogue record as the build produces it and the core stores it: variant A without the
 * two fields derived from the id and the site's URLs (`file_name`, `url`), with each
 * thumbnail's file name under /images/ instead of its URL, plus what only the filters use
 * (`animated`). `PepeRecord` (record.ts) is its `z.infer`, so a field is declared once, here.
 */
export const pepeRecord = pepeA.omit({ file_name: true, url: true, thumbnails: true }).extend({
  thumbnails: z.array(pepeA.shape.thumbnails.element.omit({ url: true }).extend({ file_name: z.string().regex(/^[0-9a-z][0-9a-z.-]*\.webp$/) })),
  /** Internal (not served as a field): the `animated` filter of the list operations. */
  animated: z.boolean().meta({ description: 'Whether the image has more than one frame (GIF, WebP, AVIF sequence).' }),
});

export const pepeB = z
  .object({
    id: z.guid().meta({ description: 'Unique identifier (UUID, lowercase; the same id as variant A).', example: EXAMPLE_ID }),
    url: z.url().meta({ description: 'Image URL: `{cdn_url}/images/<id>.<ext>`.', example: `https://cdn.example.org/images/${EXAMPLE_ID}.png` }),
    description: z.string().meta({ description: 'Free-text description; "" when the image has none.', example: 'Smug pepe with a knowing grin' }),
  })
  .meta({ description: 'A pepe image, variant B.' });

export const errorCode = z.enum(['VALIDATION_ERROR', 'NOT_FOUND', 'METHOD_NOT_ALLOWED', 'INTERNAL_SERVER_ERROR']).meta({ description: 'Machine-readable error code.' });
export type ErrorCode = z.infer<typeof errorCode>;

export const apiError = z
  .object({
    code: errorCode,
    message: z.string().meta({ description: 'One sentence for a human naming the parameter, the value received and what is allowed.', example: 'limit must be an integer from 1 to 25 (got "26")' }),
  })
  .meta({ description: 'What went wrong.' });

export const searchMeta = z
  .object({
    terms: z.string().meta({ description: 'The trimmed search text; "" when none was given.', example: 'smug' }),
    found: z.boolean().meta({ description: 'True when the result set is non-empty.' }),
  })
  .meta({ description: 'Echo of the search.' });

/**
 * An integer ≥ min with no upper bound. `z.int()` stops at 2^53−1 (and writes that maximum into
 * the JSON Schema), but `page` has none: the parser takes any page and the answer echoes its
 * digits exactly (`"page":1234567890123456789012345678901234567890`), so the document must not
 * promise a maximum the answers break. No `multipleOf` either: ajv's check of it fails on
 * integers past 2^53.
 */
const unboundedInt = (min: number) => z.number().min(min).refine(Number.isInteger, { message: 'expected an integer' }).meta({ type: 'integer' });

export const paginationMeta = z
  .object({
    page: unboundedInt(PAGE.min),
    limit: z.int().min(LIMIT_A.min).max(LIMIT_A.max),
    total_items: z.int().nonnegative(),
    total_pages: z.int().nonnegative().meta({ description: 'ceil(total_items / limit); 0 when empty.' }),
    has_next: z.boolean().meta({ description: 'page < total_pages.' }),
    has_previous: z.boolean().meta({ description: 'page > 1.' }),
  })
  .meta({ description: 'Pagination of the result set.' });

const sortName = z.enum(SORTS).meta({ description: 'Order of the result set: by created_at (ties by id; desc is the exact reverse of asc), or by search score (relevance, ties as created_at_desc).' });

export const filtersMeta = z
  .object({
    tags: z.array(z.string()).meta({ description: 'Normalised tags every result has.' }),
    exclude_tags: z.array(z.string()).meta({ description: 'Normalised tags no result has.' }),
    animated: z.boolean().nullable().meta({ description: 'Only animated (true) or only still (false) pepes; null: both.' }),
    orientation: z.enum(ORIENTATIONS).nullable().meta({ description: 'Only pepes of this orientation; null: any.' }),
  })
  .meta({ description: 'Extension: echo of the filters in effect; present only when a filter parameter was given.' });

export const listMeta = z.object({ pagination: paginationMeta, search: searchMeta, sort: sortName, filters: filtersMeta.optional() }).meta({ description: 'Meta of a paginated answer (limit > 1).' });
export const singleMeta = z.object({ search: searchMeta, filters: filtersMeta.optional() }).meta({ description: 'Meta of a single-result answer (limit = 1).' });

export const listEnvelopeA = z.object({ data: z.array(pepeA), meta: listMeta, error: z.null() }).meta({ description: 'A page of results (limit > 1).' });
export const singleEnvelopeA = z
  .object({ data: pepeA.nullable(), meta: singleMeta, error: z.null() })
  .meta({ description: 'One result (limit = 1): the record at position `page`; a random pepe with found=false when a search matches nothing; null past the end.' });
export const byIdEnvelopeA = z.object({ data: pepeA, error: z.null() }).meta({ description: 'One pepe by id (no meta).' });
export const errorEnvelopeA = z.object({ data: z.null(), error: apiError }).meta({ description: 'Variant A error (no meta).' });

export const tagCount = z
  .object({ tag: z.string().meta({ description: 'A normalised tag.', example: 'smug' }), count: z.int().positive().meta({ description: 'Number of pepes with this tag.', example: 42 }) })
  .meta({ description: 'A tag and its number of pepes.' });
export const tagsEnvelope = z
  .object({ data: z.array(tagCount), meta: z.object({ total_items: z.int().nonnegative().meta({ description: 'Number of distinct tags.' }) }), error: z.null() })
  .meta({ description: 'Every tag, by count descending, then tag.' });

export const similarPepe = pepeA
  .extend({ distance: z.int().min(0).max(SIMILAR_MAX_DISTANCE).meta({ description: 'pHash Hamming distance in bits (of 64) from the pepe or the phash asked about.', example: 4 }) })
  .meta({ description: 'A similar pepe: its variant A object plus its distance.' });
export const similarEnvelope = z
  .object({
    data: z.array(similarPepe),
    meta: z.object({
      total_items: z.int().nonnegative(),
      max_distance: z.literal(SIMILAR_MAX_DISTANCE).meta({ description: 'The cut-off: pepes further apart than this are not similar.' }),
    }),
    error: z.null(),
  })
  .meta({ description: 'Up to 12 other pepes, nearest first (ties by id); [] when none is within the cut-off.' });
export const similarByHashEnvelope = z
  .object({
    data: z.array(similarPepe),
    meta: z.object({
      total_items: z.int().nonnegative(),
      max_distance: z.int().min(0).max(SIMILAR_MAX_DISTANCE).meta({ description: 'The cut-off in effect: max_distance as asked, by default the index\'s.', example: SIMILAR_MAX_DISTANCE }),
      phash: z.string().regex(/^[0-9a-f]{16}$/).meta({ description: 'The phash asked about, in lowercase.', example: 'c3d4e5f60718293a' }),
    }),
    error: z.null(),
  })
  .meta({ description: 'Up to 12 pepes within max_distance bits of the phash, nearest first (ties by id); [] when none is.' });

export const dailyEnvelope = z
  .object({ data: pepeA, meta: z.object({ date: z.iso.date().meta({ description: 'The day (UTC) this is the pepe of.', example: '2024-03-01' }) }), error: z.null() })
  .meta({ description: 'The pepe of the day.' });

export const listEnvelopeB = z.object({ result: z.array(pepeB), status: z.literal('success') }).meta({ description: 'Distinct random pepes among the matches.' });
export const byIdEnvelopeB = z.object({ result: pepeB, status: z.literal('success') }).meta({ description: 'One pepe by id.' });
export const errorEnvelopeB = z.object({ result: z.null(), status: z.literal('error'), error: apiError }).meta({ description: 'Variant B error.' });

/** Plain decimal digits on the wire (no sign, exponent or spaces); described as the integer it becomes. */
const decimal = (min: number, max?: number) =>
  z
    .string()
    .regex(/^[0-9]+$/)
    .pipe(max === undefined ? z.coerce.number<string>().pipe(unboundedInt(min)) : z.coerce.number<string>().int().min(min).max(max));

/** true/false/1/0 in any letter case on the wire; a boolean in the document (JSON Schema patterns have no `i` flag). */
const booleanParameter = () => z.stringbool({ truthy: ['true', '1'], falsy: ['false', '0'] });

/** The rules of parseListQuery's tag lists (`tags`, `exclude_tags`), as a refinement (not in the document, which describes them). */
const tagListParameter = (description: string) =>
  z
    .string()
    .refine((raw) => {
      if (raw.trim() === '') return true;
      if (/[\u0000-\u001f\u007f-\u009f]/.test(raw)) return false;
      const tags = raw.split(',').map(normaliseTag);
      return !tags.includes('') && new Set(tags).size <= FILTER_TAGS_MAX;
    })
    .optional()
    .meta({ description, example: 'smug,classic' });

const filterParametersB = {
  tags: tagListParameter(`Extension: only pepes having all these tags: comma-separated (at most ${FILTER_TAGS_MAX}), each trimmed and lowercased as sidecar tags are. A tag holding a comma cannot be asked for.`),
  exclude_tags: tagListParameter(`Extension: only pepes having none of these tags (same form as tags).`),
};

/** Query parameters of `GET /api/pepe` (and aliases), as strings on the wire; `io: 'output'` JSON Schema describes the values they become. Cross-field rules (field=id needs a UUID; random=true ignores sort) are in the parser and the answer. */
export const listQueryA = z.object({
  limit: decimal(LIMIT_A.min, LIMIT_A.max).optional().meta({ default: LIMIT_A.default, description: `Results per page, ${LIMIT_A.min}–${LIMIT_A.max}. With 1 the answer is a single object.`, example: 10 }),
  page: decimal(PAGE.min).optional().meta({ default: PAGE.default, description: 'Page number, 1-indexed.', example: 1 }),
  search: z.string().trim().max(SEARCH_MAX_LENGTH).default('').meta({ description: `Search text (trimmed, at most ${SEARCH_MAX_LENGTH} characters, no control characters): every word must match a tag or description word or its start; typo-tolerant fallback.`, example: 'smug' }),
  field: z.enum(FIELDS).default('text').meta({ description: '"text": full-text search; "id": `search` is a UUID.' }),
  sort: sortName.default(DEFAULT_SORT).meta({ description: 'created_at_desc (default), created_at_asc or relevance. Ignored when random=true (the shuffle is the same whatever the sort; meta.sort echoes it).' }),
  random: booleanParameter().default(false).meta({ description: 'Shuffle the result set. `1`/`0` and any letter case are accepted too.' }),
  seed: z.string().max(SEED_MAX_LENGTH).optional().meta({ description: `Extension: with random=true, makes the shuffle repeatable (at most ${SEED_MAX_LENGTH} characters), so pages continue each other.`, example: 'abc' }),
  ...filterParametersB,
  animated: booleanParameter().optional().meta({ description: 'Extension: only animated (true) or only still (false) pepes. `1`/`0` and any letter case are accepted too.' }),
  orientation: z.enum(ORIENTATIONS).optional().meta({ description: 'Extension: only pepes of this orientation, from the upright width and height (equal: square).' }),
});

/** Query parameters of `GET /v1/pepe`. */
export const listQueryB = z.object({
  limit: decimal(LIMIT_B.min, LIMIT_B.max).optional().meta({ default: LIMIT_B.default, description: `Number of distinct random pepes, ${LIMIT_B.min}–${LIMIT_B.max}.`, example: 3 }),
  search: z.string().trim().max(SEARCH_MAX_LENGTH).default('').meta({ description: 'Filters by words of the description (same word rules as variant A).', example: 'smug' }),
  ...filterParametersB,
});

/** Query parameters of `GET /api/similar` (search by picture). */
export const similarQuery = z.object({
  phash: z
    .string()
    .regex(/^[0-9a-fA-F]{16}$/)
    .meta({ description: "The picture's 64-bit DCT perceptual hash: 16 hex digits (any letter case), as Python's `str(imagehash.phash(Image.open(path)))` writes it.", example: 'c3d4e5f60718293a' }),
  max_distance: decimal(0, SIMILAR_MAX_DISTANCE)
    .optional()
    .meta({ default: SIMILAR_MAX_DISTANCE, description: `Largest Hamming distance in bits (of 64) to answer, 0–${SIMILAR_MAX_DISTANCE}; 0 finds only the same hash.`, example: 4 }),
});

/** Query parameters of `GET /api/daily`. */
export const dailyQuery = z.object({
  date: z.iso.date().optional().meta({ description: 'The day, YYYY-MM-DD (UTC); default today. A future date is a 400.', example: '2024-03-01' }),
});
