/**
 * End to end against a real s3rver on loopback (child process, see testing/s3rver-child.mjs),
 * counting the HTTP requests the SDK really sends.
 */
import { DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import sharp from 'sharp';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IMAGE_CACHE_CONTROL, JSON_OBJECT_STORAGE_CACHE_CONTROL, NO_STORE } from '../../functions/core/cache-policy.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { buildCatalogue } from '../catalogue/build-catalogue.js';
import { FIXTURE_URLS, fixtureId } from '../testing/fixture-catalogue.js';
import { publishBuild } from './publish.js';
import { runPool } from './run-pool.js';
import { deleteKeys, listAllObjects, putObject } from './s3-operations.js';
import { countingClient, type CountingClient } from './testing/counting-client.js';
import { startS3rver, type S3rverProcess } from './testing/s3rver-process.js';
import { syntheticRecords, writeSyntheticDist, type SyntheticRecord } from './testing/synthetic-dist.js';
import type { PublishOptions, S3Like } from './types.js';
import { createManifest, loadManifest, loadManifestRoot, type ManifestRoot, segmentFile, segmentFiles, writeManifestFiles } from '../shared/manifest.js';
import type { SiteUrls } from '../../functions/core/record.js';
import { RENDITION_SETTINGS } from '../image/renditions.js';

let s3: S3rverProcess;
let temp: TempDir;
let counting: CountingClient;
let bucketNumber = 0;
let bucket: string;
let dir: string;
const NETLIFY_TOML = join(import.meta.dirname, '../../netlify.toml');

beforeAll(async () => {
  s3 = await startS3rver(Array.from({ length: 25 }, (_, n) => `pepe-e2e-${n}`));
  temp = await makeTempDir('pepe-publish-e2e-');
  counting = countingClient(s3.endpoint);
});
afterAll(async () => {
  await s3?.stop();
  await temp?.cleanup();
});
beforeEach(async () => {
  bucket = `pepe-e2e-${bucketNumber++}`;
  dir = join(temp.path, bucket);
  counting.reset();
});

const publish = (options: Partial<PublishOptions> = {}, now?: Date) =>
  publishBuild({ bucket, dir, netlifyToml: NETLIFY_TOML, ...options }, { client: counting.client, ...(now ? { now: () => now } : {}) });

/** What goes to the bucket of the paths `writeSyntheticDist` wrote: all but the function's data and bundle. */
const bucketPaths = (written: string[]) => written.filter((path) => !path.startsWith('data/') && !path.startsWith('functions/'));
/** The bucket keys of the segment files `after`'s root names and `before`'s does not. */
const newSegmentKeys = async (before: string[]) => (await readManifestRootKeys()).filter((key) => !before.includes(key));
const readManifestRootKeys = async () => segmentFiles((await loadManifestRoot(dir))!).map((path) => `_build/${path}`);
/** Rewrites the build's manifest with `change` applied to its entries (a hand edit that keeps every hash consistent). */
async function editManifest(change: (files: Map<string, { sha256: string; size: number }>, root: ManifestRoot) => SiteUrls | void) {
  const manifest = (await loadManifest(dir))!;
  const files = new Map(Object.entries(manifest.files));
  const settings = change(files, manifest) ?? manifest.settings;
  await writeManifestFiles(dir, createManifest(files, settings, manifest.counts));
}

/** Keys of the site (not the build files under `_build/`: old manifest segments go on their own clock). */
const siteKeys = (keys: string[]) => keys.filter((key) => !key.startsWith('_build/'));

async function head(key: string) {
  return counting.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
}

describe('pepe publish against s3rver', () => {
  it('uploads every object on a first publish, the manifest last, and nothing on a no-op republish', async () => {
    const written = bucketPaths(await writeSyntheticDist(dir, syntheticRecords(6)));
    const first = await publish();
    expect(first.problems).toEqual([]);
    expect(first.ok).toBe(true);
    expect(first.counts.uploaded).toBe(written.length);
    // Every object once (the site, the manifest's segments and root; not the function's data and bundle), plus the run marker before them (see object-keys.ts, RUN_MARKER_NAME).
    expect(counting.counts.PUT).toBe(written.length + 1);
    expect(counting.putKeys.filter((key) => key.startsWith('_build/data/') || key.startsWith('_build/functions/'))).toEqual([]);
    expect(counting.putKeys[0]).toBe('_build/publish-run');
    expect(counting.putKeys.at(-1)).toBe('_build/manifest.json');
    // Images all reach the bucket before the first JSON.
    const lastImage = counting.putKeys.findLastIndex((k) => k.startsWith('images/'));
    const firstJson = counting.putKeys.findIndex((k) => k.startsWith('api/') || k.startsWith('v1/'));
    expect(lastImage).toBeLessThan(firstJson);

    counting.reset();
    const again = await publish();
    expect(again.ok).toBe(true);
    expect(again.counts).toMatchObject({ uploaded: 0, skipped: written.length });
    // Equal roots and a finished run: the root, the run marker and the state, nothing else.
    expect(counting.counts).toEqual({ GET: 2, HEAD: 1 });
    expect(counting.counts.PUT ?? 0).toBe(0);
    expect(counting.counts.POST ?? 0).toBe(0);
    expect(counting.counts.DELETE ?? 0).toBe(0);
  });

  it('stores Content-Type, Cache-Control and the sha256 per key', async () => {
    const records = syntheticRecords(2);
    await writeSyntheticDist(dir, records);
    expect((await publish()).ok).toBe(true);
    const r = records[0]!;
    const image = await head(`images/${r.id}${r.ext}`);
    expect(image.ContentType).toBe(r.ext === '.png' ? 'image/png' : 'image/jpeg');
    expect(image.CacheControl).toBe(IMAGE_CACHE_CONTROL);
    const byId = await head(`api/pepe/${r.id}`);
    expect(byId.ContentType).toBe('application/json; charset=utf-8');
    expect(byId.CacheControl).toBe(JSON_OBJECT_STORAGE_CACHE_CONTROL);
    expect(byId.Metadata?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await head(`v1/pepe/${r.id}`)).ContentType).toBe('application/json; charset=utf-8');
    expect((await head('api/openapi.json')).CacheControl).toBe(JSON_OBJECT_STORAGE_CACHE_CONTROL);
    expect((await head('index.html')).ContentType).toBe('text/html; charset=utf-8');
    expect((await head('_build/manifest.json')).CacheControl).toBe(NO_STORE);
  });

  it('uploads exactly the changed keys when one image is added', async () => {
    const records = syntheticRecords(5);
    await writeSyntheticDist(dir, records);
    expect((await publish()).ok).toBe(true);
    const added: SyntheticRecord = { ...syntheticRecords(1, 'new')[0]! };
    const before = await readManifestRootKeys();
    await writeSyntheticDist(dir, [...records, added]);
    const segments = await newSegmentKeys(before);
    // The new record's segment, its tree and the function data's segment: the function's data itself is not uploaded.
    expect(segments).toHaveLength(3);
    counting.reset();
    const result = await publish();
    expect(result.ok).toBe(true);
    expect([...counting.putKeys].sort()).toEqual([`images/${added.id}${added.ext}`, `api/pepe/${added.id}`, `v1/pepe/${added.id}`, ...segments, '_build/manifest.json', '_build/publish-run'].sort());
    expect(counting.putKeys.slice(0, 2)).toEqual(['_build/publish-run', `images/${added.id}${added.ext}`]);
    // The diff path: the root, the state and the bucket's versions of the changed segments that it had, no listing.
    expect(counting.counts.GET).toBeLessThanOrEqual(2 + segments.length);
    expect(counting.putKeys.at(-1)).toBe('_build/manifest.json');
  });

  it('stores again, with the same bytes, the objects whose Content-Type or Cache-Control netlify.toml now gives otherwise', async () => {
    const records = syntheticRecords(3);
    await writeSyntheticDist(dir, records);
    expect((await publish()).ok).toBe(true);
    expect((await head('assets/app.js')).CacheControl).toBe('public, max-age=31536000, immutable');
    // The same build; netlify.toml now says otherwise for the assets and the page.
    const changedToml = join(temp.path, `${bucket}.netlify.toml`);
    const toml = (await readFile(NETLIFY_TOML, 'utf8')).replace('Cache-Control = "public, max-age=31536000, immutable"', 'Cache-Control = "public, max-age=600"');
    await writeFile(changedToml, `${toml}\n[[headers]]\n  for = "/index.html"\n  [headers.values]\n    Cache-Control = "no-cache"\n`);
    counting.reset();
    const result = await publish({ netlifyToml: changedToml });
    expect(result.ok).toBe(true);
    expect(result.plan!.uploads.map((o) => [o.key, o.reason])).toEqual([['assets/app.js', 'metadata'], ['index.html', 'metadata'], ['_build/manifest.json', 'changed']]);
    expect((await head('assets/app.js')).CacheControl).toBe('public, max-age=600');
    expect((await head('index.html')).CacheControl).toBe('no-cache');
    expect((await head(`images/${records[0]!.id}${records[0]!.ext}`)).CacheControl).toBe(IMAGE_CACHE_CONTROL);
    // Then a no-op again, and a new record checks no more than before (headers per kind of object, not per key).
    counting.reset();
    expect((await publish({ netlifyToml: changedToml })).counts.uploaded).toBe(0);
    expect(counting.counts.PUT ?? 0).toBe(0);
    await writeSyntheticDist(dir, [...records, syntheticRecords(1, 'new')[0]!]);
    counting.reset();
    expect((await publish({ netlifyToml: changedToml })).counts.uploaded).toBe(7); // image, two by-id answers, two segments and a tree, manifest
    expect(counting.counts.HEAD).toBeLessThan(10);
  });

  it('--verify lists the bucket and uploads again what was deleted behind its back; a plain run trusts the manifest', async () => {
    const records = syntheticRecords(4);
    await writeSyntheticDist(dir, records);
    expect((await publish()).ok).toBe(true);
    const image = `images/${records[1]!.id}${records[1]!.ext}`;
    for (const key of [image, 'api/openapi.json']) await counting.client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));

    counting.reset();
    const trusting = await publish();
    expect(trusting.counts.uploaded).toBe(0);
    expect(counting.counts.GET).toBe(2); // the manifest and the state: no listing

    counting.reset();
    const verified = await publish({ verify: true });
    expect(verified.ok).toBe(true);
    expect(counting.putKeys.filter((key) => !key.startsWith('_build/')).sort()).toEqual(['api/openapi.json', image].sort());
    expect((await head(image)).Metadata?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses to overwrite an image with other bytes, names the id and uploads nothing', async () => {
    const records = syntheticRecords(3);
    await writeSyntheticDist(dir, records);
    expect((await publish()).ok).toBe(true);
    const changed = records.map((r, n) => (n === 1 ? { ...r, image: Buffer.from('other bytes, same id') } : r));
    await writeSyntheticDist(dir, changed);
    counting.reset();
    const result = await publish();
    expect(result.ok).toBe(false);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]!.code).toBe('image-changed');
    expect(result.problems[0]!.message).toContain(records[1]!.id);
    expect(counting.counts.PUT ?? 0).toBe(0);
  });

  it('repairs what an interrupted upload left at new image keys (empty, partial, not its own sha256), but refuses a complete other image', async () => {
    const records = syntheticRecords(5);
    await writeSyntheticDist(dir, records.slice(0, 2));
    expect((await publish()).ok).toBe(true);
    // A publish of three more records killed mid-upload: an empty object, the first half of
    // another, and a third whose recorded sha256 is not its bytes, none complete.
    await writeSyntheticDist(dir, records);
    const keyOf = (r: SyntheticRecord) => `images/${r.id}${r.ext}`;
    const [empty, half, mislabelled] = records.slice(2);
    const put = (key: string, body: Buffer, metadata?: Record<string, string>) => counting.client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ...(metadata ? { Metadata: metadata } : {}) }));
    await put(keyOf(empty!), Buffer.alloc(0));
    await put(keyOf(half!), half!.image.subarray(0, half!.image.length >> 1));
    await put(keyOf(mislabelled!), mislabelled!.image.subarray(0, 10), { sha256: createHash('sha256').update(mislabelled!.image).digest('hex') });

    // A complete object of other bytes at one of them is still a changed image.
    await put(keyOf(empty!), Buffer.from('a complete picture uploaded by another tool'));
    const refused = await publish({ verify: true });
    expect(refused.problems.map((p) => [p.code, p.message.includes(empty!.id)])).toEqual([['image-changed', true]]);

    await put(keyOf(empty!), Buffer.alloc(0));
    for (const options of [{ dryRun: true }, { verify: true }]) {
      counting.reset();
      const repaired = await publish(options);
      expect(repaired.problems).toEqual([]);
      expect(repaired.ok).toBe(true);
      expect(repaired.plan!.uploads.filter((o) => o.reason === 'repair').map((o) => o.key).sort()).toEqual([empty, half, mislabelled].map((r) => keyOf(r!)).sort());
    }
    for (const r of [empty, half, mislabelled]) {
      const stored = await counting.client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(r!) }));
      expect(Buffer.from(await stored.Body!.transformToByteArray()).equals(r!.image)).toBe(true);
      expect(stored.Metadata?.sha256).toBe(createHash('sha256').update(r!.image).digest('hex'));
    }
    expect((await publish()).counts.uploaded).toBe(0);
  });

  it('deletes stale keys only with --delete-stale, documents first, images once no cached JSON can point at them', async () => {
    const records = syntheticRecords(4);
    await writeSyntheticDist(dir, records);
    expect((await publish()).ok).toBe(true);
    const gone = records[0]!;
    await writeSyntheticDist(dir, records.slice(1));
    const t0 = new Date();
    const kept = await publish({}, t0);
    expect(kept.ok).toBe(true);
    expect(kept.counts.deleted).toBe(0);
    expect(kept.plan!.kept.map((k) => k.key).filter((key) => !key.startsWith('_build/manifest/')).sort()).toEqual([`api/pepe/${gone.id}`, `images/${gone.id}${gone.ext}`, `v1/pepe/${gone.id}`]);

    const minutes = (n: number) => new Date(t0.getTime() + n * 60_000);
    // The removed record's by-id answers go at once (nothing in the bucket points at them)…
    const documents = await publish({ deleteStale: true }, minutes(0));
    expect(documents.plan!.deletions).toEqual([`api/pepe/${gone.id}`, `v1/pepe/${gone.id}`]);
    // The old manifest segments are build files (no-store): they go on a clock, and do not hold the image's back.
    expect(documents.plan!.kept.filter((k) => k.key.startsWith('_build/manifest/')).length).toBeGreaterThan(0);
    await expect(head(`images/${gone.id}${gone.ext}`)).resolves.toBeDefined();
    await expect(head(`api/pepe/${gone.id}`)).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
    // …its image only once no cached copy of them can still point at it: the next run finds
    // them gone and starts its clock, and a run 5 minutes after that deletes it.
    expect(siteKeys((await publish({ deleteStale: true }, minutes(2))).plan!.deletions)).toEqual([]);
    expect(siteKeys((await publish({ deleteStale: true }, minutes(6))).plan!.deletions)).toEqual([]);
    const images = await publish({ deleteStale: true }, minutes(7));
    expect(images.plan!.deletions).toEqual([`images/${gone.id}${gone.ext}`]);
    await expect(head(`images/${gone.id}${gone.ext}`)).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
    counting.reset();
    const settled = await publish({ deleteStale: true }, minutes(20));
    expect(settled.counts).toMatchObject({ uploaded: 0, deleted: 0, kept: 0 });
    expect(counting.counts.PUT ?? 0).toBe(0);
  });

  it('does not restart a removed image\'s clock when a build file (no-store) goes stale, as a real build\'s data pieces file does on every catalogue change', async () => {
    const records = syntheticRecords(4);
    const pieces = (name: string) => ({ [`data/pieces-${name}.txt`]: `pieces ${name}\n` });
    await writeSyntheticDist(dir, records, { extra: pieces('a') });
    const t0 = Date.now();
    const at = (minutes: number) => new Date(t0 + minutes * 60_000);
    expect((await publish({}, at(0))).ok).toBe(true);
    const gone = records[0]!;
    const image = `images/${gone.id}${gone.ext}`;
    await writeSyntheticDist(dir, records.slice(1), { extra: pieces('b') });
    // The by-id answers go at once; the image waits for a run that no longer sees them.
    expect((await publish({ deleteStale: true }, at(0))).plan!.deletions).toEqual([`api/pepe/${gone.id}`, `v1/pepe/${gone.id}`]);
    const started = await publish({ deleteStale: true }, at(1));
    expect(started.plan!.kept.find((k) => k.key === image)?.reason).toMatch(/^retired at /);
    // Another catalogue change: the data pieces file is renamed again, so pieces-b goes stale.
    await writeSyntheticDist(dir, records.slice(1).map((r) => ({ ...r, description: `${r.description} (edited)` })), { extra: pieces('c') });
    const changed = await publish({ deleteStale: true }, at(3));
    expect(changed.ok).toBe(true);
    // The function's data is no longer published; the manifest segments the change replaced go stale instead.
    expect(changed.plan!.kept.map((k) => k.key).filter((key) => key.startsWith('_build/manifest/')).length).toBeGreaterThan(0);
    expect(changed.plan!.kept.map((k) => k.key)).not.toContain('_build/data/pieces-b.txt');
    // The image's clock still runs from minute 1: it goes at minute 6, not 5 minutes after the pieces file.
    const deleted = await publish({ deleteStale: true }, at(6.5));
    expect(deleted.plan!.deletions).toContain(image);
    await expect(head(image)).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
  });

  /** Three records published, then a build without the first (`gone`); `at(m)` is m minutes after that. */
  async function publishedThenFirstRemoved() {
    const records = syntheticRecords(3);
    await writeSyntheticDist(dir, records);
    expect((await publish()).ok).toBe(true);
    await writeSyntheticDist(dir, records.slice(1));
    const t0 = Date.now();
    return { records, gone: records[0]!, at: (minutes: number) => new Date(t0 + minutes * 60_000) };
  }

  it('remembers the bytes of a deleted image: its key may come back with them, never with others', async () => {
    const { records, gone, at } = await publishedThenFirstRemoved();
    for (const minutes of [0, 6, 12]) expect((await publish({ deleteStale: true }, at(minutes))).ok).toBe(true);
    await expect(head(`images/${gone.id}${gone.ext}`)).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });

    // The same id with other bytes: refused, on the fast path and on a listing run alike.
    await writeSyntheticDist(dir, [{ ...gone, image: Buffer.from('another picture') }, ...records.slice(1)]);
    for (const options of [{}, { verify: true }]) {
      counting.reset();
      const refused = await publish(options);
      expect(refused.ok).toBe(false);
      expect(refused.problems.map((p) => p.code)).toEqual(['image-changed']);
      expect(refused.problems[0]!.message).toContain(`image ${gone.id} (images/${gone.id}${gone.ext}) was published with different bytes and deleted since`);
      expect(counting.counts.PUT ?? 0).toBe(0);
    }
    // The same bytes: it comes back.
    await writeSyntheticDist(dir, records);
    expect((await publish()).ok).toBe(true);
    await expect(head(`images/${gone.id}${gone.ext}`)).resolves.toBeDefined();
  });

  it('remembers a deleted image even when the run dies right after its DeleteObjects', async () => {
    const { records, gone, at } = await publishedThenFirstRemoved();
    // Its by-id answers go at once; the next run finds them gone and starts the image's clock.
    expect((await publish({ deleteStale: true }, at(0))).ok).toBe(true);
    expect((await publish({ deleteStale: true }, at(1))).ok).toBe(true);
    // The run that deletes the image: every request after its DeleteObjects fails, as if the
    // process were killed (or the state PUT failed past its retries) right after it.
    let deleted = false;
    const dying: S3Like = {
      async send(command) {
        if (deleted) throw Object.assign(new Error('socket hang up'), { name: 'Error', code: 'ECONNRESET' });
        const answer = await counting.client.send(command);
        if (command instanceof DeleteObjectsCommand) deleted = true;
        return answer;
      },
    };
    await publishBuild({ bucket, dir, netlifyToml: NETLIFY_TOML, deleteStale: true }, { client: dying, now: () => at(6) });
    expect(deleted).toBe(true);
    await expect(head(`images/${gone.id}${gone.ext}`)).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });

    await writeSyntheticDist(dir, [{ ...gone, image: Buffer.from('another picture') }, ...records.slice(1)]);
    const refused = await publish({ verify: true });
    expect(refused.problems.map((p) => p.code)).toEqual(['image-changed']);
    await expect(head(`images/${gone.id}${gone.ext}`)).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
  });

  it('never deletes an image in the run that deletes the by-id JSON pointing at it, even after a run that died before its DeleteObjects', async () => {
    const { gone, at } = await publishedThenFirstRemoved();
    const image = `images/${gone.id}${gone.ext}`;
    // A --delete-stale run whose DeleteObjects fails: its state is written, its deletions never happen.
    const failingDeletes: S3Like = {
      async send(command) {
        if (command instanceof DeleteObjectsCommand) throw Object.assign(new Error('We encountered an internal error.'), { name: 'InternalError', $metadata: { httpStatusCode: 500, attempts: 5 } });
        return counting.client.send(command);
      },
    };
    expect((await publishBuild({ bucket, dir, netlifyToml: NETLIFY_TOML, deleteStale: true }, { client: failingDeletes, now: () => at(0) })).ok).toBe(false);
    await expect(head(`api/pepe/${gone.id}`)).resolves.toBeDefined();
    // A CDN may have fetched the by-id answers until this run deletes them, and keeps them
    // 5 minutes: the image they point at must outlive them by that much.
    const documents = await publish({ deleteStale: true }, at(6));
    expect(siteKeys(documents.plan!.deletions)).toEqual([`api/pepe/${gone.id}`, `v1/pepe/${gone.id}`]);
    await expect(head(image)).resolves.toBeDefined();
    expect(siteKeys((await publish({ deleteStale: true }, at(7))).plan!.deletions)).toEqual([]);
    expect(siteKeys((await publish({ deleteStale: true }, at(11))).plan!.deletions)).toEqual([]);
    expect((await publish({ deleteStale: true }, at(12))).plan!.deletions).toEqual([image]);
  });

  it('--delete-stale deletes only what this publication wrote: never foreign objects or another publication under a deeper prefix', async () => {
    const records = syntheticRecords(3);
    await writeSyntheticDist(dir, records);
    expect((await publish()).ok).toBe(true);
    const put = (key: string, metadata?: Record<string, string>) =>
      counting.client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: Buffer.from(key), ...(metadata ? { Metadata: metadata } : {}) }));
    await put('robots.txt');
    await put('logs/2026-11-01.log');
    // Another publication under a deeper prefix: its objects carry our metadata too.
    await put('other/_build/manifest.json', { sha256: 'a'.repeat(64) });
    await put('other/api/pepe/x', { sha256: 'b'.repeat(64) });
    // What an interrupted run of ours leaves: our metadata, listed by no manifest.
    await put('api/pepe/leftover', { sha256: 'c'.repeat(64) });

    const t0 = new Date();
    const minutes = (n: number) => new Date(t0.getTime() + n * 60_000);
    const first = await publish({ deleteStale: true }, minutes(0));
    const reasons = Object.fromEntries(first.plan!.kept.map((k) => [k.key, k.reason]));
    expect(reasons['robots.txt']).toBe('not written by pepe publish (no x-amz-meta-sha256): left alone');
    expect(reasons['logs/2026-11-01.log']).toBe('not written by pepe publish (no x-amz-meta-sha256): left alone');
    expect(reasons['other/api/pepe/x']).toBe('under "other/", another publication (it has its own _build/manifest.json): left alone');
    // Ours (left by an interrupted run), and a by-id answer: deleted at once.
    expect(first.plan!.deletions).toEqual(['api/pepe/leftover']);
    expect(reasons['api/pepe/leftover']).toBeUndefined();
    for (const key of ['robots.txt', 'logs/2026-11-01.log', 'other/_build/manifest.json', 'other/api/pepe/x']) await expect(head(key), key).resolves.toBeDefined();
  });

  it('puts back the fast path after a run that died right after writing its marker', async () => {
    await writeSyntheticDist(dir, syntheticRecords(3));
    expect((await publish()).ok).toBe(true);
    // A run that wrote its marker and died before its first upload.
    await counting.client.send(new PutObjectCommand({ Bucket: bucket, Key: '_build/publish-run', Body: Buffer.from('dead\n'), Metadata: { run: 'dead-run' } }));
    counting.reset();
    const listing = await publish();
    expect(listing.counts.uploaded).toBe(0);
    expect(counting.counts.PUT).toBe(1); // the marker, back to the manifest's run
    counting.reset();
    const fast = await publish();
    expect(fast.counts.uploaded).toBe(0);
    expect(counting.counts.GET).toBe(2); // the manifest and the state: no listing
    expect(counting.counts.PUT ?? 0).toBe(0);
  });

  it('starts the deletion clocks of a run from after its uploads, not from its plan', async () => {
    const records = syntheticRecords(3);
    await writeSyntheticDist(dir, records);
    expect((await publish()).ok).toBe(true);
    // A build without one record: its by-id answers are deleted, its image goes stale.
    await writeSyntheticDist(dir, records.slice(1));
    expect((await publish({ deleteStale: true })).ok).toBe(true);
    // The next build adds one: JSON is uploaded, and the dropped image's clock starts.
    await writeSyntheticDist(dir, [...records.slice(1), syntheticRecords(1, 'later')[0]!]);
    const t0 = Date.parse('2026-01-01T00:00:00.000Z');
    const times = [t0, t0 + 120_000];
    const result = await publishBuild({ bucket, dir, netlifyToml: NETLIFY_TOML, deleteStale: true }, { client: counting.client, now: () => new Date(times.shift() ?? t0 + 120_000) });
    expect(result.ok).toBe(true);
    const state = JSON.parse(String(await (await counting.client.send(new GetObjectCommand({ Bucket: bucket, Key: '_build/publish-state.json' }))).Body!.transformToString())) as { retired: Record<string, string> };
    expect(Object.values(state.retired).length).toBeGreaterThan(0);
    // The manifest segments the earlier run retired keep their clock; every key this run retired starts after its uploads.
    const started = Object.entries(state.retired).filter(([, since]) => since.startsWith('2026-01-01'));
    expect(started.length).toBeGreaterThan(0);
    for (const [, since] of started) expect(since).toBe('2026-01-01T00:02:00.000Z');
  });

  it('pages through more than 1,000 keys (truncated ListObjectsV2) under a prefix', async () => {
    const records = syntheticRecords(340); // 3 keys per record + 3 more files + the manifest: over 1,000 keys
    const written = bucketPaths(await writeSyntheticDist(dir, records));
    expect(written.length).toBeGreaterThan(1000);
    expect((await publish({ prefix: 'pepe', concurrency: 16 })).ok).toBe(true);
    counting.reset();
    // --delete-stale always lists the whole prefix (no fast path).
    const again = await publish({ prefix: 'pepe/', deleteStale: true });
    expect(again.problems).toEqual([]);
    expect(again.counts.skipped).toBe(written.length);
    expect(counting.counts.PUT ?? 0).toBe(0);
    expect(counting.counts.GET).toBe(4); // manifest, publish state, 2 list pages (equal roots: no segment read)
  }, 60_000);

  it('validates the whole build first and uploads nothing when a listed file is missing', async () => {
    const records = syntheticRecords(3);
    await writeSyntheticDist(dir, records);
    await rm(join(dir, `site/v1/pepe/${records[2]!.id}`));
    await writeFile(join(dir, 'site/stray.txt'), 'not in the manifest');
    const result = await publish();
    expect(result.ok).toBe(false);
    expect(result.problems.map((p) => p.code).sort()).toEqual(['missing-file', 'unlisted-file']);
    // The bucket's root is read first (it decides which files to check); nothing is written.
    expect(counting.counts.PUT ?? 0).toBe(0);
    expect(counting.counts.GET ?? 0).toBe(2);
  });

  it('refuses a build whose JSON points at an image it does not hold, naming the file, before any request', async () => {
    const records = syntheticRecords(3);
    await writeSyntheticDist(dir, records);
    const image = `site/images/${records[1]!.id}${records[1]!.ext}`;
    await rm(join(dir, image));
    await editManifest((files) => void files.delete(image));
    const result = await publish();
    expect(result.ok).toBe(false);
    expect(result.problems.map((p) => p.code)).toEqual(['dangling-reference', 'dangling-reference']);
    expect(result.problems.map((p) => p.file).sort()).toEqual([join(dir, `site/api/pepe/${records[1]!.id}`), join(dir, `site/v1/pepe/${records[1]!.id}`)]);
    expect(result.problems[0]!.message).toContain(`points at images/${records[1]!.id}${records[1]!.ext}, which is not in the build`);
    expect(counting.counts.PUT ?? 0).toBe(0);
  });

  it('refuses a build whose manifest settings were edited after the build (the JSON still links elsewhere), before any request', async () => {
    // The settings are not in the version hash: edited to real URLs, they silenced the
    // local-urls warning and left the JSON's image URLs unchecked, and the build went out.
    const records = syntheticRecords(3);
    await writeSyntheticDist(dir, records);
    await editManifest(() => ({ baseUrl: 'https://pepe.example', apiUrl: 'https://api.pepe.example', cdnUrl: 'https://cdn.pepe.example' }));
    const result = await publish();
    expect(result.ok).toBe(false);
    expect(result.problems.map((p) => p.code)).toEqual(['settings-mismatch', 'settings-mismatch']);
    const first = [...records].sort((a, b) => (a.id < b.id ? -1 : 1))[0]!;
    expect(result.problems.map((p) => p.file)).toEqual([join(dir, `site/api/pepe/${first.id}`), join(dir, `site/v1/pepe/${first.id}`)]);
    expect(result.problems[0]!.message).toBe(
      `its image URL https://pepe.example.test/images/${first.id}${first.ext} does not start with https://pepe.example/images/ (baseUrl in manifest.json) (and 2 other by-id answer(s)): the manifest's settings do not match the build, so it was edited after the build; delete the build folder and build again with 'pepe build' (--base-url, --api-url, --cdn-url)`,
    );
    expect(result.problems[1]!.message).toContain('does not start with https://cdn.pepe.example/images/ (cdnUrl in manifest.json)');
    expect(counting.counts.PUT ?? 0).toBe(0);
    // Only the settings were wrong: with them put back, the same folder publishes.
    await editManifest(() => ({ baseUrl: 'https://pepe.example.test', apiUrl: 'https://api.example.test', cdnUrl: 'https://cdn.example.test' }));
    expect((await publish()).problems).toEqual([]);
  });

  it('lists in pages of 1,000 and deletes in batches of at most 1,000 (the real server)', async () => {
    const keys = Array.from({ length: 1200 }, (_, n) => `k/${String(n).padStart(4, '0')}`);
    const failure = await runPool(keys, 16, (key) => putObject(counting.client, bucket, { key, body: Buffer.from('x'), contentType: 'text/plain', cacheControl: 'no-store', sha256: '0'.repeat(64) }));
    expect(failure).toBeNull();
    counting.reset();
    const listed = await listAllObjects(counting.client, bucket, 'k/');
    expect([...listed.keys()].sort()).toEqual(keys);
    expect(counting.counts.GET).toBe(2);
    const batches: number[] = [];
    await deleteKeys(counting.client, bucket, keys, (count) => batches.push(count));
    expect(batches).toEqual([1000, 200]);
    expect((await listAllObjects(counting.client, bucket, 'k/')).size).toBe(0);
  });

  it('uploads the renditions of a real build with their headers before the JSON naming them, and refuses other bytes under a rendition key', async () => {
    // A real build: one 1000 px image has a rendition at each width (tools/image/renditions.ts).
    const contentDir = join(temp.path, `${bucket}-content`);
    await mkdir(contentDir, { recursive: true });
    await writeFile(join(contentDir, 'frog.png'), await sharp({ create: { width: 1000, height: 600, channels: 3, background: '#3a7' } }).png().toBuffer());
    await writeFile(join(contentDir, 'frog.json'), JSON.stringify({ id: fixtureId('publish-renditions'), description: 'a frog', tags: null, created_at: '2024-01-01T00:00:00Z' }));
    const built = await buildCatalogue({ contentDir, outDir: dir, cacheDir: join(temp.path, `${bucket}-cache`), urls: FIXTURE_URLS });
    expect(built.problems).toEqual([]);
    const renditions = built.records[0]!.thumbnails.map((t) => `images/${t.file_name}`);
    expect(renditions).toHaveLength(RENDITION_SETTINGS.widths.length);
    // Another publisher put other bytes, complete (their recorded sha256 is theirs), under the
    // first rendition's key: refused, nothing uploaded. (Bytes that do not match their own
    // recorded sha256 are an interrupted upload, repaired instead: bucket-plan.ts.)
    const other = Buffer.from('other bytes');
    await putObject(counting.client, bucket, { key: renditions[0]!, body: other, contentType: 'image/webp', cacheControl: IMAGE_CACHE_CONTROL, sha256: createHash('sha256').update(other).digest('hex') });
    counting.reset();
    const refused = await publish();
    expect(refused.problems.map((p) => [p.code, p.severity])).toContainEqual(['image-changed', 'error']);
    expect(refused.problems.find((p) => p.code === 'image-changed')!.message).toBe(`rendition ${renditions[0]} is already in the bucket with different bytes, although its name carries the hash of its bytes: the bucket's or this build's copy was altered; delete the build folder and build again`);
    expect(counting.counts.PUT ?? 0).toBe(0);

    await deleteKeys(counting.client, bucket, [renditions[0]!], () => undefined);
    counting.reset();
    const result = await publish();
    expect(result.ok).toBe(true);
    const firstJson = counting.putKeys.findIndex((k) => k.startsWith('api/') || k.startsWith('v1/'));
    for (const key of renditions) {
      expect(counting.putKeys.indexOf(key)).toBeGreaterThan(-1);
      expect(counting.putKeys.indexOf(key)).toBeLessThan(firstJson);
      const stored = await head(key);
      expect([stored.ContentType, stored.CacheControl]).toEqual(['image/webp', IMAGE_CACHE_CONTROL]);
    }
  });

  it('publishes one added record at 1k with a bounded number of PUTs and reads, and a no-op with three requests', async () => {
    const records = syntheticRecords(1000);
    await writeSyntheticDist(dir, records);
    expect((await publish({ concurrency: 16 })).ok).toBe(true);
    const before = await readManifestRootKeys();
    const added = syntheticRecords(1, 'added-1k')[0]!;
    await writeSyntheticDist(dir, [...records, added]);
    const segments = await newSegmentKeys(before);
    counting.reset();
    const result = await publish();
    expect(result.problems).toEqual([]);
    // The record's 3 files, its segment, its tree and the function data's segment, the root and the run marker: not one per record.
    expect([...counting.putKeys].sort()).toEqual([`images/${added.id}${added.ext}`, `api/pepe/${added.id}`, `v1/pepe/${added.id}`, ...segments, '_build/manifest.json', '_build/publish-run'].sort());
    expect(segments).toHaveLength(3);
    expect(counting.counts.GET).toBeLessThanOrEqual(2 + segments.length);
    expect(result.bytes.uploaded).toBeLessThan(100_000);
    counting.reset();
    expect((await publish()).counts.uploaded).toBe(0);
    expect(counting.counts).toEqual({ GET: 2, HEAD: 1 });
    // Rebuilt as a build does, the changed id segments' paths go to the delta: a description edited in
    // two records and one added is their files, the delta, the function data's segment, the root and the marker.
    const edited = [records[3]!, records[700]!].map((record) => ({ ...record, description: `${record.description} (edited)` }));
    const next = syntheticRecords(1, 'added-1k-2')[0]!;
    const beforeDelta = await readManifestRootKeys();
    await writeSyntheticDist(dir, [...records.filter((record) => !edited.some((e) => e.id === record.id)), ...edited, added, next], { incremental: true });
    const root = (await loadManifestRoot(dir))!;
    expect(root.delta?.files).toBe(7);
    const rebuiltSegments = await newSegmentKeys(beforeDelta);
    expect([...rebuiltSegments].sort()).toEqual([`_build/${segmentFile(root.segments.data!.sha256)}`, ...Object.values(root.delta!.parts).map((ref) => `_build/${segmentFile(ref.sha256)}`)].sort());
    counting.reset();
    const changed = await publish();
    expect(changed.problems).toEqual([]);
    const documents = [...edited, next].flatMap((record) => [`api/pepe/${record.id}`, `v1/pepe/${record.id}`]);
    expect([...counting.putKeys].sort()).toEqual([`images/${next.id}${next.ext}`, ...documents, ...rebuiltSegments, '_build/manifest.json', '_build/publish-run'].sort());
    expect(counting.putKeys.at(-1)).toBe('_build/manifest.json');
    // The root, the state and the bucket's delta (its segments are the build's: not read).
    expect(counting.counts.GET).toBe(3);
    // A listing run that checks every key against the build (the delta applied) finds nothing to upload.
    expect((await publish({ verify: true })).counts.uploaded).toBe(0);
  }, 300_000);

  it('--takedown deletes a removed record\'s original, renditions and documents in one run, remembers its bytes, and refuses while it is still built', async () => {
    const records = syntheticRecords(3);
    const perRecord = (r: SyntheticRecord) => ({
      [`site/p/${r.id}`]: `<!doctype html><title>${r.id}</title>\n`,
      [`site/oembed/${r.id}.json`]: '{"type": "photo"}\n',
      [`site/api/similar/${r.id}`]: '{"data": [], "error": null}\n',
      [`site/images/${r.id}-320w-0123456789abcdef.webp`]: `rendition of ${r.id}`,
    });
    const extra = (list: SyntheticRecord[]) => Object.assign({}, ...list.map(perRecord)) as Record<string, string>;
    await writeSyntheticDist(dir, records, { extra: extra(records) });
    expect((await publish()).ok).toBe(true);
    const gone = records[0]!;
    const keys = [`api/pepe/${gone.id}`, `api/similar/${gone.id}`, `images/${gone.id}${gone.ext}`, `images/${gone.id}-320w-0123456789abcdef.webp`, `oembed/${gone.id}.json`, `p/${gone.id}`, `v1/pepe/${gone.id}`];
    for (const key of keys) await expect(head(key)).resolves.toBeDefined();
    // Still in the build: refused, nothing written.
    counting.reset();
    const refused = await publish({ takedown: [gone.id] });
    expect(refused.ok).toBe(false);
    expect(refused.problems.map((p) => p.code)).toEqual(['takedown-still-built']);
    expect(refused.problems[0]!.message).toContain(`record ${gone.id} is still in the build`);
    expect(counting.counts.PUT ?? 0).toBe(0);
    // Removed and rebuilt: one run deletes every key of the record, after the new documents are up.
    await writeSyntheticDist(dir, records.slice(1), { extra: extra(records.slice(1)) });
    const taken = await publish({ takedown: [gone.id] });
    expect(taken.problems).toEqual([]);
    expect(taken.takedown!.deleted).toEqual([...keys].sort());
    for (const key of keys) await expect(head(key), key).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
    expect(taken.takedown!.urls).toContain(`https://cdn.example.test/images/${gone.id}${gone.ext}`);
    expect(taken.takedown!.urls).toContain(`https://pepe.example.test/p/${gone.id}`);
    for (const key of keys.filter((k) => k.startsWith('api/') || k.startsWith('v1/') || k.startsWith('images/'))) expect(siteKeys(taken.plan!.kept.map((k) => k.key))).not.toContain(key);
    // The image's bytes are remembered: its key never comes back with others.
    const state = JSON.parse(String(await (await counting.client.send(new GetObjectCommand({ Bucket: bucket, Key: '_build/publish-state.json' }))).Body!.transformToString())) as { gone: Record<string, string> };
    expect(state.gone[`images/${gone.id}${gone.ext}`]).toBe(createHash('sha256').update(gone.image).digest('hex'));
    await writeSyntheticDist(dir, [{ ...gone, image: Buffer.from('another picture') }, ...records.slice(1)]);
    expect((await publish()).problems.map((p) => p.code)).toEqual(['image-changed']);
  });

  it('deletes every per-record document of a removed record on the first --delete-stale run', async () => {
    const records = syntheticRecords(3);
    const gone = records[0]!;
    await writeSyntheticDist(dir, records, { extra: { [`site/p/${gone.id}`]: '<!doctype html>\n', [`site/oembed/${gone.id}.json`]: '{}\n', [`site/api/similar/${gone.id}`]: '{}\n' } });
    expect((await publish()).ok).toBe(true);
    await writeSyntheticDist(dir, records.slice(1));
    const first = await publish({ deleteStale: true });
    expect(siteKeys(first.plan!.deletions)).toEqual([`api/pepe/${gone.id}`, `api/similar/${gone.id}`, `oembed/${gone.id}.json`, `p/${gone.id}`, `v1/pepe/${gone.id}`]);
    // The image waits (a cached document may still point at it), and the run says so.
    expect(first.plan!.kept.map((k) => k.key)).toContain(`images/${gone.id}${gone.ext}`);
  });

  it('a dry run prints the plan from the bucket and writes nothing', async () => {
    const written = bucketPaths(await writeSyntheticDist(dir, syntheticRecords(3)));
    const result = await publish({ dryRun: true });
    expect(result.ok).toBe(true);
    expect(result.plan!.uploads.map((o) => o.path).sort()).toEqual([...written].sort());
    expect(result.plan!.uploadBytes).toBeGreaterThan(0);
    expect(counting.counts.PUT ?? 0).toBe(0);
    expect(counting.counts.POST ?? 0).toBe(0);
  });
});
