/**
 * End to end over real HTTP: the real build of the fixture catalogue, served by
 * startServer on an ephemeral port with the repository's real netlify.toml.
 */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE_CACHE_CONTROL, JSON_BROWSER_CACHE_CONTROL, STATIC_DEFAULT_CACHE_CONTROL } from '../../functions/core/cache-policy.js';
import { IMAGE_TYPES, type PepeRecord } from '../../functions/core/record.js';
import { buildFixtureSite, type FixtureSite } from '../testing/fixture-catalogue.js';
import { closeClient, json, raw } from './http-client.test-helper.js';
import { type RunningServer, startServer } from './server.js';

const NETLIFY_TOML = fileURLToPath(new URL('../../netlify.toml', import.meta.url));
const A_PREFIXES = ['/api/pepe', '/api/pepe_image', '/api/public/pepe', '/api/public/pepes'];
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

let site: FixtureSite;
let server: RunningServer;
let base: string;
let record: PepeRecord;
const siteFile = (path: string) => readFile(join(site.distDir, 'site', path));

beforeAll(async () => {
  // Small listing pages, so that 8 records make several linked pages.
  site = await buildFixtureSite({ count: 8, chunks: { listing: { mean: 3, max: 40 } } });
  server = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML });
  base = server.url;
  record = site.records[1]!;
}, 120_000);

afterAll(async () => {
  closeClient();
  await server?.close();
  await site?.cleanup();
});

describe('variant A', () => {
  it('lists on every alias path, with and without a trailing slash, with identical bodies', async () => {
    const first = await raw(base, '/api/pepe?limit=5');
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = json(first) as { data: unknown[]; meta: { pagination: { total_items: number } } };
    expect(body.data).toHaveLength(5);
    expect(body.meta.pagination.total_items).toBe(site.records.length);
    for (const prefix of A_PREFIXES) {
      for (const path of [`${prefix}?limit=5`, `${prefix}/?limit=5`]) {
        expect((await raw(base, path)).body.equals(first.body), path).toBe(true);
      }
    }
  });

  it('routes percent-encoded unreserved characters like the plain path, to the function as to static files', async () => {
    const plain = await raw(base, '/api/pepe?limit=3');
    const encoded = await raw(base, '/api/%70epe?limit=3');
    expect(encoded.status).toBe(200);
    expect(encoded.body.equals(plain.body)).toBe(true);
  });

  it('serves the precomputed by-id file byte for byte with the netlify.toml headers, not the function', async () => {
    const res = await raw(base, `/api/pepe/${record.id}`);
    expect(res.status).toBe(200);
    expect(res.body.equals(await siteFile(`api/pepe/${record.id}`))).toBe(true);
    expect(res.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'cache-control': JSON_BROWSER_CACHE_CONTROL,
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'ETag',
      'x-content-type-options': 'nosniff',
    });
    // Only function answers carry Cache-Status: its absence shows the static file answered.
    expect(res.headers['cache-status']).toBeUndefined();
  });

  it('answers by id on the alias prefixes and in upper case through the function, with the same body', async () => {
    const file = await siteFile(`api/pepe/${record.id}`);
    for (const path of [...A_PREFIXES.slice(1).map((p) => `${p}/${record.id}`), `/api/pepe/${record.id.toUpperCase()}`]) {
      const res = await raw(base, path);
      expect(res.status, path).toBe(200);
      expect(res.headers['cache-status'], path).toBeDefined();
      expect(res.body.equals(file), path).toBe(true);
    }
  });

  it('gives the JSON 404 for an unknown id and unknown paths, 400 for a malformed id or parameter', async () => {
    const unknown = await raw(base, `/api/pepe/${UNKNOWN_ID}`);
    expect(unknown.status).toBe(404);
    expect(json(unknown)).toMatchObject({ data: null, error: { code: 'NOT_FOUND' } });
    expect((await raw(base, '/api/nothing/here')).status).toBe(404);
    expect(json(await raw(base, '/api/nothing/here'))).toMatchObject({ error: { code: 'NOT_FOUND' } });
    const malformed = await raw(base, '/api/pepe/not-a-uuid');
    expect(malformed.status).toBe(400);
    expect(json(malformed)).toMatchObject({ data: null, error: { code: 'VALIDATION_ERROR' } });
    expect((await raw(base, '/api/pepe?limit=26')).status).toBe(400);
    expect((await raw(base, '/api/pepe?search=%E0%A4%A')).status).toBe(400);
  });
});

describe('tags, filters, similar pepes, pepe of the day', () => {
  it('serves /api/tags and /api/similar/{id} from their precomputed files with the netlify.toml headers; the function answers other spellings alike', async () => {
    for (const path of ['api/tags', `api/similar/${record.id}`]) {
      const res = await raw(base, `/${path}`);
      expect(res.status).toBe(200);
      expect(res.body.equals(await siteFile(path))).toBe(true);
      expect(res.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', 'cache-control': JSON_BROWSER_CACHE_CONTROL, 'access-control-allow-origin': '*' });
      expect(res.headers['cache-status']).toBeUndefined();
    }
    const upper = await raw(base, `/api/similar/${record.id.toUpperCase()}/`);
    expect(upper.body.equals(await siteFile(`api/similar/${record.id}`))).toBe(true);
    expect((await raw(base, `/api/similar/${UNKNOWN_ID}`)).status).toBe(404);
    const tags = json(await raw(base, '/api/tags')) as { data: { tag: string; count: number }[] };
    expect(tags.data.find((t) => t.tag === 'sad')).toEqual({ tag: 'sad', count: site.records.filter((r) => r.tags?.includes('sad')).length });
  });

  it('searches by picture through the function: the phash the build computed finds its pepe first, beside the static /api/similar/{id}', async () => {
    const res = await raw(base, `/api/similar?phash=${record.phash.toUpperCase()}`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-status']).toBeDefined();
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    // Cached per URL like the list answers: the second request is a hit of the emulated CDN.
    expect((await raw(base, `/api/similar?phash=${record.phash.toUpperCase()}`)).headers['cache-status']).toMatch(/hit/);
    const body = json(res) as { data: { id: string; distance: number }[]; meta: { phash: string } };
    expect(body.data[0]).toMatchObject({ id: record.id, distance: 0 });
    expect(body.meta.phash).toBe(record.phash);
    const wanted = site.records.filter((r) => r.phash === record.phash).length;
    expect(body.data.filter((p) => p.distance === 0)).toHaveLength(wanted);
    const bad = await raw(base, '/api/similar?phash=nope');
    expect(bad.status).toBe(400);
    expect(json(bad)).toMatchObject({ data: null, error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/^phash must be 16 hexadecimal digits/) } });
    expect((await raw(base, `/api/similar/${record.id}`)).headers['cache-status']).toBeUndefined();
  });

  it('filters by what the real build measured: the one animated GIF, orientation from the upright size', async () => {
    const animated = json(await raw(base, '/api/pepe?limit=25&animated=true')) as { data: { id: string; file_ext: string }[] };
    expect(animated.data.map((p) => p.file_ext)).toEqual(['.gif']);
    const portrait = json(await raw(base, '/api/pepe?limit=25&orientation=portrait')) as { data: { width: number; height: number }[] };
    for (const pepe of portrait.data) expect(pepe.height).toBeGreaterThan(pepe.width);
    expect(portrait.data.length).toBe(site.records.filter((r) => r.height > r.width).length);
  });

  it('answers the pepe of the day through the function, cacheable until the next UTC midnight', async () => {
    const res = await raw(base, '/api/daily');
    expect(res.status).toBe(200);
    const maxAge = Number(/^public, max-age=(\d+)$/.exec(res.headers['cache-control'] as string)?.[1]);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(86_400);
    expect((await raw(base, '/api/daily?date=2999-01-01')).status).toBe(400);
  });
});

describe('the static listing and the deprecated sorted pages', () => {
  type Page = { data: { id: string }[]; meta: { older: string | null; newer: string | null } };
  const fetchJson = async (url: string) => {
    const res = await raw(base, url.startsWith('http') ? new URL(url).pathname : url);
    expect(res.status, url).toBe(200);
    expect(res.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', 'cache-control': JSON_BROWSER_CACHE_CONTROL, 'access-control-allow-origin': '*' });
    // Static files: no Cache-Status, which only function answers carry.
    expect(res.headers['cache-status'], url).toBeUndefined();
    return json(res) as { data: unknown };
  };

  it('walks from the head by the pages\' links alone, in both orders, to the function\'s order over the whole catalogue', async () => {
    const head = (await fetchJson('/api/listing/head')).data as { total_items: number; oldest: string; newest: string };
    expect(head.total_items).toBe(site.records.length);
    const walk = async (from: string | null, link: 'older' | 'newer') => {
      const ids: string[] = [];
      let pages = 0;
      for (let url = from; url !== null; pages++) {
        const page = (await fetchJson(url)) as unknown as Page;
        ids.push(...(link === 'newer' ? page.data : [...page.data].reverse()).map((pepe) => pepe.id));
        url = page.meta[link];
      }
      return { ids, pages };
    };
    const oldestFirst = await walk(head.oldest, 'newer');
    expect(oldestFirst.pages).toBeGreaterThan(1);
    const listed = async (sort: string) => (json(await raw(base, `/api/pepe?limit=25&sort=${sort}`)) as Page).data.map((pepe) => pepe.id);
    expect(oldestFirst.ids).toEqual(await listed('created_at_asc'));
    expect((await walk(head.newest, 'older')).ids).toEqual(await listed('created_at_desc'));
  });

  it('answers the old /api/pages/<order>/<n> through the function, byte-equal to the list query, and 404 past the last page', async () => {
    await expect(siteFile('api/pages/created_at_desc/1')).rejects.toThrow();
    for (const sort of ['created_at_desc', 'created_at_asc']) {
      const page = await raw(base, `/api/pages/${sort}/1`);
      const listed = await raw(base, `/api/pepe?limit=25&page=1&sort=${sort}`);
      expect(page.status).toBe(200);
      expect(page.body.equals(listed.body), sort).toBe(true);
      expect(page.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(page.headers.etag).toBe(listed.headers.etag);
      const past = await raw(base, `/api/pages/${sort}/2`);
      expect(past.status).toBe(404);
      expect((json(past) as { error: { code: string; message: string } }).error).toEqual({
        code: 'NOT_FOUND',
        message: `No sorted page "${sort}/2"; use /api/pages/<created_at_desc|created_at_asc>/<n> with n from 1 to 1`,
      });
    }
  });

  it('answers a listing page that is not in the chain with a JSON 404 pointing at the head', async () => {
    const res = await raw(base, `/api/listing/${UNKNOWN_ID}`);
    expect(res.status).toBe(404);
    expect((json(res) as { error: { message: string } }).error.message).toContain('/api/listing/head');
  });
});

describe('variant B', () => {
  it('lists distinct random records, never cached', async () => {
    const res = await raw(base, '/v1/pepe?limit=3');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = json(res) as { result: { id: string }[]; status: string };
    expect(body.status).toBe('success');
    expect(new Set(body.result.map((r) => r.id)).size).toBe(3);
  });

  it('serves the by-id file statically and unknown ids and paths as variant B errors', async () => {
    const res = await raw(base, `/v1/pepe/${record.id}`);
    expect(res.status).toBe(200);
    expect(res.body.equals(await siteFile(`v1/pepe/${record.id}`))).toBe(true);
    expect(res.headers['cache-status']).toBeUndefined();
    for (const [path, status] of [[`/v1/pepe/${UNKNOWN_ID}`, 404], ['/v1/pepe/xyz', 400], ['/v1/other', 404]] as const) {
      const error = await raw(base, path);
      expect(error.status, path).toBe(status);
      expect(json(error), path).toMatchObject({ result: null, status: 'error' });
    }
  });
});

describe('images and other static files', () => {
  it('sends the gallery page with the Netlify default Cache-Control for files no rule covers (revalidate every time)', async () => {
    for (const path of ['/', '/index.html']) {
      const res = await raw(base, path);
      expect(res.status, path).toBe(200);
      expect(res.headers['cache-control'], path).toBe(STATIC_DEFAULT_CACHE_CONTROL);
    }
  });

  it('serves every image with its exact bytes and image headers', async () => {
    for (const r of site.records) {
      const res = await raw(base, `/images/${r.id}${r.file_ext}`);
      expect(res.status).toBe(200);
      expect(res.body.equals(await siteFile(`images/${r.id}${r.file_ext}`))).toBe(true);
      expect(res.body.length).toBe(r.file_size);
      expect(res.headers).toMatchObject({
        'content-type': IMAGE_TYPES[r.file_ext],
        'cache-control': IMAGE_CACHE_CONTROL,
        'access-control-allow-origin': '*',
        'x-content-type-options': 'nosniff',
      });
      expect(res.headers['content-encoding']).toBeUndefined();
    }
  });

  it('serves the OpenAPI document and the gallery page', async () => {
    const openapi = await raw(base, '/api/openapi.json');
    expect(openapi.status).toBe(200);
    expect((json(openapi) as { openapi: string }).openapi).toMatch(/^3\.1/);
    const page = await raw(base, '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body.equals(await siteFile('index.html'))).toBe(true);
  });

  it('answers a small HTML 404 outside the API', async () => {
    for (const path of ['/nothing', `/images/${UNKNOWN_ID}.png`, `/images/${record.id}.bmp`]) {
      const res = await raw(base, path);
      expect(res.status, path).toBe(404);
      expect(res.headers['content-type'], path).toBe('text/html; charset=utf-8');
    }
  });

  it('reads a cold image once for a connection pipelining 1,000 requests for it and never reading, and closes that connection', async () => {
    // A fresh server: every file is cold after start-up (and after each rebuild).
    const fresh = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML });
    const largest = [...site.records].sort((a, b) => b.file_size - a.file_size)[0]!;
    const socket = connect({ host: '127.0.0.1', port: fresh.port });
    socket.on('error', () => {});
    const closed = new Promise((done) => socket.once('close', done));
    try {
      await once(socket, 'connect');
      socket.pause();
      const before = process.memoryUsage().arrayBuffers;
      socket.write(`GET /images/${largest.id}${largest.file_ext} HTTP/1.1\r\nHost: localhost\r\n\r\n`.repeat(1000));
      await new Promise((done) => setTimeout(done, 500));
      // Not a copy per request in flight, each held until sent.
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(100 * largest.file_size);
      // More than 128 waiting: the server closed the connection rather than hold them all.
      await closed;
    } finally {
      socket.destroy();
      await fresh.close();
    }
  });

  it('answers 100 pipelined requests in order, and closes a connection with more than 128 waiting behind an answer', async () => {
    const answers = (text: string) => text.match(/HTTP\/1\.1 \d{3} /g)?.length ?? 0;
    // The answers received until all came or the server closed the connection (with a reset: unread requests were left).
    const pipeline = (count: number) =>
      new Promise<number>((done) => {
        const { hostname, port } = new URL(base);
        const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(Array.from({ length: count }, (_, n) => `GET /v1/pepe?limit=1&offset=${n} HTTP/1.1\r\nHost: localhost\r\n\r\n`).join('')));
        let received = '';
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString('latin1');
          if (answers(received) === count) socket.destroy();
        });
        socket.on('error', () => {});
        socket.on('close', () => done(answers(received)));
      });
    expect(await pipeline(100)).toBe(100);
    expect(await pipeline(300)).toBeLessThan(300);
  });

  it.each([
    '/images/../../manifest.json',
    '/images/..%2f..%2fmanifest.json',
    '/%2e%2e/manifest.json',
    '/images/%2e%2e/%2e%2e/functions/pepe.mjs',
    '/images/..\\..\\manifest.json',
    '/manifest.json',
    '/functions/pepe.mjs',
    '/data/catalogue.mjs',
    '/site/index.html',
    '/../dist/manifest.json',
    '//etc/passwd',
    '/images/%00.png',
    `/images/${'%'}zz.png`,
  ])('refuses the traversal attempt %s with a 404 that leaks nothing', async (path) => {
    const res = await raw(base, path);
    expect(res.status).toBe(404);
    expect(res.body.toString()).not.toMatch(/"files"|export default|createHandler/);
  });
});

/** Sends `request` as raw bytes on a fresh connection; resolves with everything the server sent back before closing. */
function rawExchange(request: Buffer): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((done, fail) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => done(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', fail);
  });
}

describe('HTTP rules', () => {
  it('answers CONNECT, an unknown method and an oversized URL as the API would (405 with Allow, a JSON 400)', async () => {
    const connect = await rawExchange(Buffer.from('CONNECT /api/pepe HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    expect(connect).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(connect).toContain('allow: GET, HEAD, OPTIONS');
    const unknown = await rawExchange(Buffer.from('FOO /api/pepe HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    expect(unknown).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(JSON.parse(unknown.split('\r\n\r\n')[1]!).error).toEqual({ code: 'METHOD_NOT_ALLOWED', message: 'the method is not one HTTP knows; the API answers GET, HEAD, OPTIONS' });
    const unknownB = await rawExchange(Buffer.from('FOO /v1/pepe HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    expect(unknownB).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(JSON.parse(unknownB.split('\r\n\r\n')[1]!)).toMatchObject({ result: null, status: 'error', error: { code: 'METHOD_NOT_ALLOWED' } });
    // A lower-case method is not GET (methods are case-sensitive), and a /v1 path still gets variant B's shape.
    const lowerB = await rawExchange(Buffer.from('get /v1/pepe/abc HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    expect(lowerB).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(JSON.parse(lowerB.split('\r\n\r\n')[1]!)).toMatchObject({ result: null, status: 'error', error: { code: 'METHOD_NOT_ALLOWED' } });
    const long = await rawExchange(Buffer.from(`GET /v1/pepe?search=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`));
    expect(long).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(long.split('\r\n\r\n')[1]!)).toEqual({ result: null, status: 'error', error: { code: 'VALIDATION_ERROR', message: 'the URL is too long: the query string must be at most 4096 characters' } });
    // A long path without a query string: not the query string's message (it had none).
    for (const path of [`/${'a'.repeat(20_000)}`, `/images/${'a'.repeat(20_000)}.png?v=1`]) {
      const longPath = await rawExchange(Buffer.from(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`));
      expect(longPath).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(JSON.parse(longPath.split('\r\n\r\n')[1]!).error).toEqual({ code: 'VALIDATION_ERROR', message: 'the URL is too long: its path is longer than any this site publishes' });
    }
  });

  it('answers oversized headers with 431 and a malformed header with its own message, in the JSON shape', async () => {
    const big = await rawExchange(Buffer.from(`GET /api/pepe HTTP/1.1\r\nHost: localhost\r\n${Array.from({ length: 40 }, (_, i) => `X-Big-${i}: ${'b'.repeat(500)}\r\n`).join('')}\r\n`));
    expect(big).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(JSON.parse(big.split('\r\n\r\n')[1]!).error.message).toBe('the request headers are too large: send fewer or shorter headers');
    const malformed = await rawExchange(Buffer.from('GET /v1/pepe HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\n\r\n'));
    expect(malformed).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(malformed.split('\r\n\r\n')[1]!)).toEqual({ result: null, status: 'error', error: { code: 'VALIDATION_ERROR', message: 'a request header is malformed: check the header names and values the client sends' } });
  });

  it.each([
    ['no Host in HTTP/1.1', 'GET /v1/pepe HTTP/1.1\r\n\r\n', 400, /must carry a Host header/],
    ['an Expect it cannot meet', 'GET /v1/pepe HTTP/1.1\r\nHost: x\r\nExpect: 999-bogus\r\n\r\n', 417, /Expect header asks for "999-bogus"/],
    ['Content-Length with Transfer-Encoding', 'POST /v1/pepe HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400, /both Content-Length and Transfer-Encoding/],
    ['two Content-Length headers', 'GET /v1/pepe HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab', 400, /more than one Content-Length/],
    ['a Content-Length that is no number', 'GET /v1/pepe HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400, /Content-Length is not a decimal number/],
    ['HTTP/1.2', 'GET /v1/pepe HTTP/1.2\r\nHost: x\r\n\r\n', 505, /HTTP version this server does not speak \("HTTP\/1\.2"\)/],
    ['the HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 505, /not HTTP\/2 with prior knowledge/],
    ['bare LF line ends', 'GET /v1/pepe HTTP/1.1\nHost: x\n\n', 400, /must end with CR LF/],
    ['a TLS handshake', '\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03', 400, /plain HTTP, not HTTPS/],
  ])('answers %s with the JSON error naming it, readable cross-origin', async (_name, request, status, message) => {
    const answer = await rawExchange(Buffer.from(request, 'latin1'));
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(head!.toLowerCase()).toContain('content-type: application/json; charset=utf-8');
    expect(head!.toLowerCase()).toContain('access-control-allow-origin: *');
    expect(head!.toLowerCase()).toContain('x-content-type-options: nosniff');
    const error = (JSON.parse(body!) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toMatch(message);
    expect(error.message).not.toMatch(/percent-encode/);
  });

  it('answers a bad chunk size after the answer began by closing, never with a second answer', async () => {
    const answer = await rawExchange(Buffer.from('POST /v1/pepe HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'));
    // The function answers POST at once (405); the broken body comes after: the connection is cut.
    expect(answer.match(/HTTP\/1\.1 \d{3}/g)?.length ?? 0).toBeLessThanOrEqual(1);
    const before = await rawExchange(Buffer.from('GET /images/x.png HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'));
    expect(before.match(/HTTP\/1\.1 \d{3}/g)?.length ?? 0).toBeLessThanOrEqual(1);
  });

  it('answers a client that does not finish its headers in time with a JSON 408', async () => {
    const slow = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML, headersTimeoutMs: 1000 });
    try {
      const { port } = new URL(slow.url);
      const started = Date.now();
      const answer = await new Promise<string>((done, fail) => {
        const socket = connect({ host: '127.0.0.1', port: Number(port) }, () => socket.write('GET /api/pepe HTTP/1.1\r\nHost: localhost\r\nX-Slow: '));
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('close', () => done(Buffer.concat(chunks).toString('utf8')));
        socket.on('error', fail);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await slow.close();
    }
  });

  it('closes a connection whose request body never finishes without a second, unasked-for answer after the first', async () => {
    const slow = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML, headersTimeoutMs: 1000, requestTimeoutMs: 2000 });
    try {
      const { port } = new URL(slow.url);
      const started = Date.now();
      const answer = await new Promise<string>((done, fail) => {
        // A GET announcing a 100-byte body and sending 5: the server answers at once, then the request times out.
        const socket = connect({ host: '127.0.0.1', port: Number(port) }, () => socket.write('GET /api/pepe?limit=2 HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\nhello'));
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('close', () => done(Buffer.concat(chunks).toString('utf8')));
        socket.on('error', fail);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      // A 408 written after the 200 would be read by a keep-alive client as the answer to its next request.
      expect(answer.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200']);
      expect(Date.now() - started).toBeLessThan(6000);
    } finally {
      await slow.close();
    }
  });

  it('refuses to start on an address that is not this machine, naming --host', async () => {
    await expect(startServer({ dir: site.distDir, port: 0, host: '10.255.255.1', netlifyToml: NETLIFY_TOML })).rejects.toThrow(/cannot listen on 10\.255\.255\.1: it is not an address of this machine .*pass --host/);
  });

  it('answers bytes that are not HTTP (a raw é in the URL) with the API JSON error of the variant, then closes', async () => {
    // The absolute form (what proxies send) is routed by its path, as the request chain does.
    for (const [path, shape] of [['/api/pepe?search=café', 'A'], ['/v1/pepe?search=café', 'B'], ['http://localhost/v1/pepe?search=café', 'B'], ['http://localhost/api/pepe?search=café', 'A']] as const) {
      const answer = await rawExchange(Buffer.from(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`, 'utf8'));
      const [head, body] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(head).toContain('content-type: application/json; charset=utf-8');
      expect(head).toContain('access-control-allow-origin: *');
      // the specification: every JSON response carries these (the handler's answers do).
      expect(head).toContain('access-control-expose-headers: ETag');
      expect(head).toContain('x-content-type-options: nosniff');
      const message = 'the request could not be parsed as HTTP/1.1: percent-encode spaces and characters outside ASCII in the URL (e.g. %C3%A9 for é)';
      const error = { code: 'VALIDATION_ERROR', message };
      expect(JSON.parse(body!)).toEqual(shape === 'A' ? { data: null, error } : { result: null, status: 'error', error });
      // HEAD: the same headers (Content-Length of the GET's body) and no content at all.
      const headAnswer = await rawExchange(Buffer.from(`HEAD ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`, 'utf8'));
      expect(headAnswer).toBe(`${head}\r\n\r\n`);
    }
    const headOfMalformed = await rawExchange(Buffer.from('HEAD /v1/pepe HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\n\r\n'));
    expect(headOfMalformed).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[^]*\r\n\r\n$/);
  });

  it('answers as usual when the Host header looks like a host but is none a URL can hold (port 99999, 999.999.999.999)', async () => {
    for (const host of ['localhost:99999', '999.999.999.999', '[1:2:3]']) {
      // Queries no earlier request used: the full chain runs, not an early answer.
      const list = await raw(base, `/api/pepe?limit=2&host=${encodeURIComponent(host)}`, { headers: { host } });
      expect([list.status, list.headers['content-type']], host).toEqual([200, 'application/json; charset=utf-8']);
      const bad = await raw(base, `/api/pepe?limit=99&host=${encodeURIComponent(host)}`, { headers: { host } });
      expect([bad.status, (json(bad) as { error: { code: string } }).error.code], host).toEqual([400, 'VALIDATION_ERROR']);
      const page = await raw(base, `/?host=${encodeURIComponent(host)}`, { headers: { host } });
      expect([page.status, page.headers['content-type']], host).toEqual([200, 'text/html; charset=utf-8']);
    }
  });

  it('answers HEAD and conditional requests on answers the CDN cache does not hold with the headers of the GET (encoding, ETag, Vary)', async () => {
    // Random answers are never stored: every request is a miss.
    const path = '/v1/pepe?limit=8';
    const br = { 'accept-encoding': 'br' };
    const get = await raw(base, path, { headers: br });
    const head = await raw(base, path, { method: 'HEAD', headers: br });
    expect(get.headers['content-encoding']).toBe('br');
    for (const name of ['content-encoding', 'vary', 'content-type', 'cache-control']) expect(head.headers[name], name).toBe(get.headers[name]);
    expect(head.body.length).toBe(0);
    // A by-id answer through the function (upper-case id) is stored, so use a distinct query each time.
    const list = `/api/pepe?limit=7&miss=${Date.now()}`;
    const first = await raw(base, list, { headers: br });
    expect(first.headers.etag).toMatch(/-br"$/);
    const conditional = await raw(base, `${list}&again=1`, { headers: { ...br, 'if-none-match': first.headers.etag as string } });
    expect(conditional.status).toBe(304);
    expect(conditional.headers.etag).toBe(first.headers.etag);
    expect(conditional.headers.vary).toBe(first.headers.vary);
  });

  it('answers HEAD with the GET headers and no body, static and function alike', async () => {
    for (const path of [`/api/pepe/${record.id}`, '/api/pepe?limit=2', `/images/${record.id}${record.file_ext}`]) {
      const get = await raw(base, path);
      const head = await raw(base, path, { method: 'HEAD' });
      expect(head.status, path).toBe(200);
      expect(head.body.length, path).toBe(0);
      expect(head.headers['etag'], path).toBe(get.headers['etag']);
      expect(head.headers['content-type'], path).toBe(get.headers['content-type']);
      expect(head.headers['content-length'], path).toBe(String(get.body.length));
    }
  });

  it('answers the CORS preflight through the function, also on a static by-id URL', async () => {
    for (const path of ['/api/pepe', `/api/pepe/${record.id}`, '/v1/pepe']) {
      const res = await raw(base, path, { method: 'OPTIONS', headers: { origin: 'https://example.com', 'access-control-request-method': 'GET' } });
      expect(res.status, path).toBe(204);
      expect(res.headers['access-control-allow-methods'], path).toBe('GET, HEAD, OPTIONS');
      expect(res.headers['access-control-allow-origin'], path).toBe('*');
    }
  });

  it('answers OPTIONS on an image or the gallery with 204, Allow and no body', async () => {
    for (const path of [`/images/${record.id}${record.file_ext}`, '/']) {
      const res = await raw(base, path, { method: 'OPTIONS' });
      expect(res.status, path).toBe(204);
      expect(res.headers['allow'], path).toBe('GET, HEAD, OPTIONS');
      expect(res.body.length, path).toBe(0);
    }
  });

  it('refuses other methods with 405 and Allow: the API envelope under /api, plain on static files', async () => {
    const api = await raw(base, `/api/pepe/${record.id}`, { method: 'POST' });
    expect(api.status).toBe(405);
    expect(api.headers['allow']).toBe('GET, HEAD, OPTIONS');
    expect(json(api)).toMatchObject({ error: { code: 'METHOD_NOT_ALLOWED' } });
    const image = await raw(base, `/images/${record.id}${record.file_ext}`, { method: 'DELETE' });
    expect(image.status).toBe(405);
    expect(image.headers['allow']).toBe('GET, HEAD, OPTIONS');
    const trace = await raw(base, '/api/pepe', { method: 'TRACE' });
    expect(trace.status).toBe(405);
  });

  it('answers If-None-Match with 304 and no body, for static files and function answers', async () => {
    for (const path of [`/api/pepe/${record.id}`, '/api/pepe?limit=3', `/images/${record.id}${record.file_ext}`]) {
      const first = await raw(base, path);
      const etag = first.headers['etag'] as string;
      expect(etag, path).toMatch(/^"[^"]+"$/);
      const again = await raw(base, path, { headers: { 'if-none-match': etag } });
      expect(again.status, path).toBe(304);
      expect(again.body.length, path).toBe(0);
      expect(again.headers['etag'], path).toBe(etag);
      const other = await raw(base, path, { headers: { 'if-none-match': '"something-else"' } });
      expect(other.status, path).toBe(200);
      // The weak comparison and `*` (any current representation), as RFC 9110 13.1.2 has them.
      for (const header of [`W/${etag}`, `"something-else", ${etag}`, '*']) {
        expect((await raw(base, path, { headers: { 'if-none-match': header } })).status, `${path} ${header}`).toBe(304);
      }
    }
  });

  it('answers a 404 in full whatever If-None-Match says (a condition only turns a 2xx into 304)', async () => {
    for (const path of ['/nothing', `/images/${UNKNOWN_ID}.png`, '/api/nope', `/api/pepe/${UNKNOWN_ID}`]) {
      const first = await raw(base, path);
      expect(first.status, path).toBe(404);
      for (const header of [first.headers['etag'] as string | undefined, '*'].filter((h) => h !== undefined)) {
        const again = await raw(base, path, { headers: { 'if-none-match': header } });
        expect(again.status, `${path} ${header}`).toBe(404);
        expect(again.body.equals(first.body), `${path} ${header}`).toBe(true);
      }
    }
  });

  it('answers If-None-Match with 304 for a function answer whose own ETag ends like an encoding suffix ("…-gz", a body of 611 characters)', async () => {
    // The handler's ETag ends with the body length in base 36: 611 is "gz", 423 is "br". The
    // search text is echoed in meta.search.terms, so spaces inside it set the body's length.
    let path: string | undefined;
    for (const candidate of site.records) {
      const word = candidate.tags?.[0]?.split(/[^a-z0-9]/)[0];
      if (!word) continue;
      const length = (await raw(base, `/api/pepe?search=${word}`)).body.toString('utf8').length - word.length;
      for (const target of [611, 423]) {
        const spaces = target - length - 2 * word.length;
        if (spaces >= 1 && spaces <= 200 - 2 * word.length) path = `/api/pepe?search=${word}${'%20'.repeat(spaces)}${word}`;
      }
      if (path) break;
    }
    expect(path).toBeDefined();
    const first = await raw(base, path!);
    expect(first.status).toBe(200);
    const etag = first.headers['etag'] as string;
    expect(etag).toMatch(/-(gz|br)"$/);
    const again = await raw(base, path!, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers['etag']).toBe(etag);
    // A client accepting compression gets another form with its own tag (the plain tag names
    // bytes it does not hold in that form); that tag revalidates it.
    for (const [encoding, suffix] of [['gzip', '-gz'], ['br', '-br']] as const) {
      const packed = await raw(base, path!, { headers: { 'accept-encoding': encoding, 'if-none-match': etag } });
      expect(packed.status, encoding).toBe(200);
      expect(packed.headers['etag'], encoding).toBe(`${etag.slice(0, -1)}${suffix}"`);
      const revalidated = await raw(base, path!, { headers: { 'accept-encoding': encoding, 'if-none-match': packed.headers['etag'] as string } });
      expect(revalidated.status, encoding).toBe(304);
    }
  });

  it.each([
    ['br', brotliDecompressSync],
    ['gzip', gunzipSync],
  ] as const)('compresses JSON and HTML with %s when accepted, with its own ETag that still revalidates', async (encoding, decompress) => {
    for (const path of ['/api/openapi.json', '/api/pepe?limit=25', '/']) {
      const plain = await raw(base, path);
      const packed = await raw(base, path, { headers: { 'accept-encoding': encoding } });
      expect(packed.headers['content-encoding'], path).toBe(encoding);
      expect(packed.headers['vary'], path).toMatch(/Accept-Encoding/);
      expect(packed.body.length, path).toBeLessThan(plain.body.length);
      expect(decompress(packed.body).equals(plain.body), path).toBe(true);
      expect(packed.headers['etag'], path).not.toBe(plain.headers['etag']);
      const revalidated = await raw(base, path, { headers: { 'accept-encoding': encoding, 'if-none-match': packed.headers['etag'] as string } });
      expect(revalidated.status, path).toBe(304);
      // A 304 has no body, so nothing is encoded: no Content-Encoding (RFC 9110 15.4.5), but the ETag of the form the client holds.
      expect(revalidated.headers['content-encoding'], path).toBeUndefined();
      expect(revalidated.headers['etag'], path).toBe(packed.headers['etag']);
    }
  });

  it('keeps Netlify-CDN-Cache-Control from clients, as Netlify\'s edge does, and still caches by it', async () => {
    const path = '/api/pepe?limit=3&page=4';
    for (const expected of ['"pepe serve"; fwd=miss; stored', '"pepe serve"; hit']) {
      for (const headers of [{}, { 'accept-encoding': 'br' }] as Record<string, string>[]) {
        const res = await raw(base, path, { headers });
        if (Object.keys(headers).length === 0) expect(res.headers['cache-status']).toBe(expected);
        expect(res.headers['netlify-cdn-cache-control']).toBeUndefined();
        expect(res.headers['cache-control']).toBe(JSON_BROWSER_CACHE_CONTROL);
      }
    }
    const error = await raw(base, '/api/pepe?limit=99');
    expect(error.status).toBe(400);
    expect(error.headers['netlify-cdn-cache-control']).toBeUndefined();
  });

  it('keeps cacheable function answers like Netlify\'s CDN: the next request is a hit with the same bytes', async () => {
    const path = '/api/pepe?limit=4&page=2';
    const first = await raw(base, path);
    expect(first.headers['cache-status']).toBe('"pepe serve"; fwd=miss; stored');
    const second = await raw(base, path);
    expect(second.headers['cache-status']).toBe('"pepe serve"; hit');
    expect(second.headers['age']).toMatch(/^\d+$/);
    expect(second.body.equals(first.body)).toBe(true);
    expect(second.headers['etag']).toBe(first.headers['etag']);
    const head = await raw(base, path, { method: 'HEAD' });
    expect(head.headers['cache-status']).toBe('"pepe serve"; hit');
    expect(head.headers['content-length']).toBe(String(first.body.length));
    expect(head.body.length).toBe(0);
    const revalidated = await raw(base, path, { headers: { 'if-none-match': first.headers['etag'] as string } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.length).toBe(0);
  });

  /** Headers that differ between two answers of the same resource (Age only on cache hits). */
  const comparable = ({ date: _date, age: _age, connection: _c, 'keep-alive': _k, ...rest }: Record<string, unknown>) => rest;

  /**
   * Requests `path` three times with `headers`: the first answer goes through the chain (and
   * makes the answer early-servable), the second is early, the third has a non-matching
   * If-None-Match, which only the chain handles. All three must be the same answer.
   */
  async function earlyEqualsChain(path: string, headers: Record<string, string> = {}) {
    const label = `${path} ${JSON.stringify(headers)}`;
    const first = await raw(base, path, { headers });
    const early = await raw(base, path, { headers });
    const chained = await raw(base, path, { headers: { ...headers, 'if-none-match': '"something-else"' } });
    expect(early.status, label).toBe(200);
    expect(comparable(early.headers), label).toEqual(comparable(chained.headers));
    // The first answer of a function was a cache miss: only its Cache-Status may differ.
    const { 'cache-status': _status, ...earlyRest } = comparable(early.headers);
    const { 'cache-status': _firstStatus, ...firstRest } = comparable(first.headers);
    expect(earlyRest, label).toEqual(firstRest);
    expect(early.body.equals(chained.body), label).toBe(true);
    expect(early.body.equals(first.body), label).toBe(true);
    const revalidated = await raw(base, path, { headers: { ...headers, 'if-none-match': early.headers['etag'] as string } });
    expect(revalidated.status, label).toBe(304);
    return early;
  }

  it('answers a repeated URL early (cached-fast-path.ts) with exactly the headers and bytes of the full chain', async () => {
    const path = '/api/pepe?limit=5&page=2';
    const early = await earlyEqualsChain(path);
    expect(early.headers['vary']).toMatch(/Accept-Encoding/);
    expect(early.headers['age']).toMatch(/^\d+$/);
    // A target that is not in normal form is the same resource, found through the chain.
    const dotted = await raw(base, '/api/x/../pepe?limit=5&page=2');
    expect(dotted.headers['cache-status']).toBe('"pepe serve"; hit');
    expect(dotted.body.equals(early.body)).toBe(true);
    // A client accepting br or gzip gets the compressed form, early the same as through the chain.
    for (const [acceptEncoding, encoding] of [['gzip, br', 'br'], ['gzip', 'gzip']] as const) {
      const packed = await earlyEqualsChain(path, { 'accept-encoding': acceptEncoding });
      expect(packed.headers['content-encoding']).toBe(encoding);
      expect(packed.headers['age']).toMatch(/^\d+$/);
    }
    const head = await raw(base, path, { method: 'HEAD', headers: { 'accept-encoding': 'br' } });
    expect(head.headers['content-encoding']).toBe('br');
    expect(head.body.length).toBe(0);
  });

  it('answers a repeated static file early (static-fast-path.ts) with exactly the headers and bytes of the full chain', async () => {
    for (const path of [`/api/pepe/${record.id}`, `/v1/pepe/${record.id}`, `/images/${record.id}${record.file_ext}`]) {
      const early = await earlyEqualsChain(path);
      expect(early.body.equals(await siteFile(path.slice(1))), path).toBe(true);
    }
    // Clients accepting compression: the early answer sends the form the chain made, the same way.
    for (const encoding of ['br', 'gzip']) {
      const packed = await earlyEqualsChain(`/api/pepe/${record.id}`, { 'accept-encoding': encoding });
      expect(packed.headers['content-encoding']).toBe(encoding);
    }
    // HEAD early: the headers of the chain's HEAD (a non-matching If-None-Match takes the chain), no body.
    for (const headers of [{}, { 'accept-encoding': 'br' }] as Record<string, string>[]) {
      const path = `/api/pepe/${record.id}`;
      const head = await raw(base, path, { method: 'HEAD', headers });
      const chainedHead = await raw(base, path, { method: 'HEAD', headers: { ...headers, 'if-none-match': '"something-else"' } });
      expect(comparable(head.headers)).toEqual(comparable(chainedHead.headers));
      expect(head.body.length).toBe(0);
    }
    // A target with a query is answered by the chain, the same way.
    expect((await raw(base, `/api/pepe/${record.id}?x=1`)).body.equals(await siteFile(`api/pepe/${record.id}`))).toBe(true);
  });

  it('never keeps random answers', async () => {
    for (let i = 0; i < 2; i++) {
      expect((await raw(base, '/v1/pepe?limit=2')).headers['cache-status']).toBe('"pepe serve"; fwd=miss');
      expect((await raw(base, '/api/pepe?random=true')).headers['cache-status']).toBe('"pepe serve"; fwd=miss');
    }
  });

  it('never compresses images', async () => {
    const res = await raw(base, `/images/${record.id}${record.file_ext}`, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(res.headers['content-encoding']).toBeUndefined();
  });
});
