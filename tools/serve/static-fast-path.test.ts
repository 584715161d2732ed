/**
 * StaticRoutes over real HTTP: which requests it answers early and which it leaves to the
 * chain (here a handler answering 299, so that a test can tell the two apart).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { closeClient, earlyAnswerServer, raw } from './http-client.test-helper.js';
import { loadNetlifyConfig } from '../shared/netlify-config.js';
import { StaticRoutes } from './static-fast-path.js';
import { StaticSite } from './static-files.js';

const NETLIFY_TOML = fileURLToPath(new URL('../../netlify.toml', import.meta.url));
const ID = '0b8f3a52-6a4c-4d3e-9b1a-2f5e8c7d6a41';
const SMALL_ID = '1c9a4b63-7b5d-4e4f-8c2b-3a6f9d8e7b52';
const BIG = `${JSON.stringify({ id: ID, description: 'a frog '.repeat(60) })}\n`;
const SMALL = `${JSON.stringify({ id: SMALL_ID })}\n`;

let dir: TempDir;
let site: StaticSite;
let server: Server;
let base: string;
let routes: StaticRoutes;

beforeAll(async () => {
  dir = await makeTempDir('static-fast-path-');
  await mkdir(join(dir.path, 'site', 'api', 'pepe'), { recursive: true });
  await writeFile(join(dir.path, 'site', 'api', 'pepe', ID), BIG);
  await writeFile(join(dir.path, 'site', 'api', 'pepe', SMALL_ID), SMALL);
  site = await StaticSite.load(dir.path);
  const config = await loadNetlifyConfig(NETLIFY_TOML);
  routes = new StaticRoutes(site, config);
  for (const id of [ID, SMALL_ID]) {
    const entry = site.lookup(`/api/pepe/${id}`)!;
    await site.body(entry); // in memory, as after the chain's first answer
    routes.remember(`/api/pepe/${id}`, `/api/pepe/${id}`, entry);
  }
  // Not remembered: not its own pathname, or percent-encoded (the same file under endless spellings).
  const entry = site.lookup(`/api/pepe/${ID}`)!;
  routes.remember(`/api/pepe/${ID}?a=1`, `/api/pepe/${ID}`, entry);
  routes.remember(`/api/pepe/%30${ID.slice(1)}`, `/api/pepe/%30${ID.slice(1)}`, entry);
  ({ server, base } = await earlyAnswerServer((req, res) => routes.answer(req, res)));
});

afterAll(async () => {
  closeClient();
  server?.close();
  await dir?.cleanup();
});

describe('StaticRoutes', () => {
  it('answers a GET for a remembered target with the file and its netlify.toml headers', async () => {
    const res = await raw(base, `/api/pepe/${ID}`);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe(BIG);
    expect(res.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*', 'content-length': String(Buffer.byteLength(BIG)) });
    expect(res.headers['etag']).toMatch(/^"[\w-]{27}"$/);
    expect(res.headers['vary']).toMatch(/Accept-Encoding/);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const get = await raw(base, `/api/pepe/${ID}`);
    const head = await raw(base, `/api/pepe/${ID}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    const { date: _d1, ...getHeaders } = get.headers;
    const { date: _d2, ...headHeaders } = head.headers;
    expect(headHeaders).toEqual(getHeaders);
  });

  it('leaves the chain everything it would answer differently', async () => {
    const chain = async (path: string, options: { method?: string; headers?: Record<string, string> } = {}) => (await raw(base, path, options)).status;
    expect(await chain(`/api/pepe/${ID}`, { headers: { 'if-none-match': '"x"' } })).toBe(299);
    expect(await chain(`/api/pepe/${ID}`, { headers: { 'accept-encoding': 'gzip' } })).toBe(299);
    expect(await chain(`/api/pepe/${ID}?a=1`)).toBe(299);
    expect(await chain(`/api/pepe/%30${ID.slice(1)}`)).toBe(299);
    expect(await chain('/api/pepe/00000000-0000-4000-8000-000000000000')).toBe(299);
  });

  it('sends a compressed form once the chain has made it, with its own ETag', async () => {
    const path = `/api/pepe/${ID}`;
    expect((await raw(base, path, { headers: { 'accept-encoding': 'br' } })).status).toBe(299);
    const entry = site.lookup(path)!;
    const compressed = await site.compressed(site.peek(entry)!, 'br');
    const res = await raw(base, path, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.body.equals(compressed!)).toBe(true);
    expect(res.headers['content-length']).toBe(String(compressed!.length));
    expect(res.headers['etag']).toMatch(/^"[\w-]{27}-br"$/);
    expect(res.headers['vary']).toMatch(/Accept-Encoding/);
    // gzip has not been made yet: the chain answers that client.
    expect((await raw(base, path, { headers: { 'accept-encoding': 'gzip' } })).status).toBe(299);
  });

  it('answers a client accepting compression when the file is too small to be compressed', async () => {
    const res = await raw(base, `/api/pepe/${SMALL_ID}`, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.toString()).toBe(SMALL);
    expect(await raw(base, `/api/pepe/${SMALL_ID}`, { headers: { 'accept-encoding': 'identity' } }).then((r) => r.status)).toBe(200);
  });
});
