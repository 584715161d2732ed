import { describe, expect, it } from 'vitest';
import { CdnCache, cdnLifetimeSeconds, MAX_CDN_CACHE_ENTRY_BYTES } from './cdn-cache.js';

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

  it('drops the least recently used answers past its byte budget', () => {
    const cache = new CdnCache(10);
    cache.store('/a', 200, durable, Buffer.alloc(4));
    cache.store('/b', 200, durable, Buffer.alloc(4));
    cache.get('/a'); // /a is now the most recently used
    cache.store('/c', 200, durable, Buffer.alloc(4));
    expect(cache.get('/b')).toBeNull();
    expect(cache.get('/a')).not.toBeNull();
    expect(cache.get('/c')).not.toBeNull();
  });

  it('fills its byte budget exactly before dropping anything', () => {
    const cache = new CdnCache(8);
    cache.store('/a', 200, durable, Buffer.alloc(4));
    cache.store('/b', 200, durable, Buffer.alloc(4));
    expect(cache.get('/a')).not.toBeNull();
    expect(cache.get('/b')).not.toBeNull();
  });

  it('gives back the bytes of an answer that expired', () => {
    const cache = new CdnCache(8);
    cache.store('/old', 200, durable, Buffer.alloc(8), 0);
    expect(cache.get('/old', 300_000)).toBeNull();
    // Were /old still counted, the budget would be spent and /a dropped for /b.
    cache.store('/a', 200, durable, Buffer.alloc(4), 300_000);
    cache.store('/b', 200, durable, Buffer.alloc(4), 300_000);
    expect(cache.get('/a', 300_001)).not.toBeNull();
    expect(cache.get('/b', 300_001)).not.toBeNull();
  });

  it('does not keep a single answer larger than MAX_CDN_CACHE_ENTRY_BYTES', () => {
    const cache = new CdnCache();
    expect(cache.store('/big', 200, durable, Buffer.alloc(MAX_CDN_CACHE_ENTRY_BYTES + 1))).toBeNull();
    expect(cache.get('/big')).toBeNull();
    expect(cache.store('/fits', 200, durable, Buffer.alloc(MAX_CDN_CACHE_ENTRY_BYTES))).not.toBeNull();
  });
});
