import { describe, expect, it } from 'vitest';
import { createHandler } from './handler.js';
import { call, testCatalogue } from './test-catalogue.js';

const handler = createHandler(testCatalogue(12));

/** [query, exact message] for variant A; every message names the parameter, the value and what is allowed. */
const BAD_A: [string, string][] = [
  ['limit=26', 'limit must be an integer from 1 to 25 (got "26")'],
  ['limit=0', 'limit must be an integer from 1 to 25 (got "0")'],
  ['limit=abc', 'limit must be an integer from 1 to 25 (got "abc")'],
  ['limit=2.0', 'limit must be an integer from 1 to 25 (got "2.0")'],
  ['limit=', 'limit must be an integer from 1 to 25 (got "")'],
  ['limit=%2B5', 'limit must be an integer from 1 to 25 (got "+5")'],
  ['page=0', 'page must be an integer from 1 to 1000000000 (got "0")'],
  ['page=-1', 'page must be an integer from 1 to 1000000000 (got "-1")'],
  ['page=99999999999', 'page must be an integer from 1 to 1000000000 (got "99999999999")'],
  [`search=${'a'.repeat(201)}`, 'search must be at most 200 characters after trimming (got 201)'],
  ['search=a%01b', 'search must not contain control characters (got "a\\u0001b")'],
  ['search=a%C2%85b', 'search must not contain control characters (got "a\\u0085b")'],
  ['field=tag', 'field must be "text" or "id" (got "tag")'],
  ['sort=newest', 'sort must be "created_at_desc", "created_at_asc" or "relevance" (got "newest")'],
  ['sort=created_at_asc&random=true', 'sort cannot be combined with random=true (got sort="created_at_asc"); leave sort out for a shuffled order'],
  ['random=yes', 'random must be true, false, 1 or 0 (got "yes")'],
  [`random=true&seed=${'s'.repeat(65)}`, 'seed must be at most 64 characters (got 65)'],
  ['field=id&search=smug', 'search must be a UUID when field=id (got "smug")'],
  ['limit=2&limit=3', 'limit must be given at most once (got 2 values)'],
  ['search=a&search=b', 'search must be given at most once (got 2 values)'],
  ['search=%E0%A4%A', 'the query string has malformed percent-encoding in "search=%E0%A4%A"; write a literal "%" as %25'],
  ['x=%FF', 'the query string has malformed percent-encoding in "x=%FF"; write a literal "%" as %25'],
  [`q=${'x'.repeat(2100)}`, 'the query string must be at most 2048 characters (got 2102)'],
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
    ['page=1000000000', 200],
    ['random=FaLsE&sort=created_at_asc', 200],
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
    ['limit=1&limit=1', 'limit must be given at most once (got 2 values)'],
    [`search=${'b'.repeat(201)}`, 'search must be at most 200 characters after trimming (got 201)'],
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
