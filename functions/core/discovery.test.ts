import { describe, expect, it } from 'vitest';
import { compileCatalogue } from './catalogue.js';
import { createHandler } from './handler.js';
import type { PepeRecord } from './record.js';
import { SIMILAR_LIMIT, SIMILAR_MAX_DISTANCE } from './similar.js';
import { call, testCatalogue, testId, testRecords, TEST_URLS } from '../../tools/testing/test-catalogue.js';

const NOW = Date.parse('2024-01-20T15:30:00Z');
const data = testCatalogue(30);
const handler = createHandler(data, { now: () => NOW });
const records = testRecords(30);

describe('GET /api/tags', () => {
  it('lists every tag with the number of records that have it, by count descending then tag', async () => {
    const counts = new Map<string, number>();
    for (const record of records) for (const tag of record.tags ?? []) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    const expected = [...counts].map(([tag, count]) => ({ tag, count })).sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : 1));
    const r = await call(handler, '/api/tags');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ data: expected, meta: { total_items: expected.length }, error: null });
    expect(r.headers.get('ETag')).toBeTruthy();
    expect((await call(handler, '/api/tags/')).text).toBe(r.text);
  });

  it('is an empty list for a catalogue without tags', async () => {
    const untagged = createHandler(compileCatalogue(testRecords(3).map((record) => ({ ...record, tags: null })), TEST_URLS));
    expect((await call(untagged, '/api/tags')).json).toEqual({ data: [], meta: { total_items: 0 }, error: null });
  });
});

/** A record whose phash is `base` with the lowest `flips` bits inverted. */
const hashed = (i: number, base: bigint, flips: number): PepeRecord => ({
  ...testRecords(60)[i]!,
  id: testId(i),
  phash: (base ^ ((1n << BigInt(flips)) - 1n)).toString(16).padStart(16, '0'),
});

describe('GET /api/similar/{id}', () => {
  // Three clusters: 14 near-identical hashes (more than SIMILAR_LIMIT each), a chain at growing distances, and loners.
  const A = 0x0f0f_0f0f_0f0f_0f0fn;
  const B = 0x3355_aacc_9966_1234n;
  const own: PepeRecord[] = [
    ...Array.from({ length: 14 }, (_, i) => hashed(i, A, i % 3)),
    ...Array.from({ length: 12 }, (_, i) => hashed(14 + i, B, i)),
    hashed(26, 0xffff_ffff_0000_0000n, 0),
    hashed(27, 0x0000_0000_ffff_ffffn, 0),
  ];
  const similar = createHandler(compileCatalogue(own, TEST_URLS));
  const distance = (a: PepeRecord, b: PepeRecord) => {
    let x = BigInt(`0x${a.phash}`) ^ BigInt(`0x${b.phash}`);
    let bits = 0;
    for (; x > 0n; x >>= 1n) bits += Number(x & 1n);
    return bits;
  };
  /** The all-pairs reference. */
  const reference = (record: PepeRecord) =>
    own
      .filter((other) => other !== record)
      .map((other) => ({ id: other.id, distance: distance(record, other) }))
      .filter((n) => n.distance <= SIMILAR_MAX_DISTANCE)
      .sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : 1))
      .slice(0, SIMILAR_LIMIT);

  it('answers up to 12 others by distance ascending, ties by id, within the cut-off, never the record itself', async () => {
    for (const record of own) {
      const r = await call(similar, `/api/similar/${record.id}`);
      expect(r.status).toBe(200);
      const want = reference(record);
      expect(r.json.data.map((p: { id: string; distance: number }) => ({ id: p.id, distance: p.distance }))).toEqual(want);
      expect(r.json.meta).toEqual({ total_items: want.length, max_distance: SIMILAR_MAX_DISTANCE });
    }
    expect(reference(own[0]!)).toHaveLength(SIMILAR_LIMIT);
    expect(reference(own[26]!)).toEqual([]);
  });

  it('is symmetric where neither list is cut at 12', async () => {
    const lists = new Map<string, string[]>();
    for (const record of own) lists.set(record.id, (await call(similar, `/api/similar/${record.id}`)).json.data.map((p: { id: string }) => p.id));
    for (const [id, list] of lists) {
      for (const other of list) if (list.length < SIMILAR_LIMIT && lists.get(other)!.length < SIMILAR_LIMIT) expect(lists.get(other)).toContain(id);
    }
  });

  it('gives each similar pepe as its variant A object plus its distance', async () => {
    const r = await call(similar, `/api/similar/${own[14]!.id}`);
    const first = r.json.data[0];
    const { distance, ...pepe } = first;
    expect(distance).toBe(1);
    expect(pepe).toEqual((await call(similar, `/api/pepe/${first.id}`)).json.data);
  });

  it('accepts any letter case and a trailing slash; 400 for a malformed id, 404 for an unknown one', async () => {
    const id = own[3]!.id;
    const canonical = (await call(similar, `/api/similar/${id}`)).text;
    expect((await call(similar, `/api/similar/${id.toUpperCase()}/`)).text).toBe(canonical);
    expect((await call(similar, '/api/similar/nope')).json).toEqual({
      data: null,
      error: { code: 'VALIDATION_ERROR', message: 'id must be a UUID like 3f1c2a9e-8b7d-4c5e-9a10-6b2d4e8f1a37 (got "nope")' },
    });
    const unknown = await call(similar, '/api/similar/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toEqual({ code: 'NOT_FOUND', message: 'No pepe with id 00000000-0000-4000-8000-000000000000' });
    expect((await call(similar, '/api/similar')).status).toBe(404);
  });
});

describe('GET /api/daily', () => {
  // testRecords: record i was created on 2024-01-(1 + i) (every fifth one on the day before).
  const createdBy = (date: string) => records.filter((r) => r.created_at.slice(0, 10) <= date).map((r) => r.id);

  it('answers a pepe created on or before the day, today (UTC) by default, cacheable until the next UTC midnight', async () => {
    const r = await call(handler, '/api/daily');
    expect(r.status).toBe(200);
    expect(r.json.meta).toEqual({ date: '2024-01-20' });
    expect(createdBy('2024-01-20')).toContain(r.json.data.id);
    expect(r.json.error).toBeNull();
    const untilMidnight = (Date.parse('2024-01-21T00:00:00Z') - NOW) / 1000;
    expect(r.headers.get('Cache-Control')).toBe(`public, max-age=${untilMidnight}`);
    expect(r.headers.get('Netlify-CDN-Cache-Control')).toBe(`public, durable, s-maxage=${untilMidnight}`);
    expect((await call(handler, '/api/daily?date=2024-01-20')).text).toBe(r.text);
  });

  it('is the same all day and whatever the order of requests, and changes from day to day', async () => {
    const dates = Array.from({ length: 19 }, (_, i) => `2024-01-${String(i + 2).padStart(2, '0')}`);
    const pick = async (h: typeof handler, date: string) => (await call(h, `/api/daily?date=${date}`)).json.data.id as string;
    const forward = new Map<string, string>();
    for (const date of dates) forward.set(date, await pick(handler, date));
    const later = createHandler(data, { now: () => Date.parse('2024-01-20T23:59:59Z') });
    for (const date of [...dates].reverse()) expect(await pick(later, date)).toBe(forward.get(date));
    for (const [date, id] of forward) expect(createdBy(date)).toContain(id);
    expect(new Set(forward.values()).size).toBeGreaterThan(5);
    const pastDay = await call(handler, '/api/daily?date=2024-01-05');
    expect(pastDay.headers.get('Cache-Control')).toBe('public, max-age=60');
  });

  it.each([
    ['date=2024-01-21', 'date must not be after today, 2024-01-20 in UTC (got "2024-01-21")'],
    ['date=2024-02-30', 'date must be a calendar date written YYYY-MM-DD, such as 2024-01-20 (got "2024-02-30")'],
    ['date=2024-1-05', 'date must be a calendar date written YYYY-MM-DD, such as 2024-01-20 (got "2024-1-05")'],
    ['date=today', 'date must be a calendar date written YYYY-MM-DD, such as 2024-01-20 (got "today")'],
    ['date=', 'date must be a calendar date written YYYY-MM-DD, such as 2024-01-20 (got "")'],
    ['date=2024-01-01&date=2024-01-02', 'date must be given at most once (got 2 values: "2024-01-01", "2024-01-02")'],
  ])('refuses %s with a 400 naming the parameter', async (query, message) => {
    const r = await call(handler, `/api/daily?${query}`);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ data: null, error: { code: 'VALIDATION_ERROR', message } });
  });

  it('is a 404 for a day before the first pepe', async () => {
    const r = await call(handler, '/api/daily?date=2023-12-31');
    expect(r.status).toBe(404);
    expect(r.json.error).toEqual({ code: 'NOT_FOUND', message: 'No pepe was created on or before 2023-12-31; try a later date' });
  });
});
