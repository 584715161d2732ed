/**
 * Turns the validated build into the objects to store: key, metadata, upload group, and the
 * images each JSON document points at (every one must be part of the build).
 */
import { join } from 'node:path';
import { error, type Problem } from '../build/problems.js';
import { readAtMostSync } from '../build/read-regular-file.js';
import type { LocalBuild } from './local-build.js';
import { metadataFor } from './object-metadata.js';
import { isImagePath, keyForPath, uploadGroupFor } from './object-keys.js';
import { imageReferences } from './references.js';
import type { PlannedObject } from './types.js';

export type LocalObject = Omit<PlannedObject, 'reason'>;

export interface LocalObjects {
  objects: LocalObject[];
  manifest: LocalObject;
  /** JSON key → the image keys it points at. */
  references: Map<string, string[]>;
  problems: Problem[];
}

export function localObjects(build: LocalBuild, prefix: string, headersForPath: (urlPath: string) => Record<string, string>): LocalObjects {
  const problems: Problem[] = [];
  const paths = new Set(build.files.map((f) => f.path));
  const references = new Map<string, string[]>();
  const objects = build.files.map((file): LocalObject => {
    // At most the validated size: a file that became a device since (a symlink to /dev/zero) was read for ever here; its upload then refuses it.
    const readText = () => (file.bytes ?? readAtMostSync(join(build.dir, file.path), file.size)).toString('utf8');
    const { contentType, cacheControl } = metadataFor(file.path, headersForPath, readText);
    const group = uploadGroupFor(file.path, contentType);
    if (group === 'json') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(readText());
      } catch (cause) {
        problems.push(error('invalid-json', `is served as JSON but does not parse (${(cause as Error).message}); rebuild with 'pepe build'`, join(build.dir, file.path)));
      }
      const keys: string[] = [];
      references.set(keyForPath(prefix, file.path), keys);
      for (const ref of imageReferences(parsed, build.manifest.settings)) {
        if (paths.has(ref) && isImagePath(ref)) keys.push(keyForPath(prefix, ref));
        else problems.push(error('dangling-reference', `points at ${ref.slice('site/'.length)}, which is not in the build; publishing it would serve a broken link`, join(build.dir, file.path)));
      }
    }
    return { key: keyForPath(prefix, file.path), path: file.path, group, size: file.size, sha256: file.sha256, md5: file.md5, contentType, cacheControl };
  });
  const m = build.manifestFile;
  const manifest: LocalObject = {
    key: keyForPath(prefix, m.path),
    path: m.path,
    group: 'manifest',
    size: m.size,
    sha256: m.sha256,
    md5: m.md5,
    ...metadataFor(m.path, headersForPath, () => build.manifestBytes.toString('utf8')),
  };
  return { objects, manifest, references, problems };
}
