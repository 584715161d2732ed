/**
 * The gallery in real headless Chromium while the catalogue changes under it: a rebuild into
 * the folder the real server serves, between two pages of the grid.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../catalogue/build-catalogue.js';
import { FIXTURE_URLS, fixtureId, fixtureImage } from '../testing/fixture-catalogue.js';
import { cardIds, FIXTURE_COUNT, PAGE_SIZE, PHONE, poll, startGalleryHarness, waitForCards, type GalleryHarness } from '../testing/page-harness.js';

let harness: GalleryHarness;

beforeAll(async () => {
  harness = await startGalleryHarness();
}, 180_000);

afterAll(async () => {
  await harness?.close();
});

const totalItems = async () => ((await (await fetch(`${harness.server.url}/api/pepe?limit=2`)).json()) as { meta: { pagination: { total_items: number } } }).meta.pagination.total_items;

describe('gallery grid across a deploy', { timeout: 90_000 }, () => {
  it('shows each pepe once when a pepe is added between two pages (newest first: the next page starts with the last card shown)', async () => {
    const { site, server, newestFirst } = harness;
    const page = await harness.openPage(PHONE);
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);

    // A new pepe, dated now as `pepe add` dates it, is deployed while the first page is on screen.
    const { bytes, ext } = await fixtureImage(77);
    await writeFile(join(site.contentDir, `added-now${ext}`), bytes);
    await writeFile(join(site.contentDir, 'added-now.json'), JSON.stringify({ id: fixtureId('added-now'), description: 'added between two pages', tags: null, created_at: new Date().toISOString() }));
    expect((await buildCatalogue({ contentDir: site.contentDir, outDir: site.distDir, cacheDir: site.cacheDir, urls: FIXTURE_URLS })).ok).toBe(true);
    await poll(totalItems).toBe(FIXTURE_COUNT + 1);

    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await poll(() => page.locator('#footer').textContent()).toContain(`all ${FIXTURE_COUNT + 1} pepes`);
    const ids = await cardIds(page);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(newestFirst.map((r) => r.id));
  });
});
