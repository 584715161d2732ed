/**
 * What the page shows, read from and written to its own URL, so every view is shareable and
 * reload, back and forward land on the same thing: `?q=<search>&sort=oldest&pepe=<id>`.
 * Other parameters (notably `api`) are carried along untouched.
 */
import type { SortOrder } from './api-client.js';

export interface ViewState {
  search: string;
  sort: SortOrder;
  /** The pepe open in the detail view, or null for the grid alone. */
  pepe: string | null;
}

/** The API accepts at most 200 characters; longer text is cut rather than sent to fail. */
const MAX_SEARCH_LENGTH = 200;

/**
 * Search text as the API accepts it: a control character (a pasted tab or newline, `%0A` in a
 * shared link) becomes a space, since the API refuses them and they only ever separate words
 * here; at most MAX_SEARCH_LENGTH characters (code points, as the API counts).
 */
export function searchText(raw: string): string {
  const spaced = raw.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  return spaced.length <= MAX_SEARCH_LENGTH ? spaced : Array.from(spaced).slice(0, MAX_SEARCH_LENGTH).join('');
}

export function readViewState(url: URL): ViewState {
  const pepe = url.searchParams.get('pepe')?.trim().toLowerCase() ?? '';
  return {
    search: searchText(url.searchParams.get('q') ?? ''),
    sort: url.searchParams.get('sort') === 'oldest' ? 'created_at_asc' : 'created_at_desc',
    pepe: pepe === '' ? null : pepe,
  };
}

/** The page URL (path + query) for `state`, keeping the current URL's other parameters. */
export function viewStateHref(state: ViewState, current: URL): string {
  const params = new URLSearchParams(current.searchParams);
  for (const key of ['q', 'sort', 'pepe']) params.delete(key);
  if (state.search.trim() !== '') params.set('q', state.search);
  if (state.sort === 'created_at_asc') params.set('sort', 'oldest');
  if (state.pepe) params.set('pepe', state.pepe);
  const query = params.toString();
  return `${current.pathname}${query ? `?${query}` : ''}`;
}

/** Whether two states need different grid contents (the detail view does not change the grid). */
export function sameGrid(a: ViewState, b: ViewState): boolean {
  return a.search.trim() === b.search.trim() && a.sort === b.sort;
}
