/**
 * The pages' Content-Security-Policy and nosniff, as netlify.toml gives them, over the real
 * `pepe serve` and a real build: share pages and the gallery loaded in headless Chromium with
 * the policy enforced, every kind of answer checked for nosniff, and every same-site link of
 * the pages answering.
 */
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchChromium } from '../testing/chromium.js';
import { buildFixtureSite, type FixtureSite } from '../testing/fixture-catalogue.js';
import { closeClient, raw } from './http-client.test-helper.js';
import { type RunningServer, startServer } from './server.js';

// A real build, a real server and a browser on a machine shared with other jobs.
vi.setConfig({ testTimeout: 60_000 });

const NETLIFY_TOML = fileURLToPath(new URL('../../netlify.toml', import.meta.url));

let site: FixtureSite;
let server: RunningServer;
let browser: Browser;
let base: string;

/** A port free now, so the build can write the URLs the server will answer on (images must be 'self'). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  site = await buildFixtureSite({ count: 5, scale: 4, urls: { baseUrl: base, apiUrl: base, cdnUrl: base } });
  server = await startServer({ dir: site.distDir, port, host: '127.0.0.1', netlifyToml: NETLIFY_TOML });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  closeClient();
  await browser?.close();
  await server?.close();
  await site?.cleanup();
});

/** A page that records every policy violation and console error from its first byte. */
async function watchedPage(): Promise<{ page: Page; problems: () => Promise<string[]> }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  // Failed loads are named by URL from the responses (the console does not say which); a browser asks for /favicon.ico on its own.
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(`console: ${message.text()}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && new URL(response.url()).pathname !== '/favicon.ico') errors.push(`${response.status()} ${response.url()}`);
  });
  page.on('requestfailed', (request) => errors.push(`failed ${request.url()}`));
  page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { violations: string[] }).violations = seen;
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  return { page, problems: async () => [...errors, ...(await page.evaluate(() => (window as unknown as { violations: string[] }).violations))] };
}

describe('Content-Security-Policy, enforced by Chromium', () => {
  it('share pages show their picture and style with no violation, and run no inline script', async () => {
    for (const record of site.records) {
      const { page, problems } = await watchedPage();
      const answer = await page.goto(`${base}/p/${record.id}`, { waitUntil: 'load' });
      expect(answer?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
      // The picture loaded (img-src) and the style sheet applied (style-src 'self').
      expect(await page.evaluate(() => (document.querySelector('main img') as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
      expect(await page.evaluate(() => getComputedStyle(document.body).margin)).toBe('0px');
      expect(await problems()).toEqual([]);
      // The policy is really in force: an inline script injected into the page is refused.
      const ran = await page.evaluate(async () => {
        const script = document.createElement('script');
        script.textContent = 'window.inlineRan = true';
        document.body.append(script);
        await new Promise((resolve) => setTimeout(resolve, 50));
        return (window as unknown as { inlineRan?: boolean }).inlineRan === true;
      });
      expect(ran).toBe(false);
      expect((await problems()).join('\n')).toContain('script-src');
      await page.close();
    }
  });

  it('the gallery page loads its grid with no violation', async () => {
    const { page, problems } = await watchedPage();
    const answer = await page.goto(`${base}/`, { waitUntil: 'load' });
    expect(answer?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.waitForFunction(() => document.querySelectorAll('#grid img').length > 0 && [...document.querySelectorAll<HTMLImageElement>('#grid img')].every((img) => img.complete), undefined, { timeout: 30_000 });
    expect(await page.evaluate(() => [...document.querySelectorAll<HTMLImageElement>('#grid img')].filter((img) => img.naturalWidth > 0).length)).toBeGreaterThan(0);
    expect(await problems()).toEqual([]);
    await page.close();
  });
});

describe('nosniff', () => {
  it('is on every kind of answer: pages, documents, images, assets, the function (answers, errors, preflight), 404s', async () => {
    const record = site.records[0]!;
    const stylesheet = /href="[^"]*(\/site\.css)"/.exec((await raw(base, `/p/${record.id}`)).body.toString())![1]!;
    const gallery = (await raw(base, '/')).body.toString();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(gallery)![1]!;
    const targets: [string, number, string?][] = [
      ['/', 200],
      ['/index.html', 200],
      ['/robots.txt', 200],
      ['/sitemap.xml', 200],
      ['/feed.xml', 200],
      ['/feed.json', 200],
      [`/p/${record.id}`, 200],
      [`/oembed/${record.id}.json`, 200],
      ['/dataset/index.json', 200],
      [`/images/${record.id}${record.file_ext}`, 200],
      [stylesheet, 200],
      [script, 200],
      [`/api/pepe/${record.id}`, 200],
      ['/api/pepe?limit=2', 200],
      ['/api/daily', 200],
      ['/v1/pepe?limit=2', 200],
      ['/api/pepe?limit=x', 400],
      ['/api/nothing-here', 404],
      ['/no/such/page', 404],
      ['/api/pepe', 204, 'OPTIONS'],
    ];
    for (const [path, status, method] of targets) {
      const answer = await raw(base, path, { method: method ?? 'GET', headers: method ? { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' } : {} });
      expect([path, answer.status]).toEqual([path, status]);
      expect([path, answer.headers['x-content-type-options']]).toEqual([path, 'nosniff']);
    }
  });
});

describe('links', () => {
  it('every same-site link and resource of the gallery, the 404 page and a share page answers 200', async () => {
    const pages = ['/', '/404.html', `/p/${site.records[0]!.id}`];
    const targets = new Set<string>();
    for (const page of pages) {
      const html = (await raw(base, page)).body.toString();
      // Links and resources, and the absolute URLs of Open Graph and Twitter card tags.
      for (const [, attribute, meta] of html.matchAll(/(?:href|src)="([^"]+)"|content="(https?:[^"]+)"/g)) {
        const url = new URL((attribute ?? meta)!.replaceAll('&amp;', '&'), `${base}${page}`);
        if (url.origin === base) targets.add(url.pathname + url.search);
      }
    }
    expect([...targets]).toContain('/dataset/index.json');
    for (const target of targets) expect([target, (await raw(base, target)).status]).toEqual([target, 200]);
  });
});
