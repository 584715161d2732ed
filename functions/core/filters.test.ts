import { describe, expect, it } from 'vitest';
import { createHandler } from './handler.js';
import { orientationOf } from './filters.js';
import { seededRandom } from './shuffle.js';
import { call, idsNewestFirst, testCatalogue, testRecords } from '../../tools/testing/test-catalogue.js';
import type { PepeRecord } from './record.js';

const data = testCatalogue(30);
const handler = createHandler(data, { random: seededRandom('filters') });
const records = new Map(testRecords(30).map((r) => [r.id, r]));
const newest = idsNewestFirst(30);

interface Wanted {
  tags?: string[];
  exclude?: string[];
  animated?: boolean;
  orientation?: string;
}

/** The simple reference: a record passes when it has every wanted tag, no excluded one, and the wanted kind and shape. */
const passes = (r: PepeRecord, want: Wanted): boolean =>
  (want.tags ?? []).every((t) => r.tags?.includes(t)) &&
  !(want.exclude ?? []).some((t) => r.tags?.includes(t)) &&
  (want.animated === undefined || r.animated === want.animated) &&
  (want.orientation === undefined || orientationOf(r.width, r.height) === want.orientation);

/** Every result of a variant A list query, paging through with limit=25. */
async function allIds(query: string): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const r = await call(handler, `/api/pepe?limit=25&page=${page}&${query}`);
    expect(r.status, r.text).toBe(200);
    ids.push(...r.json.data.map((p: { id: string }) => p.id));
    if (!r.json.meta.pagination.has_next) return ids;
  }
}

describe('filters on GET /api/pepe', () => {
  it.each<[string, Wanted]>([
    ['tags=smug', { tags: ['smug'] }],
    ['tags=smug,happy', { tags: ['smug', 'happy'] }],
    ['tags=%20SMUG%20,Caf%C3%A9', { tags: ['smug', 'café'] }],
    ['tags=Cafe%CC%81', { tags: ['café'] }],
    ['exclude_tags=smug', { exclude: ['smug'] }],
    ['exclude_tags=smug,rain', { exclude: ['smug', 'rain'] }],
    ['tags=smug&exclude_tags=happy', { tags: ['smug'], exclude: ['happy'] }],
    ['animated=true', { animated: true }],
    ['animated=0', { animated: false }],
    ['animated=FALSE&orientation=portrait', { animated: false, orientation: 'portrait' }],
    ['orientation=square', { orientation: 'square' }],
    ['orientation=landscape&tags=smug', { orientation: 'landscape', tags: ['smug'] }],
    ['tags=nosuchtag', { tags: ['nosuchtag'] }],
    ['exclude_tags=nosuchtag', { exclude: ['nosuchtag'] }],
  ])('%s keeps exactly the records the reference keeps, newest first', async (query, want) => {
    const expected = newest.filter((id) => passes(records.get(id)!, want));
    expect(await allIds(query)).toEqual(expected);
  });

  it.each([
    ['search=pepe', 'tags=smug', { tags: ['smug'] }],
    ['search=frog&sort=created_at_asc', 'exclude_tags=sad&orientation=portrait', { exclude: ['sad'], orientation: 'portrait' }],
    ['search=smug&sort=relevance', 'animated=false', { animated: false }],
  ] as [string, string, Wanted][])('combines with %s: the unfiltered order, minus what %s drops', async (search, filter, want) => {
    const unfiltered = await allIds(search);
    expect(unfiltered.length).toBeGreaterThan(0);
    expect(await allIds(`${search}&${filter}`)).toEqual(unfiltered.filter((id) => passes(records.get(id)!, want)));
  });

  it('combines with field=id: the pepe when the filters keep it, an empty list when they drop it', async () => {
    const id = newest[0]!;
    const shape = orientationOf(records.get(id)!.width, records.get(id)!.height);
    const other = shape === 'square' ? 'portrait' : 'square';
    expect(await allIds(`field=id&search=${id}&orientation=${shape}`)).toEqual([id]);
    expect(await allIds(`field=id&search=${id}&orientation=${other}`)).toEqual([]);
  });

  it('combines with a seeded shuffle: the same set, pages continue each other', async () => {
    const shuffled = await allIds('random=true&seed=abc&tags=smug');
    expect([...shuffled].sort()).toEqual(newest.filter((id) => passes(records.get(id)!, { tags: ['smug'] })).sort());
    expect(await allIds('random=true&seed=abc&tags=smug')).toEqual(shuffled);
  });

  it('echoes the filters in effect in meta (limit>1 and limit=1), and adds nothing without filters', async () => {
    const page = await call(handler, '/api/pepe?limit=5&tags=SMUG,happy&animated=1');
    expect(page.json.meta).toEqual({
      pagination: { page: 1, limit: 5, total_items: page.json.meta.pagination.total_items, total_pages: 1, has_next: false, has_previous: false },
      search: { terms: '', found: true },
      sort: 'created_at_desc',
      filters: { tags: ['smug', 'happy'], exclude_tags: [], animated: true, orientation: null },
    });
    const single = await call(handler, '/api/pepe?orientation=square&exclude_tags=smug');
    expect(single.json.meta).toEqual({ search: { terms: '', found: true }, filters: { tags: [], exclude_tags: ['smug'], animated: null, orientation: 'square' } });
    expect(passes(records.get(single.json.data.id)!, { orientation: 'square', exclude: ['smug'] })).toBe(true);
    expect((await call(handler, '/api/pepe?limit=2&tags=')).json.meta).not.toHaveProperty('filters');
  });

  it('with limit=1, falls back to a random pepe the filters keep when the search finds nothing, and to null when they keep none', async () => {
    for (let i = 0; i < 10; i++) {
      const r = await call(handler, '/api/pepe?search=nothingmatcheshere&animated=true');
      expect(r.json.meta.search.found).toBe(false);
      expect(records.get(r.json.data.id)!.animated).toBe(true);
    }
    const none = await call(handler, '/api/pepe?tags=smug&exclude_tags=smug&search=nothingmatcheshere');
    expect(none.json.data).toBeNull();
    expect((await call(handler, '/api/pepe?tags=nosuchtag')).json).toMatchObject({ data: null, meta: { search: { found: false } } });
  });

  it.each([
    ['tags=smug,,happy', 'tags must be tags separated by commas, none of them empty (got "smug,,happy")'],
    ['tags=smug,', 'tags must be tags separated by commas, none of them empty (got "smug,")'],
    ['exclude_tags=a%09b', 'exclude_tags must not contain control characters (got "a\\tb")'],
    [`tags=${Array.from({ length: 21 }, (_, i) => `t${i}`).join(',')}`, 'tags must list at most 20 tags (got 21)'],
    ['animated=yes', 'animated must be true, false, 1 or 0 (got "yes")'],
    ['animated=', 'animated must be true, false, 1 or 0 (got "")'],
    ['orientation=round', 'orientation must be "portrait", "landscape" or "square" (got "round")'],
    ['orientation=Square', 'orientation must be "portrait", "landscape" or "square" (got "Square")'],
    ['tags=a&tags=b', 'tags must be given at most once (got 2 values: "a", "b")'],
  ])('refuses %s with a 400 naming the parameter', async (query, message) => {
    for (const path of ['/api/pepe', '/api/public/pepes/']) {
      const r = await call(handler, `${path}?${query}`);
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ data: null, error: { code: 'VALIDATION_ERROR', message } });
    }
  });
});

describe('filters on GET /v1/pepe', () => {
  it('keeps exactly the records with every tag and none excluded, combined with the description search', async () => {
    const ids = async (query: string) => ((await call(handler, `/v1/pepe?limit=100&${query}`)).json.result as { id: string }[]).map((p) => p.id).sort();
    expect(await ids('tags=smug')).toEqual(newest.filter((id) => passes(records.get(id)!, { tags: ['smug'] })).sort());
    expect(await ids('exclude_tags=smug,comfy')).toEqual(newest.filter((id) => passes(records.get(id)!, { exclude: ['smug', 'comfy'] })).sort());
    const searched = await ids('search=pepe');
    expect(await ids('search=pepe&tags=smug')).toEqual(searched.filter((id) => passes(records.get(id)!, { tags: ['smug'] })));
  });

  it('refuses a bad tag list in its own error shape, and ignores the variant A filters', async () => {
    expect((await call(handler, '/v1/pepe?exclude_tags=,')).json).toEqual({
      result: null,
      status: 'error',
      error: { code: 'VALIDATION_ERROR', message: 'exclude_tags must be tags separated by commas, none of them empty (got ",")' },
    });
    expect((await call(handler, '/v1/pepe?animated=yes&limit=3')).status).toBe(200);
  });
});
