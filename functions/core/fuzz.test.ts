/**
 * Property-based fuzzing of paths and query strings: whatever arrives, the handler never
 * answers 500 and always answers the documented envelope of the variant of the path.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHandler } from './handler.js';
import { call, idsNewestFirst, testCatalogue } from '../../tools/testing/test-catalogue.js';

const handler = createHandler(testCatalogue(25), {
  onError: (error) => {
    throw error; // make any caught bug fail the property loudly
  },
});
const id = idsNewestFirst(25)[0]!;

const PARAMS = ['limit', 'page', 'search', 'field', 'sort', 'random', 'seed', 'x', 'LIMIT'];
const percent = fc.oneof(
  fc.constantFrom('%', '%Z', '%ZZ', '%E0%A4%A', '%C3', '%FF', '%00', '%0A', '%7F', '%C2%85', '%F0%9F%90%B8', '%25', '+', '%20'),
  fc.string({ maxLength: 4 }).map((s) => encodeURIComponent(s)),
);
const value = fc.oneof(
  fc.constantFrom('1', '25', '26', '0', '-1', 'true', 'FALSE', 'id', 'text', 'relevance', 'created_at_asc', id, id.toUpperCase(), 'smug', 'café'),
  fc.integer({ min: -5, max: 200 }).map(String),
  fc.array(fc.oneof(fc.string({ maxLength: 6 }).map(encodeURIComponent), percent), { maxLength: 5 }).map((parts) => parts.join('')),
  fc.nat({ max: 3000 }).map((n) => 'a'.repeat(n)),
);
const pair = fc.tuple(fc.constantFrom(...PARAMS), value).map(([k, v]) => `${k}=${v}`);
const query = fc.array(fc.oneof(pair, percent, fc.constant('')), { maxLength: 8 }).map((pairs) => pairs.join('&'));
const path = fc.oneof(
  fc.constantFrom('/api/pepe', '/api/pepe/', '/api/pepe_image', '/api/public/pepe', '/api/public/pepes/', '/v1/pepe', '/v1/pepe/', '/api', '/v1', '/api/openapi.json'),
  fc.tuple(fc.constantFrom('/api/pepe/', '/v1/pepe/', '/api/public/pepes/', '/api/', '/v1/'), fc.oneof(fc.constant(id), fc.constant(id.toUpperCase()), fc.string({ maxLength: 40 }).map(encodeURIComponent), percent)).map(([a, b]) => a + b),
);

function checkEnvelope(pathname: string, status: number, json: any): void {
  const isB = pathname === '/v1' || pathname.startsWith('/v1/');
  if (status >= 400) {
    expect(status).toBeLessThan(500);
    if (isB) expect(Object.keys(json)).toEqual(['result', 'status', 'error']);
    else expect(Object.keys(json)).toEqual(['data', 'error']);
    expect(typeof json.error.message).toBe('string');
    expect(['VALIDATION_ERROR', 'NOT_FOUND']).toContain(json.error.code);
    return;
  }
  expect(status).toBe(200);
  if (pathname.startsWith('/api/openapi.json')) return;
  if (isB) expect(json.status).toBe('success');
  else expect(json.error).toBeNull();
}

describe('fuzzed requests', () => {
  it('never answer 500 and always answer the documented envelope', async () => {
    await fc.assert(
      fc.asyncProperty(path, query, async (p, q) => {
        const url = `${p}?${q}`;
        const r = await call(handler, url);
        expect(r.json, url).toBeDefined();
        checkEnvelope(new URL(url, 'https://x').pathname, r.status, r.json);
      }),
      { numRuns: 1000 },
    );
  }, 60_000);

  it('answer HEAD and odd methods without 500', async () => {
    await fc.assert(
      fc.asyncProperty(path, query, fc.constantFrom('HEAD', 'POST', 'DELETE', 'OPTIONS', 'PATCH'), async (p, q, method) => {
        const response = await handler(new Request(`https://x${p}?${q}`, { method }));
        expect(response.status).toBeLessThan(500);
      }),
      { numRuns: 300 },
    );
  }, 60_000);
});
