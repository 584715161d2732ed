/**
 * The gallery in real headless Chromium when a visitor's actions overlap: a click while a
 * search is still being debounced, an answer that arrives after the visitor has moved on.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiIds, cardIds, dialogOpen, PAGE_SIZE, poll, startGalleryHarness, waitForCards, type GalleryHarness } from '../testing/page-harness.js';

let harness: GalleryHarness;

beforeAll(async () => {
  harness = await startGalleryHarness();
}, 180_000);

afterAll(async () => {
  await harness?.close();
});

/**
 * Types `text` into the search box and clicks `selector` in the same task, so the click
 * surely lands inside the 250 ms debounce, however slow the machine running the test.
 */
async function typeThenClick(page: Page, text: string, selector: string): Promise<void> {
  await page.evaluate(
    ([value, target]) => {
      const input = document.getElementById('search') as HTMLInputElement;
      input.focus();
      input.value = value;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      const element = document.querySelector<HTMLElement>(target)!;
      element.focus(); // as a real press does: the box is no longer the focused element
      element.click();
    },
    [text, selector] as const,
  );
}

const query = (page: Page) => Object.fromEntries(new URL(page.url()).searchParams);

describe('gallery page in Chromium, overlapping actions', { timeout: 60_000 }, () => {
  it('keeps the words just typed when a sort button is clicked before the search has run', async () => {
    const page = await harness.openPage();
    await page.goto(`${harness.server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    const smugOldest = await apiIds(harness.server.url, 'limit=24&search=smug&sort=created_at_asc');
    expect(smugOldest.ids.length).toBeGreaterThan(1);

    await typeThenClick(page, 'smug', '[data-sort="created_at_asc"]');
    await page.waitForTimeout(500); // past the debounce: a late timer must change nothing
    expect(await page.locator('#search').inputValue()).toBe('smug');
    expect(query(page)).toEqual({ q: 'smug', sort: 'oldest' });
    await poll(() => cardIds(page)).toEqual(smugOldest.ids);
  });

  it('opens a card clicked before the search has run, keeps it open, and keeps the words typed', async () => {
    const page = await harness.openPage();
    await page.goto(`${harness.server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    const id = harness.newestFirst[2]!.id;

    await typeThenClick(page, 'smug', `#grid .card[data-id="${id}"]`);
    await page.waitForTimeout(500);
    expect(await dialogOpen(page)).toBe(true);
    expect(query(page)).toEqual({ q: 'smug', pepe: id });
    expect(await page.locator('#search').inputValue()).toBe('smug');

    // Closing goes back to the search the visitor typed.
    await page.keyboard.press('Escape');
    await poll(() => dialogOpen(page)).toBe(false);
    expect(query(page)).toEqual({ q: 'smug' });
    expect(await page.locator('#search').inputValue()).toBe('smug');
  });

  it('picks Random among the words just typed, not among the previous grid', async () => {
    const page = await harness.openPage();
    await page.goto(`${harness.server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    const smug = await apiIds(harness.server.url, 'limit=25&search=smug');

    await typeThenClick(page, 'smug', '#random');
    await poll(() => dialogOpen(page)).toBe(true);
    await page.waitForTimeout(500);
    expect(await dialogOpen(page)).toBe(true);
    const { q, pepe } = query(page);
    expect(q).toBe('smug');
    expect(smug.ids).toContain(pepe);
    expect(await page.locator('#search').inputValue()).toBe('smug');
  });

  it('drops a slow Random answer once the visitor has moved on (another card, back)', async () => {
    const page = await harness.openPage();
    // Random answers are held until released; everything else goes through.
    const held: (() => void)[] = [];
    await page.route('**/api/pepe?*random=true*', async (route) => {
      await new Promise<void>((resolve) => held.push(resolve));
      await route.continue().catch(() => {}); // the page may have aborted it meanwhile
    });
    const releaseRandom = async () => {
      await poll(() => held.length).toBe(1);
      held.shift()!();
      await page.waitForTimeout(500); // time for a stale answer to (wrongly) open the dialog
    };
    await page.goto(`${harness.server.url}/`);
    await waitForCards(page, PAGE_SIZE);
    const random = page.getByRole('button', { name: 'Random' });

    // Random, then a card opened and closed while it asks.
    await random.click();
    expect(await random.getAttribute('aria-disabled')).toBe('true');
    const id = harness.newestFirst[1]!.id;
    await page.locator(`#grid .card[data-id="${id}"]`).click();
    await poll(() => dialogOpen(page)).toBe(true);
    await page.keyboard.press('Escape');
    await poll(() => dialogOpen(page)).toBe(false);
    await releaseRandom();
    expect(await dialogOpen(page)).toBe(false);
    expect(query(page)).toEqual({});
    expect(await random.getAttribute('aria-disabled')).toBe(null);

    // A search, Random, then back to the full grid while it asks.
    await page.locator('#search').fill('smug');
    await poll(() => query(page)).toEqual({ q: 'smug' });
    await random.click();
    await page.goBack();
    await poll(() => query(page)).toEqual({});
    await releaseRandom();
    expect(await dialogOpen(page)).toBe(false);
    expect(query(page)).toEqual({});

    // Left alone, Random still opens its pick.
    await random.click();
    await releaseRandom();
    await poll(() => dialogOpen(page)).toBe(true);
    expect(harness.newestFirst.map((r) => r.id)).toContain(query(page).pepe);
  });
});
