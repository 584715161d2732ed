/**
 * What must hold of a bucket, checked on the in-memory double's contents:
 * - `danglingReferences`: every JSON object points only at images that exist (at every step);
 * - `bucketMismatches`: the bucket holds exactly a build (after a clean rerun).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BuildManifest } from '../local-build.js';
import { keyForPath } from '../object-keys.js';
import { imageReferences } from '../references.js';
import type { StoredObject } from './memory-s3.js';

export function danglingReferences(objects: Map<string, StoredObject>, settings: Record<string, string>, prefix = ''): string[] {
  const dangling: string[] = [];
  for (const [key, object] of objects) {
    if (!object.contentType?.startsWith('application/json') || key.startsWith(`${prefix}_build/`)) continue;
    for (const ref of imageReferences(JSON.parse(object.bytes.toString('utf8')), settings)) {
      const imageKey = keyForPath(prefix, ref);
      if (!objects.has(imageKey)) dangling.push(`${key} → ${imageKey}`);
    }
  }
  return dangling;
}

/** Differences between the bucket and the build in `dir` (keys missing, extra, or with other bytes). */
export async function bucketMismatches(objects: Map<string, StoredObject>, dir: string, prefix = '', allowExtra: (key: string) => boolean = () => false): Promise<string[]> {
  const manifestBytes = await readFile(join(dir, 'manifest.json'));
  const manifest = JSON.parse(manifestBytes.toString('utf8')) as BuildManifest;
  const expected = new Map<string, Buffer>([[keyForPath(prefix, 'manifest.json'), manifestBytes]]);
  for (const path of Object.keys(manifest.files)) expected.set(keyForPath(prefix, path), await readFile(join(dir, path)));
  const problems: string[] = [];
  for (const [key, bytes] of expected) {
    const stored = objects.get(key);
    if (!stored) problems.push(`missing ${key}`);
    else if (!stored.bytes.equals(bytes)) problems.push(`different bytes at ${key}`);
  }
  for (const key of objects.keys()) if (!expected.has(key) && !allowExtra(key)) problems.push(`extra ${key}`);
  return problems;
}
