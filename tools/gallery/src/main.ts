/**
 * Gallery entry point: reads the view from the URL, and keeps URL, grid and detail view in
 * step. Every user action becomes a URL first (History API), then a render of that URL, so
 * reload, back/forward and shared links all go through the same path.
 */
import { createApiClient, resolveApiBase, type Pepe } from './api-client.js';
import { createDetail, distanceText } from './detail.js';
import { createCard, createGrid, isPlainClick } from './grid.js';
import { createPictureSearch } from './picture-search.js';
import { DEFAULT_VIEW, isFiltered, MAX_FILTER_TAGS, readViewState, sameGrid, searchText, viewStateHref, type ViewState } from './view-state.js';

/** Results as you type, without one request per keystroke. */
const SEARCH_DEBOUNCE_MS = 250;

const byId = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const pageUrl = () => new URL(location.href);

function start(): void {
  const status = byId<HTMLElement>('status');
  const searchInput = byId<HTMLInputElement>('search');
  const sortButtons = [...document.querySelectorAll<HTMLButtonElement>('[data-sort]')];
  const randomButton = byId<HTMLButtonElement>('random');
  const brand = byId<HTMLAnchorElement>('brand');

  const animatedSelect = byId<HTMLSelectElement>('animated');
  const orientationSelect = byId<HTMLSelectElement>('orientation');
  const activeFilters = byId<HTMLUListElement>('active-filters');
  const apiOrigin = byId<HTMLElement>('api-origin');

  // A refused ?api= is said on the page, which goes on with its own catalogue.
  const resolved = resolveApiBase(pageUrl(), document.documentElement.dataset.api);
  const base = resolved.ok ? resolved.base : '';
  if (!resolved.ok) apiOrigin.textContent = resolved.message;
  else if (base !== '' && new URL(base).origin !== location.origin) apiOrigin.textContent = `Showing the catalogue at ${base} (not this site's).`;
  apiOrigin.hidden = apiOrigin.textContent === '';
  const client = createApiClient(base, location.origin);

  let shown: ViewState | null = null;
  /** Records the page already has, so opening a card's detail needs no request. */
  const known = new Map<string, Pepe>();
  /** The card that opened the detail view gets focus back when it closes. */
  let returnFocus: HTMLElement | null = null;

  const hrefFor = (patch: Partial<ViewState>) => viewStateHref({ ...(shown ?? readViewState(pageUrl())), ...patch }, pageUrl());

  /**
   * The markers let "close" step back in history when the detail view was opened from here
   * (`openedDetail`), and clearing the search step back to the grid it started from (`searchEntry`).
   */
  function navigate(next: ViewState, mode: 'push' | 'replace', marker: { opensDetail?: boolean; startsSearch?: boolean } = {}): void {
    const href = viewStateHref(next, pageUrl());
    if (mode === 'push') history.pushState({ openedDetail: Boolean(marker.opensDetail), searchEntry: Boolean(marker.startsSearch) }, '', href);
    else history.replaceState({ openedDetail: Boolean(marker.opensDetail && history.state?.openedDetail), searchEntry: Boolean(history.state?.searchEntry) }, '', href);
    render(next);
  }

  /** `fromHistory`: back/forward or the first load, where the box must show the URL's search even while it has focus. */
  function render(state: ViewState, fromHistory = false): void {
    cancelRandom();
    // While typing, the box is ahead of the state (the debounce): never overwrite it then.
    if ((fromHistory || document.activeElement !== searchInput) && searchInput.value !== state.search) searchInput.value = state.search;
    for (const button of sortButtons) button.setAttribute('aria-pressed', String(button.dataset.sort === state.sort));
    animatedSelect.value = state.animated === null ? '' : String(state.animated);
    orientationSelect.value = state.orientation ?? '';
    if (!shown || !sameGrid(shown, state)) {
      const { search, sort, tags, excludeTags, animated, orientation } = state;
      grid.show({ search: search.trim(), sort, tags, excludeTags, animated, orientation });
      showActiveFilters(state);
      daily.hidden = isFiltered(state);
    }
    if (state.pepe) detail.open(state.pepe, known.get(state.pepe));
    else if (detail.isOpen) {
      detail.close();
      // Back to what opened it, else (replaced, or opened from a URL) to the grid, never <body>.
      if (returnFocus?.isConnected) returnFocus.focus();
      else byId('grid').focus({ preventScroll: true });
      returnFocus = null;
    }
    const heading = [state.search.trim() && `“${state.search.trim()}”`, ...state.tags.map((t) => `#${t}`)].filter(Boolean).join(' ');
    document.title = heading ? `${heading} · Pepe Catalogue` : 'Pepe Catalogue';
    shown = state;
  }

  /** A grid view with one change of filter, from the first page and with no pepe open. */
  const filtered = (patch: Partial<ViewState>): ViewState => ({ ...shown!, pepe: null, ...patch });
  const tagView = (tag: string): ViewState => ({ ...DEFAULT_VIEW, sort: shown!.sort, tags: [tag] });

  /** A link that changes the view in place (a plain click) or opens it elsewhere (a modified one). */
  function viewLink(className: string, text: string, state: () => ViewState, label?: string): HTMLAnchorElement {
    const link = Object.assign(document.createElement('a'), { className, textContent: text });
    link.href = viewStateHref(state(), pageUrl());
    if (label) link.setAttribute('aria-label', label);
    link.addEventListener('click', (event) => {
      if (!isPlainClick(event)) return;
      event.preventDefault();
      navigate(state(), 'push');
    });
    return link;
  }

  /** Each tag filter as a chip whose button removes it. */
  function showActiveFilters(state: ViewState): void {
    const chip = (text: string, without: Partial<ViewState>) => {
      const item = document.createElement('li');
      const button = Object.assign(document.createElement('button'), { type: 'button', className: 'tag removable' });
      const cross = Object.assign(document.createElement('span'), { textContent: ' ×' });
      cross.setAttribute('aria-hidden', 'true');
      button.append(Object.assign(document.createElement('span'), { className: 'visually-hidden', textContent: 'Remove filter ' }), text, cross);
      button.addEventListener('click', () => {
        byId('grid').focus({ preventScroll: true }); // the chip goes away
        navigate(filtered(without), 'push');
      });
      item.append(button);
      return item;
    };
    activeFilters.replaceChildren(
      ...state.tags.map((t) => chip(`#${t}`, { tags: state.tags.filter((x) => x !== t) })),
      ...state.excludeTags.map((t) => chip(`not #${t}`, { excludeTags: state.excludeTags.filter((x) => x !== t) })),
    );
  }

  animatedSelect.addEventListener('change', () => {
    flushSearch();
    navigate(filtered({ animated: animatedSelect.value === '' ? null : animatedSelect.value === 'true' }), 'push');
  });
  orientationSelect.addEventListener('change', () => {
    flushSearch();
    navigate(filtered({ orientation: (orientationSelect.value || null) as ViewState['orientation'] }), 'push');
  });

  // The tag list, asked for the first time it is opened (it is not part of the first screen).
  const tagBrowser = byId<HTMLDetailsElement>('tag-browser');
  const tagList = byId<HTMLUListElement>('tag-list');
  tagBrowser.addEventListener('toggle', () => {
    if (!tagBrowser.open || tagList.childElementCount > 0) return;
    tagList.append(Object.assign(document.createElement('li'), { className: 'muted', textContent: 'Loading tags…' }));
    void client.tags().then((result) => {
      if (!result.ok) return tagList.replaceChildren(Object.assign(document.createElement('li'), { className: 'muted', textContent: `The tags could not be loaded: ${result.message}` }));
      tagList.replaceChildren(
        ...result.value.map(({ tag, count }) => {
          const item = document.createElement('li');
          item.className = 'tag-entry';
          const include = viewLink('tag', `#${tag} ${count}`, () => tagView(tag), `${tag}: ${count} pepe${count === 1 ? '' : 's'}`);
          const hide = Object.assign(document.createElement('button'), { type: 'button', className: 'tag hide-tag', textContent: 'hide' });
          hide.setAttribute('aria-label', `Hide pepes tagged ${tag}`);
          hide.addEventListener('click', () => {
            const excludeTags = [...shown!.excludeTags.filter((t) => t !== tag), tag].slice(-MAX_FILTER_TAGS);
            navigate(filtered({ excludeTags, tags: shown!.tags.filter((t) => t !== tag) }), 'push');
          });
          item.append(include, hide);
          return item;
        }),
      );
    });
  });

  // The pepe of the day, on the unfiltered first screen.
  const daily = byId<HTMLElement>('daily');
  // Its box has a fixed height from the start, so that its arrival never moves the grid.
  void client.daily().then((result) => {
    if (!result.ok) return void (byId('daily-body').textContent = `No pepe of the day: ${result.message}`);
    const { pepe, date } = result.value;
    known.set(pepe.id, pepe);
    const card = createCard(pepe, client, { href: hrefFor({ pepe: pepe.id }), onOpen: openPepe, eager: true, sizes: '160px', note: `Pepe of ${date}` });
    byId('daily-body').replaceChildren(card);
  });

  function openPepe(pepe: Pepe, card: HTMLElement): void {
    flushSearch();
    known.set(pepe.id, pepe);
    returnFocus = card;
    navigate({ ...shown!, pepe: pepe.id }, 'push', { opensDetail: true });
  }

  const grid = createGrid(
    { list: byId('grid'), status, sentinel: byId('sentinel'), footer: byId('footer') },
    client,
    (pepe) => hrefFor({ pepe: pepe.id }),
    openPepe,
  );

  const detail = createDetail(byId<HTMLDialogElement>('detail'), client, {
    tagHref: (tag) => viewStateHref(tagView(tag), pageUrl()),
    onTag: (tag) => navigate(tagView(tag), 'push'),
    pepeHref: (id) => hrefFor({ pepe: id }),
    // Stepping replaces the entry: Close still goes back to the grid in one step.
    onPepe: (pepe) => {
      known.set(pepe.id, pepe);
      navigate({ ...shown!, pepe: pepe.id }, 'replace', { opensDetail: true });
    },
    neighbours: (id) => {
      const pepes = grid.pepes;
      const at = pepes.findIndex((p) => p.id === id);
      return at < 0 ? { previous: null, next: null } : { previous: pepes[at - 1] ?? null, next: pepes[at + 1] ?? null };
    },
    onClose: () => {
      if (history.state?.openedDetail) history.back();
      else navigate({ ...shown!, pepe: null }, 'replace');
    },
  });

  const pictureSearch = byId<HTMLElement>('picture-search');
  createPictureSearch(
    { panel: pictureSearch, input: byId<HTMLInputElement>('picture-input'), result: byId('picture-result') },
    client,
    (pepe) => createCard(pepe, client, { href: hrefFor({ pepe: pepe.id }), onOpen: openPepe, eager: true, sizes: '160px', note: distanceText(pepe.distance) }),
    (pepes) => pepes.forEach((p) => known.set(p.id, p)),
  );
  byId('picture-search-close').addEventListener('click', () => {
    pictureSearch.hidden = true;
    byId('picture-input').focus();
  });

  let debounce: ReturnType<typeof setTimeout> | undefined;
  /** `mayStepBack`: false when another action follows at once (history.back() would land after it). */
  const applySearch = (mayStepBack = true) => {
    clearTimeout(debounce);
    debounce = undefined;
    const search = searchText(searchInput.value);
    if (shown && search.trim() === shown.search.trim() && !shown.pepe) return;
    // Box cleared: back to the grid the search started from; a second copy would make Back do nothing.
    if (mayStepBack && search.trim() === '' && history.state?.searchEntry) return history.back();
    // The first keystroke of a search gets its own history entry, so back returns to the full grid.
    const starts = shown!.search.trim() === '';
    navigate({ ...shown!, search, pepe: null }, starts ? 'push' : 'replace', { startsSearch: starts });
  };
  /**
   * A card, sort button or Random used while a search is still being debounced acts as if the
   * wait were over. Otherwise its render resets the box to the shown search, dropping the
   * words just typed, and the late timer then closes a detail view it has just opened.
   */
  const flushSearch = () => {
    if (debounce !== undefined) applySearch(false);
  };
  searchInput.addEventListener('input', () => {
    clearTimeout(debounce);
    debounce = setTimeout(applySearch, SEARCH_DEBOUNCE_MS);
  });
  byId<HTMLFormElement>('controls').addEventListener('submit', (event) => {
    event.preventDefault();
    applySearch();
  });

  for (const button of sortButtons) {
    button.addEventListener('click', () => {
      const sort = button.dataset.sort === 'created_at_asc' ? 'created_at_asc' : 'created_at_desc';
      flushSearch();
      if (shown && shown.sort !== sort) navigate({ ...shown, sort, pepe: null }, 'push');
    });
  }

  /**
   * The Random request on its way, if any. Any other change of view (back, a card, a search)
   * cancels it: on a slow API its answer would otherwise open a pepe over a view the visitor
   * has moved on to, possibly picked among a search no longer shown.
   */
  let randomRequest: AbortController | null = null;
  function cancelRandom(): void {
    if (!randomRequest) return;
    randomRequest.abort();
    randomRequest = null;
    randomButton.removeAttribute('aria-disabled');
  }

  // Busy, not disabled, while it asks: a disabled button drops the keyboard focus to <body>.
  randomButton.addEventListener('click', () => {
    if (randomRequest) return;
    flushSearch(); // a pick among the words just typed, not among the previous search's matches
    const request = new AbortController();
    randomRequest = request;
    randomButton.setAttribute('aria-disabled', 'true');
    void client.random(shown!.search.trim(), shown!, request.signal).then((result) => {
      if (request.signal.aborted) return; // the visitor has moved on
      randomRequest = null;
      randomButton.removeAttribute('aria-disabled');
      if (!result.ok) {
        status.textContent = `No random pepe: ${result.message}`;
        return;
      }
      known.set(result.value.id, result.value);
      returnFocus = randomButton;
      navigate({ ...shown!, pepe: result.value.id }, 'push', { opensDetail: true });
    });
  });

  brand.href = viewStateHref(DEFAULT_VIEW, pageUrl());
  brand.addEventListener('click', (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    searchInput.value = '';
    navigate(DEFAULT_VIEW, 'push');
  });

  // "/" jumps to the search box, as on many sites; not while typing somewhere else.
  document.addEventListener('keydown', (event) => {
    const target = event.target as HTMLElement;
    if (event.key !== '/' || detail.isOpen || target.closest('input, textarea')) return;
    event.preventDefault();
    searchInput.focus();
  });

  addEventListener('popstate', () => {
    clearTimeout(debounce); // a pending keystroke must not push the old text back
    debounce = undefined;
    render(readViewState(pageUrl()), true);
  });
  render(readViewState(pageUrl()), true);
}

start();
