/**
 * `pepe export` against the real `pepe serve` on loopback, through a small HTTP proxy that can
 * fail, corrupt or stall chosen images: what a flaky CDN or a dropped connection does.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import type { DatasetIndex } from '../../functions/core/api-limits.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runMain } from '../cli/main.js';
import { startServer, type RunningServer } from '../serve/server.js';
import { captureIo } from '../testing/capture-io.js';
import { buildCatalogue } from '../catalogue/build-catalogue.js';
import { loadManifestRoot } from '../shared/manifest.js';
import { buildFixtureSite, FIXTURE_URLS, fixtureId, fixtureImage, type FixtureSite } from '../testing/fixture-catalogue.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { datasetFiles } from '../catalogue/dataset-shards.js';
import { testId } from '../testing/test-catalogue.js';
import { exportDataset, INDEX_MAX_BYTES } from './export-dataset.js';

const NETLIFY_TOML = fileURLToPath(new URL('../../netlify.toml', import.meta.url));
const PEPE = fileURLToPath(new URL('../pepe.mjs', import.meta.url));
const COUNT = 9;

let site: FixtureSite;
let server: RunningServer;
let proxy: Server;
let proxyUrl: string;
let temp: TempDir;
/** What the proxy does: image names answered 500, corrupted, or stalled after half their bytes. */
const faults = { failing: new Set<string>(), corrupt: new Set<string>(), stall: null as string | null, onStall: () => {} };
const requested: string[] = [];

beforeAll(async () => {
  site = await buildFixtureSite({ count: COUNT });
  server = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML });
  proxy = createServer((req, res) => {
    const path = req.url ?? '/';
    requested.push(path);
    const name = path.startsWith('/images/') ? path.slice('/images/'.length) : null;
    if (name !== null && faults.failing.has(name)) {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end('boom');
      return;
    }
    void fetch(`${server.url}${path}`).then(async (upstream) => {
      const body = Buffer.from(await upstream.arrayBuffer());
      res.writeHead(upstream.status, { 'Content-Type': upstream.headers.get('content-type') ?? 'application/octet-stream', 'Content-Length': body.length });
      if (name !== null && faults.corrupt.has(name)) body[body.length >> 1] = body[body.length >> 1]! ^ 0xff;
      if (name !== null && name === faults.stall) {
        res.write(body.subarray(0, body.length >> 1));
        faults.onStall(); // and never end: the connection hangs like a dropped one
        return;
      }
      res.end(body);
    });
  });
  await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 180_000);

afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((done) => proxy?.close(done));
  await server?.close();
  await site?.cleanup();
});

beforeEach(async () => {
  await temp?.cleanup();
  temp = await makeTempDir('pepe-export-');
  faults.failing.clear();
  faults.corrupt.clear();
  faults.stall = null;
  requested.length = 0;
});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const siteFile = (path: string) => readFile(join(site.distDir, 'site', path));
/** Image names in the export folder, unfinished ones included. */
const exported = async (dir: string) => (await readdir(join(dir, 'images'))).sort();
const siteIndex = async () => JSON.parse((await siteFile('dataset/index.json')).toString('utf8')) as DatasetIndex;
/** The published records' lines, oldest first: the shards in index order, joined. */
const siteJsonl = async () => (await Promise.all((await siteIndex()).shards.map((shard) => siteFile(`dataset/${shard.url}`)))).join('');
const fileNames = async () => (await siteJsonl()).trim().split('\n').map((line) => JSON.parse(line).file_name as string);

/** Every finished image in `dir` is byte-equal to the served one: nothing half-written under a final name. */
async function expectFinishedImagesIntact(dir: string): Promise<void> {
  for (const name of await exported(dir)) {
    expect(name.endsWith('.part'), `${name} is an unfinished download`).toBe(false);
    expect(sha256(await readFile(join(dir, 'images', name))), name).toBe(sha256(await siteFile(`images/${name}`)));
  }
}

describe('pepe export', { timeout: 60_000 }, () => {
  it('mirrors the shards, every image and the checksums from pepe serve, the manifest last', async () => {
    const to = join(temp.path, 'out');
    const progress: number[] = [];
    const result = await exportDataset({ from: server.url, to, concurrency: 3, onProgress: (p) => progress.push(p.done) });
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({ ok: true, records: COUNT, fetched: COUNT, kept: 0 });
    // Every byte counted once, whatever the downloads' interleaving.
    expect(result.bytes).toBe(site.records.reduce((sum, record) => sum + record.file_size, 0));
    expect(progress.sort((a, b) => a - b)).toEqual(Array.from({ length: COUNT }, (_, i) => i + 1));
    // The manifest is the published index; its shards, joined, are the API's records.
    const manifest = JSON.parse(await readFile(join(to, 'manifest.json'), 'utf8'));
    expect(manifest).toEqual({ ...(await siteIndex()), exported_from: server.url });
    const jsonl = (await Promise.all(manifest.shards.map((shard: { url: string }) => readFile(join(to, shard.url), 'utf8')))).join('');
    expect(jsonl).toBe(await siteJsonl());
    for (const line of jsonl.trim().split('\n')) {
      const byId = await (await fetch(`${server.url}/api/pepe/${JSON.parse(line).id}`)).text();
      expect(byId).toBe(`{"data":${line},"error":null}`);
    }
    expect(await exported(to)).toEqual((await fileNames()).sort());
    await expectFinishedImagesIntact(to);
    // `cat shards/*.sha256 | sha256sum -c` from the folder: every line names a file there with that hash.
    for (const shard of manifest.shards) {
      for (const line of (await readFile(join(to, shard.image_sha256.url), 'utf8')).trim().split('\n')) {
        const [hash, path] = line.split('  ');
        expect(sha256(await readFile(join(to, path!)))).toBe(hash);
      }
    }
  });

  it('names every image a server answers with an error or wrong bytes, keeps the rest, and fetches only those on a rerun', async () => {
    const to = join(temp.path, 'out');
    const [failing, corrupt] = (await fileNames()).slice(2, 4) as [string, string];
    faults.failing.add(failing);
    faults.corrupt.add(corrupt);
    const first = await exportDataset({ from: proxyUrl, to, concurrency: 4 });
    expect(first.ok).toBe(false);
    expect(first.problems.map((p) => [p.code, p.file, p.message.replace(/[0-9a-f]{64}/g, 'H')]).sort()).toEqual(
      [
        ['export-image', `images/${failing}`, `${proxyUrl}/images/${failing} answered HTTP 500 Internal Server Error`],
        ['export-image', `images/${corrupt}`, `${proxyUrl}/images/${corrupt} has sha256 H, but H was published: rerun (the catalogue may have changed meanwhile)`],
      ].sort(),
    );
    // Incomplete: no manifest; what is there is finished and intact.
    expect(existsSync(join(to, 'manifest.json'))).toBe(false);
    expect(await exported(to)).toHaveLength(COUNT - 2);
    await expectFinishedImagesIntact(to);

    faults.failing.clear();
    faults.corrupt.clear();
    requested.length = 0;
    const second = await exportDataset({ from: proxyUrl, to, concurrency: 4 });
    expect(second).toMatchObject({ ok: true, fetched: 2, kept: COUNT - 2 });
    expect(requested.filter((path) => path.startsWith('/images/')).sort()).toEqual([`/images/${failing}`, `/images/${corrupt}`].sort());
    expect(existsSync(join(to, 'manifest.json'))).toBe(true);
    await expectFinishedImagesIntact(to);
  });

  it('resumes after an interruption in the middle of a download, leaving no partial file under a final name', async () => {
    const to = join(temp.path, 'out');
    const names = await fileNames();
    const stalled = names[5]!;
    faults.stall = stalled;
    const controller = new AbortController();
    faults.onStall = () => controller.abort();
    const first = await exportDataset({ from: proxyUrl, to, concurrency: 1, signal: controller.signal });
    expect(first.ok).toBe(false);
    expect(first.problems.map((p) => p.code)).toEqual(['export-interrupted']);
    expect(first.problems[0]!.message).toBe(`interrupted after 5 of ${COUNT} images: rerun the same command to resume (finished images are kept)`);
    // The five before it are finished; the one cut off is only a .part, never under its name.
    expect((await exported(to)).filter((name) => name !== `${stalled}.part`)).toEqual(names.slice(0, 5).sort());
    await rm(join(to, 'images', `${stalled}.part`), { force: true });
    expect(existsSync(join(to, 'manifest.json'))).toBe(false);
    await expectFinishedImagesIntact(to);

    faults.stall = null;
    requested.length = 0;
    const second = await exportDataset({ from: proxyUrl, to, concurrency: 2 });
    expect(second).toMatchObject({ ok: true, fetched: COUNT - 5, kept: 5 });
    expect(requested.filter((path) => path.startsWith('/images/')).sort()).toEqual(names.slice(5).map((name) => `/images/${name}`).sort());
    expect(await exported(to)).toEqual([...names].sort());
    await expectFinishedImagesIntact(to);
  });

  it('runs as `pepe export`, with a progress line, and explains what it cannot use', async () => {
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['export', '--from', `${server.url}/`, '--to', 'mirror'], io)).toBe(0);
    expect(io.out()).toMatch(new RegExp(`^Exported ${server.url} to ${join(temp.path, 'mirror')}: ${COUNT} records, ${COUNT} images fetched \\([0-9.]+ MB\\), 0 already there, [0-9.]+ s\\n$`));
    expect(io.err()).toContain(`${COUNT}/${COUNT} images`);
    // A second run keeps everything.
    const again = captureIo({ cwd: temp.path });
    expect(await runMain(['export', '--from', server.url, '--to', 'mirror'], again)).toBe(0);
    expect(again.out()).toContain(`0 images fetched (0.0 MB), ${COUNT} already there`);

    const notThere = captureIo({ cwd: temp.path });
    expect(await runMain(['export', '--from', `${server.url}/elsewhere`, '--to', 'x'], notThere)).toBe(1);
    expect(notThere.err()).toContain(`${server.url}/elsewhere/dataset/index.json answered HTTP 404`);
    // A port nothing listens on any more.
    const gone = createServer();
    await new Promise<void>((done) => gone.listen(0, '127.0.0.1', done));
    const port = (gone.address() as AddressInfo).port;
    await new Promise((done) => gone.close(done));
    const closed = captureIo({ cwd: temp.path });
    expect(await runMain(['export', '--from', `http://127.0.0.1:${port}`, '--to', 'x'], closed)).toBe(1);
    expect(closed.err()).toContain(`http://127.0.0.1:${port}/dataset/index.json could not be fetched (ECONNREFUSED)`);
    expect(closed.err()).toContain('Export incomplete: 0 records');
    const usage = captureIo();
    expect(await runMain(['export', '--from', 'ftp://example.org', '--to', 'x'], usage)).toBe(2);
    expect(usage.err()).toContain('--from must start with http:// or https:// (got "ftp://example.org")');
  });

  // Last in this block: it rebuilds the shared fixture site.
  it('resumes across a rebuild whose manifest holds a delta, served by pepe serve', async () => {
    const to = join(temp.path, 'across-rebuild');
    expect((await exportDataset({ from: server.url, to, concurrency: 3 })).problems).toEqual([]);
    // One record added, rebuilt in place: its id segment's paths and the similar lists naming it go to the manifest's delta.
    const image = await fixtureImage(COUNT + 7);
    await writeFile(join(site.contentDir, `zz-added${image.ext}`), image.bytes);
    await writeFile(join(site.contentDir, 'zz-added.json'), JSON.stringify({ id: fixtureId('export-across-rebuild'), description: 'added', tags: ['added'], created_at: '2030-01-01T00:00:00.000Z' }));
    expect((await buildCatalogue({ contentDir: site.contentDir, outDir: site.distDir, cacheDir: site.cacheDir, urls: FIXTURE_URLS })).ok).toBe(true);
    expect((await loadManifestRoot(site.distDir))!.delta?.files).toBeGreaterThan(0);
    const rebuilt = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: NETLIFY_TOML });
    try {
      const again = await exportDataset({ from: rebuilt.url, to, concurrency: 3 });
      expect(again.problems).toEqual([]);
      expect(again).toMatchObject({ ok: true, records: COUNT + 1, fetched: 1, kept: COUNT });
      await expectFinishedImagesIntact(to);
    } finally {
      await rebuilt.close();
    }
  });
});

/**
 * A small hostile server on loopback: a synthetic catalogue in small shards, served from
 * memory, whose answers each test can replace path by path (endless, compressed, slow, idle,
 * redirected, lying bodies).
 */
describe('pepe export against a hostile server', { timeout: 120_000 }, () => {
  type Hook = (req: IncomingMessage, res: ServerResponse, body: Buffer | undefined) => void;
  const routes = new Map<string, Buffer>();
  const hooks = new Map<string, Hook>();
  const seen: { path: string; range: string | undefined }[] = [];
  let hostile: Server;
  let url: string;
  let port: number;
  let bomb: Buffer;

  /** Answers `body`, or from the offset a `Range: bytes=N-` asks (206). */
  const answer = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const start = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1] ?? NaN);
    if (start >= 0 && start < body.length) {
      res.writeHead(206, { 'Content-Range': `bytes ${start}-${body.length - 1}/${body.length}`, 'Content-Length': body.length - start }).end(body.subarray(start));
    } else res.writeHead(200, { 'Content-Length': body.length }).end(body);
  };
  /** Writes zeros until the client goes away. */
  const endless: Hook = (_req, res) => {
    res.writeHead(200);
    const chunk = Buffer.alloc(64 * 1024);
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  };
  const gzipBomb: Hook = (_req, res) => res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Length': bomb.length }).end(bomb);

  interface Catalogue {
    index: DatasetIndex;
    /** Image file names, oldest first, and their bytes. */
    names: string[];
    images: Map<string, Buffer>;
  }
  /** `count` records (ids from `first`), images of 300–1,800 bytes, shards of about 4 and the newest in tail pieces of about 2; `line` may spoil a record. */
  function catalogue(ids: number[], options: { tag?: (i: number) => string; name?: (i: number, name: string) => string; sha?: (name: string, sha: string) => string } = {}): Catalogue {
    const images = new Map<string, Buffer>();
    const records = ids.map((i) => {
      const name = `${testId(i)}.png`;
      images.set(name, Buffer.alloc(300 + ((i * 377) % 1500), i % 251));
      const fileName = options.name?.(i, name) ?? name;
      const line = JSON.stringify({ id: testId(i), file_name: fileName, file_ext: '.png', file_size: images.get(name)!.length, created_at: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(), tags: [options.tag?.(i) ?? 'frog'] });
      return { id: testId(i), fileName: name, line };
    });
    const sha = (name: string) => options.sha?.(name, sha256(images.get(name) ?? Buffer.from(name))) ?? sha256(images.get(name) ?? Buffer.from(name));
    const files = datasetFiles(records, { catalogueVersion: `v${ids.length}`, imageSha256: sha, shape: { mean: 4, max: 8, tail: { mean: 2, max: 3 } } });
    routes.clear();
    for (const file of files) routes.set(`/${file.path}`, Buffer.from(file.body));
    for (const [name, bytes] of images) routes.set(`/images/${name}`, bytes);
    return { index: JSON.parse(files.at(-1)!.body) as DatasetIndex, names: [...images.keys()], images };
  }
  /** Replaces a published shard file's body (and its name and entry in the index), as a lying server would. */
  function respell(index: DatasetIndex, shard: number, which: 'jsonl' | 'sha256', edit: (body: string) => string): void {
    const entry = index.shards[shard]!;
    const file = which === 'jsonl' ? entry : entry.image_sha256;
    const body = Buffer.from(edit(routes.get(`/dataset/${file.url}`)!.toString('utf8')));
    const next = { url: `shards/${sha256(body)}.${which}`, size: body.length, sha256: sha256(body) };
    routes.set(`/dataset/${next.url}`, body);
    Object.assign(file, next);
    routes.set('/dataset/index.json', Buffer.from(JSON.stringify(index)));
  }
  const run = (to: string, extra: Partial<Parameters<typeof exportDataset>[0]> = {}) => exportDataset({ from: url, to, concurrency: 4, ...extra });
  const messages = (result: { problems: { code: string; message: string }[] }) => result.problems.map((p) => `${p.code}: ${p.message}`);

  beforeAll(async () => {
    hostile = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      seen.push({ path, range: req.headers.range });
      const hook = hooks.get(path);
      if (hook) return hook(req, res, routes.get(path));
      const body = routes.get(path);
      if (body === undefined) res.writeHead(404).end();
      else answer(req, res, body);
    });
    await new Promise<void>((done) => hostile.listen(0, '127.0.0.1', done));
    port = (hostile.address() as AddressInfo).port;
    url = `http://127.0.0.1:${port}`;
    // 256 MB of zeros in about 250 KB, compressed a piece at a time.
    const gzip = createGzip({ level: 9 });
    const parts: Buffer[] = [];
    gzip.on('data', (chunk: Buffer) => parts.push(chunk));
    const zeros = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < 256; i++) if (!gzip.write(zeros)) await new Promise((done) => gzip.once('drain', done));
    await new Promise((done) => gzip.end(done));
    bomb = Buffer.concat(parts);
  }, 120_000);
  afterAll(async () => {
    hostile?.closeAllConnections();
    await new Promise((done) => hostile?.close(done));
  });
  beforeEach(() => {
    hooks.clear();
    seen.length = 0;
  });

  it('refuses links planted at .part and final names, naming them, and writes nothing through them', async () => {
    const { names } = catalogue([0, 1, 2, 3, 4, 5]);
    const to = join(temp.path, 'links');
    const victim = join(temp.path, 'victim');
    await writeFile(victim, 'precious');
    await mkdir(join(to, 'images'), { recursive: true });
    await symlink(victim, join(to, 'images', `${names[1]}.part`));
    await symlink(victim, join(to, 'images', names[2]!));
    const result = await run(to);
    expect(result.ok).toBe(false);
    expect(messages(result).sort()).toEqual(
      [
        `export-folder: ${join(to, 'images', `${names[1]}.part`)} is a symbolic link: pepe export never writes through one; remove it, or export to another --to`,
        `export-folder: ${join(to, 'images', names[2]!)} is a symbolic link: pepe export never writes through one; remove it, or export to another --to`,
      ].sort(),
    );
    expect(await readFile(victim, 'utf8')).toBe('precious');
    expect(existsSync(join(to, 'manifest.json'))).toBe(false);
    // A link in place of a folder the export writes into, or of the manifest, is refused before anything is fetched.
    const other = join(temp.path, 'links-2');
    await mkdir(other);
    await mkdir(join(temp.path, 'elsewhere'));
    await symlink(join(temp.path, 'elsewhere'), join(other, 'shards'));
    expect(messages(await run(other))).toEqual([`export-folder: ${join(other, 'shards')} is a symbolic link: pepe export never writes through one; remove it, or export to another --to`]);
    expect(await readdir(join(temp.path, 'elsewhere'))).toEqual([]);
    await rm(join(other, 'shards'));
    await symlink(victim, join(other, 'manifest.json'));
    expect(messages(await run(other))).toEqual([`export-folder: ${join(other, 'manifest.json')} is a symbolic link: pepe export never writes through one; remove it, or export to another --to`]);
    expect(await readFile(victim, 'utf8')).toBe('precious');
  });

  it('streams every body under the cap of what is published: endless and gzip-bomb bodies leave the peak RSS of `pepe export` flat', async () => {
    const { names } = catalogue([0, 1, 2, 3, 4, 5, 6, 7]);
    /** `pepe export` in a child process, as a user runs it: exit status, stderr and peak RSS in MB. */
    const child = async (to: string) => {
      const out = await new Promise<{ status: number | null; stderr: string }>((done) => {
        const proc = spawn('/usr/bin/time', ['-f', 'peak-rss-kb %M', process.execPath, PEPE, 'export', '--from', url, '--to', join(temp.path, to)], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
        proc.on('close', (status) => done({ status, stderr }));
      });
      return { ...out, rss: Number(/peak-rss-kb (\d+)/.exec(out.stderr)?.[1]) / 1024 };
    };
    const plain = await child('plain');
    expect(plain.status, plain.stderr).toBe(0);
    const cases: [string, string, Hook, string][] = [
      ['endless index', '/dataset/index.json', endless, `${url}/dataset/index.json is larger than ${INDEX_MAX_BYTES} bytes`],
      ['gzip-bomb index', '/dataset/index.json', gzipBomb, `${url}/dataset/index.json is larger than ${INDEX_MAX_BYTES} bytes`],
      ['endless image', `/images/${names[3]}`, endless, `${url}/images/${names[3]} sent more than the`],
      ['gzip-bomb image', `/images/${names[4]}`, gzipBomb, `${url}/images/${names[4]} sent more than the`],
    ];
    for (const [what, path, hook, message] of cases) {
      hooks.clear();
      hooks.set(path, hook);
      const attacked = await child(what.replace(' ', '-'));
      expect(attacked.status, what).toBe(1);
      expect(attacked.stderr, what).toContain(message);
      // The same command against the honest catalogue is the baseline: a few MB of slack for the cap's buffers.
      expect(attacked.rss, `${what}: ${attacked.rss} MB against ${plain.rss} MB`).toBeLessThan(plain.rss + 48);
    }
  });

  it('finishes a slow but steady body, gives up an idle one, and continues it by Range on a rerun', async () => {
    const { names, images } = catalogue([0, 1, 2, 3, 4, 5]);
    const [slow, idle, noRange] = [names[0]!, names[1]!, names[2]!];
    // A piece every 40 ms: each gap well inside the 150 ms idle timeout, the whole well beyond it.
    hooks.set(`/images/${slow}`, (_req, res, body) => {
      res.writeHead(200, { 'Content-Length': body!.length });
      let at = 0;
      const timer = setInterval(() => {
        res.write(body!.subarray(at, (at += 100)));
        if (at >= body!.length) {
          clearInterval(timer);
          res.end();
        }
      }, 40);
    });
    // Half the bytes, then silence.
    const half: Hook = (_req, res, body) => {
      res.writeHead(200, { 'Content-Length': body!.length });
      res.write(body!.subarray(0, body!.length >> 1));
    };
    hooks.set(`/images/${idle}`, half);
    hooks.set(`/images/${noRange}`, half);
    const to = join(temp.path, 'slow');
    const started = performance.now();
    const first = await run(to, { idleTimeoutMs: 150 });
    expect(performance.now() - started).toBeGreaterThan(150);
    expect(messages(first).sort()).toEqual(
      [idle, noRange].map((name) => `export-image: ${url}/images/${name} broke off after ${images.get(name)!.length >> 1} of ${images.get(name)!.length} bytes (nothing for 0.15 s): rerun to resume`).sort(),
    );
    expect(await readFile(join(to, 'images', slow))).toEqual(images.get(slow));
    expect((await readFile(join(to, 'images', `${idle}.part`))).length).toBe(images.get(idle)!.length >> 1);

    // The rerun asks for the rest; a server that ignores Range gets the whole file again.
    hooks.clear();
    hooks.set(`/images/${noRange}`, (_req, res, body) => res.writeHead(200, { 'Content-Length': body!.length }).end(body));
    seen.length = 0;
    const second = await run(to, { idleTimeoutMs: 150 });
    expect(second.problems).toEqual([]);
    expect(second).toMatchObject({ ok: true, fetched: 2, kept: 4 });
    expect(seen.filter((s) => s.path.startsWith('/images/')).map((s) => [s.path, s.range]).sort()).toEqual(
      [
        [`/images/${idle}`, `bytes=${images.get(idle)!.length >> 1}-`],
        [`/images/${noRange}`, `bytes=${images.get(noRange)!.length >> 1}-`],
      ].sort(),
    );
    // Only the missing half of the resumed one was counted; the other came whole.
    expect(second.bytes).toBe(images.get(idle)!.length - (images.get(idle)!.length >> 1) + images.get(noRange)!.length);
    for (const name of names) expect(await readFile(join(to, 'images', name)), name).toEqual(images.get(name));
    expect((await readdir(join(to, 'images'))).filter((name) => name.endsWith('.part'))).toEqual([]);
  });

  it('follows redirects within the origin of --from only', async () => {
    const { names } = catalogue([0, 1, 2]);
    hooks.set(`/images/${names[0]}`, (_req, res) => res.writeHead(307, { Location: `/mirror/images/${names[0]}` }).end());
    routes.set(`/mirror/images/${names[0]}`, routes.get(`/images/${names[0]}`)!);
    const same = await run(join(temp.path, 'same-origin'));
    expect(same.problems).toEqual([]);
    hooks.set('/dataset/index.json', (_req, res) => res.writeHead(302, { Location: `http://localhost:${port}/dataset/index.json` }).end());
    expect(messages(await run(join(temp.path, 'cross-origin')))).toEqual([
      `export-fetch: ${url}/dataset/index.json redirects to http://localhost:${port}/dataset/index.json, another origin than --from (${url}): refused; if you trust that address, export from it with --from`,
    ]);
  });

  it('refuses a lying checksum, a missing one, and file names the catalogue could never publish', async () => {
    const lying = catalogue([0, 1, 2, 3, 4, 5], { sha: (name, sha) => (name.startsWith(testId(2)) ? sha.replace(/^./, (c) => (c === '0' ? '1' : '0')) : sha) });
    const to = join(temp.path, 'lying');
    const first = await run(to);
    expect(messages(first)).toEqual([expect.stringMatching(new RegExp(`^export-image: ${url}/images/${lying.names[2]} has sha256 [0-9a-f]{64}, but [0-9a-f]{64} was published`))]);
    expect(existsSync(join(to, 'images', lying.names[2]!)) || existsSync(join(to, 'images', `${lying.names[2]}.part`))).toBe(false);

    // A checksum file without the line of one of its shard's images.
    const missing = catalogue([0, 1, 2, 3, 4, 5]);
    const gone = missing.names[0]!;
    respell(missing.index, 0, 'sha256', (body) => body.split('\n').filter((line) => !line.endsWith(gone)).join('\n'));
    expect(messages(await run(join(temp.path, 'missing')))).toEqual([
      `export-image: ${url}/dataset/${missing.index.shards[0]!.image_sha256.url} has no sha256 for images/${gone}, though the catalogue publishes checksums: rerun later, or tell the catalogue's maintainers`,
    ]);

    // A `.part` name, a path out of the folder, a name that is not the record's own.
    for (const bad of [(name: string) => `${name}.part`, (name: string) => `../${name}`, () => `${testId(99)}.png`]) {
      const spoilt = catalogue([0, 1, 2, 3, 4, 5], { name: (i, name) => (i === 1 ? bad(name) : name) });
      const out = join(temp.path, `bad-name-${sha256(Buffer.from(bad('x'))).slice(0, 8)}`);
      const result = await run(out);
      expect(messages(result)).toEqual([expect.stringMatching(new RegExp(`^export-invalid: ${url}/dataset/shards/[0-9a-f]{64}\\.jsonl line \\d+ is not a pepe record the catalogue could publish`))]);
      expect(existsSync(join(out, spoilt.names[1]!))).toBe(false);
      expect(existsSync(join(out, 'manifest.json'))).toBe(false);
    }
  });

  it('prints what a hostile server sends with every control and bidi character escaped, on a terminal too', async () => {
    // A bidi override, a C1 CSI and an ESC sequence that retitles the window, in a record's file_name.
    catalogue([0, 1, 2, 3, 4, 5], { name: (i, name) => (i === 5 ? `\u202e\u009b2J\u001b]0;x\u0007${name}` : name) });
    const io = captureIo({ cwd: temp.path, isTTY: true });
    expect(await runMain(['export', '--from', url, '--to', 'hostile-cli'], io)).toBe(1);
    expect(io.err()).toMatch(/line \d+ is not a pepe record the catalogue could publish .*: "\\u202e\\u009b2J\\u001b\]0;x\\u0007/);
    // The status line's own clear-line sequence is the only control sequence printed.
    expect(io.err().replaceAll('\r\u001b[2K', '')).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });

  it('resumes across a change of the catalogue: verified images kept, shards read again from the new index', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => i);
    const before = catalogue(ids);
    const to = join(temp.path, 'change');
    const first = await run(to, { concurrency: 8 });
    expect(first).toMatchObject({ ok: true, fetched: 30 });
    expect(first.bytes).toBe([...before.images.values()].reduce((sum, bytes) => sum + bytes.length, 0));

    // An edit, an add of the newest and a removal.
    const after = catalogue([...ids.filter((i) => i !== 12), 30], { tag: (i) => (i === 5 ? 'edited' : 'frog') });
    seen.length = 0;
    const second = await run(to, { concurrency: 8 });
    expect(second.problems).toEqual([]);
    expect(second).toMatchObject({ ok: true, records: 30, fetched: 1, kept: 29 });
    const newShards = after.index.shards.flatMap((s) => [s.url, s.image_sha256.url]).filter((u) => !before.index.shards.some((b) => b.url === u || b.image_sha256.url === u));
    expect(newShards.length).toBeLessThan(after.index.shards.length);
    expect(seen.filter((s) => s.path.startsWith('/dataset/shards/')).map((s) => s.path.slice('/dataset/'.length)).sort()).toEqual(newShards.sort());
    // The folder is the new catalogue's: its shards only, its index as the manifest.
    expect((await readdir(join(to, 'shards'))).sort()).toEqual(after.index.shards.flatMap((s) => [s.url, s.image_sha256.url]).map((u) => u.slice('shards/'.length)).sort());
    expect(JSON.parse(await readFile(join(to, 'manifest.json'), 'utf8'))).toEqual({ ...after.index, exported_from: url });
  });
});
