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
    for (const port of ['0', '70000', 'http', '']) {
      expect(resolveSiteUrls({}, { PORT: port })).toEqual({ ok: true, urls: { baseUrl: 'http://localhost:8888', apiUrl: 'http://localhost:8888', cdnUrl: 'http://localhost:8888' } });
    }
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
