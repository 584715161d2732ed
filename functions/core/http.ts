/**
 * The HTTP rules shared by every answer (the specification, "HTTP behaviour"): JSON headers,
 * CORS, caching by kind of answer, strong ETags with If-None-Match → 304, HEAD without
 * body, the OPTIONS preflight.
 */
import {
  ERROR_BROWSER_CACHE_CONTROL, ERROR_NETLIFY_CDN_CACHE_CONTROL, JSON_BROWSER_CACHE_CONTROL, JSON_NETLIFY_CDN_CACHE_CONTROL, NO_STORE,
  untilCacheControl, untilNetlifyCdnCacheControl,
} from './cache-policy.js';

export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
/** How long browsers may reuse a preflight answer (one day; browsers cap it lower anyway). */
const PREFLIGHT_MAX_AGE_SECONDS = 86400;

/**
 * - `deterministic`: the same URL always gives this body until the next deploy;
 * - `error`: a deterministic 400/404, cached briefly;
 * - `no-store`: random answers, 405 and 500.
 */
export type Caching = 'deterministic' | 'error' | 'no-store';

export interface Answer {
  status: number;
  body: string;
  caching: Caching;
  /** Extra headers (e.g. `Allow` on a 405). */
  headers?: Record<string, string>;
  /** A deterministic answer that is right for this many more seconds only (the pepe of today: until the next UTC midnight). */
  maxAge?: number;
}

const encoder = new TextEncoder();
/** The ETag reads words as little-endian on any platform. */
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/**
 * Strong ETag of a body: equal bodies, equal tags (a 2×32-bit hash of its UTF-8 bytes plus
 * the length of its text). The bytes are read four at a time, as little-endian words: a cold
 * process runs this loop in V8's interpreter, where a character at a time is a large part of
 * the first answer's cost (functions/README.md, "Cold start"). `bytes` is TextEncoder's: a buffer of its own, at offset 0.
 */
function etagOf(body: string, bytes: Uint8Array): string {
  const imul = Math.imul;
  const whole = bytes.byteLength >>> 2;
  const words = new Uint32Array(bytes.buffer, 0, whole);
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < whole; i++) {
    const w = words[i]!;
    const c = LITTLE_ENDIAN ? w : ((w & 0xff) << 24) | ((w & 0xff00) << 8) | ((w >>> 8) & 0xff00) | (w >>> 24);
    h1 = imul(h1 ^ c, 2654435761);
    h2 = imul(h2 ^ c, 1597334677);
  }
  for (let i = whole * 4; i < bytes.byteLength; i++) {
    h1 = imul(h1 ^ bytes[i]!, 2654435761);
    h2 = imul(h2 ^ bytes[i]!, 1597334677);
  }
  h1 = imul(h1 ^ (h1 >>> 16), 2246822507) ^ imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = imul(h2 ^ (h2 >>> 16), 2246822507) ^ imul(h1 ^ (h1 >>> 13), 3266489909);
  return `"${(h1 >>> 0).toString(16).padStart(8, '0')}${(h2 >>> 0).toString(16).padStart(8, '0')}-${body.length.toString(36)}"`;
}

/** RFC 9110 §13.1.2: If-None-Match uses the weak comparison; `*` matches any current answer. */
function ifNoneMatchHits(header: string | null, etag: string): boolean {
  if (header === null) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return (t.startsWith('W/') ? t.slice(2) : t) === etag;
  });
}

/**
 * What every answer carries, errors and the preflight included (the specification: CORS `*`):
 * a page on any origin may read it and its ETag; nosniff keeps the JSON from being run as
 * anything else. `pepe serve`'s own error answers take the same set (tools/serve/error-answers.ts).
 */
export const CROSS_ORIGIN_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag',
  'X-Content-Type-Options': 'nosniff',
});

/** The headers of every JSON answer, a fresh object for the caller to add to. */
export function jsonHeaders(): Record<string, string> {
  return { 'Content-Type': 'application/json; charset=utf-8', ...CROSS_ORIGIN_HEADERS };
}

export function respond(request: Request, answer: Answer): Response {
  const headers = { ...jsonHeaders(), ...answer.headers };
  const bytes = encoder.encode(answer.body);
  if (answer.caching === 'no-store') {
    headers['Cache-Control'] = NO_STORE;
  } else {
    const error = answer.caching === 'error';
    if (answer.maxAge !== undefined) {
      headers['Cache-Control'] = untilCacheControl(answer.maxAge);
      headers['Netlify-CDN-Cache-Control'] = untilNetlifyCdnCacheControl(answer.maxAge);
    } else {
      headers['Cache-Control'] = error ? ERROR_BROWSER_CACHE_CONTROL : JSON_BROWSER_CACHE_CONTROL;
      headers['Netlify-CDN-Cache-Control'] = error ? ERROR_NETLIFY_CDN_CACHE_CONTROL : JSON_NETLIFY_CDN_CACHE_CONTROL;
    }
    headers.ETag = etagOf(answer.body, bytes);
    if (answer.status === 200 && ifNoneMatchHits(request.headers.get('If-None-Match'), headers.ETag)) {
      delete headers['Content-Type'];
      return new Response(null, { status: 304, headers });
    }
  }
  headers['Content-Length'] = String(bytes.byteLength);
  return new Response(request.method === 'HEAD' ? null : bytes, { status: answer.status, headers });
}

/** 204 CORS preflight: no credentials are involved, so any origin and request header may come. */
export function preflight(): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...CROSS_ORIGIN_HEADERS,
      'Access-Control-Allow-Methods': ALLOWED_METHODS,
      'Access-Control-Allow-Headers': '*',
      'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
      Allow: ALLOWED_METHODS,
    },
  });
}

/**
 * A URL path with the percent-escapes of unreserved characters (letters, digits, `-._~`)
 * decoded, which RFC 3986 (6.2.2.2) makes equivalent: `/api/%70epe` is `/api/pepe`, as the
 * static files already treat it. Other escapes (`%2F`, `%20`, …) stay as they are.
 */
export function decodeUnreserved(path: string): string {
  if (!path.includes('%')) return path;
  return path.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const code = Number.parseInt(hex, 16);
    const unreserved = (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x2d || code === 0x2e || code === 0x5f || code === 0x7e;
    return unreserved ? String.fromCharCode(code) : escape;
  });
}
