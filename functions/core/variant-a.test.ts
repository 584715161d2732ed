import { describe, expect, it } from 'vitest';
import { compileCatalogue } from './catalogue.js';
import { precomputedFiles } from '../../tools/testing/test-catalogue.js';
import { createHandler } from './handler.js';
import { seededRandom } from './shuffle.js';
import { call, idsNewestFirst, testCatalogue, testRecords, TEST_URLS } from '../../tools/testing/test-catalogue.js';

const data = testCatalogue(30);
const handler = createHandler(data, { random: seededRandom('tests') });
const newest = idsNewestFirst(30);
const records = new Map(testRecords(30).map((r) => [r.id, r]));

describe('variant A list', () => {
  it('answers limit=1 (the default) with one object and meta.search only', async () => {
    const r = await call(handler, '/api/pepe');
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(['data', 'meta', 'error']);
    expect(r.json.data.id).toBe(newest[0]);
    expect(r.json.meta).toEqual({ search: { terms: '', found: true } });
    expect(r.json.error).toBeNull();
  });

  it('answers limit>1 with a page, pagination, search and sort meta', async () => {
    const r = await call(handler, '/api/pepe?limit=7&page=2');
    expect(r.json.data.map((p: { id: string }) => p.id)).toEqual(newest.slice(7, 14));
    expect(r.json.meta).toEqual({
      pagination: { page: 2, limit: 7, total_items: 30, total_pages: 5, has_next: true, has_previous: true },
      search: { terms: '', found: true },
      sort: 'created_at_desc',
    });
  });

  it('serves every field of the seed plus width, height, blurhash and thumbnails, with derived urls', async () => {
    const r = await call(handler, '/api/pepe?limit=25');
    expect(r.json.data).toHaveLength(25);
    for (const pepe of r.json.data) {
      const record = records.get(pepe.id)!;
      expect(pepe).toEqual({
        id: record.id,
        file_name: `${record.id}${record.file_ext}`,
        file_ext: record.file_ext,
        file_size: record.file_size,
        tags: record.tags,
        description: record.description,
        url: `${TEST_URLS.baseUrl}/images/${record.id}${record.file_ext}`,
        phash: record.phash,
        created_at: record.created_at,
        updated_at: record.updated_at,
        width: record.width,
        height: record.height,
        blurhash: record.blurhash,
        thumbnails: record.thumbnails.map((t) => ({ url: `${TEST_URLS.baseUrl}/images/${t.file_name}`, width: t.width, height: t.height, type: 'image/webp' })),
        artist: record.artist,
        source_url: record.source_url,
        license: record.license,
      });
    }
    expect(r.json.data.some((pepe: { thumbnails: unknown[] }) => pepe.thumbnails.length > 0)).toBe(true);
  });

  it('answers the same on every alias path, with or without a trailing slash', async () => {
    const expected = (await call(handler, '/api/pepe?limit=3&search=smug')).text;
    for (const path of ['/api/pepe/', '/api/pepe_image', '/api/public/pepe/', '/api/public/pepes']) {
      expect((await call(handler, `${path}?limit=3&search=smug`)).text).toBe(expected);
    }
  });

  it('orders created_at_asc as the exact reverse of created_at_desc (ties broken by id)', async () => {
    const asc = [];
    const desc = [];
    for (const page of [1, 2]) {
      asc.push(...(await call(handler, `/api/pepe?limit=15&page=${page}&sort=created_at_asc`)).json.data.map((p: { id: string }) => p.id));
      desc.push(...(await call(handler, `/api/pepe?limit=15&page=${page}`)).json.data.map((p: { id: string }) => p.id));
    }
    expect(desc).toEqual(newest);
    expect(asc).toEqual([...desc].reverse());
  });

  it('gives data [] and has_next false on a page past the end', async () => {
    const r = await call(handler, '/api/pepe?limit=10&page=4');
    expect(r.json.data).toEqual([]);
    expect(r.json.meta.pagination).toMatchObject({ page: 4, total_items: 30, total_pages: 3, has_next: false, has_previous: true });
  });

  it('gives data null with limit=1 past the end of a non-empty result set', async () => {
    const r = await call(handler, '/api/pepe?page=31');
    expect(r.json).toEqual({ data: null, meta: { search: { terms: '', found: true } }, error: null });
    expect(r.headers.get('cache-control')).toBe('public, max-age=60');
  });

  it('searches tags and descriptions, trims the terms and reports them', async () => {
    const r = await call(handler, '/api/pepe?limit=25&search=%20%20SMUG%20');
    expect(r.json.meta.search).toEqual({ terms: 'SMUG', found: true });
    const expected = newest.filter((id) => {
      const rec = records.get(id)!;
      return rec.tags?.includes('smug') || /smug/i.test(rec.description ?? '');
    });
    expect(r.json.data.map((p: { id: string }) => p.id)).toEqual(expected);
    expect(r.json.meta.pagination.total_items).toBe(expected.length);
  });

  it('answers a search that matches nothing with limit>1: data [], found false, total 0', async () => {
    const r = await call(handler, '/api/pepe?limit=5&search=zebra');
    expect(r.json.data).toEqual([]);
    expect(r.json.meta).toEqual({
      pagination: { page: 1, limit: 5, total_items: 0, total_pages: 0, has_next: false, has_previous: false },
      search: { terms: 'zebra', found: false },
      sort: 'created_at_desc',
    });
  });

  it('falls back to a random pepe with found=false and no-store when limit=1 finds nothing', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const r = await call(handler, '/api/pepe?search=zebra');
      expect(r.json.meta).toEqual({ search: { terms: 'zebra', found: false } });
      expect(records.has(r.json.data.id)).toBe(true);
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.headers.get('etag')).toBeNull();
      seen.add(r.json.data.id);
    }
    expect(seen.size).toBeGreaterThan(1);
  });

  it('orders by score with sort=relevance (tags weigh more than description)', async () => {
    const r = await call(handler, '/api/pepe?limit=25&search=smug&sort=relevance');
    expect(r.json.meta.sort).toBe('relevance');
    const ids: string[] = r.json.data.map((p: { id: string }) => p.id);
    const plain = (await call(handler, '/api/pepe?limit=25&search=smug')).json.data.map((p: { id: string }) => p.id);
    expect([...ids].sort()).toEqual([...plain].sort());
    const tagged = ids.map((id) => records.get(id)!.tags?.includes('smug') ?? false);
    // every tagged match comes before every description-only match
    expect(tagged.indexOf(false) === -1 || tagged.lastIndexOf(true) < tagged.indexOf(false)).toBe(true);
  });

  it('puts a description-only match after the tagged ones with sort=relevance, though it is the newest', async () => {
    // The shared test catalogue has no description-only "smug": a catalogue of its own, where date order and score order differ.
    const base = testRecords(1)[0]!;
    const at = (day: number) => new Date(Date.UTC(2024, 0, day)).toISOString();
    const record = (n: number, tags: string[] | null, description: string, day: number) => ({ ...base, id: `00000000-0000-4000-8000-00000000000${n}`, tags, description, created_at: at(day), updated_at: at(day) });
    const own = createHandler(compileCatalogue([record(1, ['smug'], 'a frog', 1), record(2, null, 'a smug frog sitting', 3), record(3, ['smug', 'happy'], 'a frog', 2), record(4, null, 'a sad frog', 4)], TEST_URLS));
    const byDate = (await call(own, '/api/pepe?limit=25&search=smug')).json.data.map((p: { id: string }) => p.id.slice(-1));
    expect(byDate).toEqual(['2', '3', '1']);
    const byScore = (await call(own, '/api/pepe?limit=25&search=smug&sort=relevance')).json.data.map((p: { id: string }) => p.id.slice(-1));
    expect(byScore).toHaveLength(3);
    expect([...byScore.slice(0, 2)].sort()).toEqual(['1', '3']);
    expect(byScore[2]).toBe('2');
  });

  it('looks up field=id in any letter case; an unknown UUID is an empty result', async () => {
    const id = newest[4]!;
    const r = await call(handler, `/api/pepe?field=id&search=${id.toUpperCase()}&limit=2`);
    expect(r.json.data.map((p: { id: string }) => p.id)).toEqual([id]);
    expect(r.json.meta.search.found).toBe(true);
    const single = await call(handler, `/api/pepe?field=id&search=${id}`);
    expect(single.json.data.id).toBe(id);
    const missing = await call(handler, '/api/pepe?field=id&search=00000000-0000-4000-8000-000000000000&limit=2');
    expect(missing.json.data).toEqual([]);
    expect(missing.json.meta.search.found).toBe(false);
  });

  it('shuffles with random=true, never caches it, and echoes the default sort', async () => {
    const r = await call(handler, '/api/pepe?random=TRUE&limit=25');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('netlify-cdn-cache-control')).toBeNull();
    expect(r.json.meta.sort).toBe('created_at_desc');
    const ids = r.json.data.map((p: { id: string }) => p.id);
    expect(new Set(ids).size).toBe(25);
    expect(ids).not.toEqual(newest.slice(0, 25));
  });

  it('makes a seeded shuffle repeatable and continues it across pages without repeats', async () => {
    const pages: string[][] = [];
    for (let page = 1; page <= 4; page++) {
      const r = await call(handler, `/api/pepe?random=1&seed=abc&limit=8&page=${page}`);
      pages.push(r.json.data.map((p: { id: string }) => p.id));
      const again = await call(handler, `/api/pepe?random=1&seed=abc&limit=8&page=${page}`);
      expect(again.text).toBe(r.text);
    }
    const all = pages.flat();
    expect(all.length).toBe(30);
    expect(new Set(all)).toEqual(new Set(newest));
    const other = (await call(handler, '/api/pepe?random=1&seed=abd&limit=8')).json.data.map((p: { id: string }) => p.id);
    expect(other).not.toEqual(pages[0]);
    // limit=1 walks the same order
    const second = await call(handler, '/api/pepe?random=true&seed=abc&page=2');
    expect(second.json.data.id).toBe(all[1]);
  });

  it('ignores sort when random=true (spec: "Ignored when random is true"), echoing it in meta.sort', async () => {
    const ids = (r: { json: { data: { id: string }[] } }) => r.json.data.map((p) => p.id);
    const plain = await call(handler, '/api/pepe?random=true&seed=s1&limit=8&page=2&search=smug');
    expect(plain.status).toBe(200);
    for (const sort of ['created_at_desc', 'created_at_asc', 'relevance']) {
      const r = await call(handler, `/api/pepe?random=true&seed=s1&limit=8&page=2&search=smug&sort=${sort}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('cache-control')).toBe('no-store');
      // The seeded shuffle does not depend on sort: same records in the same order.
      expect(ids(r)).toEqual(ids(plain));
      expect(r.json.meta.sort).toBe(sort);
    }
    const single = await call(handler, '/api/pepe?random=1&seed=s2&sort=created_at_asc');
    expect(single.status).toBe(200);
    expect(single.json.data.id).toBe((await call(handler, '/api/pepe?random=1&seed=s2')).json.data.id);
    expect(single.json.meta).toEqual({ search: { terms: '', found: true } });
  });

  it('shuffles only the matches of a search', async () => {
    const plain = (await call(handler, '/api/pepe?limit=25&search=smug')).json.data.map((p: { id: string }) => p.id);
    const shuffled = (await call(handler, '/api/pepe?limit=25&search=smug&random=true&seed=x')).json.data.map((p: { id: string }) => p.id);
    expect([...shuffled].sort()).toEqual([...plain].sort());
  });
});

describe('variant A by id', () => {
  it('answers {data, error} without meta, under every prefix and any letter case', async () => {
    const id = newest[2]!;
    for (const prefix of ['/api/pepe', '/api/pepe_image', '/api/public/pepe', '/api/public/pepes']) {
      const r = await call(handler, `${prefix}/${id.toUpperCase()}/`);
      expect(r.status).toBe(200);
      expect(Object.keys(r.json)).toEqual(['data', 'error']);
      expect(r.json.data.id).toBe(id);
    }
  });

  it('answers a seeded limit=1 search that finds nothing with the same fallback pepe every time', async () => {
    const url = '/api/pepe?random=true&seed=abc&search=zzzzqqq';
    const first = await call(handler, url);
    expect(first.json.meta.search).toEqual({ terms: 'zzzzqqq', found: false });
    for (let i = 0; i < 5; i++) expect((await call(handler, url)).json.data.id).toBe(first.json.data.id);
    const ids = new Set<string>();
    for (let i = 0; i < 8; i++) ids.add((await call(handler, `/api/pepe?random=true&seed=s${i}&search=zzzzqqq`)).json.data.id);
    expect(ids.size).toBeGreaterThan(1);
  });

  it('routes a path whose unreserved characters are percent-encoded like the plain path (RFC 3986)', async () => {
    const plain = await call(handler, '/api/pepe?limit=2');
    for (const path of ['/api/%70epe?limit=2', '/api/pep%65?limit=2', '/%61pi/pepe?limit=2', '/api/public/pepe%73?limit=2', '/api/pepe%5Fimage?limit=2', '/api/pepe%5fimage?limit=2']) {
      const encoded = await call(handler, path);
      expect(encoded.status, path).toBe(200);
      expect(encoded.text, path).toBe(plain.text);
    }
    // A reserved character stays encoded: %2F is not a path separator.
    expect((await call(handler, '/api%2Fpepe?limit=2')).status).toBe(404);
  });

  it('gives 404 NOT_FOUND naming the id for an unknown UUID', async () => {
    const r = await call(handler, '/api/pepe/00000000-0000-4000-8000-000000000000');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ data: null, error: { code: 'NOT_FOUND', message: 'No pepe with id 00000000-0000-4000-8000-000000000000' } });
    // Named as requested (the spec: "text that names the requested id").
    const upper = await call(handler, '/api/pepe/ABCDEF00-0000-4000-8000-00000000000A');
    expect(upper.json.error.message).toBe('No pepe with id ABCDEF00-0000-4000-8000-00000000000A');
  });

  it('gives 400 VALIDATION_ERROR for a malformed id', async () => {
    const r = await call(handler, '/api/public/pepe/not-a-uuid');
    expect(r.status).toBe(400);
    expect(r.json.data).toBeNull();
    expect(r.json.error.code).toBe('VALIDATION_ERROR');
    expect(r.json.error.message).toContain('"not-a-uuid"');
  });
});

describe('variant A sorted pages (/api/pages/<sort>/<n>, deprecated)', () => {
  // 60 records: pages of 25, 25 and 10.
  const sixty = testCatalogue(60);
  const pages = createHandler(sixty);

  it('answers every page of both orders byte-equal to the list answer for its query, and no longer as static files', async () => {
    for (const sort of ['created_at_desc', 'created_at_asc']) {
      for (const page of [1, 2, 3]) {
        const listed = await call(pages, `/api/pepe?limit=25&page=${page}&sort=${sort}`);
        const served = await call(pages, `/api/pages/${sort}/${page}`);
        expect(served.text).toBe(listed.text);
        expect(served.headers.get('ETag')).toBe(listed.headers.get('ETag'));
      }
    }
    expect(JSON.parse((await call(pages, '/api/pages/created_at_asc/3')).text).data).toHaveLength(10);
    expect(precomputedFiles(sixty).filter((file) => file.path.startsWith('api/pages/'))).toEqual([]);
  });

  it('answers a page past the end, page 0, another order or a longer path with a 404 that names the pages there are', async () => {
    for (const path of ['created_at_desc/4', 'created_at_desc/0', 'created_at_desc/01', 'relevance/1', 'created_at_asc/1/x', 'created_at_asc']) {
      const r = await call(pages, `/api/pages/${path}`);
      expect(r.status, path).toBe(404);
      expect(r.json.error).toEqual({ code: 'NOT_FOUND', message: `No sorted page "${path}"; use /api/pages/<created_at_desc|created_at_asc>/<n> with n from 1 to 3` });
    }
  });

  it('has an empty page 1 in both orders when the catalogue is empty', async () => {
    const empty = createHandler(testCatalogue(0));
    for (const sort of ['created_at_asc', 'created_at_desc']) {
      const r = await call(empty, `/api/pages/${sort}/1`);
      expect(r.status).toBe(200);
      expect(r.json.data).toEqual([]);
    }
  });

  it('points a listing path that no static file answers at the head', async () => {
    for (const path of ['/api/listing', `/api/listing/${testCatalogue(1).ids![0]}`]) {
      const r = await call(pages, path);
      expect(r.status, path).toBe(404);
      expect(r.json.error.message).toContain('the listing starts at /api/listing/head');
    }
  });
});

describe('an empty catalogue', () => {
  const empty = createHandler(testCatalogue(0));
  it('answers lists with nothing found and limit=1 with data null', async () => {
    expect((await call(empty, '/api/pepe')).json).toEqual({ data: null, meta: { search: { terms: '', found: false } }, error: null });
    expect((await call(empty, '/api/pepe?search=smug')).json.data).toBeNull();
    expect((await call(empty, '/api/pepe?limit=3')).json.meta.pagination.total_pages).toBe(0);
    expect((await call(empty, '/v1/pepe?limit=3')).json).toEqual({ result: [], status: 'success' });
  });
});
