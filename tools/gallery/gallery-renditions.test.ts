/**
 * The gallery's use of renditions, in real headless Chromium against the real local server,
 * over a catalogue made by the real build from images wide enough to have renditions.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PepeRecord } from '../../functions/core/record.js';
import { RENDITION_SETTINGS } from '../image/renditions.js';
import { cardIds, DESKTOP, FIXTURE_COUNT, PAGE_SIZE, PHONE, poll, startGalleryHarness, waitForCards, type GalleryHarness } from '../testing/page-harness.js';

let harness: GalleryHarness;

beforeAll(async () => {
  harness = await startGalleryHarness({ scale: 4 });
}, 180_000);

afterAll(async () => {
  await harness?.close();
});

/** The widest rendition's width: images at least this wide have every copy. */
const LARGEST = RENDITION_SETTINGS.widths.at(-1)!;
const RENDITION = /\/images\/[0-9a-f-]{36}-(\d+)w-[0-9a-f]{16}\.webp$/;
const ORIGINAL = /\/images\/[0-9a-f-]{36}\.(png|jpg|gif|webp|avif)$/;

/** Every request the page makes, in order. */
function recordRequests(page: Page): string[] {
  const urls: string[] = [];
  page.on('request', (request) => urls.push(request.url()));
  return urls;
}

describe('gallery renditions in Chromium', { timeout: 60_000 }, () => {
  it('has renditions to show: every fixture image is at least 256 px wide', () => {
    expect(harness.newestFirst.every((record) => record.thumbnails.length > 0)).toBe(true);
    expect(harness.newestFirst.some((record) => record.thumbnails.at(-1)!.width === LARGEST)).toBe(true);
  });

  it.each([['desktop', DESKTOP], ['phone', PHONE]] as const)('loads the small renditions for the grid cards (%s), no original, and the next page only when scrolled near it', async (_, viewport) => {
    const page = await harness.openPage(viewport);
    const requests = recordRequests(page);
    await page.goto(`${harness.server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    await page.waitForLoadState('networkidle');
    const images = requests.filter((url) => url.includes('/images/'));
    expect(images.length).toBeGreaterThan(0);
    expect(images.filter((url) => ORIGINAL.test(url))).toEqual([]);
    // At 1× the cards (~180–230 px) take the 256 px copy.
    expect(images.every((url) => RENDITION.exec(url)?.[1] === '256')).toBe(true);
    const shown = await page.$$eval('#grid .card img', (imgs) => imgs.map((img) => ({ current: (img as HTMLImageElement).currentSrc, complete: (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0 })));
    for (const img of shown.filter((i) => i.complete)) expect(img.current).toMatch(RENDITION);
    expect(requests.filter((url) => url.includes('/api/pepe?') && url.includes('page=2'))).toEqual([]);

    await page.locator('#grid .card').last().scrollIntoViewIfNeeded();
    await page.mouse.wheel(0, 4000);
    await waitForCards(page, FIXTURE_COUNT);
    expect(requests.filter((url) => url.includes('/api/pepe?') && url.includes('page=2'))).toHaveLength(1);
  });

  it('takes a larger copy on a screen dense enough to need it (3× phone: cards ~490 device px take the 512 px one)', async () => {
    const context = await harness.browser.newContext({ viewport: PHONE, deviceScaleFactor: 3 });
    try {
      const page = await context.newPage();
      await page.goto(`${harness.server.url}/`);
      await waitForCards(page, PAGE_SIZE);
      const ids = await cardIds(page);
      const pepe = harness.newestFirst.find((record) => record.thumbnails.at(-1)!.width === LARGEST && ids.includes(record.id))!;
      expect(pepe).toBeDefined();
      const img = page.locator(`#grid .card[data-id="${pepe.id}"] img`);
      await img.scrollIntoViewIfNeeded();
      await poll(async () => new URL(await img.evaluate((i: HTMLImageElement) => i.currentSrc || 'http://x/')).pathname).toBe(`/images/${pepe.thumbnails.find((t) => t.width === 512)!.file_name}`);
    } finally {
      await context.close();
    }
  });

  it('shows the large rendition in the detail view, then the original', async () => {
    const page = await harness.openPage(DESKTOP);
    const requests = recordRequests(page);
    await page.goto(`${harness.server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    const ids = await cardIds(page);
    const pepe = harness.newestFirst.find((record: PepeRecord) => record.thumbnails.at(-1)!.width === LARGEST && ids.includes(record.id))!;
    expect(pepe).toBeDefined();
    await page.locator(`#grid .card[data-id="${pepe.id}"]`).click();
    const detailImg = page.locator('dialog#detail .detail-picture img');
    const original = `/images/${pepe.id}${pepe.file_ext}`;
    await poll(async () => new URL(await detailImg.evaluate((img: HTMLImageElement) => img.currentSrc)).pathname).toBe(original);
    const large = requests.indexOf(`${harness.server.url}/images/${pepe.thumbnails.at(-1)!.file_name}`);
    expect(large).toBeGreaterThan(-1);
    expect(requests.indexOf(`${harness.server.url}${original}`)).toBeGreaterThan(large);
  });
});
