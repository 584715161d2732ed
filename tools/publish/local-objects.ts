/**
 * Turns the validated build into the objects to store: key, metadata, upload group, and the
 * images each JSON document points at (every one must be part of the build).
 */
import { join } from 'node:path';
import { error, type Problem } from '../shared/problems.js';
import { readAtMostSync } from '../shared/read-regular-file.js';
import type { SiteUrls } from '../../functions/core/record.js';
import type { LocalBuild } from './local-build.js';
import { metadataFor } from './object-metadata.js';
import { isImagePath, keyForPath, uploadGroupFor } from './object-keys.js';
import { imageReferences } from './references.js';
import type { PlannedObject } from './types.js';

export type LocalObject = Omit<PlannedObject, 'reason'>;

export interface LocalObjects {
  /** The site files checked, then the manifest segments to upload. */
  objects: LocalObject[];
  /** The root, uploaded last. */
  manifest: LocalObject;
  /** JSON key → the image keys it points at. */
  references: Map<string, string[]>;
  problems: Problem[];
}

/**
 * A by-id answer's image URL is `{base_url}/images/…` (api/pepe) or `{cdn_url}/images/…`
 * (v1/pepe), from the manifest's settings. Those settings are not covered by the manifest's
 * version hash, so a hand edit of them (to silence the local-urls warning, say) went unseen:
 * the JSON, still linking to the old URLs, was published with its references unchecked and no
 * warning. Returns the mismatch, or null.
 */
function settingsMismatch(path: string, parsed: unknown, settings: SiteUrls): { setting: string; root: string; url: string } | null {
  const [field, member, setting] = path.startsWith('site/api/pepe/') ? (['data', 'url', 'baseUrl'] as const) : path.startsWith('site/v1/pepe/') ? (['result', 'url', 'cdnUrl'] as const) : [null, null, null];
  if (field === null) return null;
  const url = (parsed as Record<string, Record<string, unknown> | undefined> | null)?.[field]?.[member];
  const root = `${settings[setting].replace(/\/+$/, '')}/images/`;
  if (typeof url !== 'string' || url.startsWith(root)) return null;
  return { setting, root, url };
}

export function localObjects(build: LocalBuild, prefix: string, headersForPath: (urlPath: string) => Record<string, string>): LocalObjects {
  const problems: Problem[] = [];

  const references = new Map<string, string[]>();
  const mismatches: { setting: string; root: string; url: string; file: string }[] = [];
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
      const mismatch = settingsMismatch(file.path, parsed, build.root.settings);
      if (mismatch) mismatches.push({ ...mismatch, file: join(build.dir, file.path) });
      const keys: string[] = [];
      references.set(keyForPath(prefix, file.path), keys);
      for (const ref of imageReferences(parsed, build.root.settings)) {
        if (isImagePath(ref) && build.lists(ref)) keys.push(keyForPath(prefix, ref));
        else problems.push(error('dangling-reference', `points at ${ref.slice('site/'.length)}, which is not in the build; publishing it would serve a broken link`, join(build.dir, file.path)));
      }
    }
    return { key: keyForPath(prefix, file.path), path: file.path, group, size: file.size, sha256: file.sha256, md5: file.md5, contentType, cacheControl };
  });
  // One problem per setting, not one per record (10k by-id answers share the cause).
  for (const setting of new Set(mismatches.map((x) => x.setting))) {
    const these = mismatches.filter((x) => x.setting === setting);
    const first = these[0]!;
    const others = these.length > 1 ? ` (and ${these.length - 1} other by-id answer(s))` : '';
    problems.push(
      error('settings-mismatch', `its image URL ${first.url} does not start with ${first.root} (${setting} in manifest.json)${others}: the manifest's settings do not match the build, so it was edited after the build; delete the build folder and build again with 'pepe build' (--base-url, --api-url, --cdn-url)`, first.file),
    );
  }
  // The segments go up with the build files, before the root that names them.
  for (const s of build.segments) objects.push({ key: keyForPath(prefix, s.path), path: s.path, group: 'build', size: s.size, sha256: s.sha256, md5: s.md5, ...metadataFor(s.path, headersForPath, () => '') });
  const m = build.rootFile;
  const manifest: LocalObject = {
    key: keyForPath(prefix, m.path),
    path: m.path,
    group: 'manifest',
    size: m.size,
    sha256: m.sha256,
    md5: m.md5,
    ...metadataFor(m.path, headersForPath, () => build.rootBytes.toString('utf8')),
  };
  return { objects, manifest, references, problems };
}
