/**
 * What must hold of a bucket, checked on the in-memory double's contents:
 * - `danglingReferences`: every by-id JSON object points only at an image that exists (at every step);
 * - `bucketMismatches`: the bucket holds exactly a build (after a clean rerun).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deltaFiles, type DeltaLines, loadManifest, MANIFEST_FILE, type ManifestRoot, manifestShapeError, mergeTrees, parseDelta, parseSegment, parseTree, segmentDigits, segmentFile, segmentFiles, type SegmentRef, withDeltaLines, withDeltaParts } from '../../shared/manifest.js';
import { isBucketPath, keyForPath } from '../object-keys.js';
import type { StoredObject } from './memory-s3.js';

/**
 * By-id JSON objects (`api/pepe/<id>`, `v1/pepe/<id>`) whose image (`data.url` / `result.url`,
 * a URL ending in `/images/<file>`) is not in the bucket. Read here from the published shapes
 * themselves, not with the publisher's own reference finder (references.ts), so that a bug
 * there cannot hide a dangling reference from this check.
 */
export function danglingReferences(objects: Map<string, StoredObject>, prefix = ''): string[] {
  const dangling: string[] = [];
  for (const [key, object] of objects) {
    if (!key.startsWith(prefix) || !/^(api|v1)\/pepe\/[^/]+$/.test(key.slice(prefix.length))) continue;
    const body = JSON.parse(object.bytes.toString('utf8')) as { data?: { url?: unknown }; result?: { url?: unknown } };
    const url = body.data?.url ?? body.result?.url;
    const at = typeof url === 'string' ? url.lastIndexOf('/images/') : -1;
    if (at === -1) {
      dangling.push(`${key} → (no image URL)`);
      continue;
    }
    const imageKey = `${prefix}images/${(url as string).slice(at + '/images/'.length)}`;
    if (!objects.has(imageKey)) dangling.push(`${key} → ${imageKey}`);
  }
  return dangling;
}

/** Differences between the bucket and the build in `dir` (keys missing, extra, or with other bytes). */
export async function bucketMismatches(objects: Map<string, StoredObject>, dir: string, prefix = '', allowExtra: (key: string) => boolean = () => false): Promise<string[]> {
  const manifestBytes = await readFile(join(dir, 'manifest.json'));
  const manifest = (await loadManifest(dir))!;
  const expected = new Map<string, Buffer>([[keyForPath(prefix, 'manifest.json'), manifestBytes]]);
  for (const path of segmentFiles(manifest)) expected.set(keyForPath(prefix, path), await readFile(join(dir, path)));
  // Only the site goes to the bucket: the function's data and bundle are deployed with the function.
  for (const path of Object.keys(manifest.files).filter(isBucketPath)) expected.set(keyForPath(prefix, path), await readFile(join(dir, path)));
  const problems: string[] = [];
  for (const [key, bytes] of expected) {
    const stored = objects.get(key);
    if (!stored) problems.push(`missing ${key}`);
    else if (!stored.bytes.equals(bytes)) problems.push(`different bytes at ${key}`);
  }
  for (const key of objects.keys()) if (!expected.has(key) && !allowExtra(key)) problems.push(`extra ${key}`);
  return problems;
}

/** Keys the bucket's root names (its trees, their segments, its delta, and the site files they list) that the bucket does not hold; [] without a root. */
export function rootMissing(objects: Map<string, StoredObject>, prefix = ''): string[] {
  const root = objects.get(keyForPath(prefix, MANIFEST_FILE));
  if (!root) return [];
  const parsedRoot = JSON.parse(root.bytes.toString('utf8')) as ManifestRoot;
  if (manifestShapeError(parsedRoot) !== null) return [];
  const file = withDeltaParts(parsedRoot);
  const missing: string[] = [];
  const trees = new Map<string, Record<string, SegmentRef>>();
  for (const [key, ref] of Object.entries(file.trees)) {
    const tree = objects.get(keyForPath(prefix, segmentFile(ref.sha256)));
    const refs = tree === undefined ? 'is missing' : parseTree(tree.bytes, key, ref);
    if (typeof refs === 'string') missing.push(`${keyForPath(prefix, segmentFile(ref.sha256))}: ${refs}`);
    else trees.set(key, refs);
  }
  let delta: Map<string, DeltaLines> | null = null;
  if (file.delta) {
    delta = new Map();
    for (const [part, ref] of deltaFiles(file)) {
      const object = objects.get(keyForPath(prefix, segmentFile(ref.sha256)));
      const lines = object === undefined ? 'is missing' : parseDelta(object.bytes, ref, segmentDigits(file.counts.records), false, part);
      if (typeof lines === 'string') missing.push(`${keyForPath(prefix, segmentFile(ref.sha256))}: ${lines}`);
      else delta.set(part, lines);
    }
  }
  if (missing.length > 0) return missing;
  const parsed = mergeTrees(file, trees, delta);
  if (typeof parsed === 'string') return [`${MANIFEST_FILE}: ${parsed}`];
  for (const [key, ref] of Object.entries(parsed.segments)) {
    const segment = objects.get(keyForPath(prefix, segmentFile(ref.sha256)));
    if (!segment) {
      missing.push(keyForPath(prefix, segmentFile(ref.sha256)));
      continue;
    }
    const entries = parseSegment(segment.bytes, key, ref, segmentDigits(parsed.counts.records));
    if (typeof entries === 'string') missing.push(`${keyForPath(prefix, segmentFile(ref.sha256))}: ${entries}`);
    else for (const path of withDeltaLines(parsed, key, entries).keys()) if (isBucketPath(path) && !objects.has(keyForPath(prefix, path))) missing.push(keyForPath(prefix, path));
  }
  return missing;
}
