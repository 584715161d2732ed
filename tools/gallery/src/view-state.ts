/**
 * What the page shows, read from and written to its own URL, so every view is shareable and
 * reload, back and forward land on the same thing:
 * `?q=<search>&tags=a,b&exclude=c&animated=false&orientation=portrait&sort=oldest&pepe=<id>`.
 * Other parameters (notably `api`) are carried along untouched.
 */
import type { Filters, Orientation, SortOrder } from './api-client.js';

export interface ViewState extends Filters {
  search: string;
  sort: SortOrder;
  /** The pepe open in the detail view, or null for the grid alone. */
  pepe: string | null;
}

/** The API accepts at most 200 characters; longer text is cut rather than sent to fail. */
const MAX_SEARCH_LENGTH = 200;
/** The API's limit on each tag list (`tags`, `exclude_tags`). */
export const MAX_FILTER_TAGS = 10;
const ORIENTATIONS: readonly Orientation[] = ['portrait', 'landscape', 'square'];

export const DEFAULT_VIEW: ViewState = { search: '', sort: 'created_at_desc', pepe: null, tags: [], excludeTags: [], animated: null, orientation: null };

/**
 * Search text as the API accepts it: a control character (a pasted tab or newline, `%0A` in a
 * shared link) becomes a space, since the API refuses them and they only ever separate words
 * here; at most MAX_SEARCH_LENGTH characters (code points, as the API counts).
 */
export function searchText(raw: string): string {
  const spaced = raw.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  return spaced.length <= MAX_SEARCH_LENGTH ? spaced : Array.from(spaced).slice(0, MAX_SEARCH_LENGTH).join('');
}

/** A comma-separated tag list as the API normalises it (trimmed, lowercased, no blanks or repeats). */
function tagList(raw: string | null): string[] {
  const tags = (raw ?? '').split(',').map((t) => t.trim().toLowerCase()).filter((t) => t !== '');
  return [...new Set(tags)].slice(0, MAX_FILTER_TAGS);
}

export function readViewState(url: URL): ViewState {
  const p = url.searchParams;
  const pepe = p.get('pepe')?.trim().toLowerCase() ?? '';
  const animated = p.get('animated');
  const orientation = p.get('orientation') as Orientation | null;
  const tags = tagList(p.get('tags'));
  return {
    search: searchText(p.get('q') ?? ''),
    sort: p.get('sort') === 'oldest' ? 'created_at_asc' : 'created_at_desc',
    pepe: pepe === '' ? null : pepe,
    tags,
    // A tag both asked for and hidden would match nothing: the asked-for one wins.
    excludeTags: tagList(p.get('exclude')).filter((t) => !tags.includes(t)),
    animated: animated === 'true' ? true : animated === 'false' ? false : null,
    orientation: orientation && ORIENTATIONS.includes(orientation) ? orientation : null,
  };
}

/** The page URL (path + query) for `state`, keeping the current URL's other parameters. */
export function viewStateHref(state: ViewState, current: URL): string {
  const params = new URLSearchParams(current.searchParams);
  for (const key of ['q', 'tags', 'exclude', 'animated', 'orientation', 'sort', 'pepe']) params.delete(key);
  if (state.search.trim() !== '') params.set('q', state.search);
  if (state.tags.length) params.set('tags', state.tags.join(','));
  if (state.excludeTags.length) params.set('exclude', state.excludeTags.join(','));
  if (state.animated !== null) params.set('animated', String(state.animated));
  if (state.orientation) params.set('orientation', state.orientation);
  if (state.sort === 'created_at_asc') params.set('sort', 'oldest');
  if (state.pepe) params.set('pepe', state.pepe);
  const query = params.toString().replaceAll('%2C', ',');
  return `${current.pathname}${query ? `?${query}` : ''}`;
}

/** Whether any filter narrows the grid (the daily pepe is shown on the unfiltered first screen only). */
export function isFiltered(state: ViewState): boolean {
  return state.search.trim() !== '' || state.tags.length > 0 || state.excludeTags.length > 0 || state.animated !== null || state.orientation !== null;
}

/** Whether two states need different grid contents (the detail view does not change the grid). */
export function sameGrid(a: ViewState, b: ViewState): boolean {
  return (
    a.search.trim() === b.search.trim() && a.sort === b.sort && a.tags.join(',') === b.tags.join(',') &&
    a.excludeTags.join(',') === b.excludeTags.join(',') && a.animated === b.animated && a.orientation === b.orientation
  );
}
