import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { createHandler } from './handler.js';
import { openApiDocument } from './openapi.js';
import { call, idsNewestFirst, testCatalogue, TEST_URLS } from '../../tools/testing/test-catalogue.js';

// ajv-formats is CommonJS with a default export; under NodeNext its type is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
type Json = Record<string, any>;

const doc = openApiDocument(TEST_URLS) as Json;
const data = testCatalogue(20);
const handler = createHandler(data);
const id = idsNewestFirst(20)[0]!;

/** The document's operation for a concrete request path (trailing slash accepted). */
function operationFor(path: string): Json | undefined {
  const clean = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
    const pattern = new RegExp(`^${template.replaceAll(/\{[a-z]+\}/g, '[^/]+')}$`);
    if (pattern.test(clean)) return item.get;
  }
  return undefined;
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (third-party validator)', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('is what the handler serves at /api/openapi.json', async () => {
    const r = await call(handler, '/api/openapi.json');
    expect(r.json).toEqual(doc);
  });

  it('lists every path and alias with servers for both variants', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      ['/api/pepe', '/api/pepe_image', '/api/public/pepe', '/api/public/pepes', '/v1/pepe']
        .flatMap((p) => [p, `${p}/{id}`])
        .concat('/api/openapi.json', '/api/pages/{sort}/{page}')
        .sort(),
    );
    expect(doc.servers[0].url).toBe(TEST_URLS.baseUrl);
    expect(doc.paths['/v1/pepe'].servers[0].url).toBe(TEST_URLS.apiUrl);
    const params = doc.paths['/api/pepe'].get.parameters.map((p: Json) => p.name);
    expect(params).toEqual(['limit', 'page', 'search', 'field', 'sort', 'random', 'seed']);
    const limit = doc.paths['/api/pepe'].get.parameters[0];
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 25, default: 1 });
    expect(doc.paths['/v1/pepe'].get.parameters[0].schema).toMatchObject({ minimum: 1, maximum: 100 });
    // Any page of 1 or more is accepted (api-behaviour.md: "decimal integer ≥ 1"): no maximum promised.
    expect(doc.paths['/api/pepe'].get.parameters[1].schema).toEqual({ default: 1, type: 'integer', minimum: 1 });
    expect(doc.components.schemas.PaginationMeta.properties.page).toEqual({ type: 'integer', minimum: 1 });
    for (const status of ['200', '304', '400', '405', '500']) expect(doc.paths['/api/pepe'].get.responses).toHaveProperty(status);
    expect(doc.paths['/v1/pepe/{id}'].get.responses).toHaveProperty('404');
  });

  it('promises an ETag and a 304 only where an answer can be deterministic (never for the always-random /v1/pepe)', async () => {
    const v1List = doc.paths['/v1/pepe'].get.responses;
    expect(v1List).not.toHaveProperty('304');
    expect(v1List['200'].headers).toBeUndefined();
    const served = await call(handler, '/v1/pepe?limit=3');
    expect(served.headers.get('ETag')).toBeNull();
    for (const path of ['/api/pepe', '/api/pepe/{id}', '/v1/pepe/{id}']) {
      expect(doc.paths[path].get.responses).toHaveProperty('304');
      expect(doc.paths[path].get.responses['200'].headers).toHaveProperty('ETag');
    }
  });

  describe('describes real answers (ajv, draft 2020-12)', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'https://pepe.test/openapi.json', ...doc });

    it.each([
      '/api/pepe',
      '/api/pepe?limit=5&search=smug',
      '/api/pepe?limit=5&page=9',
      '/api/pepe?page=99',
      // page has no upper bound: the answer echoes digits past 2^53 exactly.
      '/api/pepe?limit=2&page=1234567890123456789012345678901234567890',
      '/api/pepe?search=nothingmatches',
      '/api/pepe?limit=25&random=true&seed=x',
      '/api/public/pepes/?limit=2&sort=relevance&search=pepe',
      `/api/pepe/${id}`,
      `/api/pepe_image/${id.toUpperCase()}`,
      '/api/pepe/00000000-0000-4000-8000-000000000000',
      '/api/pepe/xyz',
      '/api/pepe?limit=30',
      '/v1/pepe?limit=7',
      '/v1/pepe?search=zzz',
      `/v1/pepe/${id}`,
      '/v1/pepe/00000000-0000-4000-8000-000000000000',
      '/v1/pepe?limit=0',
      '/api/pages/created_at_desc/1',
      '/api/pages/created_at_asc/1/',
      '/api/pages/created_at_asc/2',
      '/api/pages/relevance/1',
    ])('GET %s', async (path) => {
      const r = await call(handler, path);
      const operation = operationFor(new URL(path, TEST_URLS.baseUrl).pathname);
      expect(operation, 'documented path').toBeDefined();
      const response = operation!.responses[String(r.status)];
      expect(response, `documented status ${r.status}`).toBeDefined();
      const schema = response.content['application/json'].schema;
      // Local refs of the operation point into the document added above.
      const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"https://pepe.test/openapi.json#/components/')));
      const ok = validate(r.json);
      expect(validate.errors ?? [], r.text.slice(0, 200)).toEqual([]);
      expect(ok).toBe(true);
    });

    it('rejects an answer that breaks the schema (the check can fail)', () => {
      const validate = ajv.getSchema('https://pepe.test/openapi.json#/components/schemas/ByIdEnvelopeA')!;
      expect(validate({ data: { id }, error: null })).toBe(false);
    });
  });
});
