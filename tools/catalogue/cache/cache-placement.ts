/**
 * Where a build cache may not go. Its files (build-cache.bin, answers.json, search-index.json…)
 * are plain files: inside the content folder the next scan reads them as content and reports
 * dozens of "broken sidecars" the user never wrote; inside the output folder they are published
 * with the site, and the build's commit of the output replaces them.
 */
import { resolve, sep } from 'node:path';
import { pathBelow } from '../scan-content.js';
import { error, type Problem } from '../../shared/problems.js';

/** The scan skips hidden names (content/.cache is never read as content), so only a visible path inside is refused. */
const visibleInside = (rel: string) => rel === '' || !rel.split(sep).some((part) => part.startsWith('.'));

/**
 * A `bad-cache-dir` problem when `cacheDir` would be read as content or published: inside the
 * content folder (unless below a hidden folder there), or inside the output folder (build only).
 */
export function cachePlacementProblem(cacheDir: string, contentDir: string, outDir?: string): Problem | null {
  const inContent = pathBelow(contentDir, cacheDir);
  if (inContent !== null && visibleInside(inContent)) {
    const where = inContent === '' ? 'is the content folder' : `is inside the content folder "${resolve(contentDir)}"`;
    return error('bad-cache-dir', `the cache folder "${resolve(cacheDir)}" ${where}, where its files would be read as images and sidecars: pass --cache with a folder outside it (or leave --cache out)`);
  }
  const inOut = outDir === undefined ? null : pathBelow(outDir, cacheDir);
  if (inOut !== null) {
    const where = inOut === '' ? 'is the output folder' : `is inside the output folder "${resolve(outDir!)}"`;
    return error('bad-cache-dir', `the cache folder "${resolve(cacheDir)}" ${where}, which each build replaces (the cache would be lost or served with the site): pass --cache with a folder outside it (or leave --cache out)`);
  }
  return null;
}
