/**
 * Content-Type of a static file by its extension, used when netlify.toml sets none
 * (extensionless files get theirs from a `[[headers]]` rule, as on Netlify). Images use
 * the same table as the API (IMAGE_TYPES), so a file and its record always agree.
 */
import { extname } from 'node:path/posix';
import { IMAGE_TYPES } from '../../functions/core/record.js';

const TYPES: Record<string, string> = {
  ...IMAGE_TYPES,
  '.jpeg': 'image/jpeg',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
};

/** What a file without a known extension is sent as (never sniffed: we send nosniff on the API). */
const FALLBACK_CONTENT_TYPE = 'application/octet-stream';

export function contentTypeFor(urlPath: string): string {
  return TYPES[extname(urlPath).toLowerCase()] ?? FALLBACK_CONTENT_TYPE;
}

/** Text-like types worth compressing; images are already compressed. */
export function isCompressible(contentType: string | undefined | null): boolean {
  if (!contentType) return false;
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return type.startsWith('text/') || type === 'application/json' || type.endsWith('+json') || type === 'application/xml' || type === 'application/jsonl' || type.endsWith('+xml') || type === 'image/svg+xml' || type === 'application/javascript';
}
