/**
 * Gallery entry point: reads the view from the URL, and keeps URL, grid and detail view in
 * step. Every user action becomes a URL first (History API), then a render of that URL, so
 * reload, back/forward and shared links all go through the same path.
 */
import { createApiClient, resolveApiBase, type Pepe } from './api-client.js';
import { createDetail } from './detail.js';
import { createGrid } from './grid.js';
import { readViewState, sameGrid, searchText, viewStateHref, type ViewState } from './view-state.js';

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

  const apiBase = resolveApiBase(pageUrl(), document.documentElement.dataset.api);
  if (!apiBase.ok) {
    status.textContent = apiBase.message;
    return;
  }
  const client = createApiClient(apiBase.base, location.origin);

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
    if (!shown || !sameGrid(shown, state)) grid.show({ search: state.search.trim(), sort: state.sort });
    if (state.pepe) detail.open(state.pepe, known.get(state.pepe));
    else if (detail.isOpen) {
      detail.close();
      // Back to what opened it; when that is gone (a tag link replaced the grid, or the view
      // was opened from a URL), to the grid rather than to <body>.
      if (returnFocus?.isConnected) returnFocus.focus();
      else byId('grid').focus({ preventScroll: true });
      returnFocus = null;
    }
    document.title = state.search.trim() ? `“${state.search.trim()}” · Pepe Catalogue` : 'Pepe Catalogue';
    shown = state;
  }

  const grid = createGrid(
    { list: byId('grid'), status, sentinel: byId('sentinel'), footer: byId('footer') },
    client,
    (pepe) => hrefFor({ pepe: pepe.id }),
    (pepe, card) => {
      flushSearch();
      known.set(pepe.id, pepe);
      returnFocus = card;
      navigate({ ...shown!, pepe: pepe.id }, 'push', { opensDetail: true });
    },
  );

  const detail = createDetail(
    byId<HTMLDialogElement>('detail'),
    client,
    (tag) => hrefFor({ search: tag, pepe: null }),
    (tag) => navigate({ search: tag, sort: shown!.sort, pepe: null }, 'push'),
    () => {
      if (history.state?.openedDetail) history.back();
      else navigate({ ...shown!, pepe: null }, 'replace');
    },
  );

  let debounce: ReturnType<typeof setTimeout> | undefined;
  /** `mayStepBack`: false when another action follows at once (history.back() would land after it). */
  const applySearch = (mayStepBack = true) => {
    clearTimeout(debounce);
    debounce = undefined;
    const search = searchText(searchInput.value);
    if (shown && search.trim() === shown.search.trim() && !shown.pepe) return;
    // Box cleared: back to the grid the search started from, instead of a second copy of it
    // that would make the next Back press do nothing.
    if (mayStepBack && search.trim() === '' && history.state?.searchEntry) return history.back();
    // The first keystroke of a search gets its own history entry, so back returns to the full grid.
    const starts = shown!.search.trim() === '';
    navigate({ search, sort: shown!.sort, pepe: null }, starts ? 'push' : 'replace', { startsSearch: starts });
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
    void client.random(shown!.search.trim(), request.signal).then((result) => {
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

  brand.href = viewStateHref({ search: '', sort: 'created_at_desc', pepe: null }, pageUrl());
  brand.addEventListener('click', (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    searchInput.value = '';
    navigate({ search: '', sort: 'created_at_desc', pepe: null }, 'push');
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
