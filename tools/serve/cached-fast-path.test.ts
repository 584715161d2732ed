/**
 * answerFromCdnCache over real HTTP: which requests it answers early from the CDN cache and
 * which it leaves to the chain (here a handler answering 299, so that a test can tell the two
 * apart; through the real server both give the same bytes by design).
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_NETLIFY_CDN_CACHE_CONTROL } from '../../functions/core/cache-policy.js';
import { answerFromCdnCache } from './cached-fast-path.js';
import { CdnCache } from './cdn-cache.js';
import { closeClient, earlyAnswerServer, raw } from './http-client.test-helper.js';

const BODY = Buffer.from(`${JSON.stringify({ data: Array.from({ length: 40 }, (_, i) => ({ id: i, description: 'a smug frog' })) })}\n`);
const HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=60', 'netlify-cdn-cache-control': JSON_NETLIFY_CDN_CACHE_CONTROL, etag: '"abc"' };

let cache: CdnCache;
let server: Server;
let base: string;

beforeAll(async () => {
  cache = new CdnCache();
  cache.store('/api/pepe?limit=25', 200, HEADERS, BODY)!.routed = true;
  // Stored, but reached through a rewrite rather than the function's own route: never early.
  cache.store('/api/pepe?limit=24', 200, HEADERS, BODY);
  ({ server, base } = await earlyAnswerServer((req, res) => answerFromCdnCache(cache, req, res)));
});

afterAll(async () => {
  closeClient();
  server.close();
  await once(server, 'close');
});

describe('answerFromCdnCache', () => {
  it('answers a GET and a HEAD for a routed cached key early, with the forwarded headers, Age and no CDN header', async () => {
    const get = await raw(base, '/api/pepe?limit=25');
    expect(get.status).toBe(200);
    expect(get.body.equals(BODY)).toBe(true);
    expect(get.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=60', etag: '"abc"', age: '0' });
    expect(get.headers['netlify-cdn-cache-control']).toBeUndefined();
    expect(String(get.headers['cache-status'])).toContain('hit');
    const head = await raw(base, '/api/pepe?limit=25', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(String(BODY.length));
  });

  it('sends the compressed form a client accepts, with its own ETag', async () => {
    const br = await raw(base, '/api/pepe?limit=25', { headers: { 'accept-encoding': 'br' } });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.etag).toBe('"abc-br"');
    expect(brotliDecompressSync(br.body).equals(BODY)).toBe(true);
  });

  it('leaves to the chain: conditional requests, other methods, keys it does not hold, keys not reached by the function route', async () => {
    expect((await raw(base, '/api/pepe?limit=25', { headers: { 'if-none-match': '"abc"' } })).status).toBe(299);
    expect((await raw(base, '/api/pepe?limit=25', { method: 'POST' })).status).toBe(299);
    expect((await raw(base, '/api/pepe?limit=26')).status).toBe(299);
    expect((await raw(base, '/api/pepe?limit=24')).status).toBe(299);
    expect((await raw(base, '/api/pepe?LIMIT=25')).status).toBe(299);
  });
});
