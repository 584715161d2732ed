import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAtomFeed, parseJsonFeed } from 'feedsmith';
import ogs from 'open-graph-scraper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCatalogue } from '../../functions/core/catalogue-runtime.js';
import { createHandler } from '../../functions/core/handler.js';
import { pepeA } from '../../functions/core/schemas.js';
import { buildFixtureSite, type FixtureSite } from '../testing/fixture-catalogue.js';
import { call, idsNewestFirst, testCatalogue, testId, testRecords, TEST_URLS } from '../testing/test-catalogue.js';
import type { DatasetIndex } from '../../functions/core/api-limits.js';
import fc from 'fast-check';
import { datasetFiles } from './dataset-shards.js';
import { chunkHash } from '../shared/content-chunks.js';
import { compileCatalogue } from '../../functions/core/catalogue.js';
import { launchChromium } from '../testing/chromium.js';
import type { Browser } from 'playwright-core';
import { FEED_SIZE, siteDocuments } from './site-documents.js';

const data = testCatalogue(60);
const handler = createHandler(data);
const fakeSha = (name: string) => createHash('sha256').update(name).digest('hex');
const documents = new Map(siteDocuments(openCatalogue(data), { imageSha256: fakeSha }).map((file) => [file.path, file.body!]));
const doc = (path: string) => {
  const body = documents.get(path);
  if (body === undefined) throw new Error(`no document ${path}`);
  return body;
};
const pepeOf = async (id: string) => pepeA.parse((await call(handler, `/api/pepe/${id}`)).json.data);
const ENTITIES: Record<string, string> = { '&amp;': '&', '&quot;': '"', '&#39;': "'", '&lt;': '<', '&gt;': '>' };
const unescape = (text: string) => text.replace(/&(amp|quot|#39|lt|gt);/g, (entity) => ENTITIES[entity]!);
/** `<link rel=… href=…>` elements of a page, as a browser or bot reads their attributes. */
const links = (html: string) =>
  [...html.matchAll(/<link\s([^>]*)>/g)].map((m) => Object.fromEntries([...m[1]!.matchAll(/([a-z-]+)="([^"]*)"/g)].map((a) => [a[1]!, unescape(a[2]!)])));

describe('share pages', () => {
  it('carry Open Graph and Twitter card tags a link preview reads (open-graph-scraper), field by field', async () => {
    // testRecords: record 0 is credited; its description names it.
    for (const id of idsNewestFirst(60).slice(0, 12)) {
      const pepe = await pepeOf(id);
      const html = doc(`p/${id}`);
      const { result, error } = await ogs({ html });
      expect(error).toBe(false);
      const title = pepe.description ?? (pepe.tags ? `Pepe tagged ${pepe.tags.join(', ')}` : `Pepe ${id.slice(0, 8)}`);
      expect(result.ogTitle).toBe(title);
      expect(result.ogUrl).toBe(`${TEST_URLS.baseUrl}/p/${id}`);
      expect(result.ogType).toBe('website');
      expect(result.ogSiteName).toBe('Pepe Catalogue');
      expect(result.ogDescription).toBe(pepe.description ?? `A pepe from the Pepe Catalogue${pepe.tags ? `, tagged ${pepe.tags.join(', ')}` : ''}.`);
      // The largest rendition where the image has one (testRecords: three in four), else the original.
      const largest = pepe.thumbnails.at(-1);
      const image = largest ?? { url: pepe.url, width: pepe.width, height: pepe.height, type: { '.png': 'image/png', '.jpg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp', '.avif': 'image/avif' }[pepe.file_ext] };
      expect(result.ogImage).toEqual([{ url: image.url, width: String(image.width), height: String(image.height), type: image.type, alt: title }]);
      expect(result.twitterCard).toBe('summary_large_image');
      expect(result.twitterImage?.[0]?.url).toBe(image.url);
      expect(links(html)).toEqual(
        expect.arrayContaining([
          { rel: 'canonical', href: `${TEST_URLS.baseUrl}/p/${id}` },
          { rel: 'alternate', type: 'application/json+oembed', href: `${TEST_URLS.baseUrl}/oembed/${id}.json`, title },
          expect.objectContaining({ rel: 'alternate', type: 'application/atom+xml', href: `${TEST_URLS.baseUrl}/feed.xml` }),
          expect.objectContaining({ rel: 'alternate', type: 'application/feed+json', href: `${TEST_URLS.baseUrl}/feed.json` }),
        ]),
      );
      // The picture, a link to it in the gallery, and every tag.
      expect(html).toContain(`<img src="${pepe.url}" width="${pepe.width}" height="${pepe.height}"`);
      expect(html).toContain(`<a href="${TEST_URLS.baseUrl}/?pepe=${id}">Open in the gallery</a>`);
      for (const tag of pepe.tags ?? []) expect(html).toContain(`>#${tag}</a>`);
    }
  });

  it('show the credits, escaped, and only those the record has', async () => {
    const credited = idsNewestFirst(60).map((id) => doc(`p/${id}`)).filter((html) => html.includes('class="credit"'));
    expect(credited.length).toBeGreaterThan(10);
    const all = [...documents.entries()].filter(([path]) => path.startsWith('p/'));
    // testRecords: record 6 has an artist with quotes, & and <…> and nothing else.
    const [, sixth] = all.find(([, html]) => html.includes('Frog &quot;6&quot; &amp; &lt;co&gt;'))!;
    expect(sixth).toContain('<p class="credit">By Frog &quot;6&quot; &amp; &lt;co&gt;</p>');
    const [, zeroth] = all.find(([, html]) => html.includes('By Artist 0'))!;
    expect(zeroth).toContain('<p class="credit">By Artist 0 · <a href="https://art.example/pepe/0?from=catalogue&amp;x=1" rel="nofollow noopener">Source</a> · Licence: CC-BY-4.0</p>');
    expect(sixth).not.toContain('<Frog');
  });

  it('each have an oEmbed document of type photo with the fields the oEmbed 1.0 specification requires', async () => {
    for (const id of idsNewestFirst(60)) {
      const pepe = await pepeOf(id);
      const oembed = JSON.parse(doc(`oembed/${id}.json`));
      // Section 2.3.4: version and type for every type; 2.3.4.1: url, width and height for photo.
      const shown = pepe.thumbnails.at(-1) ?? pepe; // the largest rendition, else the original
      expect(oembed).toMatchObject({ version: '1.0', type: 'photo', url: shown.url, width: shown.width, height: shown.height, provider_name: 'Pepe Catalogue', provider_url: `${TEST_URLS.baseUrl}/` });
      expect(Number.isInteger(oembed.width) && oembed.width > 0 && Number.isInteger(oembed.height) && oembed.height > 0).toBe(true);
      if (pepe.artist === null) expect(oembed).not.toHaveProperty('author_name');
      else expect(oembed.author_name).toBe(pepe.artist);
    }
  });
});

describe('feeds', () => {
  const newest = idsNewestFirst(60).slice(0, FEED_SIZE);

  it('Atom (read back with feedsmith): the 50 newest, newest first, each with its share page, its picture and its dates', async () => {
    const feed = parseAtomFeed(doc('feed.xml'));
    expect(feed.title?.value).toBe('Pepe Catalogue');
    expect(feed.links).toEqual(expect.arrayContaining([{ rel: 'self', type: 'application/atom+xml', href: `${TEST_URLS.baseUrl}/feed.xml` }]));
    expect(feed.entries?.map((entry) => entry.id)).toEqual(newest.map((id) => `urn:uuid:${id}`));
    for (const entry of feed.entries!) {
      const pepe = await pepeOf(entry.id!.slice('urn:uuid:'.length));
      expect(entry.links).toEqual([
        { rel: 'alternate', type: 'text/html', href: `${TEST_URLS.baseUrl}/p/${pepe.id}` },
        { rel: 'enclosure', type: expect.stringMatching(/^image\//), length: pepe.file_size, href: pepe.url },
      ]);
      expect([entry.published, entry.updated]).toEqual([pepe.created_at, pepe.updated_at]);
      expect(entry.content?.value).toContain(`<img src="${pepe.url}"`);
      expect(entry.categories?.map((c) => c.term) ?? null).toEqual(pepe.tags);
      expect(entry.authors?.[0]?.name ?? null).toBe(pepe.artist);
    }
  });

  it('JSON Feed 1.1 (read back with feedsmith, and its required fields): the same 50, each with its picture', async () => {
    const text = doc('feed.json');
    const raw = JSON.parse(text);
    // JSON Feed 1.1 requires version, title and items; every item an id and content_html or content_text.
    expect(raw.version).toBe('https://jsonfeed.org/version/1.1');
    expect(typeof raw.title).toBe('string');
    for (const item of raw.items) expect(typeof item.id === 'string' && typeof item.content_html === 'string').toBe(true);
    const feed = parseJsonFeed(text);
    expect(feed.feed_url).toBe(`${TEST_URLS.baseUrl}/feed.json`);
    expect(feed.items?.map((item) => item.id)).toEqual(newest);
    for (const item of feed.items!) {
      const pepe = await pepeOf(item.id!);
      expect(item.url).toBe(`${TEST_URLS.baseUrl}/p/${pepe.id}`);
      expect(item.image).toBe(pepe.url);
      expect(item.attachments).toEqual([{ url: pepe.url, mime_type: expect.stringMatching(/^image\//), size_in_bytes: pepe.file_size }]);
      expect(item.content_html).toContain(`<img src="${pepe.url}"`);
      expect([item.date_published, item.date_modified]).toEqual([pepe.created_at, pepe.updated_at]);
    }
  });

  it('are empty but valid for an empty catalogue', () => {
    const empty = new Map(siteDocuments(openCatalogue(testCatalogue(0)), { imageSha256: fakeSha }).map((file) => [file.path, file.body!]));
    expect(parseAtomFeed(empty.get('feed.xml')!).entries ?? []).toEqual([]);
    expect(JSON.parse(empty.get('feed.json')!).items).toEqual([]);
    expect(parseJsonFeed(empty.get('feed.json')!).items ?? []).toEqual([]);
  });
});

describe('the dataset', () => {
  /** The dataset of a catalogue, cut into small shards: path → body. */
  const dataset = (count: number) =>
    new Map(
      siteDocuments(openCatalogue(testCatalogue(count)), { imageSha256: fakeSha, datasetShape: { mean: 8, max: 16 } })
        .filter((file) => file.path.startsWith('dataset/'))
        .map((file) => [file.path, file.body!]),
    );
  const indexOf = (files: Map<string, string>) => JSON.parse(files.get('dataset/index.json')!) as DatasetIndex;
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  /** The shards' JSONL in index order, joined: what pepes.jsonl was. */
  const joined = (files: Map<string, string>) => indexOf(files).shards.map((shard) => files.get(`dataset/${shard.url}`)!).join('');
  const sixty = dataset(60);

  it('holds every record, oldest first, each line exactly the API record (the handler by id and the sorted pages)', async () => {
    const lines = joined(sixty).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => JSON.parse(line).id)).toEqual([...idsNewestFirst(60)].reverse());
    for (const line of lines) {
      const byId = await call(handler, `/api/pepe/${JSON.parse(line).id}`);
      expect(byId.text).toBe(`{"data":${line},"error":null}`);
    }
    const paged: unknown[] = [];
    for (const page of [1, 2, 3]) paged.push(...(await call(handler, `/api/pages/created_at_asc/${page}`)).json.data);
    expect(paged).toEqual(lines.map((line) => JSON.parse(line)));
  });

  it('indexes its shards in order with their size, sha256, count, first and last id, and each shard its images\' checksums', () => {
    const index = indexOf(sixty);
    expect(index.shards.length).toBeGreaterThan(3);
    expect(index).toMatchObject({ count: 60, catalogue_version: data.version, size: Buffer.byteLength(joined(sixty)) });
    // Nothing else is published: the shards, their checksums and the index.
    expect([...sixty.keys()].sort()).toEqual(['dataset/index.json', ...index.shards.flatMap((shard) => [`dataset/${shard.url}`, `dataset/${shard.image_sha256.url}`])].sort());
    for (const shard of index.shards) {
      const jsonl = sixty.get(`dataset/${shard.url}`)!;
      const sums = sixty.get(`dataset/${shard.image_sha256.url}`)!;
      // Content-addressed: each file is named by its own sha256.
      expect(shard.url).toBe(`shards/${sha(jsonl)}.jsonl`);
      expect(shard.image_sha256).toEqual({ url: `shards/${sha(sums)}.sha256`, size: Buffer.byteLength(sums), sha256: sha(sums) });
      const records = jsonl.trim().split('\n').map((line) => JSON.parse(line) as { id: string; file_name: string });
      expect(shard).toMatchObject({ size: Buffer.byteLength(jsonl), sha256: sha(jsonl), count: records.length, first_id: records[0]!.id, last_id: records.at(-1)!.id });
      expect(shard.count).toBeLessThanOrEqual(16);
      // `sha256sum -c` form, one line per image, in the shard's order.
      expect(sums).toBe(records.map((record) => `${fakeSha(record.file_name)}  images/${record.file_name}\n`).join(''));
    }
    expect(index.shards.reduce((sum, shard) => sum + shard.count, 0)).toBe(60);
  });

  it('is an empty index for an empty catalogue', () => {
    expect(indexOf(dataset(0))).toEqual({ count: 0, catalogue_version: expect.any(String), size: 0, shards: [] });
  });

  it('rewrites one shard for an edit, the last for an add of the newest, and leaves every other shard byte-identical across a run of changes', () => {
    // The shards of a plain record list, in the catalogue's order (created_at, ties by id): the cutting is what is under test.
    type Row = { id: string; created_at: string; tags: string[] };
    const shardsOf = (rows: Row[]) => {
      const ordered = [...rows].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
      const records = ordered.map((row) => ({ id: row.id, fileName: `${row.id}.png`, line: JSON.stringify(row) }));
      // Cut by content alone (no cut at max), to see the bound content-defined cutting gives.
      const files = new Map(datasetFiles(records, { catalogueVersion: 'v', imageSha256: fakeSha, shape: { mean: 6, max: 1000 } }).map((file) => [file.path, file.body]));
      return { files, ordered, urls: indexOf(files).shards.map((shard) => shard.url) };
    };
    type Change = { kind: 'edit' | 'add-newest' | 'add-back-dated' | 'remove'; pick: number };
    const change = fc.record({ kind: fc.constantFrom('edit' as const, 'add-newest' as const, 'add-back-dated' as const, 'remove' as const), pick: fc.nat() });
    let added = 0;
    fc.assert(
      fc.property(fc.array(change, { minLength: 1, maxLength: 10 }), (changes: Change[]) => {
        let rows: Row[] = Array.from({ length: 150 }, (_, i) => ({ id: testId(i), created_at: new Date(Date.UTC(2024, 0, 1 + (i >> 1))).toISOString(), tags: [] }));
        let before = shardsOf(rows);
        for (const { kind, pick } of changes) {
          const next = rows.map((row) => ({ ...row }));
          const fresh = (created_at: string): Row => ({ id: testId(10_000 + ++added), created_at, tags: [] });
          if (kind === 'edit') next[pick % next.length]!.tags = [`edited-${pick}`];
          else if (kind === 'add-newest') next.push(fresh('2030-01-01T00:00:00.000Z'.replace('2030', String(2030 + added))));
          else if (kind === 'add-back-dated') next.push(fresh(next[pick % next.length]!.created_at));
          else next.splice(pick % next.length, 1);
          const after = shardsOf(next);
          const gone = before.urls.filter((url) => !after.urls.includes(url));
          const made = after.urls.filter((url) => !before.urls.includes(url));
          const step = `${kind} ${pick}`;
          if (kind === 'edit') expect([gone.length, made.length], step).toEqual([1, 1]);
          // The chunk the record falls in, and one neighbour when a boundary record comes or goes.
          else expect(Math.max(gone.length, made.length), step).toBeLessThanOrEqual(2);
          // An add of the newest touches the last shard only (none when the last ended on a boundary record).
          if (kind === 'add-newest') expect(before.urls.slice(-1), step).toEqual(expect.arrayContaining(gone));
          // Every other shard is the same file, byte for byte; the whole still reads as all records in order.
          for (const url of after.urls) if (before.urls.includes(url)) expect(after.files.get(`dataset/${url}`), step).toBe(before.files.get(`dataset/${url}`));
          expect(joined(after.files), step).toBe(after.ordered.map((row) => `${JSON.stringify(row)}\n`).join(''));
          rows = next;
          before = after;
        }
      }),
      { numRuns: 40, seed: 20_261_129 },
    );
  }, 60_000);

  it('keeps the newest records in small tail pieces, so an add dated now rewrites the last piece, until a boundary folds them into one shard', () => {
    const shape = { mean: 20, max: 1000, tail: { mean: 3, max: 6 } };
    const shardsOf = (count: number) => {
      const records = Array.from({ length: count }, (_, i) => ({ id: testId(i), fileName: `${testId(i)}.png`, line: JSON.stringify({ id: testId(i) }) }));
      return indexOf(new Map(datasetFiles(records, { catalogueVersion: 'v', imageSha256: fakeSha, shape }).map((file) => [file.path, file.body])));
    };
    let before = shardsOf(60);
    let folds = 0;
    for (let count = 61; count <= 260; count++) {
      const after = shardsOf(count);
      const urls = (index: DatasetIndex) => index.shards.map((shard) => shard.url);
      const gone = urls(before).filter((url) => !urls(after).includes(url));
      const made = after.shards.filter((shard) => !urls(before).includes(shard.url));
      // One file made: the last piece, or the shard the pieces fold into (the new record a boundary).
      expect(made.length, `${count} records`).toBe(1);
      expect(made[0]!.last_id).toBe(testId(count - 1));
      if (chunkHash(testId(count - 1)) % shape.mean === 0) {
        folds++;
        // What it replaces are the pieces after the last shard a boundary closed, all of them.
        expect(gone.length).toBe(before.shards.length - after.shards.length + 1);
      } else {
        expect(gone.length).toBeLessThanOrEqual(1);
        expect(made[0]!.count).toBeLessThanOrEqual(shape.tail.max);
      }
      expect(after.count).toBe(count);
      before = after;
    }
    expect(folds).toBeGreaterThan(3);
  }, 30_000);
});

describe('sitemap and robots.txt', () => {
  const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]!);
  /** The sitemap files the index lists, site-relative, in order. */
  const listedFiles = (files: Map<string, string>) => locs(files.get('sitemap.xml')!).map((url) => url.slice(`${TEST_URLS.baseUrl}/`.length));

  it('list the gallery and every share page under a sitemap index, and point crawlers at it', () => {
    expect(doc('sitemap.xml')).toContain('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    const files = listedFiles(documents);
    expect(files[0]).toBe('sitemaps/gallery.xml');
    expect(files.flatMap((path) => locs(doc(path)))).toEqual([`${TEST_URLS.baseUrl}/`, ...[...idsNewestFirst(60)].reverse().map((id) => `${TEST_URLS.baseUrl}/p/${id}`)]);
    expect(doc('robots.txt')).toContain(`\nSitemap: ${TEST_URLS.baseUrl}/sitemap.xml\n`);
    expect(doc('robots.txt')).toContain('Disallow: /api/\n');
  });

  it('cut the share pages into content-defined files named by their first id, so removing a pepe rewrites at most two', () => {
    const shape = { mean: 6, max: 10 };
    const render = (records: number) =>
      new Map(siteDocuments(openCatalogue(testCatalogue(records)), { imageSha256: fakeSha, sitemapChunks: shape }).map((file) => [file.path, file.body!]));
    const split = render(60);
    const parts = listedFiles(split).slice(1);
    expect(parts.length).toBeGreaterThan(4);
    for (const path of parts) {
      const urls = locs(split.get(path)!);
      expect(urls.length).toBeLessThanOrEqual(shape.max);
      expect(path).toBe(`sitemaps/${urls[0]!.slice(`${TEST_URLS.baseUrl}/p/`.length)}.xml`);
    }
    // testCatalogue(59) is testCatalogue(60) without its newest record: only the last file changes.
    const smaller = render(59);
    const changed = [...split.keys()].filter((path) => path.startsWith('sitemaps/') && split.get(path) !== smaller.get(path));
    expect(changed.length).toBeGreaterThanOrEqual(1);
    expect(changed.length).toBeLessThanOrEqual(2);
  });
});

describe('credits through a real build', () => {
  let site: FixtureSite;
  beforeAll(async () => {
    site = await buildFixtureSite({ count: 7 });
  });
  afterAll(async () => site?.cleanup());

  it('reach the by-id answer, the dataset and the share page; uncredited records carry nulls; the gallery links the feeds', async () => {
    const siteDir = join(site.distDir, 'site');
    // Fixture 3 is credited with characters HTML must escape (fixture-catalogue.ts), fixture 1 not at all.
    const credited = site.records.find((record) => record.artist === 'Frog & <Sons> "Ltd"')!;
    expect(credited).toMatchObject({ source_url: 'https://art.example/pepe/3?a=1&b=2', license: 'CC-BY-4.0' });
    const byId = JSON.parse(await readFile(join(siteDir, 'api/pepe', credited.id), 'utf8'));
    expect(byId.data).toMatchObject({ artist: 'Frog & <Sons> "Ltd"', source_url: 'https://art.example/pepe/3?a=1&b=2', license: 'CC-BY-4.0' });
    const plain = site.records.find((record) => record.artist === null)!;
    expect(JSON.parse(await readFile(join(siteDir, 'api/pepe', plain.id), 'utf8')).data).toMatchObject({ artist: null, source_url: null, license: null });
    const share = await readFile(join(siteDir, 'p', credited.id), 'utf8');
    expect(share).toContain('<p class="credit">By Frog &amp; &lt;Sons&gt; &quot;Ltd&quot; · <a href="https://art.example/pepe/3?a=1&amp;b=2" rel="nofollow noopener">Source</a> · Licence: CC-BY-4.0</p>');
    const index = JSON.parse(await readFile(join(siteDir, 'dataset/index.json'), 'utf8')) as DatasetIndex;
    expect(index.shards).toHaveLength(1);
    const jsonl = await readFile(join(siteDir, 'dataset', index.shards[0]!.url), 'utf8');
    expect(jsonl.trim().split('\n').map((line) => JSON.parse(line))).toContainEqual(byId.data);
    // The image checksums are the published images' own.
    const sums = await readFile(join(siteDir, 'dataset', index.shards[0]!.image_sha256.url), 'utf8');
    const [hash, name] = sums.split('\n')[0]!.split('  ');
    expect(createHash('sha256').update(await readFile(join(siteDir, name!))).digest('hex')).toBe(hash);
    const gallery = await readFile(join(siteDir, 'index.html'), 'utf8');
    expect(links(gallery)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ rel: 'alternate', type: 'application/atom+xml', href: '/feed.xml' }),
        expect.objectContaining({ rel: 'alternate', type: 'application/feed+json', href: '/feed.json' }),
      ]),
    );
  });
});

describe('documents of content that bypassed pepe check', () => {
  // Every class the sidecar rules refuse, as a build of unchecked content would carry it.
  const REFUSED = '\u0000\u0001\u0008\u000b\u000c\u000e\u001b\u001f\u007f\u0085\u009b\ufdd0\ufffe\uffff\u{1fffe}\u202a\u202e\u2066\u2069\udfff\ud800';
  const records = testRecords(3).map((record, k) => (k === 0 ? { ...record, description: `cap${REFUSED}tion\ttab\nline`, tags: [`t${REFUSED}`], artist: `A${REFUSED}`, license: `L${REFUSED}` } : record));
  const bad = compileCatalogue(records, TEST_URLS);
  const files = new Map(siteDocuments(openCatalogue(bad), { imageSha256: fakeSha }).map((file) => [file.path, file.body!]));
  const id = records[0]!.id;
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(() => browser?.close());

  /** Chromium's XML parser (libxml2, strict: one bad character rejects the whole document), as a feed reader in the browser meets it. */
  const parseXml = async (xml: string) => {
    const page = await browser.newPage();
    try {
      return await page.evaluate((text) => {
        const parsed = new DOMParser().parseFromString(text, 'application/xml');
        const error = parsed.querySelector('parsererror');
        return { error: error?.textContent ?? null, summaries: [...parsed.getElementsByTagName('summary')].map((node) => node.textContent), terms: [...parsed.getElementsByTagName('category')].map((node) => node.getAttribute('term')) };
      }, xml);
    } finally {
      await page.close();
    }
  };

  it('still write an Atom feed a strict XML parser accepts, each unsafe character shown as U+FFFD', async () => {
    const feed = await parseXml(files.get('feed.xml')!);
    expect(feed.error).toBeNull();
    const shown = '\ufffd'.repeat([...REFUSED].length);
    expect(feed.summaries).toContain(`cap${shown}tion\ttab\nline`);
    expect(feed.terms).toContain(`t${shown}`);
    expect((await parseXml(files.get('sitemap.xml')!)).error).toBeNull();
  });

  it('write share pages and JSON without a raw control or bidi character', () => {
    const page = files.get(`p/${id}`)!;
    expect(page).toContain('cap\ufffd');
    expect(page).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufffe\uffff]/u);
    // JSON escapes what it must; a lone surrogate is written as an escape, so strict JSON readers still read the feed.
    expect(() => JSON.parse(files.get('feed.json')!)).not.toThrow();
    expect(files.get('feed.json')).not.toMatch(/[\p{Cs}\u0000-\u0009\u000b-\u001f]/u);
  });
});
