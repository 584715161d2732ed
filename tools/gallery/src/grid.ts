/**
 * The grid of pepes for one (search, sort): first page at once, further pages when the
 * sentinel below the grid comes near the viewport. A new query aborts the old one, so a
 * slow answer to an earlier keystroke can never overwrite a newer result.
 */
import type { ApiClient, ListQuery, Pepe } from './api-client.js';
import { pepeTitle, plural } from './format.js';
import { createPicture, renditionSrcset } from './picture.js';

export interface GridElements {
  list: HTMLUListElement;
  /** aria-live region: counts and no-match messages are announced to screen readers. */
  status: HTMLElement;
  sentinel: HTMLElement;
  /** Shown under the grid: "loading…", "all shown", or a retry button after an error. */
  footer: HTMLElement;
}

export interface Grid {
  show(query: Omit<ListQuery, 'page'>): void;
  /** The pepes in the grid, in order (the detail view's previous/next). */
  readonly pepes: readonly Pepe[];
}

/**
 * The cards of the first row, at least this many, are surely on screen: loading them eagerly
 * starts their download as soon as the card exists, instead of after layout (lazy images wait
 * for it), and the largest first-screen image is among them. The rest are lazy.
 */
export const EAGER_CARDS = 4;

/** Cards built per task after the first row: each task stays well under the 50 ms of a long task on a slow phone. */
const CARDS_PER_TASK = 6;

/** Resolves in a later task, so the browser can handle input and paint in between. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Columns of the grid as laid out now (0 when hidden). */
function columnCount(list: HTMLElement): number {
  const tracks = getComputedStyle(list).gridTemplateColumns;
  return tracks === 'none' ? 0 : tracks.split(' ').length;
}

/**
 * Start fetching the next page this far before the user reaches the end of the grid: near
 * enough that the first screen never asks for the second page (it would compete with the
 * visible images on a slow connection), far enough that scrolling rarely waits for it.
 */
const PREFETCH_MARGIN = '400px 0px';

/** A card's width for `sizes` when the grid cannot be measured (hidden): the columns of styles.css, roughly. */
const CARD_SIZES_FALLBACK = '(max-width: 440px) calc(50vw - 18px), 240px';

/** The width the cards are shown at: the grid's first column track, as laid out now. */
function cardSizes(list: HTMLElement): string {
  const track = Number.parseFloat(getComputedStyle(list).gridTemplateColumns);
  return Number.isFinite(track) && track > 0 ? `${Math.ceil(track)}px` : CARD_SIZES_FALLBACK;
}

export function createGrid(
  elements: GridElements,
  client: ApiClient,
  cardHref: (pepe: Pepe) => string,
  onOpen: (pepe: Pepe, card: HTMLElement) => void,
): Grid {
  let query: Omit<ListQuery, 'page'> | null = null;
  let nextPage = 1;
  let hasNext = false;
  /**
   * Ids of the cards in the grid. Pages are asked one at a time, each from the catalogue
   * deployed at that moment (functions/README.md, "Behaviour decisions"): after a deploy
   * that added a pepe, the next page starts with the last card already shown. Its size is the
   * number of cards shown.
   */
  let shownIds = new Set<string>();
  let shownPepes: Pepe[] = [];
  /** The status line after the last page that loaded, for a later page's failure to add to. */
  let loadedText = '';
  let controller: AbortController | null = null;
  let loading = false;

  const observer = new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) void loadNext();
  }, { rootMargin: PREFETCH_MARGIN });

  function setFooter(text: string, retry = false): void {
    elements.footer.replaceChildren(text);
    if (retry) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'button';
      button.textContent = 'Try again';
      button.addEventListener('click', () => {
        // The button goes away while loading: keep the keyboard focus in the grid, not on <body>.
        elements.list.focus({ preventScroll: true });
        // A changed line, so that failing again is announced again (the same text is not).
        elements.status.textContent = 'Trying again…';
        void loadNext();
      });
      elements.footer.append(' ', button);
    }
  }

  async function loadNext(): Promise<void> {
    if (!query || loading || (!hasNext && nextPage > 1)) return;
    loading = true;
    const current = query;
    const signal = controller!.signal;
    elements.list.setAttribute('aria-busy', 'true');
    setFooter('Loading pepes…');
    const result = await client.list({ ...current, page: nextPage }, signal);
    if (signal.aborted) return; // a newer query owns the grid now
    if (!result.ok) {
      loading = false;
      elements.list.setAttribute('aria-busy', 'false');
      // The status line is the live region: a later page's failure is announced there too.
      elements.status.textContent = nextPage === 1 ? 'The pepes could not be loaded.' : loadedText + MORE_FAILED;
      setFooter(result.message, true);
      return;
    }
    const page = result.value;
    // A card already in the grid is not added again (two cards for one pepe, and a count past the total).
    const fresh = page.pepes.filter((pepe) => !shownIds.has(pepe.id));
    for (const pepe of fresh) shownIds.add(pepe.id);
    shownPepes.push(...fresh);
    const sizes = cardSizes(elements.list);
    const eager = Math.max(EAGER_CARDS, columnCount(elements.list));
    // The first row at once, the rest in short tasks; the footer hidden meanwhile so it never jumps.
    elements.footer.hidden = true;
    for (let start = 0, end = Math.max(eager, CARDS_PER_TASK); start < fresh.length; start = end, end += CARDS_PER_TASK) {
      if (start > 0) {
        await nextTask();
        if (signal.aborted) return;
      }
      elements.list.append(...fresh.slice(start, end).map((pepe, index) => card(pepe, page.page === 1 && start + index < eager, sizes)));
    }
    elements.footer.hidden = false;
    loading = false;
    elements.list.setAttribute('aria-busy', 'false');
    hasNext = page.hasNext;
    nextPage = page.page + 1;
    const shown = shownIds.size;
    loadedText = statusText(current, page.found, page.totalItems, shown);
    elements.status.textContent = loadedText;
    elements.list.hidden = shown === 0;
    setFooter(hasNext || shown === 0 ? '' : `That is all ${plural(page.totalItems, 'pepe', 'pepes')}.`);
    // Re-observing makes the observer check again: a tall screen can show more than one page.
    observer.unobserve(elements.sentinel);
    if (hasNext) observer.observe(elements.sentinel);
  }

  function card(pepe: Pepe, eager: boolean, sizes: string): HTMLLIElement {
    const item = document.createElement('li');
    item.append(createCard(pepe, client, { href: cardHref(pepe), onOpen, eager, sizes }));
    return item;
  }

  return {
    show(next) {
      controller?.abort();
      controller = new AbortController();
      observer.unobserve(elements.sentinel);
      query = next;
      nextPage = 1;
      hasNext = false;
      shownIds = new Set();
      shownPepes = [];
      loading = false;
      elements.footer.hidden = false;
      elements.list.replaceChildren();
      elements.status.textContent = next.search.trim() ? `Searching for “${next.search.trim()}”…` : 'Loading pepes…';
      void loadNext();
    },
    get pepes() {
      return shownPepes;
    },
  };
}

/** True for a plain left click: modified clicks keep their browser meaning (new tab, new window) on the real href. */
export const isPlainClick = (event: MouseEvent) => event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;

/** A pepe's card: its picture and caption, linking to its detail view; `note` adds a line (a distance). */
export function createCard(
  pepe: Pepe,
  client: ApiClient,
  options: { href: string; onOpen: (pepe: Pepe, card: HTMLElement) => void; eager: boolean; sizes: string; note?: string },
): HTMLAnchorElement {
  const link = document.createElement('a');
  link.className = 'card';
  link.href = options.href;
  link.dataset.id = pepe.id;
  const caption = document.createElement('span');
  caption.className = 'card-caption';
  caption.textContent = pepeTitle(pepe);
  // The image's alt text is the same words: read once, the link is named by the alt alone.
  caption.setAttribute('aria-hidden', 'true');
  const srcset = renditionSrcset(pepe, client) ?? undefined;
  link.append(createPicture(pepe, { src: client.imageSrcFor(pepe), srcset, sizes: options.sizes, lazy: !options.eager }), caption);
  if (options.note) link.append(Object.assign(document.createElement('span'), { className: 'card-note', textContent: options.note }));
  link.addEventListener('click', (event) => {
    if (!isPlainClick(event)) return;
    event.preventDefault();
    options.onOpen(pepe, link);
  });
  return link;
}

const MORE_FAILED = ' More pepes could not be loaded: try again below.';

/** The filters in words: ` tagged #a and #b, not #c, still, portrait`. */
function filterWords(query: Omit<ListQuery, 'page'>): string {
  const parts: string[] = [];
  if (query.tags.length) parts.push(`tagged ${query.tags.map((t) => `#${t}`).join(' and ')}`);
  if (query.excludeTags.length) parts.push(`not ${query.excludeTags.map((t) => `#${t}`).join(' or ')}`);
  if (query.animated !== null) parts.push(query.animated ? 'animated' : 'still');
  if (query.orientation) parts.push(query.orientation);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

function statusText(query: Omit<ListQuery, 'page'>, found: boolean, total: number, shown: number): string {
  const search = query.search.trim();
  const order = query.sort === 'created_at_asc' ? 'oldest first' : 'newest first';
  const filters = filterWords(query);
  if (search === '') {
    if (total === 0) return filters ? `No pepe${filters}. Remove a filter to see more.` : 'The catalogue is empty.';
    return `${plural(total, 'pepe', 'pepes')}${filters}, ${order}; ${shown} shown.`;
  }
  if (!found || total === 0) return `No pepe matches “${search}”${filters}. Try fewer or shorter words${filters ? ' or filters' : ''}.`;
  return `${plural(total, 'pepe matches', 'pepes match')} “${search}”${filters}; ${shown} shown.`;
}
