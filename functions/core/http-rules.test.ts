import { describe, expect, it } from 'vitest';
import { ERROR_BROWSER_CACHE_CONTROL, ERROR_NETLIFY_CDN_CACHE_CONTROL, JSON_BROWSER_CACHE_CONTROL, JSON_NETLIFY_CDN_CACHE_CONTROL } from './cache-policy.js';
import { createHandler } from './handler.js';
import { call, idsNewestFirst, testCatalogue } from '../../tools/testing/test-catalogue.js';

const handler = createHandler(testCatalogue(10), { onError: () => {} });
const id = idsNewestFirst(10)[0]!;

describe('HTTP behaviour of every JSON answer', () => {
  it.each(['/api/pepe?limit=2', `/api/pepe/${id}`, '/v1/pepe', `/v1/pepe/${id}`, '/api/nope', '/api/pepe?limit=99'])('sends JSON, nosniff and CORS headers on %s', async (path) => {
    const r = await call(handler, path);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-expose-headers')).toBe('ETag');
    expect(Number(r.headers.get('content-length'))).toBe(Buffer.byteLength(r.text));
  });

  it('answers HEAD with the same headers and no body', async () => {
    for (const path of ['/api/pepe?limit=3', `/v1/pepe/${id}`, '/api/pepe?limit=0']) {
      const get = await call(handler, path);
      const head = await call(handler, path, { method: 'HEAD' });
      expect(head.status).toBe(get.status);
      expect(head.text).toBe('');
      expect([...head.headers]).toEqual([...get.headers]);
    }
  });

  it('answers an OPTIONS preflight with 204 and the allowed methods', async () => {
    const r = await call(handler, '/api/pepe?limit=3', { method: 'OPTIONS', headers: { Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'GET' } });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect(r.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(Number(r.headers.get('access-control-max-age'))).toBeGreaterThan(0);
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('answers %s with 405, Allow and the variant error shape', async (method) => {
    const a = await call(handler, '/api/pepe', { method });
    expect(a.status).toBe(405);
    expect(a.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(a.json.data).toBeNull();
    expect(a.json.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(a.headers.get('cache-control')).toBe('no-store');
    const b = await call(handler, '/v1/pepe', { method });
    expect(b.status).toBe(405);
    expect(b.json).toMatchObject({ result: null, status: 'error', error: { code: 'METHOD_NOT_ALLOWED' } });
    // The same path with an unreserved character percent-encoded is routed as variant B, so it errs like it.
    expect((await call(handler, '/v%31/pepe', { method })).json).toEqual(b.json);
  });

  it('caches deterministic answers: strong ETag, short browser and long CDN lifetime', async () => {
    for (const path of ['/api/pepe?limit=3', `/api/pepe/${id}`, `/v1/pepe/${id}`, '/api/pepe?search=smug&sort=relevance&limit=2']) {
      const r = await call(handler, path);
      expect(r.headers.get('etag')).toMatch(/^"[0-9a-f]{16}-[0-9a-z]+"$/);
      expect(r.headers.get('cache-control')).toBe(JSON_BROWSER_CACHE_CONTROL);
      expect(r.headers.get('netlify-cdn-cache-control')).toBe(JSON_NETLIFY_CDN_CACHE_CONTROL);
    }
  });

  it('gives equal ETags for equal bodies and different ones otherwise', async () => {
    const a = await call(handler, '/api/pepe?limit=3');
    const b = await call(handler, '/api/public/pepes/?limit=3&unknown=1');
    const c = await call(handler, '/api/pepe?limit=4');
    expect(a.headers.get('etag')).toBe(b.headers.get('etag'));
    expect(a.headers.get('etag')).not.toBe(c.headers.get('etag'));
  });

  it('answers 304 without body when If-None-Match matches (also weak or in a list, and *)', async () => {
    const first = await call(handler, '/api/pepe?limit=3');
    const etag = first.headers.get('etag')!;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const r = await call(handler, '/api/pepe?limit=3', { headers: { 'If-None-Match': header } });
      expect(r.status).toBe(304);
      expect(r.text).toBe('');
      expect(r.headers.get('etag')).toBe(etag);
      expect(r.headers.get('cache-control')).toBe(JSON_BROWSER_CACHE_CONTROL);
      // No body, so no representation metadata about one (RFC 9110 15.4.5).
      expect(r.headers.get('content-type')).toBeNull();
    }
    const stale = await call(handler, '/api/pepe?limit=3', { headers: { 'If-None-Match': '"stale"' } });
    expect(stale.status).toBe(200);
  });

  it('answers a 400 or 404 in full even when If-None-Match matches its ETag (a condition only turns a 2xx into 304)', async () => {
    for (const path of ['/api/nope', '/api/pepe?limit=99', `/v1/pepe/${id.replace(/.$/, 'x')}`, '/api/pepe/00000000-0000-4000-8000-000000000000']) {
      const first = await call(handler, path);
      expect(first.status, path).toBeGreaterThanOrEqual(400);
      for (const header of [first.headers.get('etag')!, '*']) {
        const r = await call(handler, path, { headers: { 'If-None-Match': header } });
        expect(r.status, `${path} ${header}`).toBe(first.status);
        expect(r.text, `${path} ${header}`).toBe(first.text);
      }
    }
  });

  it('never answers 304 to a random answer, seeded or not', async () => {
    for (const path of ['/v1/pepe', '/api/pepe?random=true', '/api/pepe?random=true&seed=1&limit=3']) {
      const r = await call(handler, path, { headers: { 'If-None-Match': '*' } });
      expect(r.status).toBe(200);
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.headers.get('etag')).toBeNull();
    }
  });

  it('answers unknown paths under /api with a variant A 404', async () => {
    for (const path of ['/api', '/api/', '/api/pepes', `/api/pepe/${id}/x`, '/api/Pepe', '/api//pepe']) {
      const r = await call(handler, path);
      expect(r.status, path).toBe(404);
      expect(r.json.data).toBeNull();
      expect(r.json.error.code).toBe('NOT_FOUND');
      // Deterministic, so cached briefly (a hot bad URL need not reach the function each time).
      expect(r.headers.get('cache-control'), path).toBe(ERROR_BROWSER_CACHE_CONTROL);
      expect(r.headers.get('netlify-cdn-cache-control'), path).toBe(ERROR_NETLIFY_CDN_CACHE_CONTROL);
    }
  });

  it('turns a bug into a generic 500 with no-store and no internals', async () => {
    const data = testCatalogue(3);
    const broken = createHandler(data, { onError: () => {} });
    // Corrupt the search index after start: the first search fails inside the search code.
    (data as { searchIndex: unknown }).searchIndex = { format: 'nope' };
    const r = await call(broken, '/api/pepe?search=smug');
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ data: null, error: { code: 'INTERNAL_SERVER_ERROR', message: 'The server failed to answer this request; please try again later' } });
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.text).not.toMatch(/format|search|\.ts|at /);
    const b = await call(broken, '/v1/pepe?search=smug');
    expect(b.json).toMatchObject({ result: null, status: 'error', error: { code: 'INTERNAL_SERVER_ERROR' } });
    expect((await call(broken, '/v%31/pepe?search=smug')).json).toEqual(b.json);
    const head = await call(broken, '/api/pepe?search=smug', { method: 'HEAD' });
    expect(head.status).toBe(500);
    expect(head.text).toBe('');
    expect(head.headers.get('cache-control')).toBe('no-store');
    // The same JSON and CORS headers as every other answer: a page on another origin reads the 500 too.
    const crossOrigin = (h: Headers) => ['content-type', 'x-content-type-options', 'access-control-allow-origin', 'access-control-expose-headers'].map((name) => [name, h.get(name)]);
    const ok = await call(createHandler(testCatalogue(3)), '/api/pepe');
    expect(crossOrigin(r.headers)).toEqual(crossOrigin(ok.headers));
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });
});
