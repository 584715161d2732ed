/**
 * The CDN cache in front of the function, as on Netlify: an answer carrying
 * `Netlify-CDN-Cache-Control: public, durable, s-maxage=N` is kept for N seconds or until
 * the next deploy (for `pepe serve`: until restart), keyed by the full URL, so the
 * function runs once per URL. Answers without that header (random ones are `no-store`)
 * always reach the function.
 *
 * Not reproduced: `Netlify-Vary` (an answer that sends it is simply not cached) and
 * stale-while-revalidate. Bounded in memory (least recently used out first).
 */
import type { Encoding } from './compression.js';

/** A cached answer as cached-fast-path.ts sends it: flat headers (Age included) and the body, the same every time. */
export interface FastAnswer {
  headers: string[];
  body: Buffer;
}

export interface CachedAnswer {
  status: number;
  /** Response headers, lowercase names, as the edge forwards them (`forwardedHeaders`). */
  headers: Record<string, string | string[]>;
  body: Buffer;
  expiresAt: number;
  /** Compressed forms, made on first demand. */
  variants: Partial<Record<Encoding, Buffer>>;
  /** Complete headers of the common uncompressed answer (all but Age), built on first use. */
  plainHeaders?: Record<string, string | string[] | number>;
  /**
   * Set once the request chain itself routed this key to the function (not only a rewrite
   * did): only then may cached-fast-path.ts answer the key before the chain runs.
   */
  routed?: boolean;
  /** cached-fast-path.ts: the ready answer per form sent (plain, or a compressed encoding). */
  fastForms?: Partial<Record<'identity' | Encoding, FastAnswer>>;
  /** cached-fast-path.ts: whether a client accepting br/gzip gets another form of this answer. */
  compressedForms?: boolean;
}

/** Total bytes of cached bodies (compressed forms come on top, at most twice this); past it the least recently used answers go. */
const MAX_CDN_CACHE_BYTES = 32 * 1024 * 1024;
/** A single answer above this is not cached (no API answer comes close). */
export const MAX_CDN_CACHE_ENTRY_BYTES = 1024 * 1024;

/**
 * The function's headers as the edge forwards them to the client: without
 * `Netlify-CDN-Cache-Control`, which only Netlify's CDN reads and strips before the browser
 * (Netlify's caching guide, github.com/netlify/context-and-tools, skills/netlify-caching).
 */
export function forwardedHeaders(headers: Record<string, string | string[]>): Record<string, string | string[]> {
  if (headers['netlify-cdn-cache-control'] === undefined) return headers;
  const { 'netlify-cdn-cache-control': _cdnOnly, ...forwarded } = headers;
  return forwarded;
}

/**
 * The `Age` a hit is sent with: always 0. The answer is kept under the CDN-only lifetime
 * (until the next deploy), during which the function would answer the same bytes, so a hit is
 * as current as a fresh answer. Its real time in the cache would count against the browser's
 * `max-age=60` (RFC 9111 4.2.3 adds Age to a response's age): an answer cached for more than
 * a minute arrived already stale, so browsers, and a CDN in front of a self-hosted
 * `pepe serve`, never reused it and revalidated every request. (Fastly's advice for
 * Surrogate-Control is the same: reset Age on delivery.)
 */
export const HIT_AGE = '0';

/** Seconds the CDN may keep an answer, or 0 when it must not (RFC 9213 targeted field, Netlify's name). */
export function cdnLifetimeSeconds(headers: Record<string, string | string[]>): number {
  const value = headers['netlify-cdn-cache-control'];
  if (typeof value !== 'string' || headers['netlify-vary'] !== undefined) return 0;
  const directives = value.toLowerCase().split(',').map((d) => d.trim());
  if (directives.some((d) => d === 'no-store' || d === 'private' || d === 'no-cache')) return 0;
  const maxAge = directives.find((d) => d.startsWith('s-maxage=')) ?? directives.find((d) => d.startsWith('max-age='));
  const seconds = maxAge ? Number(maxAge.split('=')[1]) : 0;
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
}

export class CdnCache {
  private readonly entries = new Map<string, CachedAnswer>();
  private bytes = 0;

  constructor(private readonly maxBytes = MAX_CDN_CACHE_BYTES) {}

  get(key: string, now = Date.now()): CachedAnswer | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    this.entries.delete(key);
    if (entry.expiresAt <= now) {
      this.bytes -= entry.body.length;
      return null;
    }
    this.entries.set(key, entry); // most recently used last
    return entry;
  }

  /** Stores a GET answer when the function's headers allow it, with the headers the edge forwards; returns the stored entry or null. */
  store(key: string, status: number, functionHeaders: Record<string, string | string[]>, body: Buffer, now = Date.now()): CachedAnswer | null {
    const seconds = cdnLifetimeSeconds(functionHeaders);
    const headers = forwardedHeaders(functionHeaders);
    if (seconds === 0 || body.length > MAX_CDN_CACHE_ENTRY_BYTES) return null;
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.bytes -= previous.body.length;
    }
    const entry: CachedAnswer = { status, headers, body, expiresAt: now + seconds * 1000, variants: {} };
    this.entries.set(key, entry);
    this.bytes += body.length;
    for (const [oldKey, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldKey);
      this.bytes -= old.body.length;
    }
    return entry;
  }

  get size(): number {
    return this.entries.size;
  }
}
