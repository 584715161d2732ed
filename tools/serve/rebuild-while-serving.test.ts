/**
 * A build into the folder `pepe serve` is serving: like a Netlify deploy, every answer then
 * comes from the new build (static files, the function, the CDN cache), never a mix.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import fg from 'fast-glob';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../catalogue/build-catalogue.js';
import { buildFixtureSite, FIXTURE_URLS, fixtureId, fixtureImage, type FixtureSite } from '../testing/fixture-catalogue.js';
import { closeClient, json, raw } from './http-client.test-helper.js';
import { type ChainState, handleRequest } from './request-chain.js';
import { loadState } from './reload.js';
import { type RunningServer, startServer } from './server.js';

const NETLIFY_TOML = fileURLToPath(new URL('../../netlify.toml', import.meta.url));

let site: FixtureSite;
let server: RunningServer;
const reloads: (string | null)[] = [];

beforeAll(async () => {
  site = await buildFixtureSite({ count: 5 });
  server = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML, onReload: ({ version }) => reloads.push(version) });
}, 120_000);

afterAll(async () => {
  closeClient();
  await server?.close();
  await site?.cleanup();
});

const description = async (path: string) => (json(await raw(server.url, path)) as { data: { description: string | null } }).data.description;

describe('a rebuild while serving', () => {
  it('serves the new build whole once its manifest is in place: static files, the function and its cached answers', async () => {
    const record = site.records[2]!;
    const byId = `/api/pepe/${record.id}`;
    const viaFunction = `/api/pepe/${record.id.toUpperCase()}`;
    const list = `/api/pepe?field=id&search=${record.id}`;
    // Warm every path, the CDN cache included.
    for (const path of [byId, viaFunction, list]) expect(await description(path)).toBe(record.description);
    expect(reloads).toEqual([]);

    const sidecarFile = join(site.contentDir, (await findSidecar(record.id))!);
    const sidecar = JSON.parse(await readFile(sidecarFile, 'utf8')) as Record<string, unknown>;
    await writeFile(sidecarFile, JSON.stringify({ ...sidecar, description: 'rebuilt while serving' }));
    const rebuilt = await buildCatalogue({ contentDir: site.contentDir, outDir: site.distDir, cacheDir: site.cacheDir, urls: FIXTURE_URLS });
    expect(rebuilt.ok).toBe(true);

    await expect.poll(() => reloads.length, { timeout: 10_000 }).toBe(1);
    expect(reloads[0]).toBe(rebuilt.manifest!.version);
    for (const path of [byId, viaFunction, list]) expect(await description(path), path).toBe('rebuilt while serving');
  });
});

describe('a new build that cannot be loaded', () => {
  it('leaves the previous build served and reports it', async () => {
    const errors: string[] = [];
    const own = await buildFixtureSite({ count: 3 });
    const serving = await startServer({ dir: own.distDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML, onError: (message) => errors.push(message) });
    try {
      const record = own.records[0]!;
      const path = `/api/pepe/${record.id.toUpperCase()}`; // answered by the function
      const before = await raw(serving.url, path);
      expect(before.status).toBe(200);
      // A broken bundle, then the manifest rename a build ends with.
      await writeFile(join(own.distDir, 'functions', 'pepe.mjs'), 'export default 42;\n');
      const manifest = join(own.distDir, 'manifest.json');
      await writeFile(`${manifest}.next`, await readFile(manifest));
      await rename(`${manifest}.next`, manifest);
      await expect.poll(() => errors.length, { timeout: 10_000 }).toBe(1);
      expect(errors[0]).toBe('a new build in the served folder could not be loaded; still serving the previous one');
      const after = await raw(serving.url, path);
      expect(after.status).toBe(200);
      expect(after.body.equals(before.body)).toBe(true);
    } finally {
      await serving.close();
      await own.cleanup();
    }
  });
});

describe('a build folder replaced while serving', () => {
  it('serves the build that takes the folder\'s place (rm -rf dist && pepe build)', async () => {
    const own = await buildFixtureSite({ count: 3 });
    const versions: (string | null)[] = [];
    const errors: string[] = [];
    const serving = await startServer({ dir: own.distDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML, onReload: ({ version }) => versions.push(version), onError: (message) => errors.push(message) });
    try {
      const record = own.records[0]!;
      const path = `/api/pepe/${record.id.toUpperCase()}`; // answered by the function
      expect((await raw(serving.url, path)).status).toBe(200);
      // The record leaves the content, and the folder is removed and built afresh.
      const sidecar = (await fg('**/*.json', { cwd: own.contentDir })).find((name) => readFileSync(join(own.contentDir, name), 'utf8').includes(record.id))!;
      const stem = sidecar.replace(/\.json$/, '.');
      for (const file of await fg(`${fg.escapePath(stem)}*`, { cwd: own.contentDir })) await rm(join(own.contentDir, file));
      await rm(own.distDir, { recursive: true });
      const rebuilt = await buildCatalogue({ contentDir: own.contentDir, outDir: own.distDir, cacheDir: own.cacheDir, urls: FIXTURE_URLS });
      expect(rebuilt.ok).toBe(true);
      await expect.poll(() => versions, { timeout: 10_000 }).toEqual([rebuilt.manifest!.version]);
      expect((await raw(serving.url, path)).status).toBe(404);
      expect(errors).toEqual([]);
    } finally {
      await serving.close();
      await own.cleanup();
    }
  });
});

/** The pieces files below `root` (or its trash siblings) this process holds open, as /proc names them (`… (deleted)` once deleted). */
function openPiecesFiles(root: string): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(root) && /\/pieces-[0-9a-f]+\.txt/.test(target) ? [target] : [];
    } catch {
      return []; // closed meanwhile (the listing's own descriptor)
    }
  });
}

describe.runIf(process.platform === 'linux')('the pieces file of a replaced build', () => {
  it('is closed once the new build has been served for the grace period: no rebuild leaves its deleted pieces file open, its disk space taken, until pepe serve stops', async () => {
    const own = await buildFixtureSite({ count: 3 });
    const versions: (string | null)[] = [];
    const serving = await startServer({ dir: own.distDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML, releaseGraceMs: 200, onReload: ({ version }) => versions.push(version) });
    try {
      const record = own.records[0]!;
      const path = `/api/pepe/${record.id.toUpperCase()}`; // answered by the function
      expect((await raw(serving.url, path)).status).toBe(200);
      const before = openPiecesFiles(own.root);
      expect(before).toEqual([join(own.distDir, 'data', (await readdir(join(own.distDir, 'data'))).find((name) => name.startsWith('pieces-'))!)]);
      for (const [i, description] of ['first rebuild', 'second rebuild'].entries()) {
        const sidecar = (await fg('**/*.json', { cwd: own.contentDir })).find((name) => readFileSync(join(own.contentDir, name), 'utf8').includes(record.id))!;
        const fields = JSON.parse(readFileSync(join(own.contentDir, sidecar), 'utf8')) as Record<string, unknown>;
        await writeFile(join(own.contentDir, sidecar), JSON.stringify({ ...fields, description }));
        expect((await buildCatalogue({ contentDir: own.contentDir, outDir: own.distDir, cacheDir: own.cacheDir, urls: FIXTURE_URLS })).ok).toBe(true);
        await expect.poll(() => versions.length, { timeout: 10_000 }).toBe(i + 1);
        expect((json(await raw(serving.url, path)) as { data: { description: string } }).data.description).toBe(description);
      }
      // Only the served build's file stays open; the replaced ones' were deleted by the builds.
      const served = (await readdir(join(own.distDir, 'data'))).find((name) => name.startsWith('pieces-'))!;
      await expect.poll(() => openPiecesFiles(own.root), { timeout: 10_000 }).toEqual([join(own.distDir, 'data', served)]);
    } finally {
      await serving.close();
      await own.cleanup();
    }
  });
});

describe('a reload that lands while a request is being answered', () => {
  it('leaves the request wholly to the build it started with: an answer of the old function is never kept in the new build\'s CDN cache', async () => {
    const own = await buildFixtureSite({ count: 3 });
    const options = { dir: own.distDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML };
    const state: ChainState = { ...(await loadState(options)), origin: 'http://127.0.0.1' };
    let reloadTo: Omit<ChainState, 'origin'> | null = null;
    // The real request chain; a pending reload is swapped in (as watchForRebuilds does, by
    // Object.assign) right after the chain started, i.e. while it waits for its first file read.
    const server = createServer((req, res) => {
      void handleRequest(state, req, res);
      if (reloadTo) Object.assign(state, reloadTo);
      reloadTo = null;
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const record = own.records[0]!;
      const path = `/api/pepe/${record.id}`;
      // The record is taken down: the rebuild removes its by-id file, which the served listing still names.
      const sidecar = (await fg('**/*.json', { cwd: own.contentDir })).find((name) => readFileSync(join(own.contentDir, name), 'utf8').includes(record.id))!;
      const stem = sidecar.replace(/\.json$/, '.');
      for (const file of await fg(`${fg.escapePath(stem)}*`, { cwd: own.contentDir })) await rm(join(own.contentDir, file));
      expect((await buildCatalogue({ contentDir: own.contentDir, outDir: own.distDir, cacheDir: own.cacheDir, urls: FIXTURE_URLS })).ok).toBe(true);
      reloadTo = await loadState(options, 1);
      // Its file gone, the old build's function answers (the old catalogue still holds the record)...
      expect((await raw(base, path)).status).toBe(200);
      // ...and the new build, whose CDN cache starts empty, does not: the answer was kept in the
      // old build's cache, not in the one swapped in meanwhile (where it stayed until the next build).
      const after = await raw(base, path);
      expect(after.headers['cache-status']).toBe('"pepe serve"; fwd=miss; stored');
      expect(after.status).toBe(404);
    } finally {
      server.close();
      await own.cleanup();
    }
  });
});

describe('a client paging while the catalogue changes (functions/README.md, "Behaviour decisions")', () => {
  it('gets each page from the build deployed when it asks: with created_at_desc an added image repeats a record across pages, with created_at_asc it does not', async () => {
    const own = await buildFixtureSite({ count: 5 });
    const versions: (string | null)[] = [];
    const serving = await startServer({ dir: own.distDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML, onReload: ({ version }) => versions.push(version) });
    type Page = { data: { id: string }[]; meta: { pagination: { total_items: number } } };
    const page = async (sort: string, n: number) => json(await raw(serving.url, `/api/pepe?limit=2&sort=${sort}&page=${n}`)) as Page;
    try {
      const desc1 = await page('created_at_desc', 1);
      const asc1 = await page('created_at_asc', 1);
      const ascAll = (json(await raw(serving.url, '/api/pepe?limit=25&sort=created_at_asc')) as Page).data.map((r) => r.id);
      // An image added as `pepe add` adds it: dated now, so the newest.
      const { bytes, ext } = await fixtureImage(40);
      await writeFile(join(own.contentDir, `added${ext}`), bytes);
      await writeFile(join(own.contentDir, 'added.json'), JSON.stringify({ id: fixtureId('added'), description: 'added while a client pages', tags: null, created_at: new Date().toISOString() }));
      const rebuilt = await buildCatalogue({ contentDir: own.contentDir, outDir: own.distDir, cacheDir: own.cacheDir, urls: FIXTURE_URLS });
      expect(rebuilt.ok).toBe(true);
      await expect.poll(() => versions.length, { timeout: 10_000 }).toBe(1);
      const desc2 = await page('created_at_desc', 2);
      const asc2 = await page('created_at_asc', 2);
      expect(desc2.meta.pagination.total_items).toBe(desc1.meta.pagination.total_items + 1);
      // Desc: the new image took the first place, so page 2 starts with page 1's last record.
      expect(desc2.data[0]!.id).toBe(desc1.data[1]!.id);
      // Asc: page 2 continues page 1 as the old build ordered it.
      expect(asc1.data.map((r) => r.id)).toEqual(ascAll.slice(0, 2));
      expect(asc2.data.map((r) => r.id)).toEqual(ascAll.slice(2, 4));
    } finally {
      await serving.close();
      await own.cleanup();
    }
  });
});

async function findSidecar(id: string): Promise<string | undefined> {
  const { default: fg } = await import('fast-glob');
  for (const path of fg.sync('**/*.json', { cwd: site.contentDir })) {
    if ((JSON.parse(await readFile(join(site.contentDir, path), 'utf8')) as { id?: string }).id === id) return path;
  }
  return undefined;
}
