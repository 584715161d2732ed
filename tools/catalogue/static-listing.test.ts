import { describe, expect, it } from 'vitest';
import { openCatalogue } from '../../functions/core/catalogue-runtime.js';
import { createHandler } from '../../functions/core/handler.js';
import { listingHead, listingPage } from '../../functions/core/schemas.js';
import { call, testCatalogue, TEST_URLS } from '../testing/test-catalogue.js';
import { listingFiles } from './static-listing.js';

const SHAPE = { mean: 4, max: 9 };

function listing(count: number) {
  const data = testCatalogue(count);
  return { data, files: new Map(listingFiles(openCatalogue(data), data.ids, { shape: SHAPE }).map((file) => [file.path, file.body!])) };
}

describe('the static listing', () => {
  it('holds the head and pages the OpenAPI schemas describe, each object byte for byte as /api/pepe/<id> serves it', async () => {
    const { data, files } = listing(60);
    const handler = createHandler(data);
    const head = listingHead.parse(JSON.parse(files.get('api/listing/head')!));
    expect(head.data).toMatchObject({ total_items: 60, chunk: SHAPE, oldest: `${TEST_URLS.baseUrl}/api/listing/${data.ids[0]}` });
    expect(files.size).toBeGreaterThan(6);
    for (const [path, body] of files) {
      if (path === 'api/listing/head') continue;
      const page = listingPage.parse(JSON.parse(body));
      expect(page.data.length).toBeLessThanOrEqual(SHAPE.max);
      expect(path).toBe(`api/listing/${page.data[0]!.id}`);
      expect(page.meta.listing).toBe(`${TEST_URLS.baseUrl}/api/listing/head`);
      const objects: string[] = [];
      for (const { id } of page.data) objects.push((await call(handler, `/api/pepe/${id}`)).text.slice('{"data":'.length, -',"error":null}'.length));
      expect(body.startsWith(`{"data":[${objects.join(',')}],"meta":`)).toBe(true);
    }
  });

  it('has a head and no page for an empty catalogue', () => {
    const { files } = listing(0);
    expect([...files.keys()]).toEqual(['api/listing/head']);
    expect(JSON.parse(files.get('api/listing/head')!).data).toEqual({ total_items: 0, oldest: null, newest: null, chunk: SHAPE });
  });

  it('keeps every other page byte-identical when the newest pepe is added', () => {
    // testCatalogue(n) is testCatalogue(n + 1) without its newest record.
    const before = listing(59).files;
    const after = listing(60).files;
    const changed = [...after.keys()].filter((path) => before.get(path) !== after.get(path));
    expect(changed).toContain('api/listing/head');
    expect(changed.length).toBeLessThanOrEqual(3);
    expect([...before.keys()].filter((path) => !after.has(path))).toEqual([]);
  });
});
