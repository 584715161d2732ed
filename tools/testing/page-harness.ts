/**
 * What the gallery's browser tests share: a fixture catalogue made by the real build, the
 * real local server over it, headless Chromium, and helpers that wait for what a visitor
 * would see. Each test file starts its own harness (its own port and temp folder).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { compareRecords, type PepeRecord } from '../../functions/core/record.js';
import { startServer, type RunningServer } from '../serve/server.js';
import { buildFixtureSite, type FixtureSite } from './fixture-catalogue.js';
import { launchChromium } from './chromium.js';

/** More than one grid page (24), so scrolling has something to load. */
export const FIXTURE_COUNT = 30;
export const PAGE_SIZE = 24;
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 360, height: 740 };
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TEST_OUTPUT = join(REPO_ROOT, '.test-output');

export interface GalleryHarness {
  site: FixtureSite;
  server: RunningServer;
  browser: Browser;
  /** The fixture records in the grid's default order. */
  newestFirst: PepeRecord[];
  /** A fresh page that records layout shifts (the CLS a user would feel) from the start. */
  openPage(viewport?: { width: number; height: number }, colorScheme?: 'light' | 'dark'): Promise<Page>;
  close(): Promise<void>;
}

/** `scale`: fixture images that many times larger (4: wide enough for renditions). */
export async function startGalleryHarness(options: { scale?: number } = {}): Promise<GalleryHarness> {
  const site = await buildFixtureSite({ count: FIXTURE_COUNT, scale: options.scale });
  const server = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: join(REPO_ROOT, 'netlify.toml') });
  const browser = await launchChromium();
  const contexts: BrowserContext[] = [];
  return {
    site,
    server,
    browser,
    newestFirst: [...site.records].sort(compareRecords).reverse(),
    async openPage(viewport = DESKTOP, colorScheme = 'light') {
      const context = await browser.newContext({ viewport, colorScheme, locale: 'en-US' });
      contexts.push(context);
      const page = await context.newPage();
      await page.addInitScript(() => {
        const w = window as unknown as { layoutShift: number };
        w.layoutShift = 0;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[]) {
            if (!entry.hadRecentInput) w.layoutShift += entry.value;
          }
        }).observe({ type: 'layout-shift', buffered: true });
      });
      return page;
    },
    async close() {
      for (const context of contexts) await context.close();
      await browser.close();
      await server.close();
      await site.cleanup();
    },
  };
}

export const cardIds = (page: Page) => page.$$eval('#grid .card', (cards) => cards.map((c) => (c as HTMLElement).dataset.id!));
export const statusText = (page: Page) => page.locator('#status').textContent();
export const dialogOpen = (page: Page) => page.locator('dialog#detail').evaluate((d) => (d as HTMLDialogElement).open);

/** expect.poll with room for a loaded CI machine (its default gives up after 1 s). */
export function poll<T>(read: () => T | Promise<T>) {
  return expect.poll(read, { timeout: 15_000 });
}

/** Waits for exactly `count` cards; on timeout, the error says what the page showed instead. */
export async function waitForCards(page: Page, count: number): Promise<void> {
  try {
    await page.waitForFunction((n) => document.querySelectorAll('#grid .card').length === n, count, { timeout: 15_000 });
  } catch (error) {
    const shown = await page.evaluate(() => ({
      url: location.href,
      cards: document.querySelectorAll('#grid .card').length,
      status: document.getElementById('status')?.textContent,
      footer: document.getElementById('footer')?.textContent,
    }));
    throw new Error(`expected ${count} cards, page shows ${JSON.stringify(shown)}`, { cause: error });
  }
}

/** The ids (and `found`) the API itself answers for a list query, to compare the grid with. */
export async function apiIds(serverUrl: string, query: string): Promise<{ ids: string[]; found: boolean }> {
  const body = (await (await fetch(`${serverUrl}/api/pepe?${query}`)).json()) as { data: { id: string }[]; meta: { search: { found: boolean } } };
  return { ids: body.data.map((p) => p.id), found: body.meta.search.found };
}
