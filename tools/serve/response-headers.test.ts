/**
 * One rule, one header set, whichever path answers: the real server over HTTP, each target
 * asked through every path that can answer it (the chain reading the file, the chain's answer
 * from memory, the early answers, HEAD, a streamed file; the function's miss, its replay from
 * the CDN cache through the chain and early, the function with the cache off), each form
 * (plain, brotli) and its 304. `/x/../` in a target makes the chain answer it: the URL parser
 * folds it to the same path, but the raw target is never answered early.
 */
import { cp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtureSite, type FixtureSite } from '../testing/fixture-catalogue.js';
import { closeClient, raw, type RawResponse } from './http-client.test-helper.js';
import { type RunningServer, startServer } from './server.js';

const NETLIFY_TOML = fileURLToPath(new URL('../../netlify.toml', import.meta.url));
/** Per connection or per moment, never per rule. */
const TRANSPORT = new Set(['date', 'connection', 'keep-alive']);
/** Where a function answer came from (asserted apart): the rest must not depend on it. */
const PROVENANCE = new Set(['cache-status', 'age']);
/** What a 304 leaves out of the 200 it stands for (RFC 9110 15.4.5). */
const REPRESENTATION = new Set(['content-type', 'content-encoding', 'content-length']);

let site: FixtureSite;
let server: RunningServer;
let uncached: RunningServer;
let streamed: RunningServer;
let copyDir: string;

beforeAll(async () => {
  site = await buildFixtureSite({ count: 4 });
  server = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML });
  uncached = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML, cdnCache: false });
  // Without a manifest the file list is a walk of site/: a page too large to keep in memory
  // (4 MB) is streamed, one beside it under the same rule is not.
  copyDir = join(site.root, 'copy');
  await cp(site.distDir, copyDir, { recursive: true });
  await rm(join(copyDir, 'manifest.json'));
  await writeFile(join(copyDir, 'site', 'p', 'small.html'), '<!doctype html><title>small</title>\n');
  await writeFile(join(copyDir, 'site', 'p', 'large.html'), `<!doctype html><title>large</title>${' '.repeat(5 * 1024 * 1024)}\n`);
  streamed = await startServer({ dir: copyDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML });
}, 180_000);

afterAll(async () => {
  closeClient();
  await Promise.all([server?.close(), uncached?.close(), streamed?.close()]);
  await site?.cleanup();
});

/** The answer's headers, without those of the connection and those named in `leave`. */
function headerSet(res: RawResponse, leave: ReadonlySet<string> = new Set()): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined && !TRANSPORT.has(name) && !leave.has(name)) out[name] = String(value);
  }
  return out;
}

/** Every answer's header set, by the path that gave it, checked equal to the first's. */
function expectOneSet(answers: [string, RawResponse][], leave?: ReadonlySet<string>): Record<string, string> {
  const [first, ...rest] = answers.map(([path, res]) => [path, headerSet(res, leave)] as const);
  for (const [path, set] of rest) expect({ path, set }).toEqual({ path, set: first![1] });
  return first![1];
}

const get = (base: string, target: string, headers: Record<string, string> = {}) => raw(base, target, { headers });
const head = (base: string, target: string, headers: Record<string, string> = {}) => raw(base, target, { method: 'HEAD', headers });
const BROTLI = { 'accept-encoding': 'br' };

describe('a static file', () => {
  const targets = () => {
    const record = site.records[0]!;
    return [
      // by-id JSON under the function's path (preferStatic), an image, the gallery page with its CSP
      [`/api/pepe/${record.id}`, `/api/x/../pepe/${record.id}`],
      [`/images/${record.id}${record.file_ext}`, `/images/x/../${record.id}${record.file_ext}`],
      ['/', '/x/../'],
    ] as const;
  };

  it('carries the same headers from the chain (reading the file, then from memory), its early answer and HEAD, in each form, and a 304 carries the 200\'s without the representation', async () => {
    for (const [target, viaChain] of targets()) {
      const plain = expectOneSet([
        ['chain, file read', await get(server.url, viaChain)],
        ['chain, in memory', await get(server.url, viaChain)],
        ['chain, remembered', await get(server.url, target)],
        ['early answer', await get(server.url, target)],
        ['early HEAD', await head(server.url, target)],
        ['chain HEAD', await head(server.url, viaChain)],
      ]);
      expect(plain['x-content-type-options']).toBe('nosniff');
      expect(plain['cache-control']).toBeDefined();
      if (target === '/') expect(plain['content-security-policy']).toContain("frame-ancestors 'none'");
      const notModified = await get(server.url, viaChain, { 'if-none-match': plain.etag! });
      expect(notModified.status).toBe(304);
      expect(headerSet(notModified)).toEqual(headerSet({ ...notModified, headers: plain }, REPRESENTATION));

      const compressed = expectOneSet([
        ['chain, compressing', await get(server.url, viaChain, BROTLI)],
        ['chain, compressed', await get(server.url, viaChain, BROTLI)],
        ['early answer', await get(server.url, target, BROTLI)],
        ['early HEAD', await head(server.url, target, BROTLI)],
        ['chain HEAD', await head(server.url, viaChain, BROTLI)],
      ]);
      if (compressed['content-encoding'] === undefined) {
        // Not a text type: the same answer whatever the client accepts.
        expect(compressed).toEqual(plain);
        continue;
      }
      expect(compressed).toEqual({ ...plain, 'content-encoding': 'br', etag: plain.etag!.replace(/"$/, '-br"'), 'content-length': compressed['content-length'] });
      const compressed304 = await get(server.url, viaChain, { ...BROTLI, 'if-none-match': compressed.etag! });
      expect(compressed304.status).toBe(304);
      expect(headerSet(compressed304)).toEqual(headerSet({ ...compressed304, headers: compressed }, REPRESENTATION));
    }
  });

  it('streamed from disk, carries the headers of the same rule as a file in memory', async () => {
    const inMemory = await get(streamed.url, '/p/small.html');
    const fromDisk = await get(streamed.url, '/p/large.html');
    expect(fromDisk.body.length).toBeGreaterThan(4 * 1024 * 1024);
    const perFile = new Set(['etag', 'content-length']);
    expect(headerSet(fromDisk, perFile)).toEqual(headerSet(inMemory, perFile));
    expect(headerSet(await head(streamed.url, '/p/large.html'))).toEqual(headerSet(fromDisk));
    expect(headerSet(fromDisk)['content-security-policy']).toContain("frame-ancestors 'none'");
  });
});

describe('a function answer', () => {
  it('carries the same headers fresh, replayed from the CDN cache through the chain or early, and with the cache off, in each form; a 304 carries the 200\'s without the representation', async () => {
    const target = '/api/pepe?limit=3';
    const viaChain = '/api/x/../pepe?limit=3';
    const miss = await get(server.url, target);
    const hitEarly = await get(server.url, target);
    const hitChain = await get(server.url, viaChain);
    expect([miss, hitEarly, hitChain].map((res) => [res.headers['cache-status'], res.headers.age])).toEqual([
      ['"pepe serve"; fwd=miss; stored', undefined],
      ['"pepe serve"; hit', '0'],
      ['"pepe serve"; hit', '0'],
    ]);
    const plain = expectOneSet(
      [
        ['miss', miss],
        ['hit, early', hitEarly],
        ['hit, chain', hitChain],
        ['HEAD, early', await head(server.url, target)],
        ['HEAD, chain', await head(server.url, viaChain)],
        ['cache off', await get(uncached.url, target)],
      ],
      PROVENANCE,
    );
    expect(plain['x-content-type-options']).toBe('nosniff');
    expect(plain['access-control-allow-origin']).toBe('*');
    expect(plain.vary).toContain('Accept-Encoding');
    expect(plain['netlify-cdn-cache-control']).toBeUndefined();
    const notModified = await get(server.url, viaChain, { 'if-none-match': plain.etag! });
    expect(notModified.status).toBe(304);
    expect(headerSet(notModified, PROVENANCE)).toEqual(headerSet({ ...notModified, headers: plain }, new Set([...REPRESENTATION, ...PROVENANCE])));

    // A key first asked compressed: its miss is compressed by the same rule as its replays.
    const other = '/api/pepe?limit=2';
    const compressed = expectOneSet(
      [
        ['miss', await get(server.url, other, BROTLI)],
        ['hit, early', await get(server.url, other, BROTLI)],
        ['hit, chain', await get(server.url, '/api/x/../pepe?limit=2', BROTLI)],
        ['HEAD, early', await head(server.url, other, BROTLI)],
        ['cache off', await get(uncached.url, other, BROTLI)],
      ],
      PROVENANCE,
    );
    expect(compressed['content-encoding']).toBe('br');
    expect(compressed.etag).toMatch(/-br"$/);
    const compressed304 = await get(server.url, other, { ...BROTLI, 'if-none-match': compressed.etag! });
    expect(compressed304.status).toBe(304);
    expect(headerSet(compressed304, PROVENANCE)).toEqual(headerSet({ ...compressed304, headers: compressed }, new Set([...REPRESENTATION, ...PROVENANCE])));
  });
});
