/**
 * Every error answer `pepe serve` makes itself (no file, a method a file does not take, a
 * function that throws, a file that cannot be read, a file replaced mid-read, a target that is
 * not a path) is readable from another origin: checked over plain HTTP and from a page on
 * another origin in real headless Chromium, where an answer without
 * `Access-Control-Allow-Origin` is a network failure to the page. The build is a small one made
 * here, so that each failure can be real: a function bundle that throws on /api/boom and
 * /v1/boom, a listed "image" that is a folder (EISDIR), two that are named pipes (a small one,
 * read into memory, and a large one, streamed: each would wait for a writer for ever), two
 * that are devices (symlinks to /dev/zero and /dev/urandom, which never end), a large file
 * whose size changed since the listing.
 */
import { createHash } from 'node:crypto';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../testing/chromium.js';
import { makeNamedPipe, type NamedPipe } from '../testing/named-pipe.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { closeClient, raw } from './http-client.test-helper.js';
import { type RunningServer, startServer } from './server.js';

const NETLIFY_TOML = fileURLToPath(new URL('../../netlify.toml', import.meta.url));
const BIG = 5 * 1024 * 1024; // above the 4 MB kept in memory: streamed, so its size is checked when opened

/** A function bundle like the real one (same paths, preferStatic) that throws on …/boom and otherwise answers a small JSON 200. */
const FUNCTION_SOURCE = `
export default async (request) => {
  const { pathname } = new URL(request.url);
  if (pathname.endsWith('/boom')) throw new Error('boom at /secret/path/functions/pepe.mjs');
  return new Response('{"data":[],"error":null}', { headers: { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*' } });
};
export const config = { path: ['/api', '/api/*', '/v1', '/v1/*'], preferStatic: true };
`;

let temp: TempDir;
let server: RunningServer;
let other: Server;
let otherOrigin: string;
let browser: Browser;
const failures: string[] = [];
const pipes: NamedPipe[] = [];

async function writeBuild(dist: string): Promise<void> {
  await mkdir(join(dist, 'site', 'images', 'broken.png'), { recursive: true }); // listed as a file, is a folder
  await mkdir(join(dist, 'functions'));
  await writeFile(join(dist, 'functions', 'pepe.mjs'), FUNCTION_SOURCE);
  const big = Buffer.alloc(BIG, 1);
  await writeFile(join(dist, 'site', 'images', 'big.png'), big);
  await writeFile(join(dist, 'site', 'index.html'), '<!doctype html><title>gallery</title>');
  // Listed files that are named pipes: opening one for reading waited for a writer for ever
  // (makeNamedPipe ends such a wait after a while, so that a regression fails, never hangs).
  pipes.push(makeNamedPipe(join(dist, 'site', 'images', 'pipe.png')), makeNamedPipe(join(dist, 'site', 'images', 'bigpipe.png')));
  // Listed files that are devices, which never end: one read into memory, one streamed.
  await symlink('/dev/zero', join(dist, 'site', 'images', 'zero.png'));
  await symlink('/dev/urandom', join(dist, 'site', 'images', 'bigrandom.png'));
  const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  const files = {
    'site/index.html': { size: 37, sha256: sha(Buffer.from('<!doctype html><title>gallery</title>')) },
    'site/images/broken.png': { size: 10, sha256: sha(Buffer.from('0123456789')) },
    // One byte more than on disk: the file a build is replacing at this very moment.
    'site/images/big.png': { size: BIG + 1, sha256: sha(big) },
    'site/images/pipe.png': { size: 10, sha256: sha(Buffer.from('0123456789')) },
    'site/images/bigpipe.png': { size: BIG, sha256: sha(big) },
    'site/images/zero.png': { size: 10, sha256: sha(Buffer.alloc(10)) },
    'site/images/bigrandom.png': { size: BIG, sha256: sha(big) },
  };
  const counts = { records: 0, images: 6, files: Object.keys(files).length };
  await writeFile(join(dist, 'manifest.json'), JSON.stringify({ format: 1, version: 'test', settings: { baseUrl: 'http://localhost', apiUrl: 'http://localhost/api', cdnUrl: 'http://localhost' }, counts, files }));
}

beforeAll(async () => {
  temp = await makeTempDir('pepe-error-cors-');
  await writeBuild(join(temp.path, 'dist'));
  server = await startServer({ dir: join(temp.path, 'dist'), port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML, onError: (message) => failures.push(message) });
  // The page's own origin: another port is another origin.
  other = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>a client on another origin</title>');
  });
  await new Promise<void>((done) => other.listen(0, '127.0.0.1', done));
  otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  closeClient();
  await browser?.close();
  await server?.close();
  for (const pipe of pipes) pipe.remove();
  await new Promise((done) => other?.close(done));
  await temp?.cleanup();
});

/** Each error answer: request, status, and what its body must be. */
const CASES = [
  { name: 'an unknown image (404)', method: 'GET', path: '/images/00000000-0000-4000-8000-000000000000.png', status: 404, body: /<h1>Not found<\/h1>/ },
  { name: 'a page that does not exist (404)', method: 'GET', path: '/nothing/here', status: 404, body: /<h1>Not found<\/h1>/ },
  { name: 'POST on a static file (405)', method: 'POST', path: '/index.html', status: 405, body: /^Method Not Allowed\n$/ },
  { name: 'a function that throws (500, variant A)', method: 'GET', path: '/api/boom', status: 500, body: /^\{"data":null,"error":\{"code":"INTERNAL_SERVER_ERROR","message":"The server failed to answer this request; please try again later"\}\}$/ },
  { name: 'a function that throws (500, variant B)', method: 'GET', path: '/v1/boom', status: 500, body: /^\{"result":null,"status":"error","error":\{"code":"INTERNAL_SERVER_ERROR",/ },
  { name: 'a listed file that cannot be read (500)', method: 'GET', path: '/images/broken.png', status: 500, body: /"code":"INTERNAL_SERVER_ERROR"/ },
  { name: 'a listed file that is a named pipe (500)', method: 'GET', path: '/images/pipe.png', status: 500, body: /"code":"INTERNAL_SERVER_ERROR"/ },
  { name: 'a large listed file that is a named pipe (500)', method: 'GET', path: '/images/bigpipe.png', status: 500, body: /"code":"INTERNAL_SERVER_ERROR"/ },
  { name: 'a listed file that is a device, /dev/zero (500)', method: 'GET', path: '/images/zero.png', status: 500, body: /"code":"INTERNAL_SERVER_ERROR"/ },
  { name: 'a large listed file that is a device, /dev/urandom (500)', method: 'GET', path: '/images/bigrandom.png', status: 500, body: /"code":"INTERNAL_SERVER_ERROR"/ },
  { name: 'a file replaced while it is read (503)', method: 'GET', path: '/images/big.png', status: 503, body: /try again in a moment/ },
] as const;

describe('pepe serve error answers over HTTP', () => {
  it.each(CASES)('$name: CORS *, nosniff, never stored, no stack or path', async ({ method, path, status, body }) => {
    const res = await raw(server.url, path, { method });
    expect(res.status).toBe(status);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body.toString('utf8')).toMatch(body);
    expect(res.body.toString('utf8')).not.toMatch(/secret|EISDIR|\n\s+at /);
    if (status !== 404) expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers TRACE on an API path with the API envelope 405 and Allow, CORS included', async () => {
    const res = await raw(server.url, '/v1/pepe', { method: 'TRACE' });
    expect(res.status).toBe(405);
    expect(res.headers['allow']).toBe('GET, HEAD, OPTIONS');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(JSON.parse(res.body.toString('utf8'))).toEqual({ result: null, status: 'error', error: { code: 'METHOD_NOT_ALLOWED', message: 'method "TRACE" is not allowed; use GET, HEAD, OPTIONS' } });
  });

  it('answers HEAD on a failing path with the headers of the GET and no body', async () => {
    const res = await raw(server.url, '/api/boom', { method: 'HEAD' });
    expect(res.status).toBe(500);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.body.length).toBe(0);
  });

  it('answers a request target that is not a path (OPTIONS *) and CONNECT with CORS too', async () => {
    const { hostname, port } = new URL(server.url);
    const exchange = (text: string) =>
      new Promise<string>((done, fail) => {
        const socket = connect({ host: hostname, port: Number(port) }, () => socket.end(text));
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('close', () => done(Buffer.concat(chunks).toString('utf8')));
        socket.on('error', fail);
      });
    const star = await exchange('OPTIONS * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(star).toMatch(/^HTTP\/1\.1 400 /);
    expect(star).toMatch(/\r\naccess-control-allow-origin: \*\r\n/i);
    expect(JSON.parse(star.split('\r\n\r\n')[1]!)).toEqual({ data: null, error: { code: 'VALIDATION_ERROR', message: 'the request target must be a path such as /api/pepe (got "*")' } });
    const tunnel = await exchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(tunnel).toMatch(/^HTTP\/1\.1 405 /);
    expect(tunnel).toMatch(/\r\naccess-control-allow-origin: \*\r\n/i);
  });

  it('reported every failure to the log, not to the client', () => {
    expect(failures.some((message) => message.includes('/api/boom'))).toBe(true);
    expect(failures.some((message) => message.includes('/images/broken.png'))).toBe(true);
    expect(failures.some((message) => message.includes('/images/pipe.png'))).toBe(true);
  });
});

describe('pepe serve error answers from a page on another origin (Chromium)', () => {
  it('lets the page read the status and body of every error answer', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${otherOrigin}/`);
      const seen = await page.evaluate(
        async ({ base, cases }) => {
          const out: { path: string; status?: number; body?: string; failed?: string }[] = [];
          for (const { method, path } of cases) {
            try {
              const res = await fetch(base + path, { method, cache: 'no-store' });
              out.push({ path, status: res.status, body: await res.text() });
            } catch (error) {
              out.push({ path, failed: String(error) });
            }
          }
          return out;
        },
        { base: server.url, cases: CASES.map(({ method, path }) => ({ method, path })) },
      );
      expect(new URL(page.url()).origin).not.toBe(new URL(server.url).origin);
      for (const [i, { path, status, body }] of CASES.entries()) {
        expect(seen[i], path).toEqual({ path, status, body: expect.stringMatching(body) });
      }
    } finally {
      await page.close();
    }
  });
});
