/**
 * The real build's output, published to a real s3rver, read back over plain HTTP the way a
 * CDN in front of the bucket would: every by-id JSON answers with the built bytes and its
 * metadata, and the image URL inside it resolves to the image's exact bytes. Also: the
 * SDK's retry strategy rides out throttling and 5xx from the server.
 */
import { readFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_OBJECT_STORAGE_CACHE_CONTROL } from '../../functions/core/cache-policy.js';
import type { DatasetIndex } from '../../functions/core/api-limits.js';
import { sha256Of } from '../shared/manifest.js';
import { FIXTURE_URLS, buildFixtureSite, type FixtureSite } from '../testing/fixture-catalogue.js';
import { publishBuild } from './publish.js';
import { countingClient } from './testing/counting-client.js';
import { startS3rver, type S3rverProcess } from './testing/s3rver-process.js';

const NETLIFY_TOML = join(import.meta.dirname, '../../netlify.toml');
let s3: S3rverProcess;
let site: FixtureSite;
/** No boundary in four records, so the dataset is all tail pieces, of two records each. */
const DATASET_CHUNKS = { mean: 1_000_000, max: 1_000, tail: { mean: 1_000_000, max: 2 } };

beforeAll(async () => {
  [s3, site] = await Promise.all([startS3rver(['pepe-readback', 'pepe-flaky']), buildFixtureSite({ count: 4, chunks: { dataset: DATASET_CHUNKS } })]);
}, 120_000);
afterAll(async () => {
  await s3?.stop();
  await site?.cleanup();
});

describe('a published catalogue read back over HTTP', () => {
  it('serves each by-id JSON as built, and the image it points at', async () => {
    const counting = countingClient(s3.endpoint);
    const result = await publishBuild({ bucket: 'pepe-readback', prefix: 'cat/', dir: site.distDir, netlifyToml: NETLIFY_TOML }, { client: counting.client });
    // Order: images before the dataset and the JSON that name them; feeds and the sitemap with the share pages they link to.
    const at = (key: string) => counting.putKeys.indexOf(key);
    const lastImage = counting.putKeys.findLastIndex((key) => key.startsWith('cat/images/'));
    const shards = counting.putKeys.filter((key) => key.startsWith('cat/dataset/shards/')).map(at);
    expect(lastImage).toBeLessThan(Math.min(...shards));
    // The dataset's index goes up once its shards are there.
    expect(Math.max(...shards)).toBeLessThan(at('cat/dataset/index.json'));
    expect(lastImage).toBeLessThan(at('cat/api/listing/head'));
    // A head goes up once every document it points into is there: the listing's pages, the sitemap's files.
    const after = (prefix: string, head: string) => expect(Math.max(...counting.putKeys.filter((key) => key.startsWith(prefix) && key !== head).map(at)), head).toBeLessThan(at(head));
    after('cat/api/listing/', 'cat/api/listing/head');
    after('cat/sitemaps/', 'cat/sitemap.xml');
    const sharePages = counting.putKeys.filter((key) => key.startsWith('cat/p/')).map(at);
    for (const key of ['cat/feed.xml', 'cat/feed.json', 'cat/sitemap.xml']) expect(Math.min(...sharePages), key).toBeLessThan(at(key));
    // The fixture build keeps the default localhost URLs: published all the same, with a warning saying so.
    expect(result.ok).toBe(true);
    expect(result.problems.map((p) => `${p.severity} ${p.code}`)).toEqual(['warning local-urls']);
    expect(result.problems[0]!.message).toContain('baseUrl http://localhost:8888');
    const bucketUrl = `${s3.endpoint}/pepe-readback/cat`;
    expect(site.records.length).toBe(4);
    for (const record of site.records) {
      const answer = await fetch(`${bucketUrl}/api/pepe/${record.id}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(answer.headers.get('cache-control')).toBe(JSON_OBJECT_STORAGE_CACHE_CONTROL);
      const text = await answer.text();
      expect(text).toBe(await readFile(join(site.distDir, 'site/api/pepe', record.id), 'utf8'));
      const url = (JSON.parse(text) as { data: { url: string } }).data.url;
      expect(url.startsWith(`${FIXTURE_URLS.baseUrl}/images/`)).toBe(true);
      const image = await fetch(`${bucketUrl}${url.slice(FIXTURE_URLS.baseUrl.length)}`);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe(`image/${record.file_ext === '.jpg' ? 'jpeg' : record.file_ext.slice(1)}`);
      expect(Buffer.from(await image.arrayBuffer()).equals(await readFile(join(site.distDir, 'site/images', `${record.id}${record.file_ext}`)))).toBe(true);
    }
    const manifest = await fetch(`${bucketUrl}/_build/manifest.json`);
    expect(await manifest.text()).toBe(await readFile(join(site.distDir, 'manifest.json'), 'utf8'));
  });

  it('serves, with no function at all, the static listing, share pages, feeds and the dataset, which pepe export mirrors', async () => {
    // The bucket published by the test above.
    const bucketUrl = `${s3.endpoint}/pepe-readback/cat`;
    const expected: [string, string][] = [
      ['api/listing/head', 'application/json; charset=utf-8'],
      [`api/listing/${site.records[0]!.id}`, 'application/json; charset=utf-8'],
      [`p/${site.records[0]!.id}`, 'text/html; charset=utf-8'],
      [`oembed/${site.records[0]!.id}.json`, 'application/json; charset=utf-8'],
      ['feed.xml', 'application/atom+xml; charset=utf-8'],
      ['feed.json', 'application/feed+json; charset=utf-8'],
      ['dataset/index.json', 'application/json; charset=utf-8'],
      ['sitemap.xml', 'application/xml; charset=utf-8'],
      ['robots.txt', 'text/plain; charset=utf-8'],
    ];
    for (const [path, type] of expected) {
      const answer = await fetch(`${bucketUrl}/${path}`);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('content-type'), path).toBe(type);
      expect(await answer.text(), path).toBe(await readFile(join(site.distDir, 'site', path), 'utf8'));
    }
    // The listing walked from its head by the links the pages carry, oldest first.
    const head = JSON.parse(await (await fetch(`${bucketUrl}/api/listing/head`)).text());
    expect(head.data).toMatchObject({ total_items: 4, oldest: `${FIXTURE_URLS.baseUrl}/api/listing/${site.records[0]!.id}` });
    const walked: string[] = [];
    for (let next = head.data.oldest; next !== null; ) {
      const page = JSON.parse(await (await fetch(`${bucketUrl}${next.slice(FIXTURE_URLS.baseUrl.length)}`)).text());
      walked.push(...page.data.map((pepe: { id: string }) => pepe.id));
      next = page.meta.newer;
    }
    expect(walked).toEqual(site.records.map((record) => record.id));
    // The dataset walked from its index alone: each shard by its URL relative to the index, checked by size and sha256.
    const index = JSON.parse(await (await fetch(`${bucketUrl}/dataset/index.json`)).text()) as DatasetIndex;
    expect(index.shards.map((shard) => shard.count)).toEqual([2, 2]);
    const lines: string[] = [];
    for (const shard of index.shards) {
      const body = Buffer.from(await (await fetch(new URL(shard.url, `${bucketUrl}/dataset/index.json`))).arrayBuffer());
      expect([body.length, sha256Of(body)]).toEqual([shard.size, shard.sha256]);
      lines.push(...body.toString('utf8').trim().split('\n'));
    }
    expect(lines.map((line) => JSON.parse(line).id)).toEqual(site.records.map((record) => record.id));
    const { exportDataset } = await import('../export/export-dataset.js');
    const exported = await exportDataset({ from: bucketUrl, to: join(site.root, 'export') });
    expect(exported.problems).toEqual([]);
    expect(exported).toMatchObject({ ok: true, records: 4, fetched: 4 });
  });

  it('retries throttling and 5xx answers with backoff and still publishes everything', async () => {
    // A loopback proxy in front of s3rver: every third request is refused with 503 SlowDown
    // or 500 InternalError before reaching the server.
    let seen = 0;
    let refused = 0;
    const proxy: Server = createServer((req, res) => {
      seen += 1;
      if (seen % 3 === 0) {
        refused += 1;
        const code = refused % 2 ? 'SlowDown' : 'InternalError';
        req.resume();
        res.writeHead(code === 'SlowDown' ? 503 : 500, { 'content-type': 'application/xml' });
        res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>injected</Message></Error>`);
        return;
      }
      const upstream = httpRequest({ host: '127.0.0.1', port: s3.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { client } = countingClient(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, 4);
      const result = await publishBuild({ bucket: 'pepe-flaky', dir: site.distDir, netlifyToml: NETLIFY_TOML, concurrency: 2 }, { client });
      expect(result.problems.filter((p) => p.severity === 'error')).toEqual([]);
      expect(result.ok).toBe(true);
      expect(refused).toBeGreaterThan(3);
      const again = await publishBuild({ bucket: 'pepe-flaky', dir: site.distDir, netlifyToml: NETLIFY_TOML }, { client });
      expect(again.counts.uploaded).toBe(0);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  }, 60_000);
});
