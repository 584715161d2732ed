/**
 * Decides, per key, whether the bucket already holds the build's bytes, by content hash
 * only (never size or date). Sources, cheapest first:
 * 1. the ListObjectsV2 ETag: for a single-part upload it is the MD5 of the bytes, so an
 *    ETag equal to the local MD5 proves the content is there, with no extra request;
 * 2. the bucket's manifest (`_build/manifest.json`), for keys last written before it was
 *    (an interrupted run can leave newer objects the manifest does not describe); it wins
 *    over a differing MD5-looking ETag, since SSE-KMS ETags look like MD5s but are not;
 * 3. the object's own `x-amz-meta-sha256` (HeadObject), and for an image without it, its bytes.
 * ETags that are not MD5s (SSE-KMS, multipart) just fall through to 2 and 3.
 *
 * Fast path (`listing: null`): when the run marker shows the last writing run finished,
 * the bucket manifest describes every object exactly, so it alone decides, and the
 * 10-request-per-10k-keys listing is skipped. New image keys are still checked one by
 * one (HeadObject): a stale image left in the bucket must not be overwritten, even by a
 * server that ignores If-None-Match.
 */
import { basename } from 'node:path';
import { error, type Problem } from '../shared/problems.js';
import { type ManifestEntry, type ManifestRoot, sha256Of } from '../shared/manifest.js';
import { metadataFor } from './object-metadata.js';
import type { LocalObject } from './local-objects.js';
import { keyForPath } from './object-keys.js';
import { runPool } from './run-pool.js';
import { getObjectOrNull, headHeaders, headStored, type ListedObject } from './s3-operations.js';
import type { PlannedObject, S3Like } from './types.js';

export interface RemoteManifest {
  /** The bucket's root, parsed and valid (format 2), or null when unreadable or of an earlier format. */
  root: ManifestRoot | null;
  sha256: string;
  etag: string;
  lastModified: Date;
  /** Run id in the manifest's metadata (see RUN_MARKER_NAME); '' when absent. */
  run: string;
  /** `headersFingerprint` of the publish that wrote the manifest (its metadata); '' when absent. */
  headers: string;
}

/**
 * One path of each kind of file a build makes (folder and extension), whose headers stand for the
 * kind's. A path stands for the rules it matches, not for a file that must exist (the dataset's
 * shards match the same `/dataset/*.jsonl` rules as these names); editing the list changes the
 * fingerprint, so every object's metadata is checked once on the next publish.
 */
const PROBES = [
  ...['.png', '.jpg', '.gif', '.webp', '.avif'].map((ext) => `site/images/00000000-0000-4000-8000-000000000000${ext}`),
  'site/images/00000000-0000-4000-8000-000000000000-320w-0000000000000000.webp',
  ...['api/pepe', 'v1/pepe', 'api/similar', 'api/listing', 'p'].map((folder) => `site/${folder}/00000000-0000-4000-8000-000000000000`),
  'site/oembed/00000000-0000-4000-8000-000000000000.json',
  'site/api/pages/created_at_desc/1',
  'site/api/tags/frog',
  'site/api/openapi.json',
  'site/index.html',
  'site/assets/app.js',
  'site/assets/app.css',
  'site/feed.xml',
  'site/feed.json',
  'site/sitemap.xml',
  'site/robots.txt',
  'site/dataset/pepes.jsonl',
  'site/dataset/images.sha256',
  'site/dataset/manifest.json',
  'manifest.json',
];

/**
 * A hash of the Content-Type and Cache-Control the build gives each kind of object (a probe
 * path per folder and extension: `site/images/*.png`, `site/api/pepe/*`), stored with the
 * manifest. The content hashes say nothing about them, so a change of netlify.toml or of the
 * cache policy (with the same bytes) is found by comparing this, and then every object is
 * checked (a listing run). From the rules alone, not the build's files: a run that reads only
 * the root can compare it. (Not seen: a rule for a kind no probe stands for; `--verify` with a
 * changed rule, or a rule for every kind, covers it.)
 */
export function headersFingerprint(headersForPath: (urlPath: string) => Record<string, string>): string {
  const lines = PROBES.map((path) => {
    const { contentType, cacheControl } = metadataFor(path, headersForPath, () => '{}');
    return `${path}\t${contentType}\t${cacheControl}\n`;
  });
  return sha256Of(lines.join(''));
}

/**
 * Objects the plan skips (same bytes) whose stored Content-Type or Cache-Control is not the
 * build's are uploaded again (reason 'metadata'); one HeadObject each, only when the
 * fingerprint differs. One missing since the manifest was written is uploaded as new.
 */
export async function recheckMetadata(client: S3Like, bucket: string, planned: PlannedObject[], concurrency: number): Promise<{ planned: PlannedObject[]; error: unknown | null }> {
  const result = [...planned];
  const skipped = result.flatMap((object, index) => (object.reason === 'unchanged' ? [index] : []));
  const failure = await runPool(skipped, concurrency, async (index) => {
    const object = result[index]!;
    const stored = await headHeaders(client, bucket, object.key);
    if (stored === null) result[index] = { ...object, reason: 'new' };
    else if (stored.contentType !== object.contentType || stored.cacheControl !== object.cacheControl) result[index] = { ...object, reason: 'metadata' };
  });
  return { planned: result, error: failure };
}

const PLAIN_MD5_ETAG = /^"?([0-9a-f]{32})"?$/;

/** key → sha256 as described by the bucket's manifest, for keys last written before it (all keys on the fast path). */
function trustedHashes(remote: RemoteManifest | null, entries: ReadonlyMap<string, ManifestEntry> | null, prefix: string, listing: Map<string, ListedObject> | null): Map<string, string> {
  const hashes = new Map<string, string>();
  if (!remote?.root || entries === null) return hashes;
  for (const [path, entry] of entries) {
    const key = keyForPath(prefix, path);
    const listed = listing?.get(key);
    // Strictly older: S3 dates have 1-second resolution, and an object written in the manifest's
    // own second might come from a later, interrupted run.
    if (listing === null || (listed && listed.lastModified < remote.lastModified)) hashes.set(key, entry.sha256);
  }
  return hashes;
}

/** `<id>-<width>w-<hash16>.webp`: a rendition (tools/catalogue/renditions.ts). */
const RENDITION_NAME = /-\d+w-[0-9a-f]{16}\.webp$/;

/**
 * Whether the object at an image key is not a complete earlier upload but what an interrupted
 * one left (a publish killed mid-upload left zero-byte objects without metadata, and every
 * rerun then refused them as changed images, advice that was wrong): empty; or not the bytes
 * its own recorded sha256 names; or, without one, a strict beginning of the build's bytes.
 * Anything else (a complete object of other bytes, ours or another tool's) is a changed image.
 */
export function isIncompleteUpload(remote: Buffer, recordedSha256: string, local: Buffer): boolean {
  if (remote.length === 0) return true;
  if (recordedSha256 !== '') return sha256Of(remote) !== recordedSha256;
  return remote.length < local.length && local.subarray(0, remote.length).equals(remote);
}

/** An image stops the publish when it would change: its URL is cached as immutable for 30 days. */
function imageChanged(object: LocalObject): Problem {
  const id = basename(object.key).replace(/\.[^.]+$/, '');
  // A rendition's name carries the hash of its bytes (tools/catalogue/renditions.ts): another file under it was not made by pepe build from this name.
  if (RENDITION_NAME.test(basename(object.key))) {
    return error('image-changed', `rendition ${object.key} is already in the bucket with different bytes, although its name carries the hash of its bytes: the bucket's or this build's copy was altered; delete the build folder and build again`, object.path);
  }
  return error('image-changed', `image ${id} (${object.key}) is already in the bucket with different bytes; published images never change, so give the changed image a new id`, object.path);
}

function deletedImageChanged(object: LocalObject): Problem {
  const id = basename(object.key).replace(/\.[^.]+$/, '');
  return error('image-changed', `image ${id} (${object.key}) was published with different bytes and deleted since; caches may still serve those for 30 days, so give this image a new id`, object.path);
}

export async function planObjects(options: {
  client: S3Like;
  bucket: string;
  prefix: string;
  objects: LocalObject[];
  /** null: fast path, the manifest is known to describe the bucket. */
  listing: Map<string, ListedObject> | null;
  remoteManifest: RemoteManifest | null;
  /** What the bucket's manifest says of the paths planned (all of them, or those a diff names). */
  remoteEntries: ReadonlyMap<string, ManifestEntry> | null;
  concurrency: number;
  /** Image key → sha256 of the bytes it had when it was deleted (stale-policy.ts `gone`). */
  deletedImages?: Readonly<Record<string, string>>;
  /** The build's bytes of an object (checked against its sha256), or null when they cannot be read: compared with a broken object at its key. */
  readLocal: (object: LocalObject) => Promise<Buffer | null>;
}): Promise<{ planned: PlannedObject[]; problems: Problem[]; error: unknown | null }> {
  const { client, bucket, objects, listing } = options;
  const manifestHashes = trustedHashes(options.remoteManifest, options.remoteEntries, options.prefix, listing);
  const planned: PlannedObject[] = [];
  const problems: Problem[] = [];
  const needsHead: LocalObject[] = [];
  const gone = options.deletedImages ?? {};
  /** A key new to the bucket: an image whose key once held other bytes is refused. */
  const planNew = (object: LocalObject): void => {
    const before = object.group === 'image' ? gone[object.key] : undefined;
    if (before !== undefined && before !== object.sha256) problems.push(deletedImageChanged(object));
    else planned.push({ ...object, reason: 'new' });
  };
  for (const object of objects) {
    const fromManifest = manifestHashes.get(object.key);
    if (listing === null && fromManifest === undefined) {
      if (object.group === 'image') needsHead.push(object);
      else planned.push({ ...object, reason: 'new' });
      continue;
    }
    const listed = listing?.get(object.key);
    if (listing !== null && !listed) {
      planNew(object);
      continue;
    }
    const etagMd5 = listed ? PLAIN_MD5_ETAG.exec(listed.etag)?.[1] : undefined;
    if (etagMd5 === object.md5) {
      planned.push({ ...object, reason: 'unchanged' });
      continue;
    }
    if (fromManifest !== undefined) {
      // The manifest says "changed": enough for a document; an image is only refused on the object's own word.
      if (fromManifest !== object.sha256 && object.group !== 'image') {
        planned.push({ ...object, reason: 'changed' });
        continue;
      }
      if (fromManifest === object.sha256) {
        planned.push({ ...object, reason: 'unchanged' });
        continue;
      }
    }
    needsHead.push(object);
  }
  const failure = await runPool(needsHead, options.concurrency, async (object) => {
    const stored = await headStored(client, bucket, object.key);
    const recorded = stored?.sha256 ?? null;
    // Another size than the bytes its sha256 names: cut short (an interrupted upload).
    const cut = stored !== null && stored.size >= 0 && stored.size !== object.size;
    if (recorded === null) planNew(object);
    else if (recorded === object.sha256 && !cut) planned.push({ ...object, reason: 'unchanged' });
    else if (recorded === object.sha256) planned.push({ ...object, reason: object.group === 'image' ? 'repair' : 'changed' });
    else if (object.group !== 'image') planned.push({ ...object, reason: recorded === '' ? 'unconfirmed' : 'changed' });
    else {
      // An image is refused only on its bytes, and only when they are a complete object.
      const fetched = await getObjectOrNull(client, bucket, object.key);
      const local = fetched === null ? null : await options.readLocal(object);
      if (fetched === null) planNew(object);
      else if (local !== null && sha256Of(fetched.bytes) === object.sha256) planned.push({ ...object, reason: 'unchanged' });
      else if (local !== null && isIncompleteUpload(fetched.bytes, recorded, local)) planned.push({ ...object, reason: 'repair' });
      else problems.push(imageChanged(object));
    }
  });
  planned.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  problems.sort((a, b) => a.message.localeCompare(b.message));
  return { planned, problems, error: failure };
}

export { imageChanged };
