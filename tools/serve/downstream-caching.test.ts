/**
 * What the caches after `pepe serve` get, over real HTTP: a browser's HTTP cache, or a CDN in
 * front of a self-hosted `pepe serve`. Both judge an answer's freshness by RFC 9111 (4.2):
 * `Cache-Control: max-age` minus its current age, which starts at the `Age` header.
 */
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureSite, type FixtureSite } from '../testing/fixture-catalogue.js';
import { closeClient, raw, type RawResponse } from './http-client.test-helper.js';
import { type RunningServer, startServer } from './server.js';

const NETLIFY_TOML = fileURLToPath(new URL('../../netlify.toml', import.meta.url));

let site: FixtureSite;
let server: RunningServer;
let base: string;

beforeAll(async () => {
  site = await buildFixtureSite({ count: 5 });
  server = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML });
  base = server.url;
}, 120_000);

afterAll(async () => {
  closeClient();
  await server?.close();
  await site?.cleanup();
});

/** Seconds a browser may reuse the answer without asking again (RFC 9111 4.2: freshness lifetime minus current age). */
function freshSecondsLeft(res: RawResponse): number {
  const maxAge = /max-age=(\d+)/.exec(String(res.headers['cache-control']))?.[1];
  return Number(maxAge ?? 0) - Number(res.headers['age'] ?? 0);
}

describe('the pepe of the day replayed from the CDN cache', () => {
  it('carries its real Age, so no cache downstream keeps it past midnight, and is never replayed past its expiry', async () => {
    let clock = 1_700_000_000_000;
    const timed = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML, now: () => clock });
    try {
      const first = await raw(timed.url, '/api/daily');
      expect(first.headers['cache-status']).toBe('"pepe serve"; fwd=miss; stored');
      const maxAge = Number(/max-age=(\d+)/.exec(String(first.headers['cache-control']))?.[1]);
      // Seconds until the next UTC midnight, by the function's own clock: a few are enough.
      const step = Math.min(100, Math.floor(maxAge / 3));
      expect(step).toBeGreaterThan(0);
      clock += step * 1000 + 999;
      for (const headers of [{}, { 'accept-encoding': 'gzip' }, { 'if-none-match': first.headers['etag'] as string }] as Record<string, string>[]) {
        const replay = await raw(timed.url, '/api/daily', { headers });
        expect(replay.headers['cache-status']).toBe('"pepe serve"; hit');
        expect(replay.headers['age']).toBe(String(step));
        // What a downstream cache keeps it for ends where the first answer's lifetime ends.
        expect(freshSecondsLeft(replay)).toBe(maxAge - step);
      }
      clock = 1_700_000_000_000 + maxAge * 1000;
      expect((await raw(timed.url, '/api/daily')).headers['cache-status']).toBe('"pepe serve"; fwd=miss; stored');
    } finally {
      await timed.close();
    }
  });
});

describe('answers from the CDN cache', () => {
  it('reach the browser as fresh as a new answer: the time spent in the CDN cache (valid until the next build) does not eat the browser lifetime', async () => {
    const path = '/api/pepe?limit=3&page=2';
    const first = await raw(base, path);
    expect(first.headers['cache-status']).toBe('"pepe serve"; fwd=miss; stored');
    expect(freshSecondsLeft(first)).toBe(60);
    // Long enough for the entry to be a second old: counted in Age, an answer kept longer than max-age would reach browsers stale.
    await sleep(1100);
    const cases: [string, string, Record<string, string>][] = [
      ['early answer, plain', path, {}],
      ['early answer, brotli', path, { 'accept-encoding': 'br' }],
      ['through the chain, plain', '/api/x/../pepe?limit=3&page=2', {}],
      ['through the chain, gzip', '/api/x/../pepe?limit=3&page=2', { 'accept-encoding': 'gzip' }],
      ['HEAD', path, {}],
      ['304', path, { 'if-none-match': first.headers['etag'] as string }],
    ];
    for (const [label, target, headers] of cases) {
      const res = await raw(base, target, { headers, method: label === 'HEAD' ? 'HEAD' : 'GET' });
      expect(res.headers['cache-status'], label).toBe('"pepe serve"; hit');
      expect(res.headers['age'], label).toBe('0');
      expect(freshSecondsLeft(res), label).toBe(60);
    }
  });
});

describe('304 answers', () => {
  /** Fields a 304 must not carry (RFC 9110 15.4.5: no representation metadata, no body). */
  function expectBare304(res: RawResponse, label: string, etag: string): void {
    expect(res.status, label).toBe(304);
    expect(res.body.length, label).toBe(0);
    expect(res.headers['etag'], label).toBe(etag);
    expect(res.headers['content-type'], label).toBeUndefined();
    expect(res.headers['content-encoding'], label).toBeUndefined();
    expect(res.headers['content-length'], label).toBeUndefined();
    expect(res.headers['cache-control'], label).toBeDefined();
    expect(res.headers['access-control-allow-origin'], label).toBe('*');
  }

  it('carry the ETag, Cache-Control, Vary and CORS of the 200 they stand for, and no Content-Type or Content-Encoding: static files and function answers alike', async () => {
    const record = site.records[0]!;
    const paths = [`/api/pepe/${record.id}`, `/images/${record.id}${record.file_ext}`, '/api/openapi.json', '/api/pepe?limit=4', `/api/pepe_image/${record.id}`];
    for (const path of paths) {
      for (const acceptEncoding of [undefined, 'br', 'gzip']) {
        const headers: Record<string, string> = acceptEncoding ? { 'accept-encoding': acceptEncoding } : {};
        const label = `${path} ${acceptEncoding ?? 'plain'}`;
        const full = await raw(base, path, { headers });
        expect(full.status, label).toBe(200);
        const etag = full.headers['etag'] as string;
        for (const method of ['GET', 'HEAD']) {
          const res = await raw(base, path, { method, headers: { ...headers, 'if-none-match': etag } });
          expectBare304(res, `${label} ${method}`, etag);
          expect(res.headers['cache-control'], label).toBe(full.headers['cache-control']);
          expect(res.headers['vary'], label).toBe(full.headers['vary']);
        }
      }
    }
  });

  it('only match the tag of the form this client gets: the plain tag does not revalidate a compressed answer, for static files and function answers alike', async () => {
    for (const path of ['/api/openapi.json', '/api/pepe?limit=5']) {
      const plain = await raw(base, path);
      const plainTag = plain.headers['etag'] as string;
      const packed = await raw(base, path, { headers: { 'accept-encoding': 'br' } });
      const packedTag = packed.headers['etag'] as string;
      expect(packed.headers['content-encoding'], path).toBe('br');
      // A client that holds the plain bytes and now accepts brotli gets the brotli form, not a
      // 304 naming it (the function path answered 304 with `Content-Encoding: br` here).
      const switched = await raw(base, path, { headers: { 'accept-encoding': 'br', 'if-none-match': plainTag } });
      expect(switched.status, path).toBe(200);
      expect(switched.headers['etag'], path).toBe(packedTag);
      const back = await raw(base, path, { headers: { 'if-none-match': packedTag } });
      expect(back.status, path).toBe(200);
      expect(back.headers['etag'], path).toBe(plainTag);
      // A list of both tags (a cache holding both forms) revalidates either form.
      const both = `${plainTag}, W/${packedTag}`;
      expectBare304(await raw(base, path, { headers: { 'if-none-match': both } }), `${path} plain`, plainTag);
      expectBare304(await raw(base, path, { headers: { 'accept-encoding': 'br', 'if-none-match': both } }), `${path} br`, packedTag);
    }
  });
});
