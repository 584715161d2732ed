/**
 * The OpenAPI 3.1 document of both variants, generated from the zod schemas in
 * schemas.ts (the same schemas the tests validate real answers with). Served statically
 * at /api/openapi.json (built by `precomputedFiles`) and by the function.
 */
import { z } from 'zod';
import { LIMIT_A, OPENAPI_PATH, PAGE_SORTS, PAGES_PATH, VARIANT_A_LIST_PATHS, VARIANT_B_LIST_PATH } from './api-limits.js';
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

/** `alwaysRandom`: every answer is no-store, so it carries no ETag and can never be a 304 (http.ts). */
function responses(variant: 'A' | 'B', success: Json, successText: string, withNotFound: boolean, alwaysRandom = false): Json {
  const error = ref(variant === 'A' ? 'ErrorEnvelopeA' : 'ErrorEnvelopeB');
  return {
    '200': alwaysRandom ? json(success, successText) : { ...json(success, successText), headers: ETAG_HEADER },
    ...(alwaysRandom ? {} : { '304': { description: 'Not modified: If-None-Match matched the ETag of a deterministic answer.' } }),
    '400': json(error, 'VALIDATION_ERROR: a parameter or the id is invalid; the message names it, the value and what is allowed.'),
    ...(withNotFound ? { '404': json(error, 'NOT_FOUND: no pepe with this id.') } : {}),
    '405': { ...json(error, 'METHOD_NOT_ALLOWED: only GET, HEAD and OPTIONS exist.'), headers: { Allow: { schema: { type: 'string' }, description: 'GET, HEAD, OPTIONS' } } },
    '500': json(error, 'INTERNAL_SERVER_ERROR: a bug; never cached.'),
  };
}

const PREFLIGHT = { summary: 'CORS preflight', responses: { '204': { description: 'Allowed methods GET, HEAD, OPTIONS; any origin.' } } };

export function openApiDocument(urls: SiteUrls): Json {
  const listA = {
    get: {
      operationId: 'listPepesA',
      tags: ['variant A'],
      summary: 'List, search or randomly browse pepes (variant A)',
      description:
        'limit=1 answers one object (the record at position `page`; a search that matches nothing falls back to a random pepe with found=false). ' +
        'limit>1 answers a page with pagination. Random answers are never cached.',
      parameters: parameterList(s.listQueryA.shape),
      responses: responses('A', { oneOf: [ref('SingleEnvelopeA'), ref('ListEnvelopeA')] }, 'One object (limit=1) or a page (limit>1).', false),
    },
    options: PREFLIGHT,
  };
  const byIdA = {
    get: {
      operationId: 'getPepeA',
      tags: ['variant A'],
      summary: 'One pepe by id (variant A)',
      parameters: [ID_PARAMETER],
      responses: responses('A', ref('ByIdEnvelopeA'), 'The pepe.', true),
    },
    options: PREFLIGHT,
  };
  const paths: Record<string, Json> = {};
  VARIANT_A_LIST_PATHS.forEach((path, i) => {
    const alias = i === 0 ? {} : { description: `Alias of ${VARIANT_A_LIST_PATHS[0]}.` };
    paths[path] = { ...alias, get: { ...listA.get, operationId: `${listA.get.operationId}${i || ''}` }, options: PREFLIGHT };
    paths[`${path}/{id}`] = { ...alias, get: { ...byIdA.get, operationId: `${byIdA.get.operationId}${i || ''}` }, options: PREFLIGHT };
  });
  const variantBServers = [{ url: urls.apiUrl, description: 'Variant B API' }];
  paths[VARIANT_B_LIST_PATH] = {
    servers: variantBServers,
    get: {
      operationId: 'randomPepesB',
      tags: ['variant B'],
      summary: 'Distinct random pepes, optionally filtered by description words (variant B)',
      parameters: parameterList(s.listQueryB.shape),
      responses: responses('B', ref('ListEnvelopeB'), 'min(limit, matches) distinct random pepes; [] when nothing matches. Never cached.', false, true),
    },
    options: PREFLIGHT,
  };
  paths[`${VARIANT_B_LIST_PATH}/{id}`] = {
    servers: variantBServers,
    get: { operationId: 'getPepeB', tags: ['variant B'], summary: 'One pepe by id (variant B)', parameters: [ID_PARAMETER], responses: responses('B', ref('ByIdEnvelopeB'), 'The pepe.', true) },
    options: PREFLIGHT,
  };
  paths[`${PAGES_PATH}/{sort}/{page}`] = {
    get: {
      operationId: 'sortedPageA',
      tags: ['variant A'],
      summary: 'One page of the whole catalogue in a fixed order, as a static file',
      description:
        `Byte for byte the answer of ${VARIANT_A_LIST_PATHS[0]}?limit=${LIMIT_A.max}&page={page}&sort={sort}, precomputed by the build, so a bucket behind a CDN ` +
        'serves the listing without the function. Pages run from 1 to meta.pagination.total_pages (page 1 exists also for an empty catalogue); any other page is a 404.',
      parameters: [
        { name: 'sort', in: 'path', required: true, description: 'The order: newest first or oldest first (ties by id).', schema: { type: 'string', enum: [...PAGE_SORTS] } },
        { name: 'page', in: 'path', required: true, description: `Page number from 1, ${LIMIT_A.max} pepes a page.`, schema: { type: 'integer', minimum: 1 }, example: 1 },
      ],
      responses: {
        '200': { ...json(ref('ListEnvelopeA'), `A page of ${LIMIT_A.max} pepes (fewer on the last).`), headers: ETAG_HEADER },
        '304': { description: 'Not modified: If-None-Match matched the ETag.' },
        '404': json(ref('ErrorEnvelopeA'), 'NOT_FOUND: no such order, or a page past the last.'),
      },
    },
    options: PREFLIGHT,
  };
  paths[OPENAPI_PATH] = {
    get: { operationId: 'openApi', summary: 'This document', responses: { '200': json({ type: 'object' }, 'The OpenAPI document.') } },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pepe Catalogue API',
      version: '1',
      description: 'A public, free, read-only JSON API over a curated collection of pepe images. No credentials. Variant A under /api, variant B under /v1.',
    },
    servers: [{ url: urls.baseUrl, description: 'Variant A API and images' }],
    tags: [{ name: 'variant A', description: '{data, meta, error} envelope' }, { name: 'variant B', description: '{result, status} envelope' }],
    paths,
    components: { schemas: componentSchemas() },
  };
}
