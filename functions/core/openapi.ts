/**
 * The OpenAPI 3.1 document of both variants, generated from the zod schemas in
 * schemas.ts (the same schemas the tests validate real answers with). Served statically
 * at /api/openapi.json (written by the build through `catalogueAnswerFiles`) and by the function.
 */
import { z } from 'zod';
import { DAILY_PATH, LIMIT_A, LISTING_HEAD_PATH, LISTING_PATH, OPENAPI_PATH, PAGE_SORTS, PAGES_PATH, SIMILAR_PATH, TAGS_PATH, VARIANT_A_LIST_PATHS, VARIANT_B_LIST_PATH } from './api-limits.js';
import { SIMILAR_LIMIT, SIMILAR_MAX_DISTANCE } from './similar.js';
import type { SiteUrls } from './record.js';
import * as s from './schemas.js';

const COMPONENTS = {
  PepeA: s.pepeA,
  PepeB: s.pepeB,
  ApiError: s.apiError,
  SearchMeta: s.searchMeta,
  PaginationMeta: s.paginationMeta,
  ListMeta: s.listMeta,
  SingleMeta: s.singleMeta,
  ListEnvelopeA: s.listEnvelopeA,
  SingleEnvelopeA: s.singleEnvelopeA,
  ByIdEnvelopeA: s.byIdEnvelopeA,
  ErrorEnvelopeA: s.errorEnvelopeA,
  ListEnvelopeB: s.listEnvelopeB,
  ByIdEnvelopeB: s.byIdEnvelopeB,
  ErrorEnvelopeB: s.errorEnvelopeB,
  FiltersMeta: s.filtersMeta,
  TagCount: s.tagCount,
  TagsEnvelope: s.tagsEnvelope,
  SimilarPepe: s.similarPepe,
  SimilarEnvelope: s.similarEnvelope,
  SimilarByHashEnvelope: s.similarByHashEnvelope,
  DailyEnvelope: s.dailyEnvelope,
  ListingHead: s.listingHead,
  ListingPage: s.listingPage,
} as const;
export type ComponentName = keyof typeof COMPONENTS;

type Json = Record<string, unknown>;

/** JSON Schemas of every component, `$ref`s pointing at `#/components/schemas/<name>`. */
function componentSchemas(): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(COMPONENTS)) registry.add(schema, { id });
  const out = z.toJSONSchema(registry, { target: 'draft-2020-12', uri: (id) => `#/components/schemas/${id}` }).schemas as Record<string, Json>;
  // OpenAPI 3.1 uses the document's dialect; per-schema $schema/$id would only confuse validators.
  for (const schema of Object.values(out)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return out;
}

function parameterList(shape: Record<string, z.ZodType>, required: string[] = []): Json[] {
  return Object.entries(shape).map(([name, schema]) => {
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) as Json;
    delete json.$schema;
    const { description, example, ...rest } = json;
    return { name, in: 'query', required: required.includes(name), description, ...(example === undefined ? {} : { example }), schema: rest };
  });
}

const ID_PARAMETER = { name: 'id', in: 'path', required: true, description: 'The pepe UUID (any letter case).', schema: { type: 'string' } };
const ref = (name: ComponentName) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json, description: string) => ({ description, content: { 'application/json': { schema } } });
const ETAG_HEADER = { ETag: { description: 'Strong validator of deterministic answers (send it back in If-None-Match).', schema: { type: 'string' } } };

/**
 * The license of this API description, which `info.license` must state (linters ask for one):
 * CC0, so that anyone may copy it into a client. The images are not covered by it.
 */
const LICENSE = { name: 'CC0-1.0', identifier: 'CC0-1.0' };

interface ResponseOptions {
  /** Every answer is no-store, so it carries no ETag and can never be a 304 (http.ts). */
  alwaysRandom?: boolean;
  /** The 404 of a by-id path (its text), if the operation has one. */
  notFound?: string;
  /** No 400 (a fixed document: no parameter to get wrong). */
  noParameters?: boolean;
}

function responses(variant: 'A' | 'B', success: Json, successText: string, options: ResponseOptions = {}): Json {
  const error = ref(variant === 'A' ? 'ErrorEnvelopeA' : 'ErrorEnvelopeB');
  return {
    '200': options.alwaysRandom ? json(success, successText) : { ...json(success, successText), headers: ETAG_HEADER },
    ...(options.alwaysRandom ? {} : { '304': { description: 'Not modified: If-None-Match matched the ETag of a deterministic answer.' } }),
    ...(options.noParameters ? {} : { '400': json(error, 'VALIDATION_ERROR: a parameter or the id is invalid; the message names it, the value and what is allowed.') }),
    ...(options.notFound === undefined ? {} : { '404': json(error, options.notFound) }),
    '405': { ...json(error, 'METHOD_NOT_ALLOWED: only GET, HEAD and OPTIONS exist.'), headers: { Allow: { schema: { type: 'string' }, description: 'GET, HEAD, OPTIONS' } } },
    '500': json(error, 'INTERNAL_SERVER_ERROR: a bug; never cached.'),
  };
}

/** HEAD: the same statuses and headers as GET, no body. */
function headOf(get: Json): Json {
  const statuses = Object.entries(get.responses as Record<string, Json>).map(([status, { description, headers }]) => [status, headers === undefined ? { description } : { description, headers }]);
  const { operationId, summary, parameters } = get as { operationId: string; summary: string; parameters?: Json[] };
  return {
    operationId: `head${operationId[0]!.toUpperCase()}${operationId.slice(1)}`,
    ...(get.tags === undefined ? {} : { tags: get.tags }),
    ...(get.deprecated === true ? { deprecated: true } : {}),
    summary: `Headers only: ${summary[0]!.toLowerCase()}${summary.slice(1)}`,
    ...(parameters === undefined ? {} : { parameters }),
    responses: Object.fromEntries(statuses),
  };
}

/** OPTIONS: the CORS preflight, which never fails (so no 4XX: Redocly's operation-4xx-response warns, rightly ignored). */
const preflightOf = (get: Json): Json => {
  const operationId = get.operationId as string;
  return {
    operationId: `preflight${operationId[0]!.toUpperCase()}${operationId.slice(1)}`,
    ...(get.tags === undefined ? {} : { tags: get.tags }),
    ...(get.deprecated === true ? { deprecated: true } : {}),
    summary: 'CORS preflight',
    responses: { '204': { description: 'Allowed methods GET, HEAD, OPTIONS; any origin.' } },
  };
};

/** A path item answering GET, HEAD (same operation, no body) and OPTIONS; `{id}` paths declare their parameter once, for all three. */
function pathItem(get: Json, extra: Json = {}): Json {
  return { ...extra, get, head: headOf(get), options: preflightOf(get) };
}

/** `/api/public/pepes` → `PublicPepes`: readable operationIds for the alias paths. */
const pathName = (path: string): string =>
  path
    .split('/')
    .slice(2)
    .flatMap((part) => part.split('_'))
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');

/** The path parameters of the sorted pages, declared once for GET, HEAD and OPTIONS. */
const PAGE_PARAMETERS: Json[] = [
  { name: 'sort', in: 'path', required: true, description: 'The order: newest first or oldest first (ties by id).', schema: { type: 'string', enum: [...PAGE_SORTS] } },
  { name: 'page', in: 'path', required: true, description: `Page number from 1, ${LIMIT_A.max} pepes a page.`, schema: { type: 'integer', minimum: 1 }, example: 1 },
];

export function openApiDocument(urls: SiteUrls): Json {
  const listA = {
    tags: ['variant A'],
    summary: 'List, search, filter or randomly browse pepes (variant A)',
    description:
      'limit=1 answers one object (the record at position `page`; a search that matches nothing falls back to a random pepe with found=false, among the pepes the filters keep). ' +
      'limit>1 answers a page with pagination. Filters (tags, exclude_tags, animated, orientation) combine with everything else and are echoed in meta.filters. Random answers are never cached.',
    parameters: parameterList(s.listQueryA.shape),
    responses: responses('A', { anyOf: [ref('SingleEnvelopeA'), ref('ListEnvelopeA')] }, 'One object (limit=1) or a page (limit>1).'),
  };
  const byIdA = { tags: ['variant A'], summary: 'One pepe by id (variant A)', responses: responses('A', ref('ByIdEnvelopeA'), 'The pepe.', { notFound: 'NOT_FOUND: no pepe with this id.' }) };
  const paths: Record<string, Json> = {};
  VARIANT_A_LIST_PATHS.forEach((path, i) => {
    const alias = i === 0 ? {} : { description: `Alias of ${VARIANT_A_LIST_PATHS[0]}.` };
    const name = i === 0 ? 'Pepes' : pathName(path);
    paths[path] = pathItem({ operationId: `list${name}`, ...listA }, alias);
    paths[`${path}/{id}`] = pathItem({ operationId: i === 0 ? 'getPepe' : `get${pathName(path)}ById`, ...byIdA }, { ...alias, parameters: [ID_PARAMETER] });
  });
  paths[TAGS_PATH] = pathItem({
    operationId: 'listTags',
    tags: ['variant A'],
    summary: 'Every tag with its number of pepes',
    description: 'A static file, rebuilt with the catalogue.',
    responses: responses('A', ref('TagsEnvelope'), 'Every tag, by count descending, then tag.', { noParameters: true }),
  });
  paths[`${SIMILAR_PATH}/{id}`] = pathItem(
    {
      operationId: 'listSimilarPepes',
      tags: ['variant A'],
      summary: 'The pepes that look most like one',
      description:
        `Up to ${SIMILAR_LIMIT} other pepes by pHash Hamming distance ascending (ties by id), each with its distance; none further than ${SIMILAR_MAX_DISTANCE} bits of 64 ` +
        '(unrelated pictures are about 32 bits apart; re-encoded copies mostly within 6). Precomputed by the build for every pepe.',
      responses: responses('A', ref('SimilarEnvelope'), 'The similar pepes, nearest first; [] when none is within the cut-off.', { notFound: 'NOT_FOUND: no pepe with this id.' }),
    },
    { parameters: [ID_PARAMETER] },
  );
  paths[SIMILAR_PATH] = pathItem({
    operationId: 'searchByPicture',
    tags: ['variant A'],
    summary: 'The pepes that look like a picture, given its perceptual hash',
    description:
      `Is this picture in the catalogue? Compute its phash as the build does (Python: \`str(imagehash.phash(Image.open(path)))\`) and get up to ${SIMILAR_LIMIT} pepes ` +
      `within max_distance bits (at most ${SIMILAR_MAX_DISTANCE}), nearest first (ties by id), each with its distance: the shape of ${SIMILAR_PATH}/{id}. ` +
      'A re-encoded or resized copy is mostly within 6 bits; unrelated pictures are about 32 apart. Answered by the function, cached by the CDN per URL.',
    parameters: parameterList(s.similarQuery.shape, ['phash']),
    responses: responses('A', ref('SimilarByHashEnvelope'), 'The pepes within max_distance, nearest first; [] when none is.'),
  });
  paths[DAILY_PATH] = pathItem({
    operationId: 'getDailyPepe',
    tags: ['variant A'],
    summary: 'The pepe of the day',
    description:
      'One pepe per day (UTC), the same all day for everyone: chosen deterministically among the pepes created on or before that date. ' +
      "Today's answer is cacheable until the next UTC midnight (Cache-Control max-age).",
    parameters: parameterList(s.dailyQuery.shape),
    responses: responses('A', ref('DailyEnvelope'), 'The pepe of that day.', { notFound: 'NOT_FOUND: no pepe was created on or before that date.' }),
  });
  const variantBServers = [{ url: urls.apiUrl, description: 'Variant B API' }];
  paths[VARIANT_B_LIST_PATH] = pathItem(
    {
      operationId: 'randomPepesV1',
      tags: ['variant B'],
      summary: 'Distinct random pepes, optionally filtered by description words and tags (variant B)',
      parameters: parameterList(s.listQueryB.shape),
      responses: responses('B', ref('ListEnvelopeB'), 'min(limit, matches) distinct random pepes; [] when nothing matches. Never cached.', { alwaysRandom: true }),
    },
    { servers: variantBServers },
  );
  paths[`${VARIANT_B_LIST_PATH}/{id}`] = pathItem(
    { operationId: 'getPepeV1', tags: ['variant B'], summary: 'One pepe by id (variant B)', responses: responses('B', ref('ByIdEnvelopeB'), 'The pepe.', { notFound: 'NOT_FOUND: no pepe with this id.' }) },
    { servers: variantBServers, parameters: [ID_PARAMETER] },
  );
  paths[LISTING_HEAD_PATH] = pathItem({
    operationId: 'getListingHead',
    tags: ['variant A'],
    summary: 'The head of the static listing of the whole catalogue',
    description:
      'A static file (a bucket behind a CDN serves the listing without the function): the number of records and the URLs of the oldest and newest pages. ' +
      'Oldest first: from data.oldest, follow meta.newer. Newest first: from data.newest, follow meta.older, reading each page backwards. ' +
      `Rewritten on every change of the catalogue, so fetch it first; the pages are ${LISTING_PATH}/{first_id}.`,
    responses: responses('A', ref('ListingHead'), 'The head.', { noParameters: true }),
  });
  paths[`${LISTING_PATH}/{first_id}`] = pathItem(
    {
      operationId: 'getListingPage',
      tags: ['variant A'],
      summary: 'One page of the static listing, named by the id of its oldest record',
      description:
        'A static file. Pages are content-defined chunks of the catalogue in created_at order (ties by id): a page ends after a record whose id hashes to a multiple of ' +
        'the mean in the head, so one added, removed or edited pepe rewrites the page it falls in (and a neighbour when it makes or removes an end), never the others; ' +
        'an old created_at is inserted in place. A page no longer in the chain is a 404: start again from the head.',
      responses: responses('A', ref('ListingPage'), 'The page.', { noParameters: true, notFound: 'NOT_FOUND: no page of that name (any more).' }),
    },
    { parameters: [{ name: 'first_id', in: 'path', required: true, description: 'The id of the oldest record on the page (lowercase UUID), as the head and the pages link it.', schema: { type: 'string' } }] },
  );
  paths[`${PAGES_PATH}/{sort}/{page}`] = pathItem({
    operationId: 'getSortedPage',
    tags: ['variant A'],
    deprecated: true,
    summary: `Deprecated, replaced by ${LISTING_HEAD_PATH}: one page of the whole catalogue in a fixed order`,
    description:
      `Byte for byte the answer of ${VARIANT_A_LIST_PATHS[0]}?limit=${LIMIT_A.max}&page={page}&sort={sort}, answered by the function (no longer a static file: every page changed with every added pepe). ` +
      `Deprecated: use the static listing (${LISTING_HEAD_PATH}); this path is removed in the next release. ` +
      'Pages run from 1 to meta.pagination.total_pages (page 1 exists also for an empty catalogue); any other page is a 404.',
    responses: responses('A', ref('ListEnvelopeA'), `A page of ${LIMIT_A.max} pepes (fewer on the last).`, { noParameters: true, notFound: 'NOT_FOUND: no such order, or a page past the last.' }),
  }, { parameters: PAGE_PARAMETERS });
  paths[OPENAPI_PATH] = pathItem({
    operationId: 'getOpenApi',
    tags: ['documents'],
    summary: 'This document',
    responses: responses('A', { type: 'object' }, 'The OpenAPI document.', { noParameters: true }),
  });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pepe Catalogue API',
      version: '1',
      description:
        'A public, free, read-only JSON API over a curated collection of pepe images. No credentials. Variant A under /api, variant B under /v1. ' +
        'A trailing slash is accepted on every path and answers as the path without it.',
      license: LICENSE,
    },
    servers: [{ url: urls.baseUrl, description: 'Variant A API and images' }],
    // Public: no operation needs credentials.
    security: [],
    tags: [
      { name: 'variant A', description: '{data, meta, error} envelope' },
      { name: 'variant B', description: '{result, status} envelope' },
      { name: 'documents', description: 'Descriptions of the API itself' },
    ],
    paths,
    components: { schemas: componentSchemas() },
  };
}
