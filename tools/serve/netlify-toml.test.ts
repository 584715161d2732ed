/** The real netlify.toml must agree with the constants the function and `pepe publish` use. */
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { ASSET_CACHE_CONTROL, IMAGE_CACHE_CONTROL, JSON_BROWSER_CACHE_CONTROL } from '../../functions/core/cache-policy.js';
import { IMAGE_TYPES } from '../../functions/core/record.js';
import { defaultCacheDir } from '../catalogue/analyse-content.js';
import { headersForPath, loadNetlifyConfig } from '../shared/netlify-config.js';

const NETLIFY_TOML = fileURLToPath(new URL('../../netlify.toml', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const ID = '0b6f7c52-6b53-4d1a-9c7e-3f1f8f0f6a11';
const GALLERY_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data: http://localhost:* http://127.0.0.1:*; connect-src 'self' https: http://localhost:* http://127.0.0.1:*; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const SHARE_PAGE_CSP = "default-src 'none'; img-src 'self' https: data: http://localhost:* http://127.0.0.1:*; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

describe('netlify.toml', () => {
  it('builds with npm run build, publishes dist/site, deploys functions/ with esbuild on Node 24', async () => {
    const config = await loadNetlifyConfig(NETLIFY_TOML);
    expect(config.build).toEqual({ command: 'npm run build', publish: 'dist/site', functions: 'functions', environment: { NODE_VERSION: '24' } });
  });

  it("carries the build's default cache folder between deploys with a plugin that package.json installs", async () => {
    const raw = parseToml(await readFile(NETLIFY_TOML, 'utf8')) as { plugins?: { package: string; inputs?: { paths?: string[] } }[] };
    const packageJson = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { devDependencies: Record<string, string> };
    // Netlify installs a plugin named in netlify.toml only from the site's package.json.
    expect(raw.plugins).toEqual([{ package: 'netlify-plugin-cache', inputs: { paths: [relative(REPO, defaultCacheDir(join(REPO, 'content')))] } }]);
    expect(Object.keys(packageJson.devDependencies)).toContain('netlify-plugin-cache');
  });

  it.each(Object.entries(IMAGE_TYPES))('serves images %s as %s, immutable, CORS *, nosniff', async (ext, mime) => {
    const config = await loadNetlifyConfig(NETLIFY_TOML);
    expect(headersForPath(config, `/images/${ID}${ext}`)).toEqual({
      'Cache-Control': IMAGE_CACHE_CONTROL,
      'Access-Control-Allow-Origin': '*',
      'X-Content-Type-Options': 'nosniff',
      'Content-Type': mime,
    });
  });

  it.each([`/api/pepe/${ID}`, `/v1/pepe/${ID}`, '/api/openapi.json', '/api/listing/head', `/api/listing/${ID}`, '/api/tags', `/api/similar/${ID}`])('serves the static JSON %s with the API headers', async (path) => {
    const config = await loadNetlifyConfig(NETLIFY_TOML);
    expect(headersForPath(config, path)).toEqual({
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': JSON_BROWSER_CACHE_CONTROL,
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Expose-Headers': 'ETag',
      'X-Content-Type-Options': 'nosniff',
    });
  });

  it.each([
    ['/p/0b6f7c52-6b53-4d1a-9c7e-3f1f8f0f6a11', 'text/html; charset=utf-8', false],
    [`/oembed/${ID}.json`, 'application/json; charset=utf-8', true],
    ['/feed.xml', 'application/atom+xml; charset=utf-8', true],
    ['/feed.json', 'application/feed+json; charset=utf-8', true],
    [`/dataset/shards/${'a'.repeat(64)}.jsonl`, 'application/jsonl; charset=utf-8', true],
    [`/dataset/shards/${'b'.repeat(64)}.sha256`, 'text/plain; charset=utf-8', true],
    ['/dataset/index.json', 'application/json; charset=utf-8', true],
  ])('serves the precomputed document %s as %s, cached like the by-id answers', async (path, type, cors) => {
    const config = await loadNetlifyConfig(NETLIFY_TOML);
    expect(headersForPath(config, path)).toEqual({
      'Content-Type': type,
      'Cache-Control': JSON_BROWSER_CACHE_CONTROL,
      ...(cors ? { 'Access-Control-Allow-Origin': '*' } : { 'Content-Security-Policy': SHARE_PAGE_CSP }),
      'X-Content-Type-Options': 'nosniff',
    });
  });

  it('routes nothing with redirects (the function covers /api and /v1; query strings are never routed)', async () => {
    const config = await loadNetlifyConfig(NETLIFY_TOML);
    expect(config.redirects).toEqual([]);
  });

  it('serves the content-hashed gallery assets as immutable', async () => {
    const config = await loadNetlifyConfig(NETLIFY_TOML);
    expect(headersForPath(config, '/assets/gallery-0123456789.js')).toEqual({
      'Cache-Control': ASSET_CACHE_CONTROL,
      'X-Content-Type-Options': 'nosniff',
    });
  });

  it.each(['/', '/index.html'])('sends the gallery page %s with its policy: own script and style only, never framed', async (path) => {
    const config = await loadNetlifyConfig(NETLIFY_TOML);
    expect(headersForPath(config, path)).toEqual({ 'Content-Security-Policy': GALLERY_CSP, 'X-Content-Type-Options': 'nosniff' });
  });

  it.each(['/robots.txt', '/sitemap.xml', '/sitemaps/1.xml', '/feed.xml', '/anything/else'])('sends nosniff with %s, once', async (path) => {
    const config = await loadNetlifyConfig(NETLIFY_TOML);
    expect(headersForPath(config, path)['X-Content-Type-Options']).toBe('nosniff');
    const raw = await readFile(NETLIFY_TOML, 'utf8');
    expect(raw.match(/X-Content-Type-Options/g)).toHaveLength(1);
  });
});
