import { describe, expect, it } from 'vitest';
import { compileCatalogue } from '../../functions/core/catalogue.js';
import { precomputedFiles } from '../testing/test-catalogue.js';
import type { PepeRecord } from '../../functions/core/record.js';
import { FIXTURE_URLS } from '../testing/fixture-catalogue.js';
import { planAnswers } from './plan-answers.js';
import { sha256Of } from '../shared/manifest.js';
import { siteDocuments } from './site-documents.js';
import { listingFiles } from './static-listing.js';
import { openCatalogue } from '../../functions/core/catalogue-runtime.js';

const imageSha256 = (name: string) => sha256Of(name);

const record = (n: number): PepeRecord => ({
  id: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
  file_ext: '.png',
  file_size: 100 + n,
  tags: n % 2 ? ['smug', `t${n}`] : null,
  description: n % 3 ? `frog ${n} é` : null,
  phash: 'ab'.repeat(8),
  created_at: `2020-01-0${1 + (n % 9)}T00:00:00.000Z`,
  updated_at: `2021-01-0${1 + (n % 9)}T00:00:00.000Z`,
  width: 64,
  height: 48,
  blurhash: 'LEHV6nWB2yk8pyo0adR*.7kCMdnj',
  thumbnails: [],
  artist: n % 2 ? `Artist ${n}` : null,
  source_url: n % 2 ? `https://art.example/${n}` : null,
  license: n % 2 ? 'CC0-1.0' : null,
  animated: false,
});

describe('planAnswers', () => {
  const data = compileCatalogue(Array.from({ length: 7 }, (_, n) => record(n)), FIXTURE_URLS);

  it('with nothing known, plans exactly the files precomputedFiles, the site documents and the listing make, byte for byte', () => {
    const planned = planAnswers(data, () => undefined, imageSha256);
    const documents = siteDocuments(openCatalogue(data), { imageSha256 }).map(({ path, body }) => ({ path, body: body! }));
    expect(documents.map((file) => file.path)).toEqual(expect.arrayContaining(['feed.xml', 'feed.json', 'dataset/index.json', 'sitemap.xml', 'robots.txt', `p/${record(0).id}`]));
    const listing = listingFiles(openCatalogue(data), data.ids).map(({ path, body }) => ({ path, body: body! }));
    expect(listing.map((file) => file.path)).toContain('api/listing/head');
    const expected = [...precomputedFiles(data), ...documents, ...listing].map(({ path, body }) => ({ path: `site/${path}`, body, sha256: sha256Of(body), size: Buffer.byteLength(body) }));
    const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : 1);
    expect([...planned].sort(byPath)).toEqual(expected.sort(byPath));
  });

  it('plans the same files from the data alone as with the ids the compiler kept', () => {
    const { ids, ...withoutIds } = data;
    expect(ids).toHaveLength(7);
    expect(planAnswers(withoutIds, () => undefined, imageSha256)).toEqual(planAnswers(data, () => undefined, imageSha256));
  });

  it('takes known by-id answers from the previous entry without rendering them', () => {
    const id = record(3).id;
    const planned = planAnswers(data, (_id, path) => (path === `site/v1/pepe/${id}` || path === `site/p/${id}` ? { sha256: 'old', size: 1 } : undefined), imageSha256);
    expect(planned.find((f) => f.path === `site/v1/pepe/${id}`)).toEqual({ path: `site/v1/pepe/${id}`, sha256: 'old', size: 1, unchanged: true });
    expect(planned.find((f) => f.path === `site/p/${id}`)).toEqual({ path: `site/p/${id}`, sha256: 'old', size: 1, unchanged: true });
    expect(planned.find((f) => f.path === `site/api/pepe/${id}`)?.body).toBeDefined();
    expect(planned.find((f) => f.path === `site/oembed/${id}.json`)?.body).toBeDefined();
  });

  it('takes listing pages made from the same inputs from the previous entry without rendering them, and records every page\'s inputs', () => {
    const recordDigests = new Map(data.ids.map((id) => [id, sha256Of(id)]));
    const first = new Map<string, string>();
    const full = planAnswers(data, () => undefined, imageSha256, { chunks: { listing: { mean: 3, max: 4 } }, recordDigests, pageInputs: first });
    const pages = [...first.keys()];
    expect(pages.length).toBeGreaterThan(1);
    const kept = pages[0]!;
    const again = new Map<string, string>();
    const planned = planAnswers(data, () => undefined, imageSha256, {
      chunks: { listing: { mean: 3, max: 4 } },
      recordDigests,
      pageInputs: again,
      knownPage: (path, inputs) => (path === kept && inputs === first.get(kept) ? { sha256: 'old', size: 1 } : undefined),
    });
    expect(again).toEqual(first);
    expect(planned.find((f) => f.path === kept)).toEqual({ path: kept, sha256: 'old', size: 1, unchanged: true });
    for (const path of pages.slice(1)) expect(planned.find((f) => f.path === path)).toEqual(full.find((f) => f.path === path));
    // Another digest for one of its records: the page is rendered again.
    const edited = new Map(recordDigests).set(data.ids[0]!, 'edited');
    const after = planAnswers(data, () => undefined, imageSha256, { chunks: { listing: { mean: 3, max: 4 } }, recordDigests: edited, knownPage: (path, inputs) => (inputs === first.get(path) ? { sha256: 'old', size: 1 } : undefined) });
    expect(after.find((f) => f.path === `site/api/listing/${data.ids[0]}`)?.body).toBeDefined();
  });
});
