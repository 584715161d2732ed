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

describe('answers from the CDN cache', () => {
  it('reach the browser as fresh as a new answer: the time spent in the CDN cache (valid until the next build) does not eat the browser lifetime', async () => {
    const path = '/api/pepe?limit=3&page=2';
    const first = await raw(base, path);
    expect(first.headers['cache-status']).toBe('"pepe serve"; fwd=miss; stored');
    expect(freshSecondsLeft(first)).toBe(60);
    // Long enough for the entry to be a second old: Age used to count it, so an answer kept
    // longer than max-age (60 s) reached every browser already stale.
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
