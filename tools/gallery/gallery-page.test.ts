/**
 * The gallery in real headless Chromium, against the real local server over a catalogue
 * made by the real build (which writes the gallery into dist/site).
 */
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PepeRecord } from '../../functions/core/record.js';
import { startServer, type RunningServer } from '../serve/server.js';
import { FIXTURE_URLS, type FixtureSite } from '../testing/fixture-catalogue.js';
import {
  apiIds as apiIdsAt, cardIds, dialogOpen, DESKTOP, FIXTURE_COUNT, PAGE_SIZE, PHONE, poll, REPO_ROOT, startGalleryHarness, statusText, TEST_OUTPUT, waitForCards,
  type GalleryHarness,
} from '../testing/page-harness.js';
import { hammingDistance } from '../image/phash.js';
import { REQUEST_TIMEOUT_MS } from './src/api-client.js';
import { COPY_FEEDBACK_MS } from './src/detail.js';
import { EAGER_CARDS } from './src/grid.js';

/** Fixtures whose pixels every decoder agrees on: the browser's pHash must equal the build's. */
const LOSSLESS = new Set(['grey.png', 'opaque.png', 'sticker.png', 'huge-sticker.png', 'animated.gif', 'animated.webp', 'still.webp', 'rotated.jpg']);
/** Lossy fixtures (JPEG, AVIF): decoders round differently; the most bits measured apart (README "Search by picture"). */
const LOSSY_MAX_DISTANCE = 2;

let harness: GalleryHarness;
let site: FixtureSite;
let server: RunningServer;
let newestFirst: PepeRecord[];

beforeAll(async () => {
  harness = await startGalleryHarness();
  ({ site, server, newestFirst } = harness);
}, 180_000);

afterAll(async () => {
  await harness?.close();
});

const openPage = (viewport = DESKTOP, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> => harness.openPage(viewport, colorScheme);
const apiIds = (query: string) => apiIdsAt(server.url, query);

describe('gallery page in Chromium', { timeout: 60_000 }, () => {
  it('shows the newest page as blurhash placeholders at the right aspect ratio, then the images, without layout shift', async () => {
    const page = await openPage();
    let releaseImages!: () => void;
    const imagesHeld = new Promise<void>((resolve) => (releaseImages = resolve));
    await page.route('**/images/**', async (route) => {
      await imagesHeld;
      await route.continue();
    });
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    expect(await cardIds(page)).toEqual(newestFirst.slice(0, PAGE_SIZE).map((r) => r.id));

    const pictures = await page.$$eval('#grid .picture', (frames) =>
      frames.map((frame) => {
        const canvas = frame.querySelector('canvas')!;
        const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        let opaque = 0;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i] === 255) opaque += 1;
        const box = frame.getBoundingClientRect();
        const img = frame.querySelector('img')!;
        return { opaqueShare: opaque / (pixels.length / 4), ratio: box.width / box.height, loaded: frame.classList.contains('is-loaded'), loading: img.loading, alt: img.alt };
      }),
    );
    // The whole first row is eager: the largest first-screen image is among it (Lighthouse `lcp-lazy-loaded`).
    const columns = await page.locator('#grid').evaluate((grid) => getComputedStyle(grid).gridTemplateColumns.split(' ').length);
    expect(columns).toBeGreaterThan(EAGER_CARDS);
    pictures.forEach((picture, index) => {
      const record = newestFirst[index]!;
      expect(picture.opaqueShare, `placeholder of card ${index} is painted`).toBe(1);
      expect(picture.loaded, `card ${index} still waits for its image`).toBe(false);
      expect(picture.loading).toBe(index < Math.max(EAGER_CARDS, columns) ? 'eager' : 'lazy');
      expect(picture.ratio).toBeCloseTo(Math.min(2, Math.max(0.5, record.width / record.height)), 1);
      // alt text: the description, else the tags, else the id's first block
      expect(picture.alt).toBe(record.description ?? (record.tags ? `Pepe tagged ${record.tags.join(', ')}` : `Pepe ${record.id.slice(0, 8)}`));
    });
    // Each card link is announced once by its title (the caption repeats the alt text visually only).
    const titleOf = (r: PepeRecord) => r.description ?? (r.tags ? `Pepe tagged ${r.tags.join(', ')}` : `Pepe ${r.id.slice(0, 8)}`);
    const title = titleOf(newestFirst[0]!);
    const sameTitle = newestFirst.slice(0, PAGE_SIZE).filter((r) => titleOf(r) === title).length;
    expect(await page.getByRole('link', { name: title, exact: true }).count()).toBe(sameTitle);
    const boxesBefore = await page.$$eval('#grid .picture', (f) => f.slice(0, 6).map((e) => JSON.stringify(e.getBoundingClientRect())));

    releaseImages();
    await page.waitForFunction(() => document.querySelectorAll('#grid .picture.is-loaded').length >= 6, null, { timeout: 15_000 });
    const boxesAfter = await page.$$eval('#grid .picture', (f) => f.slice(0, 6).map((e) => JSON.stringify(e.getBoundingClientRect())));
    expect(boxesAfter).toEqual(boxesBefore);
    expect(await page.evaluate(() => (window as unknown as { layoutShift: number }).layoutShift)).toBe(0);
    expect(await statusText(page)).toContain(`${FIXTURE_COUNT} pepes`);
    // Once an image has faded in, its placeholder is gone: a transparent sticker must not show the blur through.
    await poll(() => page.$$eval('#grid .picture.is-loaded canvas', (canvases) => canvases.length > 0 && canvases.every((c) => getComputedStyle(c).visibility === 'hidden'))).toBe(true);
  });

  it('loads the next page only when the user scrolls near the end', async () => {
    const page = await openPage(PHONE);
    const pagesRequested: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/api/pepe') pagesRequested.push(url.searchParams.get('page')!);
    });
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    await page.waitForTimeout(500); // give a wrongly eager loader the chance to fetch page 2
    expect(pagesRequested).toEqual(['1']); // once: the preloaded answer is the one the script uses

    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await waitForCards(page, FIXTURE_COUNT);
    expect(pagesRequested).toEqual(['1', '2']);
    expect(await cardIds(page)).toEqual(newestFirst.map((r) => r.id));
    await poll(() => page.locator('#footer').textContent()).toContain(`all ${FIXTURE_COUNT} pepes`);
  });

  it('narrows the grid while typing a search, and says so honestly when nothing matches', async () => {
    const page = await openPage();
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);

    const smug = await apiIds('limit=25&search=smug');
    expect(smug.ids.length).toBeGreaterThan(0);
    expect(smug.ids.length).toBeLessThan(FIXTURE_COUNT);
    await page.locator('#search').pressSequentially('smug', { delay: 40 });
    // On a loaded machine a pause between keys can show the "smu" grid first (same count):
    // wait for the grid of the whole word.
    await poll(() => statusText(page)).toMatch(/“smug”/);
    await waitForCards(page, smug.ids.length);
    expect(await cardIds(page)).toEqual(smug.ids);
    expect(await statusText(page)).toMatch(new RegExp(`${smug.ids.length} pepes? match(es)? “smug”`));
    expect(new URL(page.url()).searchParams.get('q')).toBe('smug');

    const nonsense = 'qxzvbnmwq';
    expect((await apiIds(`limit=25&search=${nonsense}`)).found).toBe(false);
    await page.locator('#search').fill(nonsense);
    await poll(() => statusText(page)).toContain(`No pepe matches “${nonsense}”`);
    expect(await cardIds(page)).toEqual([]);
    expect(await page.locator('#grid').isHidden()).toBe(true);
    // Random picks among the matches: with none, it says so instead of opening an unrelated pepe.
    await page.getByRole('button', { name: 'Random' }).click();
    await poll(() => statusText(page)).toBe(`No random pepe: no pepe matches “${nonsense}”.`);
    expect(await page.locator('dialog[open]').count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('random');

    // Back, with the focus still in the box: the box follows the URL (the full grid again).
    await page.locator('#search').focus();
    await page.goBack();
    await waitForCards(page, PAGE_SIZE);
    expect(await page.locator('#search').inputValue()).toBe('');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('search');
  });

  it('clearing the search steps back to the grid it started from, so Back never lands on the same grid', async () => {
    const page = await openPage();
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    const search = page.locator('#search');
    await search.fill('smug');
    await poll(() => new URL(page.url()).searchParams.get('q')).toBe('smug');
    await search.fill('');
    await poll(() => new URL(page.url()).searchParams.has('q')).toBe(false);
    await waitForCards(page, PAGE_SIZE);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('search');
    await search.fill('cry');
    await poll(() => new URL(page.url()).searchParams.get('q')).toBe('cry');

    // One Back to the full grid, the next one leaves the gallery (no dead step in between).
    await page.goBack();
    await poll(() => new URL(page.url()).searchParams.has('q')).toBe(false);
    expect(new URL(page.url()).pathname).toBe('/');
    await page.goBack();
    expect(page.url()).toBe('about:blank');
  });

  it('reads a tab or newline in the search (pasted, or in a shared link) as a space, not as an error', async () => {
    const page = await openPage();
    const smug = await apiIds('limit=25&search=smug');
    await page.goto(`${server.url}/?q=smug%0A`);
    await waitForCards(page, smug.ids.length);
    expect(await cardIds(page)).toEqual(smug.ids);
    expect(await page.locator('#search').inputValue()).toBe('smug ');
    await page.locator('#search').fill('smug\tsmu');
    await poll(() => statusText(page)).toMatch(/match(es)? “smug smu”/);
    expect(await cardIds(page)).toEqual(smug.ids);
  });

  it('switches to oldest first with the sort toggle', async () => {
    const page = await openPage();
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    await page.getByRole('button', { name: 'Oldest' }).click();
    const oldestFirst = [...newestFirst].reverse();
    await poll(() => cardIds(page)).toEqual(oldestFirst.slice(0, PAGE_SIZE).map((r) => r.id));
    expect(await page.getByRole('button', { name: 'Oldest' }).getAttribute('aria-pressed')).toBe('true');
    expect(new URL(page.url()).searchParams.get('sort')).toBe('oldest');
  });

  it('shows which order is chosen in forced colours (a Windows contrast theme), where backgrounds are replaced', async () => {
    const page = await openPage();
    await page.emulateMedia({ forcedColors: 'active' });
    await page.goto(`${server.url}/?sort=oldest`);
    await waitForCards(page, PAGE_SIZE);
    const looks = await page.$$eval('.sort, .sort button', (elements) =>
      elements.map((e) => ({ background: getComputedStyle(e).backgroundColor, color: getComputedStyle(e).color, pressed: e.getAttribute('aria-pressed') })),
    );
    const [group, ...buttons] = looks;
    const pressed = buttons.find((b) => b.pressed === 'true')!;
    const other = buttons.find((b) => b.pressed === 'false')!;
    expect(pressed.background).not.toBe(group!.background);
    expect(pressed.color).not.toBe(other.color);
  });

  it('opens a detail view with its own URL that survives a reload, and back returns to the grid', async () => {
    const page = await openPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    const record = newestFirst.find((r) => r.tags && r.tags.length > 0 && r.description)!;
    await page.locator(`#grid .card[data-id="${record.id}"]`).click();

    const dialog = page.locator('dialog#detail');
    await poll(() => dialog.evaluate((d) => (d as HTMLDialogElement).open)).toBe(true);
    expect(new URL(page.url()).searchParams.get('pepe')).toBe(record.id);
    const checkDetail = async () => {
      await poll(() => page.locator('#detail-title').textContent()).toBe(record.description);
      expect(await dialog.locator('img').getAttribute('alt')).toBe(record.description);
      expect(await dialog.locator('.tag').allTextContents()).toEqual(record.tags!.map((t) => `#${t}`));
      expect(await dialog.locator('#copy-api-url').inputValue()).toBe(`${server.url}/api/pepe/${record.id}`);
      expect(await dialog.locator('#copy-share-link').inputValue()).toBe(`${server.url}/p/${record.id}`);
      expect(await dialog.locator('#copy-image-url').inputValue()).toBe(`${FIXTURE_URLS.baseUrl}/images/${record.id}${record.file_ext}`);
      expect(await dialog.locator('.facts').textContent()).toContain(`${record.width} × ${record.height} px`);
    };
    await checkDetail();
    await dialog.getByRole('button', { name: 'Copy API URL' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${server.url}/api/pepe/${record.id}`);
    await dialog.getByRole('button', { name: 'Copy Share link' }).click();
    const shareUrl = await page.evaluate(() => navigator.clipboard.readText());
    expect(shareUrl).toBe(`${server.url}/p/${record.id}`);
    // The copied link is the share page, served as HTML naming the pepe.
    const share = await fetch(shareUrl);
    expect(share.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await share.text()).toContain(`<meta property="og:title" content="${record.description}">`);

    await page.reload();
    await poll(() => dialog.evaluate((d) => (d as HTMLDialogElement).open)).toBe(true);
    await checkDetail();

    await page.goBack();
    await poll(() => new URL(page.url()).searchParams.has('pepe')).toBe(false);
    await poll(() => dialog.evaluate((d) => (d as HTMLDialogElement).open)).toBe(false);
    await waitForCards(page, PAGE_SIZE);
    // Opened from a URL, so no card to return to: the focus goes to the grid, not to <body>.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('grid');

    await page.goForward();
    await poll(() => dialog.evaluate((d) => (d as HTMLDialogElement).open)).toBe(true);
    expect(new URL(page.url()).searchParams.get('pepe')).toBe(record.id);
  });

  it('keeps "Copied" for its full time after a second copy, not cleared by the first copy\'s timer', async () => {
    const page = await openPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.goto(`${server.url}/?pepe=${newestFirst[0]!.id}`);
    const button = page.getByRole('button', { name: 'Copy API URL' });
    const feedback = page.locator('.copy-row', { has: button }).locator('.copy-feedback');
    await button.click();
    await poll(() => feedback.textContent()).toBe('Copied');
    const first = Date.now();
    await page.waitForTimeout(COPY_FEEDBACK_MS - 500);
    await button.click();
    await poll(() => feedback.textContent()).toBe('Copied');
    // Past the first copy's 2 s, within the second's (which started at least 1.5 s later).
    await page.waitForTimeout(Math.max(0, first + COPY_FEEDBACK_MS + 300 - Date.now()));
    expect(await feedback.textContent()).toBe('Copied');
    await poll(() => feedback.textContent()).toBe('');
  });

  it('has one h1 to find the page by, above the detail view\'s h2', async () => {
    const page = await openPage();
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    const h1 = page.getByRole('heading', { level: 1 });
    expect(await h1.count()).toBe(1);
    expect(await h1.textContent()).toBe('Pepe Catalogue');
    await page.locator('#grid .card').first().click();
    await poll(() => page.locator('dialog#detail').getByRole('heading', { level: 2 }).count()).toBe(1);
  });

  it('works from the keyboard: Enter opens a card, Escape closes and gives focus back, a tag link shows that tag', async () => {
    const page = await openPage();
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    const record = newestFirst.find((r) => r.tags && r.tags.length > 0)!;
    const card = page.locator(`#grid .card[data-id="${record.id}"]`);
    await card.focus();
    await page.keyboard.press('Enter');
    const dialog = page.locator('dialog#detail');
    await poll(() => dialog.evaluate((d) => (d as HTMLDialogElement).open)).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.classList.contains('detail-close'))).toBe(true);

    await page.keyboard.press('Escape');
    await poll(() => dialog.evaluate((d) => (d as HTMLDialogElement).open)).toBe(false);
    expect(new URL(page.url()).searchParams.has('pepe')).toBe(false);
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.id)).toBe(record.id);

    await page.keyboard.press('Enter');
    await poll(() => dialog.evaluate((d) => (d as HTMLDialogElement).open)).toBe(true);
    const tag = record.tags![0]!;
    await dialog.locator('.tag').first().focus();
    await page.keyboard.press('Enter');
    await poll(() => new URL(page.url()).searchParams.get('tags')).toBe(tag);
    expect(await dialog.evaluate((d) => (d as HTMLDialogElement).open)).toBe(false);
    // The exact tag filter, not a word search.
    const expected = await apiIds(`limit=${PAGE_SIZE}&page=1&sort=created_at_desc&tags=${encodeURIComponent(tag)}`);
    expect(expected.ids).toContain(record.id);
    await poll(() => cardIds(page)).toEqual(expected.ids);
    // The tag link replaced the grid: the focus went to the grid, not to <body>.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('grid');
  });

  it('reaches every control with Tab in reading order, in the page and in the detail view, and never leaves the open dialog', async () => {
    const page = await openPage();
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    await poll(() => page.locator('#daily .card').count()).toBe(1);
    // Opened without a click, which would move where Tab starts from.
    await page.evaluate(() => ((document.getElementById('tag-browser') as HTMLDetailsElement).open = true));
    await page.locator('#tag-list .tag-entry').first().waitFor();
    // Forward from the top of the page: every control in document order, then around again.
    const expected = await tabbables(page, 'body');
    expect(expected.length).toBeGreaterThan(PAGE_SIZE + 10);
    expect(await tabWalk(page, expected.length)).toEqual(expected);

    const record = newestFirst.find((r) => r.artist !== null && r.source_url !== null)!;
    await page.locator(`#grid .card[data-id="${record.id}"]`).focus();
    await page.keyboard.press('Enter');
    const dialog = page.locator('dialog#detail');
    await poll(() => dialog.locator('.credits').count()).toBe(1);
    await poll(() => dialog.locator('.similar').textContent()).not.toContain('Looking for similar');
    const inDialog = await tabbables(page, 'dialog#detail');
    expect(inDialog).toContain('Share');
    // Twice round from the close button: each control of the modal dialog in order, nothing
    // behind it; past the last one the focus visits the browser's own controls, then comes back.
    const walked = (await tabWalk(page, 2 * (inDialog.length + 2))).filter((name) => name !== '<body>' && name !== '<dialog>');
    const fromClose = [...inDialog.slice(inDialog.indexOf('Close') + 1), ...inDialog.slice(0, inDialog.indexOf('Close') + 1)];
    expect(walked.slice(0, 2 * inDialog.length)).toEqual([...fromClose, ...fromClose]);
  });

  it('activates every kind of control with Enter or Space, and gives the focus back where it was', async () => {
    const page = await openPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    // The skip link leads to the grid.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the pepes');
    await page.keyboard.press('Enter');
    await poll(() => page.evaluate(() => document.activeElement?.id)).toBe('grid');

    // Toggle buttons: Space, then Enter.
    await page.getByRole('button', { name: 'Oldest' }).focus();
    await page.keyboard.press('Space');
    await poll(() => new URL(page.url()).searchParams.get('sort')).toBe('oldest');
    await page.getByRole('button', { name: 'Newest' }).focus();
    await page.keyboard.press('Enter');
    await poll(() => new URL(page.url()).searchParams.has('sort')).toBe(false);

    // A select changes with the arrow keys.
    await page.locator('#animated').focus();
    await page.keyboard.press('ArrowDown');
    await poll(() => new URL(page.url()).searchParams.get('animated')).toBe('false');
    await page.keyboard.press('ArrowUp');
    await poll(() => new URL(page.url()).searchParams.has('animated')).toBe(false);

    // The tag list opens with Space; a tag opens with Enter, a "hide" with Space.
    await page.locator('#tag-browser summary').focus();
    await page.keyboard.press('Space');
    const firstTag = page.locator('#tag-list .tag-entry a').first();
    await firstTag.waitFor();
    await firstTag.focus();
    await page.keyboard.press('Enter');
    await poll(() => new URL(page.url()).searchParams.get('tags')).not.toBeNull();
    await page.locator('#tag-list .hide-tag').nth(1).focus();
    await page.keyboard.press('Space');
    await poll(() => new URL(page.url()).searchParams.get('exclude')).not.toBeNull();
    // A filter chip is removed with Enter; the focus goes to the grid, not to <body>.
    await page.locator('#active-filters button').first().focus();
    await page.keyboard.press('Enter');
    await poll(() => page.locator('#active-filters button').count()).toBe(1);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('grid');
    await page.locator('a.brand').focus();
    await page.keyboard.press('Enter');
    await poll(() => new URL(page.url()).search).toBe('');

    // Random with Enter: the detail view opens on its close button; Escape gives the focus back to Random.
    await page.locator('#random').focus();
    await page.keyboard.press('Enter');
    const dialog = page.locator('dialog#detail');
    await poll(() => dialogOpen(page)).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.classList.contains('detail-close'))).toBe(true);
    await page.keyboard.press('Escape');
    await poll(() => dialogOpen(page)).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('random');

    // In the detail view: Next with Enter, Copy with Space, the embed code with Enter, Close with Space.
    await waitForCards(page, PAGE_SIZE);
    const first = newestFirst[0]!;
    await page.locator(`#grid .card[data-id="${first.id}"]`).focus();
    await page.keyboard.press('Enter');
    await poll(() => dialogOpen(page)).toBe(true);
    await dialog.locator('.detail-next').focus();
    await page.keyboard.press('Enter');
    await poll(() => new URL(page.url()).searchParams.get('pepe')).toBe(newestFirst[1]!.id);
    await dialog.getByRole('button', { name: 'Copy Image URL' }).focus();
    await page.keyboard.press('Space');
    await poll(() => dialog.locator('.copy-row .copy-feedback').nth(1).textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await dialog.locator('#copy-image-url').inputValue());
    await dialog.locator('.embed summary').focus();
    await page.keyboard.press('Enter');
    await poll(() => dialog.locator('#embed-code').isVisible()).toBe(true);
    await dialog.locator('.detail-close').focus();
    await page.keyboard.press('Space');
    await poll(() => dialogOpen(page)).toBe(false);
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.id)).toBe(first.id);

    // "By picture" opens the file chooser from the keyboard.
    // Focused and pressed in one step: a slow machine's late re-render cannot move the focus in between.
    const chooser = page.waitForEvent('filechooser');
    await page.locator('#picture-input').press('Space');
    await (await chooser).setFiles({ name: 'noise.png', mimeType: 'image/png', buffer: await unrelatedPicture() });
    await poll(() => page.locator('#picture-result').textContent()).toContain('Nothing close to your picture is in the catalogue');
    await page.locator('#picture-search-close').focus();
    await page.keyboard.press('Enter');
    expect(await page.locator('#picture-search').isHidden()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('picture-input');
  });

  it('shares from the detail view: the browser\'s share sheet where it has one, the link copied where not', async () => {
    const record = newestFirst[0]!;
    const shareUrl = `${server.url}/p/${record.id}`;
    // Without Web Share (Chromium on Linux has none; removed so the test does not depend on the platform).
    const plain = await openPage();
    await plain.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await plain.addInitScript(() => delete (Navigator.prototype as { share?: unknown }).share);
    await plain.goto(`${server.url}/?pepe=${record.id}`);
    const copy = plain.getByRole('button', { name: 'Share', exact: true });
    await copy.focus();
    await plain.keyboard.press('Enter');
    await poll(() => plain.locator('.actions .copy-feedback').textContent()).toBe('Link copied');
    expect(await plain.evaluate(() => navigator.clipboard.readText())).toBe(shareUrl);

    // With it: the OS share sheet is the one thing no local server can stand in for, so it is recorded.
    const sharing = await openPage(PHONE);
    await sharing.addInitScript(() => {
      const w = window as unknown as { shared: unknown[] };
      w.shared = [];
      Object.defineProperty(Navigator.prototype, 'share', { configurable: true, value: async (data: unknown) => void w.shared.push(data) });
      Object.defineProperty(Navigator.prototype, 'canShare', { configurable: true, value: () => true });
    });
    await sharing.goto(`${server.url}/?pepe=${record.id}`);
    const share = sharing.getByRole('button', { name: 'Share…' });
    await share.focus();
    await sharing.keyboard.press('Space');
    await poll(() => sharing.evaluate(() => (window as unknown as { shared: unknown[] }).shared)).toEqual([{ title: record.description ?? (record.tags ? `Pepe tagged ${record.tags.join(', ')}` : `Pepe ${record.id.slice(0, 8)}`), url: shareUrl }]);
    expect(await sharing.getByRole('button', { name: 'Share', exact: true }).count()).toBe(0);
  });

  it('jumps to the search box with "/", closes the detail view on a backdrop click, and resets from the brand link', async () => {
    const page = await openPage();
    await page.goto(`${server.url}/?q=smug`);
    await poll(() => statusText(page)).toMatch(/“smug”/);
    await page.locator('body').click({ position: { x: 5, y: 400 } });
    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('search');

    await page.locator('#grid .card').first().click();
    const dialog = page.locator('dialog#detail');
    await poll(() => dialog.evaluate((d) => (d as HTMLDialogElement).open)).toBe(true);
    // A click on the backdrop (outside the dialog's box) closes it.
    await page.mouse.click(3, 3);
    await poll(() => dialog.evaluate((d) => (d as HTMLDialogElement).open)).toBe(false);
    expect(new URL(page.url()).searchParams.has('pepe')).toBe(false);

    await page.locator('a.brand').click();
    await poll(() => new URL(page.url()).searchParams.has('q')).toBe(false);
    expect(await page.locator('#search').inputValue()).toBe('');
    await waitForCards(page, PAGE_SIZE);
  });

  it('stays open after a double-click on a card, or a text selection dragged out onto the backdrop', async () => {
    const page = await openPage();
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    const dialog = page.locator('dialog#detail');
    const isOpen = () => dialog.evaluate((d) => (d as HTMLDialogElement).open);
    // The first card's left edge is outside the detail box (centred, 1100 px of 1280): the
    // second click of the double-click lands on the backdrop.
    const card = (await page.locator('#grid .card').first().boundingBox())!;
    await page.mouse.dblclick(card.x + 10, card.y + 40);
    await poll(isOpen).toBe(true);
    const box = (await dialog.boundingBox())!;
    expect(card.x + 10).toBeLessThan(box.x);
    await page.waitForTimeout(300);
    expect(await isOpen()).toBe(true);
    expect(new URL(page.url()).searchParams.get('pepe')).toBe(newestFirst[0]!.id);

    // Selecting the title by dragging past its end, releasing on the backdrop.
    const title = (await page.locator('#detail-title').boundingBox())!;
    await page.mouse.move(title.x + 2, title.y + title.height / 2);
    await page.mouse.down();
    await page.mouse.move(title.x + title.width, title.y + title.height / 2, { steps: 4 });
    await page.mouse.move(3, 3, { steps: 4 });
    await page.mouse.up();
    expect(await page.evaluate(() => getSelection()?.toString() ?? '')).not.toBe('');
    await page.waitForTimeout(300);
    expect(await isOpen()).toBe(true);

    // A plain click on the backdrop still closes it.
    await page.mouse.click(3, 3);
    await poll(isOpen).toBe(false);
  });

  it('talks to an API on another origin (CORS) when given ?api=', async () => {
    const apiServer = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: join(REPO_ROOT, 'netlify.toml') });
    try {
      const apiOrigin = new URL(apiServer.url).origin;
      expect(apiOrigin).not.toBe(new URL(server.url).origin);
      const page = await openPage();
      const apiRequests: string[] = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.pathname.startsWith('/api/')) apiRequests.push(`${url.origin}${url.pathname}${url.search}`);
      });
      const failed: string[] = [];
      // A request the reload below cancels (an image still loading) fails as ERR_ABORTED; a
      // request the browser refused (CORS, network) fails otherwise.
      page.on('requestfailed', (request) => {
        if (request.failure()?.errorText !== 'net::ERR_ABORTED') failed.push(`${request.url()} ${request.failure()?.errorText}`);
      });
      await page.goto(`${server.url}/?api=${encodeURIComponent(apiOrigin)}`);
      await waitForCards(page, PAGE_SIZE);
      expect(await cardIds(page)).toEqual(newestFirst.slice(0, PAGE_SIZE).map((r) => r.id));
      // Another origin is said on the page, not passed off as this site's catalogue.
      expect(await page.locator('#api-origin').textContent()).toContain(apiOrigin);

      await page.getByRole('button', { name: 'Random' }).click();
      const dialog = page.locator('dialog#detail');
      await poll(() => dialog.evaluate((d) => (d as HTMLDialogElement).open)).toBe(true);
      const randomId = new URL(page.url()).searchParams.get('pepe');
      expect(site.records.map((r) => r.id)).toContain(randomId);
      expect(await dialog.locator('#copy-api-url').inputValue()).toBe(`${apiOrigin}/api/pepe/${randomId}`);
      // A reload of the shared URL fetches the record by id from the other origin too.
      const byIdAnswer = page.waitForResponse((response) => response.url() === `${apiOrigin}/api/pepe/${randomId}`, { timeout: 15_000 });
      await page.reload();
      expect((await byIdAnswer).status()).toBe(200);
      await poll(() => page.locator('#detail-title').textContent()).not.toBe('Loading pepe…');
      expect(await page.locator('.detail-message').count()).toBe(0);

      // The page's own origin is never asked (no preload of a page the view does not use).
      expect(apiRequests.filter((url) => !url.startsWith(`${apiOrigin}/`))).toEqual([]);
      expect(apiRequests.filter((url) => url.startsWith(`${apiOrigin}/api/pepe?`)).length).toBeGreaterThanOrEqual(2); // list + random
      expect(apiRequests).toContain(`${apiOrigin}/api/pepe/${randomId}`);
      expect(failed).toEqual([]);
    } finally {
      await apiServer.close();
    }
  });

  it('says when the API cannot be reached, and recovers with the retry button', async () => {
    const page = await openPage();
    await page.route('**/api/pepe?*', (route) => route.abort('connectionrefused'));
    await page.goto(`${server.url}/`);
    await poll(() => page.locator('#footer').textContent()).toContain('Could not reach the catalogue API');
    expect(await statusText(page)).toBe('The pepes could not be loaded.');
    await page.unroute('**/api/pepe?*');
    await page.getByRole('button', { name: 'Try again' }).click();
    await waitForCards(page, PAGE_SIZE);
    // The button is gone; the keyboard focus stayed in the grid rather than falling to <body>.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('grid');
  });

  it('gives up on an API that never answers, says so, and recovers with the retry button', async () => {
    const page = await openPage();
    await page.clock.install(); // the timeout passes without the test waiting for it
    await page.route('**/api/pepe?*', () => {}); // accepted, never answered
    await page.goto(`${server.url}/`);
    await poll(() => page.locator('#footer').textContent()).toBe('Loading pepes…');
    await page.clock.runFor(REQUEST_TIMEOUT_MS);
    await poll(() => page.locator('#footer').textContent()).toContain(`did not answer within ${REQUEST_TIMEOUT_MS / 1000} s`);
    expect(await statusText(page)).toBe('The pepes could not be loaded.');
    await page.unroute('**/api/pepe?*');
    await page.getByRole('button', { name: 'Try again' }).click();
    await waitForCards(page, PAGE_SIZE);
  });

  it('says so, without a script error, when the API answers JSON of the wrong shape (null, a null item), and recovers', async () => {
    const page = await openPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const meta = { pagination: { page: 1, total_items: 1, has_next: false }, search: { found: true } };
    for (const [body, reason] of [['null', 'not a JSON object'], [JSON.stringify({ data: [null], meta, error: null }), 'an item of data is not a pepe']]) {
      await page.route('**/api/pepe?*', (route) => route.fulfill({ status: 200, contentType: 'application/json', body }));
      await page.goto(`${server.url}/`);
      await poll(() => page.locator('#footer').textContent()).toContain(`did not answer like the Pepe Catalogue API (${reason})`);
      expect(await statusText(page)).toBe('The pepes could not be loaded.');
      await page.unroute('**/api/pepe?*');
    }
    await page.getByRole('button', { name: 'Try again' }).click();
    await waitForCards(page, PAGE_SIZE);
    expect(errors).toEqual([]);
  });

  it('labels an image that fails to load with readable text on its own surface, not over the blurhash', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const page = await openPage(DESKTOP, scheme);
      await page.route('**/images/**', (route) => route.abort('failed'));
      await page.goto(`${server.url}/`);
      await page.waitForFunction(() => document.querySelectorAll('#grid .picture.is-broken').length >= 1, null, { timeout: 15_000 });
      const label = await page.locator('#grid .picture.is-broken').first().evaluate((frame) => {
        const style = getComputedStyle(frame, '::after');
        return { content: style.content, color: style.color, background: style.backgroundColor };
      });
      expect(label.content).toBe('"image unavailable"');
      expect(contrast(label.color, label.background), `${scheme}: ${JSON.stringify(label)}`).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('announces a later page that fails in the status line, and keeps the loaded cards', async () => {
    const page = await openPage(PHONE);
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    await page.route('**/api/pepe?*', (route) => route.abort('connectionrefused'));
    await page.locator('#sentinel').scrollIntoViewIfNeeded();
    await poll(() => statusText(page)).toMatch(/; 24 shown\. More pepes could not be loaded: try again below\.$/);
    expect(await cardIds(page)).toHaveLength(PAGE_SIZE);
  });

  it('announces each failed retry: the status line changes while trying again, so the same failure is read again', async () => {
    const page = await openPage(PHONE);
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    await page.route('**/api/pepe?*', (route) => route.abort('connectionrefused'));
    await page.locator('#sentinel').scrollIntoViewIfNeeded();
    const failed = /; 24 shown\. More pepes could not be loaded: try again below\.$/;
    await poll(() => statusText(page)).toMatch(failed);
    // What a screen reader is told: the live region's text after each change.
    await page.evaluate(() => {
      const status = document.getElementById('status')!;
      const w = window as unknown as { announced: string[] };
      w.announced = [];
      new MutationObserver(() => w.announced.push(status.textContent ?? '')).observe(status, { childList: true, characterData: true, subtree: true });
    });
    await page.getByRole('button', { name: 'Try again' }).press('Enter');
    await poll(() => page.getByRole('button', { name: 'Try again' }).count()).toBe(1);
    const announced = await page.evaluate(() => (window as unknown as { announced: string[] }).announced);
    expect(announced).toEqual(['Trying again…', expect.stringMatching(failed)]);
  });

  it('refuses an ?api= value that is not an http(s) URL, naming it, and shows this site\'s own catalogue', async () => {
    const page = await openPage();
    await page.goto(`${server.url}/?api=${encodeURIComponent('ftp://pepe.example')}`);
    await poll(() => page.locator('#api-origin').textContent()).toContain('"ftp://pepe.example"');
    await waitForCards(page, PAGE_SIZE);
  });

  it('links every tag to its exact filter, one without letters or digits (an emoji) too', async () => {
    const page = await openPage();
    await page.route('**/api/pepe?*', async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { data: { tags: string[] | null }[] };
      body.data[0]!.tags = ['🐸', 'smug', '!!!'];
      await route.fulfill({ response, json: body });
    });
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    await page.locator('#grid .card').first().click();
    const dialog = page.locator('dialog#detail');
    await poll(() => dialog.locator('.tags a.tag').allTextContents()).toEqual(['#🐸', '#smug', '#!!!']);
    const hrefs = await dialog.locator('.tags a.tag').evaluateAll((links) => links.map((a) => new URL((a as HTMLAnchorElement).href).searchParams.get('tags')));
    expect(hrefs).toEqual(['🐸', 'smug', '!!!']);
  });

  it('keeps a long description and a long unbroken tag inside a 320 px screen and the detail view', async () => {
    const page = await openPage({ width: 320, height: 640 });
    const longWord = 'pepe'.repeat(30);
    // Content has no length limits: give the first record extreme text.
    await page.route('**/api/pepe?*', async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { data: { description: string | null; tags: string[] | null }[] };
      body.data[0]!.description = `${longWord} ${'a long description goes on. '.repeat(20)}`;
      body.data[0]!.tags = [longWord, ...Array.from({ length: 40 }, (_, i) => `tag${i}`)];
      await route.fulfill({ response, json: body });
    });
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    // The caption wraps the long word onto its two lines rather than cutting it at the edge.
    const caption = page.locator('#grid .card-caption').first();
    expect(await caption.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);

    await page.locator('#grid .card').first().click();
    const dialog = page.locator('dialog#detail');
    await poll(() => dialog.locator('.tag').count()).toBe(41);
    expect(await dialog.evaluate((d) => d.scrollWidth - d.clientWidth)).toBe(0);
    const dialogRight = (await dialog.boundingBox())!.x + (await dialog.boundingBox())!.width;
    const tagBox = (await dialog.locator('.tag').first().boundingBox())!;
    expect(tagBox.x + tagBox.width).toBeLessThanOrEqual(dialogRight);
  });

  it('fits a 360 px phone and a desktop, in dark and light schemes (screenshots in .test-output/)', async () => {
    await mkdir(TEST_OUTPUT, { recursive: true });
    for (const [name, viewport, scheme] of [['desktop', DESKTOP, 'light'], ['phone', PHONE, 'dark']] as const) {
      const page = await openPage(viewport, scheme);
      await page.goto(`${server.url}/`);
      await waitForCards(page, PAGE_SIZE);
      await page.waitForFunction(() => document.querySelectorAll('#grid .picture.is-loaded').length >= 2);
      await page.waitForTimeout(400); // let the fade-in finish for the picture
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
      const [r, g, b] = background.match(/\d+/g)!.map(Number);
      const luminance = (0.299 * r! + 0.587 * g! + 0.114 * b!) / 255;
      expect(scheme === 'dark' ? luminance < 0.2 : luminance > 0.8, `${scheme} background ${background}`).toBe(true);
      // Captions show two lines at most: nothing of a third line inside the clipped box.
      const captions = await page.$$eval('#grid .card-caption', (elements) =>
        elements.map((e) => ({ height: e.clientHeight, line: parseFloat(getComputedStyle(e).lineHeight), top: parseFloat(getComputedStyle(e).paddingTop) })),
      );
      for (const caption of captions) expect(caption.height).toBeLessThanOrEqual(Math.ceil(2 * caption.line + caption.top));
      await page.screenshot({ path: join(TEST_OUTPUT, `gallery-${name}.png`) });
      await page.locator('#grid .card').first().click();
      await page.waitForFunction(() => document.querySelector('dialog .picture.is-loaded'));
      await page.waitForTimeout(400);
      await page.screenshot({ path: join(TEST_OUTPUT, `gallery-${name}-detail.png`) });
    }
  });
});

/** WCAG contrast ratio of two opaque `rgb(…)` colours; a transparent background counts as 1 (unreadable over any image). */
function contrast(foreground: string, background: string): number {
  const channels = (css: string) => css.match(/[\d.]+/g)!.map(Number);
  const bg = channels(background);
  if (bg.length === 4 && bg[3]! < 1) return 1;
  const luminance = ([r, g, b]: number[]) => {
    const [lr, lg, lb] = [r!, g!, b!].map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
    return 0.2126 * lr! + 0.7152 * lg! + 0.0722 * lb!;
  };
  const [high, low] = [luminance(channels(foreground)), luminance(bg)].sort((a, b) => b - a);
  return (high! + 0.05) / (low! + 0.05);
}

/** Names of the elements the Tab key can reach inside `scope`, in document order (visible, not inert). */
function tabbables(page: Page, scope: string): Promise<string[]> {
  return page.locator(scope).evaluate((root) => {
    const selector = 'a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])';
    return [...root.querySelectorAll<HTMLElement>(selector)]
      .filter((el) => !el.closest('[hidden], [inert], dialog:not([open])') && !(el as HTMLButtonElement).disabled && el.getClientRects().length > 0)
      .filter((el) => !el.closest('details:not([open])') || el.matches('details > summary'))
      .map((el) => el.getAttribute('aria-label') || el.textContent?.trim() || el.id || (el as HTMLInputElement).value || el.tagName);
  });
}

/** Presses Tab `count` times, naming the element focused after each press as tabbables() does (`<body>`: the browser's own controls; `<dialog>`: a scrolling dialog, focusable to scroll it). */
async function tabWalk(page: Page, count: number): Promise<string[]> {
  const names: string[] = [];
  for (let press = 0; press < count; press++) {
    await page.keyboard.press('Tab');
    names.push(await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      if (el === document.body) return '<body>';
      if (el instanceof HTMLDialogElement) return '<dialog>';
      return el.getAttribute('aria-label') || el.textContent?.trim() || el.id || (el as HTMLInputElement).value || el.tagName;
    }));
  }
  return names;
}

/** The policy the site's pages are served with (netlify.toml), enforced here on every document. */
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; connect-src 'self' https:; frame-ancestors 'none'";
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** A page whose documents carry the CSP, recording every violation the browser reports. */
async function strictPage(viewport = DESKTOP, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const page = await openPage(viewport, colorScheme);
  await page.addInitScript(() => {
    const w = window as unknown as { cspViolations: string[] };
    w.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (event) => w.cspViolations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`));
  });
  await page.route('**/*', async (route) => {
    if (route.request().resourceType() !== 'document') return route.continue();
    const response = await route.fetch();
    await route.fulfill({ response, headers: { ...response.headers(), 'content-security-policy': CSP } });
  });
  return page;
}

const cspViolations = (page: Page) => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);

/** axe-core's violations in the page as it is now (evaluated through the DevTools protocol, which the CSP does not govern). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } }).axe;
    return (await axe.run(document)).violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  return result;
}

/** Lets the picture search run with a file, as the file picker would give it (the previous result cleared first). */
async function pickPicture(page: Page, name: string, buffer: Buffer): Promise<void> {
  await page.evaluate(() => document.getElementById('picture-result')!.replaceChildren());
  await page.locator('#picture-input').setInputFiles({ name, mimeType: mimeOf(name), buffer });
}
const mimeOf = (name: string) => ({ png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif' })[name.split('.').pop()!]!;
/** The pHash the page computed for the picked picture. */
async function pageHash(page: Page): Promise<string> {
  await page.locator('#picture-result .phash').waitFor({ timeout: 15_000 });
  return (await page.locator('#picture-result .phash').textContent())!;
}

describe('browsing, detail and search by picture, under the site CSP', { timeout: 90_000 }, () => {
  it('browses a tag, combines filters in the URL, and keeps the view through back, forward and reload', async () => {
    const page = await strictPage();
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    await poll(() => page.locator('#daily .card').count()).toBe(1);

    await page.locator('#tag-browser summary').click();
    const tags = (await (await fetch(`${server.url}/api/tags`)).json()) as { data: { tag: string; count: number }[] };
    const { tag, count } = tags.data[0]!;
    const entry = page.getByRole('link', { name: `${tag}: ${count} pepe${count === 1 ? '' : 's'}` });
    await entry.waitFor();
    await entry.click();
    const listOf = (query: string) => apiIds(`limit=${PAGE_SIZE}&page=1&sort=created_at_desc&${query}`);
    const tagged = await listOf(`tags=${encodeURIComponent(tag)}`);
    await poll(() => cardIds(page)).toEqual(tagged.ids);
    expect(tagged.ids).toHaveLength(Math.min(count, PAGE_SIZE));
    expect(new URL(page.url()).search).toBe(`?tags=${encodeURIComponent(tag)}`);
    expect(await page.locator('#daily').isHidden()).toBe(true);

    // Still pictures only, then hide a second tag: each a URL of its own, each the API's answer.
    await page.locator('#animated').selectOption('false');
    const still = await listOf(`tags=${encodeURIComponent(tag)}&animated=false`);
    await poll(() => cardIds(page)).toEqual(still.ids);
    expect(new URL(page.url()).searchParams.get('animated')).toBe('false');
    const other = tags.data.find((t) => t.tag !== tag && t.count < count)!;
    await page.locator('#tag-browser summary').click(); // closed by the navigation? it stays open: toggle only if closed
    if (!(await page.locator('#tag-browser').evaluate((d) => (d as HTMLDetailsElement).open))) await page.locator('#tag-browser summary').click();
    await page.getByRole('button', { name: `Hide pepes tagged ${other.tag}` }).click();
    const combined = await listOf(`tags=${encodeURIComponent(tag)}&exclude_tags=${encodeURIComponent(other.tag)}&animated=false`);
    await poll(() => cardIds(page)).toEqual(combined.ids);
    await page.locator('#orientation').selectOption('landscape');
    const shaped = await listOf(`tags=${encodeURIComponent(tag)}&exclude_tags=${encodeURIComponent(other.tag)}&animated=false&orientation=landscape`);
    await poll(() => cardIds(page)).toEqual(shaped.ids);
    expect(await page.getByRole('button', { name: `Remove filter not #${other.tag}` }).count()).toBe(1);

    await page.goBack();
    await poll(() => cardIds(page)).toEqual(combined.ids);
    expect(await page.locator('#orientation').inputValue()).toBe('');
    await page.goBack();
    await poll(() => cardIds(page)).toEqual(still.ids);
    await page.goForward();
    await poll(() => cardIds(page)).toEqual(combined.ids);
    await page.reload();
    await poll(() => cardIds(page)).toEqual(combined.ids);
    expect(await page.locator('#animated').inputValue()).toBe('false');
    expect(await page.locator('#active-filters').textContent()).toContain(`not #${other.tag}`);
    expect(await cspViolations(page)).toEqual([]);
  });

  it('shows credits, what looks like it, download, embed code and feeds in the detail view, with previous/next', async () => {
    const page = await strictPage(PHONE);
    const credited = newestFirst.findIndex((r) => r.artist !== null && r.source_url !== null);
    const record = newestFirst[credited]!;
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    await page.locator(`#grid .card[data-id="${record.id}"]`).click();
    const dialog = page.locator('dialog#detail');
    await poll(() => dialog.locator('.credits').textContent()).toContain(record.artist!.trim());
    expect(await dialog.locator('.credits a').getAttribute('href')).toBe(record.source_url);
    expect(await dialog.locator('.credits').textContent()).toContain(record.license!);
    const similar = (await (await fetch(`${server.url}/api/similar/${record.id}`)).json()) as { data: { id: string; distance: number }[] };
    if (similar.data.length === 0) await poll(() => dialog.locator('.similar').textContent()).toContain('No other pepe looks like this one');
    else await poll(() => dialog.locator('.similar .card').evaluateAll((cards) => cards.map((c) => (c as HTMLElement).dataset.id))).toEqual(similar.data.map((p) => p.id));
    expect(await dialog.locator('.actions a', { hasText: 'Download' }).getAttribute('download')).toBe(`${record.id}${record.file_ext}`);
    expect(await dialog.locator('.copy-row input').first().inputValue()).toBe(`${server.url}/p/${record.id}`); // the share link first
    expect(await dialog.locator('.feeds a').evaluateAll((links) => links.map((a) => new URL((a as HTMLAnchorElement).href).pathname))).toEqual(['/feed.xml', '/feed.json']);
    await dialog.locator('.embed summary').click();
    const oembed = (await (await fetch(`${server.url}/oembed/${record.id}.json`)).json()) as { html?: string };
    if (oembed.html) await poll(() => dialog.locator('#embed-code').inputValue()).toBe(oembed.html);
    else await poll(() => dialog.locator('#embed-code').inputValue()).toContain('could not be loaded');
    // The close control stays in view after scrolling the dialog to its end on a phone.
    await dialog.evaluate((d) => d.scrollTo(0, d.scrollHeight));
    const close = await dialog.locator('.detail-close').boundingBox();
    expect(close!.y).toBeGreaterThanOrEqual(0);
    expect(close!.y + close!.height).toBeLessThanOrEqual(PHONE.height);

    // Next and previous walk the grid's order, keyboard included, without a new history entry each.
    await dialog.locator('.detail-next').click();
    await poll(() => new URL(page.url()).searchParams.get('pepe')).toBe(newestFirst[credited + 1]!.id);
    await page.keyboard.press('ArrowLeft');
    await poll(() => new URL(page.url()).searchParams.get('pepe')).toBe(record.id);
    await page.keyboard.press('Escape');
    await poll(() => dialog.evaluate((d) => (d as HTMLDialogElement).open)).toBe(false);
    expect(new URL(page.url()).searchParams.has('pepe')).toBe(false);
    expect(await cspViolations(page)).toEqual([]);
  });

  it('finds a catalogue pepe from a re-encoded and from a resized copy, and says so when nothing is close', async () => {
    const page = await strictPage();
    const uploads: string[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'GET' || request.postDataBuffer()) uploads.push(`${request.method()} ${request.url()}`);
    });
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    const record = [...site.records].filter((r) => !r.animated).sort((a, b) => b.width * b.height - a.width * a.height)[0]!;
    const original = readFileSync(join(site.distDir, 'site', 'images', `${record.id}${record.file_ext}`));
    const reencoded = await sharp(original).flatten({ background: '#ffffff' }).jpeg({ quality: 75 }).toBuffer();
    const resized = await sharp(original).resize({ width: Math.round(record.width * 0.6) }).png().toBuffer();
    const firstMatch = () => page.locator('#picture-result .card').first().getAttribute('data-id');
    for (const [name, bytes] of [['copy.jpg', reencoded], ['smaller.png', resized]] as const) {
      await pickPicture(page, name, bytes);
      await pageHash(page);
      await poll(firstMatch).toBe(record.id);
      expect(await page.locator('#picture-result .card-note').first().textContent()).toMatch(/same picture|\d bits? apart/);
    }
    // The match opens its detail view like any card.
    await page.locator('#picture-result .card').first().click();
    await poll(() => new URL(page.url()).searchParams.get('pepe')).toBe(record.id);
    await page.keyboard.press('Escape');

    await pickPicture(page, 'unrelated.png', await unrelatedPicture());
    await pageHash(page);
    await poll(() => page.locator('#picture-result').textContent()).toContain('Nothing close to your picture is in the catalogue');
    expect(await page.locator('#picture-result .card').count()).toBe(0);
    // Only the hash went out: no request carried the picture.
    expect(uploads).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
  });

  it('styles the 404 page and the share page like the site, with a way back, under the CSP and accessible', async () => {
    const page = await strictPage(PHONE);
    const missing = await page.goto(`${server.url}/no/such/page`);
    expect(missing!.status()).toBe(404);
    expect(await page.getByRole('link', { name: 'Back to the gallery' }).getAttribute('href')).toBe('/');
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('.not-found')!).maxWidth)).not.toBe('none'); // the stylesheet applied
    expect(await cspViolations(page)).toEqual([]);

    const record = newestFirst.find((r) => r.description && r.tags?.length)!;
    await page.goto(`${server.url}/p/${record.id}`);
    // The description once, as the heading (not again as a caption).
    expect(await page.evaluate(() => document.body.innerText)).toContain(record.description);
    expect((await page.evaluate(() => document.body.innerText)).split(record.description!).length - 1).toBe(1);
    expect(await page.locator('.share .tags a').first().getAttribute('href')).toBe(`${FIXTURE_URLS.baseUrl}/?tags=${encodeURIComponent(record.tags![0]!)}`);
    // The fixture's absolute URLs name its production host, which the policy rightly does not allow here.
    expect((await cspViolations(page)).filter((v) => !v.includes(FIXTURE_URLS.baseUrl))).toEqual([]);
  });

  it('computes in the browser the pHash the build computes: equal for lossless files, close for lossy ones', async () => {
    const page = await strictPage();
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    const fixtures = join(REPO_ROOT, 'tools/image/fixtures');
    const expected = JSON.parse(readFileSync(join(fixtures, 'expected-phash.json'), 'utf8')) as Record<string, { phash: string }>;
    const distances: Record<string, number> = {};
    for (const name of Object.keys(expected)) {
      await pickPicture(page, name, readFileSync(join(fixtures, name)));
      distances[name] = hammingDistance(await pageHash(page), expected[name]!.phash);
    }
    for (const [name, distance] of Object.entries(distances)) {
      expect(distance, `${name}: browser ${distance} bits from the build`).toBeLessThanOrEqual(LOSSLESS.has(name) ? 0 : LOSSY_MAX_DISTANCE);
    }
    expect(await cspViolations(page)).toEqual([]);
  });
});

/** A state of the site to check with axe: how to reach it from a fresh page. */
interface PageState {
  name: string;
  viewport?: { width: number; height: number };
  reach(page: Page): Promise<void>;
}

const NONSENSE = 'qxzvbnmwq';

/** Every state a visitor can meet: axe-core must find nothing in any of them, in either colour scheme. */
const PAGE_STATES: PageState[] = [
  { name: 'first screen', reach: async (page) => {
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    await poll(() => page.locator('#daily .card').count()).toBe(1);
  } },
  { name: 'tag list open', reach: async (page) => {
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    await page.locator('#tag-browser summary').click();
    await page.locator('#tag-list .tag-entry').first().waitFor();
  } },
  { name: 'tag view with every filter', reach: async (page) => {
    const tags = (await (await fetch(`${server.url}/api/tags`)).json()) as { data: { tag: string }[] };
    const [tag, other] = [tags.data[0]!.tag, tags.data[1]!.tag];
    await page.goto(`${server.url}/?tags=${encodeURIComponent(tag)}&exclude=${encodeURIComponent(other)}&animated=false&orientation=landscape`);
    await poll(() => page.locator('#active-filters button').count()).toBe(2);
    await poll(() => page.locator('#grid').getAttribute('aria-busy')).toBe('false');
  } },
  { name: 'search with no match', reach: async (page) => {
    await page.goto(`${server.url}/?q=${NONSENSE}`);
    await poll(() => statusText(page)).toContain(`No pepe matches “${NONSENSE}”`);
  } },
  { name: 'detail view, embed code open', viewport: PHONE, reach: async (page) => {
    const record = newestFirst.find((r) => r.artist !== null && r.source_url !== null)!;
    await page.goto(`${server.url}/?pepe=${record.id}`);
    const dialog = page.locator('dialog#detail');
    await poll(() => dialog.locator('.credits').count()).toBe(1);
    await poll(() => dialog.locator('.similar').textContent()).not.toContain('Looking for similar');
    await dialog.locator('.embed summary').click();
    await poll(() => dialog.locator('#embed-code').inputValue()).not.toBe('');
  } },
  { name: 'search by picture, a match', reach: async (page) => {
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    const record = newestFirst.find((r) => !r.animated)!;
    await pickPicture(page, 'copy.png', readFileSync(join(site.distDir, 'site', 'images', `${record.id}${record.file_ext}`)));
    await page.locator('#picture-result .card').first().waitFor({ timeout: 15_000 });
  } },
  { name: 'search by picture, no match', reach: async (page) => {
    await page.goto(`${server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    await pickPicture(page, 'unrelated.png', await unrelatedPicture());
    await poll(() => page.locator('#picture-result').textContent()).toContain('Nothing close to your picture is in the catalogue');
  } },
  { name: 'API answering 500', reach: async (page) => {
    await page.route('**/api/**', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ data: null, error: { code: 'INTERNAL_ERROR', message: 'Something went wrong.' } }) }));
    await page.goto(`${server.url}/`);
    await page.getByRole('button', { name: 'Try again' }).waitFor();
    await poll(() => page.locator('#daily-body').textContent()).toContain('No pepe of the day');
  } },
  { name: 'API unreachable', viewport: PHONE, reach: async (page) => {
    await page.route('**/api/**', (route) => route.abort('connectionrefused'));
    await page.goto(`${server.url}/`);
    await page.getByRole('button', { name: 'Try again' }).waitFor();
  } },
  { name: '404 page', viewport: PHONE, reach: async (page) => {
    expect((await page.goto(`${server.url}/no/such/page`))!.status()).toBe(404);
  } },
  { name: 'share page', reach: async (page) => {
    await page.goto(`${server.url}/p/${newestFirst.find((r) => r.description && r.tags?.length)!.id}`);
  } },
];

/** A picture nothing in the catalogue looks like: grey noise. */
const unrelatedPicture = () =>
  sharp({ create: { width: 160, height: 120, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 70 } } }).png().toBuffer();

describe('accessibility of every state (axe-core), in both colour schemes', { timeout: 240_000 }, () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`finds no violation in any state, ${scheme} scheme`, async () => {
      const found: Record<string, string[]> = {};
      for (const state of PAGE_STATES) {
        const page = await strictPage(state.viewport ?? DESKTOP, scheme);
        await state.reach(page);
        const violations = await axeViolations(page);
        if (violations.length > 0) found[state.name] = violations;
        await page.context().close(); // not kept for the end: closing many contexts at once outlasts the afterAll hook
      }
      expect(found).toEqual({});
    });
  }
});
