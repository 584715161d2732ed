/**
 * The CDN cache in front of the function, as on Netlify: an answer carrying
 * `Netlify-CDN-Cache-Control: public, durable, s-maxage=N` is kept for N seconds or until
 * the next deploy (for `pepe serve`: the next build, reload.ts), keyed by the full URL, so the
 * function runs once per URL. Answers without that header (random ones are `no-store`)
 * always reach the function.
 *
 * Not reproduced: `Netlify-Vary` (an answer that sends it is simply not cached) and
 * stale-while-revalidate.
 *
 * Bounded by what an entry really holds, not by its body alone: the key is the full path and
 * query, chosen by the client (up to ~16 KB each), so an entry is charged its key, its header
 * text (four times: as forwarded, as the base and in its ready forms), its body, the
 * compressed forms it may get (twice the body, reserved at once) and a fixed overhead for the
 * objects around them. Past MAX_CDN_CACHE_BYTES the least recently used entries go; expired
 * ones are swept at most every SWEEP_INTERVAL_MS. The attacks bench holds the process to its
 * bound (tools/bench/README.md; README.md, "Bounded memory").
 */
import { createHash } from 'node:crypto';
import type { Encoding } from './compression.js';
import { type BaseHeaders, forwardedHeaders, functionBaseHeaders, hasCompressedForms, type HeaderValues, mayCompress, type ReadyForms } from './response-headers.js';

export interface CachedAnswer {
  status: number;
  /** Response headers, lowercase names, as the edge forwards them (response-headers.ts `forwardedHeaders`). */
  headers: HeaderValues;
  /** What every form of it carries (response-headers.ts `functionBaseHeaders`). */
  base: BaseHeaders;
  body: Buffer;
  expiresAt: number;
  /** Compressed forms, made on first demand. */
  variants: Partial<Record<Encoding, Buffer>>;
  /** The answer per form sent, built on first use (function-response.ts `cachedForm`). */
  forms?: ReadyForms;
  /**
   * Set once the request chain itself routed this key to the function (not only a rewrite
   * did): only then may cached-fast-path.ts answer the key before the chain runs.
   */
  routed?: boolean;
  /** What the entry is charged against the cache's budget (entryCost). */
  cost: number;
  /** When it was stored (the cache's clock, ms). */
  storedAt: number;
  /** Its browser lifetime reaches its expiry (`/api/daily`, valid until midnight): hits carry their real Age (`ageOf`). */
  ages: boolean;
}

/**
 * Total bytes the cache may hold, keys, headers, bodies, compressed forms and overhead counted
 * (entryCost): about 500 list pages of 10 KB with their compressed forms. Small, because V8
 * lets the heap grow well past what is live before it collects (the attacks bench).
 */
export const MAX_CDN_CACHE_BYTES = 16 * 1024 * 1024;
/**
 * What an entry holds besides its key, header text and bodies: the Map slot, the entry, its
 * header objects and the early answer's form records. An estimate, not a per-entry
 * measurement, rounded up so that the budget errs on the safe side.
 */
const ENTRY_OVERHEAD_BYTES = 2048;
/**
 * Keys longer than this are kept as their SHA-256 (`#` + base64url): no API URL a client
 * builds from the documented parameters comes close (search is capped at 200 characters), but
 * a client can send 16 KB ones, and each evicted long key is old-generation garbage V8 lets
 * pile up far past the budget. Hashed, the garbage per entry is the entry.
 */
const MAX_PLAIN_KEY_LENGTH = 512;
/** Expired entries are swept (all at once, on a store) at most this often; between sweeps they are dropped when met or evicted. */
const SWEEP_INTERVAL_MS = 10_000;
/**
 * After the bodies of this many bytes of dropped entries (evicted, expired, replaced), the
 * cache calls `collect`. A body is a Buffer, memory outside V8's heap that outlives its entry
 * until V8 next collects the old generation, which it starts only once about 64 MB of such
 * memory has piled up; glibc then keeps the freed pages. Answers served from the cache drop
 * nothing and pay nothing; the cost and the gain are the attacks bench's (README.md,
 * "Bounded memory").
 */
export const COLLECT_AFTER_DROPPED_BYTES = 8 * 1024 * 1024;
/** A single answer above this is not cached (no API answer comes close). */
export const MAX_CDN_CACHE_ENTRY_BYTES = 1024 * 1024;

/**
 * The bytes an entry is charged: its key (ASCII: the URL parser's normal form), its header
 * text four times (as forwarded, complete with the edge's, and as flat lists per form), its
 * body, twice the body for the brotli and gzip forms when it has them, and ENTRY_OVERHEAD_BYTES.
 */
export function entryCost(key: string, status: number, headers: HeaderValues, body: Buffer): number {
  let headerBytes = 0;
  for (const [name, value] of Object.entries(headers)) headerBytes += name.length + (Array.isArray(value) ? value.join('').length : value.length);
  const bodies = body.length * (hasCompressedForms({ compressible: mayCompress(headers) }, status, body.length) ? 3 : 1);
  return key.length + 4 * headerBytes + bodies + ENTRY_OVERHEAD_BYTES;
}

/**
 * The `Age` a hit is sent with: always 0. The answer is kept under the CDN-only lifetime
 * (until the next deploy), during which the function would answer the same bytes, so a hit is
 * as current as a fresh answer. Its real time in the cache would count against the browser's
 * `max-age=60` (RFC 9111 4.2.3 adds Age to a response's age): an answer cached for more than
 * a minute would arrive already stale, so browsers, and a CDN in front of a self-hosted
 * `pepe serve`, would revalidate every request. (Fastly's advice for Surrogate-Control is the
 * same: reset Age on delivery.)
 */
export const HIT_AGE = '0';

/** The `max-age` of a Cache-Control value in seconds, or 0. */
function browserMaxAge(value: string | string[] | undefined): number {
  const match = typeof value === 'string' ? /(?:^|,)\s*max-age=(\d+)/i.exec(value) : null;
  return match ? Number(match[1]) : 0;
}

/** Seconds the CDN may keep an answer, or 0 when it must not (RFC 9213 targeted field, Netlify's name). */
export function cdnLifetimeSeconds(headers: HeaderValues): number {
  const value = headers['netlify-cdn-cache-control'];
  if (typeof value !== 'string' || headers['netlify-vary'] !== undefined) return 0;
  const directives = value.toLowerCase().split(',').map((d) => d.trim());
  if (directives.some((d) => d === 'no-store' || d === 'private' || d === 'no-cache')) return 0;
  const maxAge = directives.find((d) => d.startsWith('s-maxage=')) ?? directives.find((d) => d.startsWith('max-age='));
  const seconds = maxAge ? Number(maxAge.split('=')[1]) : 0;
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
}

/** The Map key of a URL (path and query): itself, or its hash when long (MAX_PLAIN_KEY_LENGTH). */
function keyOf(url: string): string {
  return url.length <= MAX_PLAIN_KEY_LENGTH ? url : `#${createHash('sha256').update(url).digest('base64url')}`;
}

/** How the cache is sized, timed and told to collect (every field optional). */
export interface CdnCacheOptions {
  /** The budget in bytes (entryCost); default MAX_CDN_CACHE_BYTES. */
  maxBytes?: number;
  /** The clock entries are stored, aged and expired by (default Date.now; tests move it). */
  now?: () => number;
  /**
   * Called each time the bodies of dropped entries add up to COLLECT_AFTER_DROPPED_BYTES: the
   * process owner collects the old generation there (tools/cli/commands/serve.ts); default none.
   */
  collect?: () => void;
}

export class CdnCache {
  private readonly entries = new Map<string, CachedAnswer>();
  private charged = 0;
  private nextSweep = 0;
  /** Body bytes of entries dropped since the last collection (COLLECT_AFTER_DROPPED_BYTES). */
  private dropped = 0;

  private readonly maxBytes: number;
  private readonly now: () => number;
  private readonly collect: () => void;

  constructor(options: CdnCacheOptions = {}) {
    this.maxBytes = options.maxBytes ?? MAX_CDN_CACHE_BYTES;
    this.now = options.now ?? Date.now;
    this.collect = options.collect ?? (() => {});
  }

  /**
   * The `Age` a hit is sent with: HIT_AGE, except for an answer whose browser `max-age` runs
   * to its expiry (`/api/daily` until midnight): replayed with Age 0, a downstream cache
   * would add the whole max-age again and keep yesterday's answer past midnight, so it gets
   * the seconds since it was stored, as RFC 9111 4.2.3 counts them.
   */
  ageOf(entry: CachedAnswer, now = this.now()): string {
    return entry.ages ? String(Math.max(0, Math.floor((now - entry.storedAt) / 1000))) : HIT_AGE;
  }

  get(url: string, now = this.now()): CachedAnswer | null {
    const key = keyOf(url);
    const entry = this.entries.get(key);
    if (!entry) return null;
    this.entries.delete(key);
    if (entry.expiresAt <= now) {
      this.dropEntry(entry);
      return null;
    }
    this.entries.set(key, entry); // most recently used last
    return entry;
  }

  /** Stores a GET answer when the function's headers allow it, with the headers the edge forwards; returns the stored entry or null. */
  store(url: string, status: number, functionHeaders: HeaderValues, body: Buffer, now = this.now()): CachedAnswer | null {
    const key = keyOf(url);
    const seconds = cdnLifetimeSeconds(functionHeaders);
    const headers = forwardedHeaders(functionHeaders);
    if (seconds === 0 || body.length > MAX_CDN_CACHE_ENTRY_BYTES) return null;
    const cost = entryCost(key, status, headers, body);
    if (cost > this.maxBytes) return null;
    if (now >= this.nextSweep) this.sweep(now);
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.dropEntry(previous);
    }
    const ages = browserMaxAge(headers['cache-control']) >= seconds;
    const entry: CachedAnswer = { status, headers, base: functionBaseHeaders(headers), body, expiresAt: now + seconds * 1000, variants: {}, cost, storedAt: now, ages };
    this.entries.set(key, entry);
    this.charged += cost;
    for (const [oldKey, old] of this.entries) {
      if (this.charged <= this.maxBytes) break;
      this.entries.delete(oldKey);
      this.dropEntry(old);
    }
    return entry;
  }

  /** Uncharges an entry already out of the map, and collects once enough bodies wait for it. */
  private dropEntry(entry: CachedAnswer): void {
    this.charged -= entry.cost;
    this.dropped += entry.body.length + (entry.variants.br?.length ?? 0) + (entry.variants.gzip?.length ?? 0);
    if (this.dropped < COLLECT_AFTER_DROPPED_BYTES) return;
    this.dropped = 0;
    this.collect();
  }

  /** Drops every expired entry (an attacker's unique URLs answered 400/404 would otherwise wait for eviction). */
  private sweep(now: number): void {
    this.nextSweep = now + SWEEP_INTERVAL_MS;
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt > now) continue;
      this.entries.delete(key);
      this.dropEntry(entry);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** The bytes charged for the entries held (entryCost), never above the budget. */
  get bytes(): number {
    return this.charged;
  }
}
