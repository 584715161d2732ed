/**
 * Warnings for images whose bytes changed under the id they were built with before. A
 * published image URL is immutable (cached for 30 days, the specification): a changed picture
 * needs a new id. `pepe publish` refuses such an image against the bucket; the build can only
 * see its own previous output, so it warns (a maintainer's local build is where an image
 * edited in place shows up first).
 */
import { type Manifest, manifestEntry } from '../shared/manifest.js';
import { type Problem, warning } from '../shared/problems.js';

const IMAGE_PREFIX = 'site/images/';

/** `written`: output paths whose bytes this build wrote; `contentFileOf`: the content file behind an image path. */
export function changedImageWarnings(written: readonly string[], previous: Manifest | null, contentFileOf: (path: string) => string | undefined): Problem[] {
  if (previous === null) return [];
  return written
    .filter((path) => path.startsWith(IMAGE_PREFIX) && manifestEntry(previous, path) !== undefined)
    .map((path) =>
      warning(
        'image-changed',
        `its bytes changed, but its id did not: /${path.slice('site/'.length)} was built with other bytes before, and clients and CDNs may keep those for 30 days; give the changed picture a new id in its sidecar (pepe publish refuses it otherwise)`,
        contentFileOf(path),
      ),
    );
}
