import { describe, expect, it } from 'vitest';
import { createHandler } from './handler.js';
import { seededRandom } from './shuffle.js';
import { call, idsNewestFirst, testCatalogue, testRecords, TEST_URLS } from '../../tools/testing/test-catalogue.js';

const handler = createHandler(testCatalogue(30), { random: seededRandom('b') });
const records = new Map(testRecords(30).map((r) => [r.id, r]));

describe('variant B list', () => {
  it('answers one random pepe in an array by default, never cached', async () => {
    const r = await call(handler, '/v1/pepe');
    expect(r.status).toBe(200);
    expect(r.json.status).toBe('success');
    expect(r.json.result).toHaveLength(1);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('etag')).toBeNull();
  });

  it('returns {id, url on the CDN, description} with "" for a missing description', async () => {
    const r = await call(handler, '/v1/pepe/?limit=100');
    expect(r.json.result).toHaveLength(30);
    for (const pepe of r.json.result) {
      const record = records.get(pepe.id)!;
      expect(pepe).toEqual({ id: record.id, url: `${TEST_URLS.cdnUrl}/images/${record.id}${record.file_ext}`, description: record.description ?? '' });
    }
    expect(r.json.result.some((p: { description: string }) => p.description === '')).toBe(true);
  });

  it('returns distinct records, min(limit, matches) of them', async () => {
    for (let i = 0; i < 10; i++) {
      const r = await call(handler, '/v1/pepe?limit=20');
      expect(new Set(r.json.result.map((p: { id: string }) => p.id)).size).toBe(20);
    }
  });

  it('varies between requests', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10; i++) seen.add((await call(handler, '/v1/pepe')).json.result[0].id);
    expect(seen.size).toBeGreaterThan(3);
  });

  it('filters by description words only (tags are not searched)', async () => {
    const r = await call(handler, '/v1/pepe?search=rain&limit=100');
    const expected = [...records.values()].filter((rec) => /\brain\b/.test(rec.description ?? '')).map((rec) => rec.id);
    expect(r.json.result.map((p: { id: string }) => p.id).sort()).toEqual(expected.sort());
    // "comfy" is a tag and a description word; "feels" only… both in descriptions here, so use a tag-only word:
    const tagOnly = await call(handler, '/v1/pepe?search=happy+smug&limit=100');
    const happyDescribed = [...records.values()].filter((rec) => /happy/i.test(rec.description ?? '') && /smug/i.test(rec.description ?? ''));
    expect(tagOnly.json.result).toHaveLength(happyDescribed.length);
  });

  it('answers result [] with 200 when nothing matches', async () => {
    const r = await call(handler, '/v1/pepe?search=zebra&limit=5');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ result: [], status: 'success' });
  });
});

describe('variant B by id', () => {
  const id = idsNewestFirst(30)[3]!;
  it('answers {result, status} in any letter case, cacheable', async () => {
    const r = await call(handler, `/v1/pepe/${id.toUpperCase()}`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ result: { id, url: expect.stringContaining(`${TEST_URLS.cdnUrl}/images/${id}`), description: expect.any(String) }, status: 'success' });
    expect(r.headers.get('etag')).toMatch(/^"[^"]+"$/);
  });

  it('gives 404 for an unknown id and 400 for a malformed one, in variant B shape', async () => {
    const missing = await call(handler, '/v1/pepe/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ result: null, status: 'error', error: { code: 'NOT_FOUND', message: 'No pepe with id 00000000-0000-4000-8000-000000000000' } });
    const bad = await call(handler, '/v1/pepe/123');
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('VALIDATION_ERROR');
  });

  it('gives 404 in variant B shape for unknown paths under /v1', async () => {
    for (const path of ['/v1', '/v1/', '/v1/pepes', `/v1/pepe/${id}/extra`, '/v1/PEPE']) {
      const r = await call(handler, path);
      expect(r.status, path).toBe(404);
      expect(r.json.status).toBe('error');
      expect(r.json.error.code).toBe('NOT_FOUND');
    }
  });
});
