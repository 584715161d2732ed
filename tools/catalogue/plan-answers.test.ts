import { describe, expect, it } from 'vitest';
import { compileCatalogue } from '../../functions/core/catalogue.js';
import { precomputedFiles } from '../testing/test-catalogue.js';
import type { PepeRecord } from '../../functions/core/record.js';
import { FIXTURE_URLS } from '../testing/fixture-catalogue.js';
import { planAnswers } from './plan-answers.js';
import { type ManifestEntry, segmentKeyOf, sha256Of } from '../shared/manifest.js';
import { siteDocuments } from './site-documents.js';
import { listingFiles } from './static-listing.js';
import { openCatalogue } from '../../functions/core/catalogue-runtime.js';
import { type ChunkedFamily, parseSavedChunks, type PreviousAnswers, recordChanges } from './cache/answer-digests.js';

/** The changes from a map of the previous build's digests to `digests`. */
const changesSince = (previous: ReadonlyMap<string, string>, digests: ReadonlyMap<string, string>) =>
  recordChanges(digests, [...digests.keys()].map((id) => [id, previous.get(id)] as const), previous);
import type { LaterFiles, PlannedFile } from './write-output.js';

const imageSha256 = (name: string) => sha256Of(name);
const image = (id: string) => ({ fileName: `${id}.png`, sha256: imageSha256(`${id}.png`) });

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
    const planned = planAnswers(data, image).files;
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
    expect(planAnswers(withoutIds, image)).toEqual(planAnswers(data, image));
    expect(planAnswers(data, image).kept).toBeUndefined();
  });

  describe('against a previous build', () => {
    const shapes = { listing: { mean: 3, max: 4 }, sitemaps: { mean: 3, max: 4 }, dataset: { mean: 3, max: 4 } };
    const recordDigests = new Map(data.ids.map((id) => [id, sha256Of(id)]));
    const documents = new Map<string, string>();
    const first = planAnswers(data, image, { chunks: shapes, documents }).files;
    const entries = new Map(first.map((file) => [file.path, { sha256: file.sha256, size: file.size }]));
    for (const id of data.ids) entries.set(`site/images/${image(id).fileName}`, { sha256: image(id).sha256, size: 1 });
    // The previous build as answer-digests.ts gives it: every entry of the first plan, one segment for all.
    const previousOf = (records: Record<string, string>, digests: ReadonlyMap<string, string> = recordDigests): PreviousAnswers => ({
      changes: changesSince(new Map(Object.entries(records)), digests),
      entry: (path) => entries.get(path),
      chunks: (name) => parseSavedChunks(documents.get(name)!)!,
      read: (path) => {
        const body = first.find((file) => file.path === path)?.body;
        return body === undefined ? undefined : Buffer.from(body as string | Buffer);
      },
    });
    const plan = (digests: ReadonlyMap<string, string>, again = new Map<string, string>()) =>
      planAnswers(data, image, { chunks: shapes, documents: again, previous: previousOf(Object.fromEntries(recordDigests), digests) });
    const renderedPaths = ({ files }: LaterFiles) => files.filter((file) => !file.unchanged).map((file) => file.path);
    // The plan as writeOutput takes it: its files and the previous ones it keeps unlisted, which it counts exactly, keeping all under its folders in an id segment it does not touch.
    const listed = ({ files, kept }: LaterFiles, previous: ReadonlyMap<string, ManifestEntry> = entries) => {
      const keptPaths = [...previous.keys()].filter((path) => kept?.has(path) === true);
      expect(keptPaths).toHaveLength(kept?.count ?? 0);
      const touched = new Set(kept?.touched(1) ?? []);
      const untouched = [...previous.keys()].filter((path) => segmentKeyOf(path, 1).startsWith('id:') && !touched.has(segmentKeyOf(path, 1)) && kept!.folders.some((folder) => path.startsWith(folder)));
      expect(untouched.filter((path) => !kept!.has(path))).toEqual([]);
      return [...files, ...keptPaths.map((path) => ({ path, ...previous.get(path)! }))];
    };

    it('keeps every per-record file and chunk when nothing changed, rendering only the small catalogue-wide documents, and remembers the same inputs', () => {
      const again = new Map<string, string>();
      const planned = plan(recordDigests, again);
      expect(again).toEqual(documents);
      const entriesOf = (files: PlannedFile[]) => files.map(({ path, sha256, size }) => ({ path, sha256, size })).sort((a, b) => (a.path < b.path ? -1 : 1));
      expect(entriesOf(listed(planned))).toEqual(entriesOf(first));
      expect(renderedPaths(planned).sort()).toEqual(['site/api/listing/head', 'site/api/openapi.json', 'site/api/tags', 'site/dataset/index.json', 'site/feed.json', 'site/feed.xml', 'site/robots.txt', 'site/sitemap.xml', 'site/sitemaps/gallery.xml']);
    });

    it('renders again what shows an edited record: its own files, its listing page, sitemap file and dataset shard, and the similar answers within reach of its phash', () => {
      const edited = data.ids[3]!;
      const planned = plan(new Map(recordDigests).set(edited, 'edited'));
      const again = renderedPaths(planned);
      expect(again).toEqual(expect.arrayContaining([`site/api/pepe/${edited}`, `site/v1/pepe/${edited}`, `site/p/${edited}`, `site/oembed/${edited}.json`, `site/api/similar/${edited}`]));
      expect(again.filter((path) => path.startsWith('site/api/listing/') && path !== 'site/api/listing/head')).toHaveLength(1);
      expect(again.filter((path) => path.startsWith('site/sitemaps/') && path !== 'site/sitemaps/gallery.xml')).toHaveLength(1);
      expect(again.filter((path) => path.endsWith('.jsonl'))).toHaveLength(1);
      // Every test record has the same phash: each shows the edited one.
      for (const id of data.ids) expect(again).toContain(`site/api/similar/${id}`);
      expect(again.filter((path) => path.startsWith('site/api/pepe/'))).toEqual([`site/api/pepe/${edited}`]);
    });

    it('renders no similar answer beyond the edited record\'s own when no other phash is within reach', () => {
      const far = compileCatalogue(Array.from({ length: 7 }, (_, n) => ({ ...record(n), phash: (BigInt(n) * 0x1111111111111111n).toString(16).padStart(16, '0') })), FIXTURE_URLS);
      const farDocuments = new Map<string, string>();
      const farFirst = planAnswers(far, image, { chunks: shapes, documents: farDocuments }).files;
      const farEntries = new Map(farFirst.map((file) => [file.path, { sha256: file.sha256, size: file.size }]));
      for (const id of far.ids) farEntries.set(`site/images/${image(id).fileName}`, { sha256: image(id).sha256, size: 1 });
      const edited = far.ids[2]!;
      const previous: PreviousAnswers = {
        changes: changesSince(recordDigests, new Map(recordDigests).set(edited, 'edited')),
        entry: (path) => farEntries.get(path),
        chunks: (name: ChunkedFamily) => parseSavedChunks(farDocuments.get(name)!)!,
        read: (path) => Buffer.from(farFirst.find((file) => file.path === path)!.body as string),
      };
      const planned = planAnswers(far, image, { chunks: shapes, previous });
      expect(renderedPaths(planned).filter((path) => path.startsWith('site/api/similar/'))).toEqual([`site/api/similar/${edited}`]);
      expect(listed(planned, farEntries).map((file) => file.path).sort()).toEqual(farFirst.map((file) => file.path).sort());
    });

    it('renders again the files and the dataset shard of a record whose image changed under the same id', () => {
      const id = data.ids[5]!;
      const planned = planAnswers(data, (other) => (other === id ? { fileName: `${id}.png`, sha256: 'f'.repeat(64) } : image(other)), { chunks: shapes, imageChanged: new Set([id]), previous: previousOf(Object.fromEntries(recordDigests)) });
      const again = renderedPaths(planned);
      expect(again).toEqual(expect.arrayContaining([`site/api/pepe/${id}`, `site/p/${id}`]));
      // Its shard's checksums are new; a neighbour rendered again (its next record is the changed one) comes out as it was.
      const sums = planned.files.filter((file) => file.path.endsWith('.sha256') && entries.get(file.path)?.sha256 !== file.sha256);
      expect(sums).toHaveLength(1);
      expect(sums[0]!.body).toContain(`${'f'.repeat(64)}  images/${id}.png`);
    });

    it('keeps unlisted, and counts, exactly the per-record files of the records that did not change', () => {
      const edited = data.ids[3]!;
      const planned = plan(new Map(recordDigests).set(edited, 'edited'));
      expect(listed(planned).map((file) => file.path).sort()).toEqual(first.map((file) => file.path).sort());
      expect([...entries.keys()].filter((path) => /^site\/(api\/pepe|v1\/pepe|p|oembed)\//.test(path) && planned.kept!.has(path))).toHaveLength(4 * 6);
      expect(planned.kept!.has(`site/api/pepe/${edited}`)).toBe(false);
      expect(planned.kept!.has(`site/images/${image(data.ids[0]!).fileName}`)).toBe(false);
      expect(planned.kept!.has('site/api/pepe/not-a-previous-id')).toBe(false);
    });

    it('renders every similar answer when a removed record\'s phash cannot be read back', () => {
      const planned = planAnswers(data, image, { chunks: shapes, previous: previousOf({ ...Object.fromEntries(recordDigests), gone: 'x' }) });
      expect(renderedPaths(planned).filter((path) => path.startsWith('site/api/similar/'))).toHaveLength(7);
      expect(renderedPaths(planned).filter((path) => path.startsWith('site/api/pepe/'))).toEqual([]);
    });
  });
});
