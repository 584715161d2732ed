/**
 * Where each build file goes in the bucket (tools/catalogue/README.md, "Build output"):
 * `site/X` → `<prefix>X`, any other file `Y` → `<prefix>_build/Y`, the manifest → `<prefix>_build/manifest.json`. Also the
 * upload group of each key, which fixes the order objects reach the bucket.
 */
import { UsageError } from '../shared/io.js';
import type { UploadGroup } from './types.js';

export const MANIFEST_PATH = 'manifest.json';
/** Bookkeeping of the stale-key policy (see stale-policy.ts); lives beside the manifest. */
export const STATE_NAME = '_build/publish-state.json';
/**
 * Written (with a new run id in its metadata) before a run's first upload; the manifest,
 * written last, carries the same run id. Equal ids = the last run that wrote anything
 * finished, so the manifest describes the bucket exactly and no listing is needed.
 */
export const RUN_MARKER_NAME = '_build/publish-run';

/** '' stays ''; anything else gets exactly one trailing slash. A leading slash would make keys S3 shows as '/x'. */
export function normalisePrefix(raw: string | undefined): string {
  if (raw === undefined || raw === '') return '';
  if (raw.startsWith('/')) throw new UsageError(`--prefix must not start with "/" (got "${raw}"); S3 keys have no leading slash`);
  if (raw.split('/').some((part) => part === '..' || part === '.')) throw new UsageError(`--prefix must not contain "." or ".." segments (got "${raw}")`);
  // "a//b/": S3 takes such keys, but URL paths with an empty segment are collapsed by many CDNs and
  // servers (s3rver answers them with an HTML 404, reported as "not an S3 API").
  if (raw.replace(/\/$/, '').split('/').some((part) => part === '')) throw new UsageError(`--prefix must not contain an empty segment ("//") (got "${raw}")`);
  return raw.endsWith('/') ? raw : `${raw}/`;
}

/** S3's rules for bucket names (3–63 lowercase letters, digits, dots, hyphens; s3rver needs 3+ too). */
export function checkBucketName(name: string): void {
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name)) {
    throw new UsageError(`--bucket must be 3 to 63 lowercase letters, digits, dots or hyphens, starting and ending with a letter or digit (got "${name}")`);
  }
}

export function keyForPath(prefix: string, path: string): string {
  if (path === MANIFEST_PATH) return `${prefix}_build/manifest.json`;
  if (path.startsWith('site/')) return `${prefix}${path.slice('site/'.length)}`;
  return `${prefix}_build/${path}`;
}

/** The public URL path of a site file ('site/api/pepe/x' → '/api/pepe/x'), null for build-internal files. */
export function urlPathForPath(path: string): string | null {
  return path.startsWith('site/') ? `/${path.slice('site/'.length)}` : null;
}

export function isImagePath(path: string): boolean {
  return path.startsWith('site/images/');
}

/** Whether a build file goes to the bucket: the site; the function's data and bundle are deployed with the function, and a bucket never serves them. */
export const isBucketPath = (path: string): boolean => path.startsWith('site/');

/** JSON documents, and not the dataset's JSON Lines (`application/jsonl`), which no JSON parser reads whole. */
export const isJsonType = (contentType: string): boolean => /^application\/json\s*(;|$)/.test(contentType);

/** The documents a client starts from, each pointing into a set of its own kind: they go up once that set is there. */
const HEADS = new Set(['site/api/listing/head', 'site/sitemap.xml', 'site/dataset/index.json']);

/**
 * Images first (JSON points at them), then assets (pages point at them), then JSON, then
 * pages, then the feeds and sitemaps that list pages, then the heads (the listing's, the
 * sitemap index, the dataset's index), the manifest last: at every moment each published
 * document a client starts from only points at objects already there.
 */
export function uploadGroupFor(path: string, contentType: string): UploadGroup {
  if (path === MANIFEST_PATH) return 'manifest';
  if (HEADS.has(path)) return 'head';
  if (!path.startsWith('site/')) return 'build';
  if (isImagePath(path)) return 'image';
  if (isJsonType(contentType)) return 'json';
  if (contentType.startsWith('text/html')) return 'page';
  // Feeds and sitemaps list share pages: they go up once the pages are there.
  if (/^application\/(atom\+xml|feed\+json|xml)\b/.test(contentType)) return 'listing';
  return 'asset';
}

export const GROUP_ORDER: readonly UploadGroup[] = ['image', 'asset', 'json', 'page', 'listing', 'head', 'build', 'manifest'];
