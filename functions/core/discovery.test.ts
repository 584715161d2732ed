import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileCatalogue, similarLists, type SimilarListsOf, updateSimilarLists } from './catalogue.js';
import { createHandler } from './handler.js';
import { compareRecords, type PepeRecord } from './record.js';
import { SIMILAR_LIMIT, SIMILAR_MAX_DISTANCE } from './similar.js';
import { similarQuery } from './schemas.js';
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
/** The Hamming distance of two 16-hex-digit hashes, bit by bit. */
const hexDistance = (a: string, b: string) => {
  let x = BigInt(`0x${a}`) ^ BigInt(`0x${b}`);
  let bits = 0;
  for (; x > 0n; x >>= 1n) bits += Number(x & 1n);
  return bits;
};
const distance = (a: PepeRecord, b: PepeRecord) => hexDistance(a.phash, b.phash);
/** Brute force over every record: the ids and distances within `max` bits, nearest first, ties by id, at most SIMILAR_LIMIT. */
const nearestReference = (records: readonly PepeRecord[], phash: string, max: number) =>
  records
    .map((other) => ({ id: other.id, distance: hexDistance(phash, other.phash) }))
    .filter((n) => n.distance <= max)
    .sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : 1))
    .slice(0, SIMILAR_LIMIT);
const idsAndDistances = (body: { data: { id: string; distance: number }[] }) => body.data.map((p) => ({ id: p.id, distance: p.distance }));
const hex = (hash: bigint) => hash.toString(16).padStart(16, '0');

describe('GET /api/similar/{id}', () => {
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

  it('are the same lists when made from a previous build\'s after records are added, removed or given another phash', () => {
    const of = (records: readonly PepeRecord[]): SimilarListsOf => {
      return { ids: records.map((r) => r.id), phashes: records.map((r) => r.phash), lists: similarLists(records) };
    };
    fc.assert(
      fc.property(fc.array(fc.record({ kind: fc.constantFrom('add', 'remove', 'rehash'), pick: fc.nat(60), flips: fc.nat(9) }), { minLength: 1, maxLength: 5 }), (edits) => {
        let records = [...own];
        for (const edit of edits) {
          const at = edit.pick % records.length;
          if (edit.kind === 'add') records.push(hashed(28 + edit.pick, edit.pick % 2 ? A : B, edit.flips));
          else if (edit.kind === 'remove' && records.length > 1) records.splice(at, 1);
          else {
            // Some phashes in capitals, some not phashes at all: read as the whole search reads them.
            const phash = hex((edit.pick % 2 ? A : B) ^ ((1n << BigInt(edit.flips)) - 1n));
            records[at] = { ...records[at]!, phash: edit.flips === 8 ? 'not a phash' : edit.flips === 9 ? phash.toUpperCase() : phash };
          }
        }
        records = [...new Map(records.map((r) => [r.id, r])).values()].sort(compareRecords);
        expect(updateSimilarLists(of(own), records)).toEqual(similarLists(records));
      }),
      { numRuns: 200, seed: 35 },
    );
    // More changed than it pays to follow: the whole search instead.
    expect(updateSimilarLists(of(own), own.map((r) => ({ ...r, phash: hex(A ^ 0xffn) })).concat(Array.from({ length: 70 }, (_, i) => hashed(100 + i, B, 1))))).toBeNull();
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
  });
});

describe('GET /api/similar?phash= (search by picture)', () => {
  it('answers the pepes within max_distance of the phash, nearest first, ties by id, at most 12: the brute-force reference', async () => {
    const queries = [
      ...own.map((record) => record.phash),
      // Around the chain: B itself, and B with bits flipped beyond the chain's own.
      ...[0, 1, 3, 7, 8, 9].map((flips) => hex(B ^ (((1n << BigInt(flips)) - 1n) << 40n))),
      hex(A ^ 0xffn),
      hex(0x5555_5555_5555_5555n),
    ];
    for (const phash of queries) {
      for (const max of [undefined, 0, 1, 3, 6, 7]) {
        const r = await call(similar, `/api/similar?phash=${phash}${max === undefined ? '' : `&max_distance=${max}`}`);
        expect(r.status).toBe(200);
        const want = nearestReference(own, phash, max ?? SIMILAR_MAX_DISTANCE);
        expect(idsAndDistances(r.json), `${phash} within ${max}`).toEqual(want);
        expect(r.json.meta).toEqual({ total_items: want.length, max_distance: max ?? SIMILAR_MAX_DISTANCE, phash });
        expect(r.json.error).toBeNull();
      }
    }
  });

  it('includes a pepe exactly max_distance away and not one a bit further; ties by id; [] when nothing is that close', async () => {
    // The chain: record 14 + i is i bits from B.
    const chain = (await call(similar, `/api/similar?phash=${hex(B)}`)).json;
    expect(chain.data.map((p: { distance: number }) => p.distance)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(chain.data.at(-1).id).toBe(own[21]!.id);
    const three = (await call(similar, `/api/similar?phash=${hex(B)}&max_distance=3`)).json;
    expect(three.data.map((p: { id: string }) => p.id)).toEqual(own.slice(14, 18).map((r) => r.id));
    // Cluster A: 5 at distance 0, 5 at 1, 4 at 2: the 12 nearest cut the last tie by id.
    const crowd = (await call(similar, `/api/similar?phash=${hex(A)}`)).json;
    const atTwo = own.slice(0, 14).filter((r) => distance(r, own[2]!) === 0).map((r) => r.id).sort();
    expect(crowd.data.map((p: { distance: number }) => p.distance)).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2]);
    expect(crowd.data.slice(10).map((p: { id: string }) => p.id)).toEqual(atTwo.slice(0, 2));
    const none = await call(similar, `/api/similar?phash=${hex(0x5555_5555_5555_5555n)}`);
    expect(none.json).toEqual({ data: [], meta: { total_items: 0, max_distance: SIMILAR_MAX_DISTANCE, phash: '5555555555555555' }, error: null });
  });

  it('gives each match as its variant A object plus its distance, in the by-id lists\' envelope', async () => {
    const r = await call(similar, `/api/similar?phash=${own[14]!.phash}&max_distance=1`);
    const byId = (await call(similar, `/api/similar/${own[14]!.id}`)).json;
    const [self, next] = r.json.data;
    const { distance: selfDistance, ...pepe } = self;
    expect(selfDistance).toBe(0);
    expect(pepe).toEqual((await call(similar, `/api/pepe/${own[14]!.id}`)).json.data);
    expect(next).toEqual(byId.data[0]);
    expect(Object.keys(r.json)).toEqual(Object.keys(byId));
  });

  it('accepts upper-case hex, a trailing slash and leading zeros in max_distance, ignores unknown parameters, and is cacheable', async () => {
    const phash = own[3]!.phash;
    const r = await call(similar, `/api/similar?phash=${phash}`);
    expect(r.headers.get('ETag')).toBeTruthy();
    expect(r.headers.get('Cache-Control')).toBe('public, max-age=60');
    expect(r.headers.get('Netlify-CDN-Cache-Control')).toContain('durable');
    for (const variant of [`/api/similar?phash=${phash.toUpperCase()}`, `/api/similar/?phash=${phash}`, `/api/similar?max_distance=07&phash=${phash}&limit=3&x=y`]) {
      expect((await call(similar, variant)).text, variant).toBe(r.text);
    }
  });

  it('finds every record at any piece size, and never one whose stored phash is not a hash', async () => {
    const odd = [...own.slice(0, 20), { ...own[20]!, phash: 'not a phash' }];
    for (const maxPiece of [1, 40, 100]) {
      const handler = createHandler(compileCatalogue(odd, TEST_URLS, { maxPiece }));
      for (const phash of [hex(A), hex(B), own[20]!.phash]) {
        const want = nearestReference(odd.slice(0, 20), phash, SIMILAR_MAX_DISTANCE);
        expect(idsAndDistances((await call(handler, `/api/similar?phash=${phash}`)).json), `${maxPiece} ${phash}`).toEqual(want);
      }
    }
    const empty = createHandler(compileCatalogue([], TEST_URLS));
    expect((await call(empty, `/api/similar?phash=${hex(A)}`)).json.data).toEqual([]);
  });

  it('accepts exactly the values the OpenAPI document describes (the zod schema)', async () => {
    const phashes = ['0f0f0f0f0f0f0f0f', 'ABCDEF0123456789', 'abcdef012345678', '0f0f0f0f0f0f0f0f0', 'g0f0f0f0f0f0f0f0', '', ' 0f0f0f0f0f0f0f0'];
    const distances = [undefined, '0', '7', '007', '8', '-1', '1.0', '', 'x'];
    for (const phash of phashes) {
      for (const max of distances) {
        const query = new URLSearchParams({ phash, ...(max === undefined ? {} : { max_distance: max }) });
        const r = await call(similar, `/api/similar?${query}`);
        expect(r.status === 200, query.toString()).toBe(similarQuery.safeParse(Object.fromEntries(query)).success);
      }
    }
  });

  const EXPECTED = `16 hexadecimal digits, the 64-bit perceptual hash as Python's str(imagehash.phash(image)) writes it, such as c3d4e5f60718293a`;
  it.each([
    ['', `phash is required: ${EXPECTED}`],
    ['max_distance=3', `phash is required: ${EXPECTED}`],
    ['phash=', `phash must be ${EXPECTED} (got "")`],
    ['phash=0f0f0f0f0f0f0f0', `phash must be ${EXPECTED} (got "0f0f0f0f0f0f0f0")`],
    ['phash=0f0f0f0f0f0f0f0f0', `phash must be ${EXPECTED} (got "0f0f0f0f0f0f0f0f0")`],
    ['phash=0x0f0f0f0f0f0f0f', `phash must be ${EXPECTED} (got "0x0f0f0f0f0f0f0f")`],
    ['phash=0f0f0f0f0f0f0f0g', `phash must be ${EXPECTED} (got "0f0f0f0f0f0f0f0g")`],
    ['phash=+f0f0f0f0f0f0f0f', `phash must be ${EXPECTED} (got " f0f0f0f0f0f0f0f")`],
    ['phash=0f0f0f0f0f0f0f0f&phash=0f0f0f0f0f0f0f0e', 'phash must be given at most once (got 2 values: "0f0f0f0f0f0f0f0f", "0f0f0f0f0f0f0f0e")'],
    ['phash=0f0f0f0f0f0f0f0f&max_distance=8', 'max_distance must be an integer from 0 to 7 (got "8")'],
    ['phash=0f0f0f0f0f0f0f0f&max_distance=-1', 'max_distance must be an integer from 0 to 7 (got "-1")'],
    ['phash=0f0f0f0f0f0f0f0f&max_distance=2.0', 'max_distance must be an integer from 0 to 7 (got "2.0")'],
    ['phash=0f0f0f0f0f0f0f0f&max_distance=', 'max_distance must be an integer from 0 to 7 (got "")'],
    ['phash=0f0f0f0f0f0f0f0f&max_distance=%E0%A4%A', 'the query string has malformed percent-encoding in "max_distance=%E0%A4%A"; write a literal "%" as %25'],
  ])('refuses ?%s with a 400 naming the parameter', async (query, message) => {
    const r = await call(similar, `/api/similar?${query}`);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ data: null, error: { code: 'VALIDATION_ERROR', message } });
    expect(r.headers.get('Cache-Control')).toBe('public, max-age=60');
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
