/**
 * The API's data shapes as zod 4 schemas: the single source of truth for the OpenAPI
 * document (`z.toJSONSchema`, see openapi.ts), for the error codes the core uses
 * (`ErrorCode`, `z.infer`) and for the tests that validate real responses against them. The request path never runs zod (the function
 * bundle stays small and cold starts stay fast); query-parser tests hold the hand-written
 * parser equal to `listQueryA`/`listQueryB` below.
 */
import { z } from 'zod';
import { BOOLEAN_WORDS, IMAGE_TYPES, DEFAULT_SORT, FIELDS, LIMIT_A, LIMIT_B, PAGE, SEARCH_MAX_LENGTH, SEED_MAX_LENGTH, SORTS } from './api-limits.js';

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
      .meta({ description: 'Extension: smaller WebP copies of the image, smallest first: 256, 512 and 768 px wide, and the image\'s own width when it falls between; never wider than the image (empty when the image is narrower than 256 px).' }),
  })
  .meta({ description: 'A pepe image, variant A.' });

/**
 * One catalogue record as the build produces it and the core stores it: variant A without the
 * two fields derived from the id and the site's URLs (`file_name`, `url`), and with each
 * thumbnail's file name under /images/ instead of its URL. `PepeRecord` (record.ts) is its
 * `z.infer`, so a field is declared once, here.
 */
export const pepeRecord = pepeA.omit({ file_name: true, url: true, thumbnails: true }).extend({
  thumbnails: z.array(pepeA.shape.thumbnails.element.omit({ url: true }).extend({ file_name: z.string().regex(/^[0-9a-z][0-9a-z.-]*\.webp$/) })),
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

export const listMeta = z.object({ pagination: paginationMeta, search: searchMeta, sort: sortName }).meta({ description: 'Meta of a paginated answer (limit > 1).' });
export const singleMeta = z.object({ search: searchMeta }).meta({ description: 'Meta of a single-result answer (limit = 1).' });

export const listEnvelopeA = z.object({ data: z.array(pepeA), meta: listMeta, error: z.null() }).meta({ description: 'A page of results (limit > 1).' });
export const singleEnvelopeA = z
  .object({ data: pepeA.nullable(), meta: singleMeta, error: z.null() })
  .meta({ description: 'One result (limit = 1): the record at position `page`; a random pepe with found=false when a search matches nothing; null past the end.' });
export const byIdEnvelopeA = z.object({ data: pepeA, error: z.null() }).meta({ description: 'One pepe by id (no meta).' });
export const errorEnvelopeA = z.object({ data: z.null(), error: apiError }).meta({ description: 'Variant A error (no meta).' });

export const listEnvelopeB = z.object({ result: z.array(pepeB), status: z.literal('success') }).meta({ description: 'Distinct random pepes among the matches.' });
export const byIdEnvelopeB = z.object({ result: pepeB, status: z.literal('success') }).meta({ description: 'One pepe by id.' });
export const errorEnvelopeB = z.object({ result: z.null(), status: z.literal('error'), error: apiError }).meta({ description: 'Variant B error.' });

/** Plain decimal digits on the wire (no sign, exponent or spaces); described as the integer it becomes. */
const decimal = (min: number, max?: number) =>
  z
    .string()
    .regex(/^[0-9]+$/)
    .pipe(max === undefined ? z.coerce.number<string>().pipe(unboundedInt(min)) : z.coerce.number<string>().int().min(min).max(max));
/** The wire form: true/false/1/0 in any letter case (JSON Schema patterns have no `i` flag). */
const booleanWord = z.string().regex(new RegExp(`^(${BOOLEAN_WORDS.map((w) => [...w].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join('')).join('|')})$`));

/** Query parameters of `GET /api/pepe` (and aliases), as strings on the wire; `io: 'output'` JSON Schema describes the values they become. Cross-field rules (field=id needs a UUID; random=true ignores sort) are in the parser and the answer. */
export const listQueryA = z.object({
  limit: decimal(LIMIT_A.min, LIMIT_A.max).optional().meta({ default: LIMIT_A.default, description: `Results per page, ${LIMIT_A.min}–${LIMIT_A.max}. With 1 the answer is a single object.`, example: 10 }),
  page: decimal(PAGE.min).optional().meta({ default: PAGE.default, description: 'Page number, 1-indexed.', example: 1 }),
  search: z.string().trim().max(SEARCH_MAX_LENGTH).default('').meta({ description: `Search text (trimmed, at most ${SEARCH_MAX_LENGTH} characters, no control characters): every word must match a tag or description word or its start; typo-tolerant fallback.`, example: 'smug' }),
  field: z.enum(FIELDS).default('text').meta({ description: '"text": full-text search; "id": `search` is a UUID.' }),
  sort: sortName.default(DEFAULT_SORT).meta({ description: 'created_at_desc (default), created_at_asc or relevance. Ignored when random=true (the shuffle is the same whatever the sort; meta.sort echoes it).' }),
  random: booleanWord.default('false').meta({ description: 'true/false/1/0 (any case): shuffle the result set.' }),
  seed: z.string().max(SEED_MAX_LENGTH).optional().meta({ description: `Extension: with random=true, makes the shuffle repeatable (at most ${SEED_MAX_LENGTH} characters), so pages continue each other.`, example: 'abc' }),
});

/** Query parameters of `GET /v1/pepe`. */
export const listQueryB = z.object({
  limit: decimal(LIMIT_B.min, LIMIT_B.max).optional().meta({ default: LIMIT_B.default, description: `Number of distinct random pepes, ${LIMIT_B.min}–${LIMIT_B.max}.`, example: 3 }),
  search: z.string().trim().max(SEARCH_MAX_LENGTH).default('').meta({ description: 'Filters by words of the description (same word rules as variant A).', example: 'smug' }),
});
