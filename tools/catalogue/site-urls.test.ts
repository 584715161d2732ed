import { describe, expect, it } from 'vitest';
import { resolveSiteUrls } from './site-urls.js';

describe('resolveSiteUrls', () => {
  it('prefers flags over environment over the local default, dropping trailing slashes', () => {
    const result = resolveSiteUrls({ baseUrl: 'https://a.example/' }, { PEPE_BASE_URL: 'https://ignored.example', PEPE_API_URL: 'https://api.example/v//' });
    expect(result).toEqual({ ok: true, urls: { baseUrl: 'https://a.example', apiUrl: 'https://api.example/v', cdnUrl: 'http://localhost:8888' } });
  });

  it('defaults to localhost on $PORT when PORT names a port, as `PORT=9000 npm start` serves there', () => {
    expect(resolveSiteUrls({}, { PORT: '9000' })).toEqual({ ok: true, urls: { baseUrl: 'http://localhost:9000', apiUrl: 'http://localhost:9000', cdnUrl: 'http://localhost:9000' } });
    expect(resolveSiteUrls({ apiUrl: 'https://api.example' }, { PORT: '9000', PEPE_CDN_URL: 'https://cdn.example' })).toEqual({
      ok: true,
      urls: { baseUrl: 'http://localhost:9000', apiUrl: 'https://api.example', cdnUrl: 'https://cdn.example' },
    });
    // 0 (any free port, for pepe serve) and an empty PORT leave the default.
    for (const port of ['0', '']) {
      expect(resolveSiteUrls({}, { PORT: port })).toEqual({ ok: true, urls: { baseUrl: 'http://localhost:8888', apiUrl: 'http://localhost:8888', cdnUrl: 'http://localhost:8888' } });
    }
  });

  it('refuses a PORT that pepe serve would refuse, naming it, when a URL falls to the local default', () => {
    for (const port of ['70000', 'http', 'abc']) {
      const result = resolveSiteUrls({}, { PORT: port });
      expect(result.ok).toBe(false);
      expect(!result.ok && result.message).toContain(`the PORT environment variable must be a whole number from 0 to 65535 (got "${port}")`);
    }
    // Every URL given: PORT is not used, so it is not judged.
    const given = { baseUrl: 'https://a.example', apiUrl: 'https://b.example', cdnUrl: 'https://c.example' };
    expect(resolveSiteUrls(given, { PORT: 'abc' })).toEqual({ ok: true, urls: given });
  });

  it.each([
    ['not a url', 'must be an absolute URL'],
    ['ftp://x.example', 'must start with http:// or https://'],
    ['https://x.example/?a=1', 'must not contain a query or fragment'],
    ['https://user:pw@x.example', 'must not contain credentials'],
  ])('rejects %s naming the flag', (raw, message) => {
    const result = resolveSiteUrls({ cdnUrl: raw }, {});
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain(`--cdn-url ${message}`);
  });
});
