/**
 * Content-Type and Cache-Control of each object. They come from netlify.toml (via the serve
 * helper's `headersForPath`), so Netlify and the bucket answer with the same headers, with
 * two deliberate differences for object storage:
 * - JSON gets JSON_OBJECT_STORAGE_CACHE_CONTROL: a generic CDN in front of a bucket is not
 *   purged by a deploy, so shared caches must expire JSON on their own (s-maxage);
 * - images always get IMAGE_CACHE_CONTROL (their URL never changes meaning).
 * Only Content-Type and Cache-Control can be stored per object: CORS and nosniff headers
 * are the bucket's / CDN's configuration (tools/publish/README.md, "What goes where").
 */
import { IMAGE_CACHE_CONTROL, JSON_OBJECT_STORAGE_CACHE_CONTROL, NO_STORE, STATIC_DEFAULT_CACHE_CONTROL } from '../../functions/core/cache-policy.js';
import { IMAGE_TYPES } from '../../functions/core/record.js';
import { isImagePath, isJsonType, urlPathForPath } from './object-keys.js';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** For files netlify.toml says nothing about; extensionless files are sniffed (see below). */
const TYPES_BY_EXTENSION: Record<string, string> = {
  ...IMAGE_TYPES,
  '.json': JSON_CONTENT_TYPE,
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
  '.map': JSON_CONTENT_TYPE,
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

export interface ObjectMetadata {
  contentType: string;
  cacheControl: string;
}

function header(headers: Record<string, string>, name: string): string | undefined {
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  return found?.[1];
}

function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot).toLowerCase() : '';
}

/** An extensionless file that parses as a JSON object or array is JSON (the precomputed by-id answers). */
function looksLikeJson(readText: () => string): boolean {
  const text = readText().trimStart();
  if (!text.startsWith('{') && !text.startsWith('[')) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * `readText` is only called for an extensionless file netlify.toml gives no Content-Type,
 * so most files are never read here.
 */
export function metadataFor(path: string, headersForPath: (urlPath: string) => Record<string, string>, readText: () => string): ObjectMetadata {
  const urlPath = urlPathForPath(path);
  // Build-internal objects (_build/…) are for the publisher and deploy tooling, never for a CDN to keep.
  if (urlPath === null) {
    const contentType = TYPES_BY_EXTENSION[extensionOf(path)] ?? 'application/octet-stream';
    return { contentType, cacheControl: NO_STORE };
  }
  const headers = headersForPath(urlPath);
  const ext = extensionOf(path);
  const contentType =
    header(headers, 'content-type') ??
    TYPES_BY_EXTENSION[ext] ??
    (ext === '' && looksLikeJson(readText) ? JSON_CONTENT_TYPE : 'application/octet-stream');
  if (isImagePath(path)) return { contentType, cacheControl: IMAGE_CACHE_CONTROL };
  if (isJsonType(contentType)) return { contentType, cacheControl: JSON_OBJECT_STORAGE_CACHE_CONTROL };
  // Pages and assets: as on Netlify; without a rule, revalidate (a CDN must not pin an old page).
  return { contentType, cacheControl: header(headers, 'cache-control') ?? STATIC_DEFAULT_CACHE_CONTROL };
}
