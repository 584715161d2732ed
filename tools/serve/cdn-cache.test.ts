import { describe, expect, it } from 'vitest';
import { CdnCache, cdnLifetimeSeconds, COLLECT_AFTER_DROPPED_BYTES, entryCost, MAX_CDN_CACHE_ENTRY_BYTES } from './cdn-cache.js';

const durable = { 'netlify-cdn-cache-control': 'public, durable, s-maxage=300' };

describe('cdnLifetimeSeconds', () => {
  it.each([
    [durable, 300],
    [{ 'netlify-cdn-cache-control': 'public, max-age=60' }, 60],
    [{ 'netlify-cdn-cache-control': 'no-store' }, 0],
    [{ 'netlify-cdn-cache-control': 'private, s-maxage=60' }, 0],
    [{ 'netlify-cdn-cache-control': 'public, s-maxage=abc' }, 0],
    [{ 'cache-control': 'public, max-age=60' }, 0],
    [{ ...durable, 'netlify-vary': 'query=page' }, 0],
  ])('%j → %i s', (headers, seconds) => {
    expect(cdnLifetimeSeconds(headers)).toBe(seconds);
  });
});

describe('CdnCache', () => {
  it('keeps an answer until it expires', () => {
    const cache = new CdnCache();
    expect(cache.store('/a', 200, durable, Buffer.from('x'), 1_000)).not.toBeNull();
    expect(cache.get('/a', 1_000 + 299_999)?.body.toString()).toBe('x');
    expect(cache.get('/a', 1_000 + 300_000)).toBeNull();
    expect(cache.size).toBe(0);
  });

  it('refuses answers that do not allow it', () => {
    const cache = new CdnCache();
    expect(cache.store('/r', 200, { 'cache-control': 'no-store' }, Buffer.from('x'))).toBeNull();
    expect(cache.get('/r')).toBeNull();
  });

  /** The cost of one 4-byte answer at a two-character key, as every entry below is. */
  const small = entryCost('/a', 200, durable, Buffer.alloc(4));

  it('drops the least recently used answers past its byte budget', () => {
    const cache = new CdnCache({ maxBytes: 2 * small + 1 });
    cache.store('/a', 200, durable, Buffer.alloc(4));
    cache.store('/b', 200, durable, Buffer.alloc(4));
    cache.get('/a'); // /a is now the most recently used
    cache.store('/c', 200, durable, Buffer.alloc(4));
    expect(cache.get('/b')).toBeNull();
    expect(cache.get('/a')).not.toBeNull();
    expect(cache.get('/c')).not.toBeNull();
  });

  it('fills its byte budget exactly before dropping anything', () => {
    const cache = new CdnCache({ maxBytes: 2 * small });
    cache.store('/a', 200, durable, Buffer.alloc(4));
    cache.store('/b', 200, durable, Buffer.alloc(4));
    expect(cache.get('/a')).not.toBeNull();
    expect(cache.get('/b')).not.toBeNull();
  });

  it('gives back the bytes of an answer that expired', () => {
    const cache = new CdnCache({ maxBytes: 2 * small });
    cache.store('/o', 200, durable, Buffer.alloc(4), 0);
    cache.store('/p', 200, durable, Buffer.alloc(4), 0);
    expect(cache.get('/o', 300_000)).toBeNull();
    // Were /o still counted, the budget would be spent and /p dropped for /a.
    cache.store('/a', 200, durable, Buffer.alloc(4), 1_000);
    expect(cache.get('/p', 1_001)).not.toBeNull();
    expect(cache.get('/a', 1_001)).not.toBeNull();
  });

  it('counts the key a client chose against the budget', () => {
    expect(entryCost(`/${'a'.repeat(500)}`, 404, {}, Buffer.alloc(4)) - entryCost('/a', 404, {}, Buffer.alloc(4))).toBe(499);
  });

  it('keeps long URLs as hashes: 2,000 unique 15 KB URLs hold no 15 KB key and stay within the budget', () => {
    const budget = 1024 * 1024;
    const cache = new CdnCache({ maxBytes: budget });
    const body = Buffer.from('{"data":null,"error":{"code":"NOT_FOUND","message":"No such path"}}');
    const url = (n: number) => `/api/${'a'.repeat(15_000)}${n}`;
    for (let n = 0; n < 2000; n++) cache.store(url(n), 404, { ...durable, 'content-type': 'application/json' }, body);
    expect(cache.bytes).toBeLessThanOrEqual(budget);
    // Each entry is charged its hashed key (44 characters), not 15 KB: hundreds fit.
    const kept = cache.size;
    expect(kept).toBeGreaterThan(budget / 4096);
    expect(cache.get(url(1999))?.body.equals(body)).toBe(true);
    expect(cache.get(url(2000))).toBeNull();
  });

  it('reserves room for the compressed forms of a text answer', () => {
    const json = { ...durable, 'content-type': 'application/json; charset=utf-8' };
    const body = Buffer.alloc(1000, 'a');
    expect(entryCost('/k', 200, json, body) - entryCost('/k', 200, durable, body)).toBeGreaterThanOrEqual(2 * body.length);
  });

  it('sweeps expired answers on a later store, even those never asked for again', () => {
    const cache = new CdnCache();
    for (let n = 0; n < 100; n++) cache.store(`/gone/${n}`, 404, { 'netlify-cdn-cache-control': 'public, durable, s-maxage=60' }, Buffer.from('x'), 0);
    const kept = cache.store('/kept', 200, durable, Buffer.from('x'), 0)!;
    expect(cache.size).toBe(101);
    const later = cache.store('/later', 200, durable, Buffer.from('x'), 61_000)!;
    expect(cache.size).toBe(2);
    expect(cache.bytes).toBe(kept.cost + later.cost);
  });

  it('does not keep a single answer larger than MAX_CDN_CACHE_ENTRY_BYTES', () => {
    const cache = new CdnCache();
    expect(cache.store('/big', 200, durable, Buffer.alloc(MAX_CDN_CACHE_ENTRY_BYTES + 1))).toBeNull();
    expect(cache.get('/big')).toBeNull();
    expect(cache.store('/fits', 200, durable, Buffer.alloc(MAX_CDN_CACHE_ENTRY_BYTES))).not.toBeNull();
  });

  it('collects the old generation each time the bodies of dropped answers (evicted, expired, replaced) add up to COLLECT_AFTER_DROPPED_BYTES', () => {
    let collections = 0;
    const body = Buffer.alloc(64 * 1024);
    const cache = new CdnCache({ maxBytes: 4 * entryCost('/page/0', 200, durable, body), collect: () => collections++ });
    const perCollection = COLLECT_AFTER_DROPPED_BYTES / body.length;
    // Four fit; every later store evicts one body.
    for (let n = 0; n < 4 + perCollection - 1; n++) cache.store(`/page/${n}`, 200, durable, body);
    expect(collections).toBe(0);
    cache.store('/page/again', 200, durable, body);
    expect(collections).toBe(1);
    // Replacing an answer and an answer met expired drop their bodies too.
    for (let n = 0; n < perCollection / 2; n++) cache.store('/page/again', 200, durable, body);
    cache.store('/short', 200, { 'netlify-cdn-cache-control': 'public, s-maxage=1' }, body, 0);
    for (let n = 0; n < perCollection / 2 - 2; n++) cache.store('/page/again', 200, durable, body, 0);
    expect(collections).toBe(1);
    expect(cache.get('/short', 1_000)).toBeNull();
    expect(collections).toBe(2);
  });
});
