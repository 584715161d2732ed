import { describe, expect, it } from 'vitest';
import { createHandler } from './handler.js';
import { call, testCatalogue, testId } from '../../tools/testing/test-catalogue.js';

const handler = createHandler(testCatalogue(12));

/** [query, exact message] for variant A; every message names the parameter, the value and what is allowed. */
const BAD_A: [string, string][] = [
  ['limit=26', 'limit must be an integer from 1 to 25 (got "26")'],
  ['limit=0', 'limit must be an integer from 1 to 25 (got "0")'],
  ['limit=abc', 'limit must be an integer from 1 to 25 (got "abc")'],
  ['limit=2.0', 'limit must be an integer from 1 to 25 (got "2.0")'],
  ['limit=', 'limit must be an integer from 1 to 25 (got "")'],
  ['limit=%2B5', 'limit must be an integer from 1 to 25 (got "+5")'],
  ['page=0', 'page must be an integer of 1 or more (got "0")'],
  ['page=000', 'page must be an integer of 1 or more (got "000")'],
  ['page=-1', 'page must be an integer of 1 or more (got "-1")'],
  ['page=1e3', 'page must be an integer of 1 or more (got "1e3")'],
  [`search=${'a'.repeat(201)}`, `search must be at most 200 characters after trimming (got 201 characters: "${'a'.repeat(60)}…")`],
  [`search=${'%F0%9F%90%B8'.repeat(201)}`, `search must be at most 200 characters after trimming (got 201 characters: "${'🐸'.repeat(30)}…")`],
  ['search=a%01b', 'search must not contain control characters (got "a\\u0001b")'],
  // trim() would drop these unseen: control characters anywhere are refused, before trimming.
  ['search=%0Asmug', 'search must not contain control characters (got "\\nsmug")'],
  ['search=smug%09', 'search must not contain control characters (got "smug\\t")'],
  ['search=%0D%0A', 'search must not contain control characters (got "\\r\\n")'],
  ['random=true&seed=a%01b', 'seed must not contain control characters (got "a\\u0001b")'],
  ['search=a%C2%85b', 'search must not contain control characters (got "a\\u0085b")'],
  ['field=tag', 'field must be "text" or "id" (got "tag")'],
  ['sort=newest', 'sort must be "created_at_desc", "created_at_asc" or "relevance" (got "newest")'],
  // An unknown sort is refused even where random=true makes a valid one irrelevant.
  ['sort=newest&random=true', 'sort must be "created_at_desc", "created_at_asc" or "relevance" (got "newest")'],
  ['random=yes', 'random must be true, false, 1 or 0 (got "yes")'],
  [`random=true&seed=${'s'.repeat(65)}`, `seed must be at most 64 characters (got 65 characters: "${'s'.repeat(60)}…")`],
  ['field=id&search=smug', 'search must be a UUID when field=id (got "smug")'],
  ['limit=2&limit=3', 'limit must be given at most once (got 2 values: "2", "3")'],
  ['search=a&search=b', 'search must be given at most once (got 2 values: "a", "b")'],
  ['search=%E0%A4%A', 'the query string has malformed percent-encoding in "search=%E0%A4%A"; write a literal "%" as %25'],
  ['x=%FF', 'the query string has malformed percent-encoding in "x=%FF"; write a literal "%" as %25'],
  [`q=${'x'.repeat(4100)}`, 'the query string must be at most 4096 characters (got 4102)'],
];

describe('variant A validation', () => {
  it.each(BAD_A)('answers 400 VALIDATION_ERROR for %s', async (query, message) => {
    const r = await call(handler, `/api/pepe?${query}`);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ data: null, error: { code: 'VALIDATION_ERROR', message } });
    expect(r.headers.get('cache-control')).toBe('public, max-age=60');
    expect(r.headers.get('netlify-cdn-cache-control')).toBe('public, durable, s-maxage=300');
  });

  it.each([
    ['limit=25', 200],
    ['limit=007', 200],
    ['limit=00000000005', 200],
    ['page=1000000000', 200],
    ['page=99999999999', 200],
    [`search=${'%F0%9F%90%B8'.repeat(200)}`, 200],
    [`random=true&seed=${'%F0%9F%90%B8'.repeat(64)}&search=${'%F0%9F%90%B8'.repeat(200)}&limit=25&page=1&field=text`, 200],
    ['random=FaLsE&sort=created_at_asc', 200],
    // The spec: sort is "Ignored when random is true", so it is no error.
    ['random=true&sort=created_at_asc', 200],
    ['random=1&sort=relevance&search=smug&limit=3', 200],
    ['random=0&seed=ignored', 200],
    ['field=text&search=', 200],
    ['field=id&search=%20', 200],
    [`search=${' '.repeat(300)}smug`, 200],
    ['unknown=1&unknown=2&Limit=99', 200],
    ['search=caf%C3%A9+au', 200],
    [`random=true&seed=${'s'.repeat(64)}`, 200],
  ])('accepts %s', async (query, status) => {
    expect((await call(handler, `/api/pepe?${query}`)).status).toBe(status);
  });

  it('takes any page number of 1 or more: past the end is an empty page, echoed digit for digit', async () => {
    const huge = '1234567890123456789012345678901234567890';
    const list = await call(handler, `/api/pepe?limit=5&page=000${huge}`);
    expect(list.status).toBe(200);
    expect(list.json.data).toEqual([]);
    expect(list.text).toContain(`"pagination":{"page":${huge},"limit":5,"total_items":12,"total_pages":3,"has_next":false,"has_previous":true}`);
    const single = await call(handler, `/api/pepe?page=${huge}`);
    expect(single.json.data).toBeNull();
    expect((await call(handler, `/api/pepe?random=true&seed=x&page=${huge}`)).json.data).toBeNull();
    expect((await call(handler, '/api/pepe?limit=5&page=99999999999')).text).toContain('"page":99999999999,');
  });

  it('echoes the search text as received, also a UUID with field=id', async () => {
    const id = testId(3).toUpperCase();
    const r = await call(handler, `/api/pepe?field=id&search=${id}`);
    expect(r.json.meta.search).toEqual({ terms: id, found: true });
    expect(r.json.data.id).toBe(id.toLowerCase());
  });

  it('reads + as a space and decodes percent-encoded names', async () => {
    const r = await call(handler, '/api/pepe?l%69mit=2&search=+smug+pepe+');
    expect(r.json.meta.pagination.limit).toBe(2);
    expect(r.json.meta.search.terms).toBe('smug pepe');
  });
});

describe('variant B validation', () => {
  it.each([
    ['limit=101', 'limit must be an integer from 1 to 100 (got "101")'],
    ['limit=0', 'limit must be an integer from 1 to 100 (got "0")'],
    ['limit=1&limit=1', 'limit must be given at most once (got 2 values: "1", "1")'],
    [`search=${'b'.repeat(201)}`, `search must be at most 200 characters after trimming (got 201 characters: "${'b'.repeat(60)}…")`],
    ['search=%7F', 'search must not contain control characters (got "\\u007f")'],
    ['search=%', 'the query string has malformed percent-encoding in "search=%"; write a literal "%" as %25'],
  ])('answers 400 in variant B shape for %s', async (query, message) => {
    const r = await call(handler, `/v1/pepe?${query}`);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ result: null, status: 'error', error: { code: 'VALIDATION_ERROR', message } });
  });

  it('ignores variant A parameters and unknown ones', async () => {
    const r = await call(handler, '/v1/pepe?page=abc&sort=x&limit=100');
    expect(r.status).toBe(200);
    expect(r.json.result).toHaveLength(12);
  });
});
