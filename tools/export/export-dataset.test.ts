/**
 * `pepe export` against the real `pepe serve` on loopback, through a small HTTP proxy that can
 * fail, corrupt or stall chosen images: what a flaky CDN or a dropped connection does.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runMain } from '../cli/main.js';
import { startServer, type RunningServer } from '../serve/server.js';
import { captureIo } from '../testing/capture-io.js';
import { buildFixtureSite, type FixtureSite } from '../testing/fixture-catalogue.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { exportDataset } from './export-dataset.js';

const NETLIFY_TOML = fileURLToPath(new URL('../../netlify.toml', import.meta.url));
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
const fileNames = async () => (await siteFile('dataset/pepes.jsonl')).toString('utf8').trim().split('\n').map((line) => JSON.parse(line).file_name as string);

/** Every finished image in `dir` is byte-equal to the served one: nothing half-written under a final name. */
async function expectFinishedImagesIntact(dir: string): Promise<void> {
  for (const name of await exported(dir)) {
    expect(name.endsWith('.part'), `${name} is an unfinished download`).toBe(false);
    expect(sha256(await readFile(join(dir, 'images', name))), name).toBe(sha256(await siteFile(`images/${name}`)));
  }
}

describe('pepe export', { timeout: 60_000 }, () => {
  it('mirrors the JSONL, every image and the checksums from pepe serve, the manifest last', async () => {
    const to = join(temp.path, 'out');
    const progress: number[] = [];
    const result = await exportDataset({ from: server.url, to, concurrency: 3, onProgress: (p) => progress.push(p.done) });
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({ ok: true, records: COUNT, fetched: COUNT, kept: 0 });
    expect(progress.sort((a, b) => a - b)).toEqual(Array.from({ length: COUNT }, (_, i) => i + 1));
    // The JSONL is the API's records: each line is the by-id answer's data.
    const jsonl = await readFile(join(to, 'pepes.jsonl'), 'utf8');
    expect(jsonl).toBe((await siteFile('dataset/pepes.jsonl')).toString('utf8'));
    for (const line of jsonl.trim().split('\n')) {
      const byId = await (await fetch(`${server.url}/api/pepe/${JSON.parse(line).id}`)).text();
      expect(byId).toBe(`{"data":${line},"error":null}`);
    }
    expect(await exported(to)).toEqual((await fileNames()).sort());
    await expectFinishedImagesIntact(to);
    // `sha256sum -c images.sha256` from the folder: every line names a file there with that hash.
    for (const line of (await readFile(join(to, 'images.sha256'), 'utf8')).trim().split('\n')) {
      const [hash, path] = line.split('  ');
      expect(sha256(await readFile(join(to, path!)))).toBe(hash);
    }
    const manifest = JSON.parse(await readFile(join(to, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ count: COUNT, jsonl: { path: 'pepes.jsonl', sha256: sha256(Buffer.from(jsonl)) }, exported_from: server.url });
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
    // Incomplete: no manifest, no JSONL; what is there is finished and intact.
    expect(existsSync(join(to, 'manifest.json')) || existsSync(join(to, 'pepes.jsonl'))).toBe(false);
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
    // The five before it are finished; the one cut off is not there under its name.
    expect(await exported(to)).toEqual(names.slice(0, 5).sort());
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
    expect(notThere.err()).toContain(`${server.url}/elsewhere/dataset/manifest.json answered HTTP 404`);
    // A port nothing listens on any more.
    const gone = createServer();
    await new Promise<void>((done) => gone.listen(0, '127.0.0.1', done));
    const port = (gone.address() as AddressInfo).port;
    await new Promise((done) => gone.close(done));
    const closed = captureIo({ cwd: temp.path });
    expect(await runMain(['export', '--from', `http://127.0.0.1:${port}`, '--to', 'x'], closed)).toBe(1);
    expect(closed.err()).toContain(`http://127.0.0.1:${port}/dataset/manifest.json could not be fetched (ECONNREFUSED)`);
    expect(closed.err()).toContain('Export incomplete: 0 records');
    const usage = captureIo();
    expect(await runMain(['export', '--from', 'ftp://example.org', '--to', 'x'], usage)).toBe(2);
    expect(usage.err()).toContain('--from must start with http:// or https:// (got "ftp://example.org")');
  });
});
