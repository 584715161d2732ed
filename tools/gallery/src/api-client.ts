/**
 * The gallery's only way to the catalogue: variant A of the public API, over fetch.
 * Failures are values (`ApiResult`), so every caller has to decide what the user sees.
 */

/** One pepe as variant A returns it; width, height and blurhash are this service's additive fields. */
export interface Pepe {
  id: string;
  file_name: string;
  file_ext: string;
  file_size: number;
  tags: string[] | null;
  description: string | null;
  url: string;
  phash: string;
  created_at: string;
  updated_at: string;
  width?: number;
  height?: number;
  blurhash?: string;
  /** Smaller WebP copies, smallest first (absent from an older catalogue). */
  thumbnails?: Thumbnail[];
  /** Credits (null when not known; absent from an older catalogue). */
  artist?: string | null;
  source_url?: string | null;
  license?: string | null;
}

/** A pepe of `/api/similar…` answers: the pepe plus its pHash distance in bits. */
export type SimilarPepe = Pepe & { distance: number };

export interface TagCount {
  tag: string;
  count: number;
}

export type Orientation = 'portrait' | 'landscape' | 'square';

/** The list filters (`tags`, `exclude_tags`, `animated`, `orientation`): empty lists and null mean "any". */
export interface Filters {
  tags: string[];
  excludeTags: string[];
  animated: boolean | null;
  orientation: Orientation | null;
}

export interface Thumbnail {
  url: string;
  width: number;
  height: number;
  type: string;
}

export type SortOrder = 'created_at_desc' | 'created_at_asc';

export interface ListQuery extends Filters {
  search: string;
  sort: SortOrder;
  page: number;
}

export interface ListPage {
  pepes: Pepe[];
  page: number;
  totalItems: number;
  hasNext: boolean;
  /** `meta.search.found`: false means the search matched nothing (never inferred from an empty page). */
  found: boolean;
}

export type ApiResult<T> = { ok: true; value: T } | { ok: false; aborted: boolean; message: string };

/** Items per grid page: 24 divides into 2, 3, 4 and 6 columns, and stays under the API's limit of 25. */
export const PAGE_SIZE = 24;

/**
 * A request still unanswered after this long (headers or body) is given up: the visitor gets a
 * message and a retry instead of "Loading…" for ever. Generous for a slow phone, short of the
 * minutes a stalled connection can take before the browser itself gives up.
 */
export const REQUEST_TIMEOUT_MS = 15_000;

/** The list URL path for a grid page (also preloaded by index.html for the default view, so it must match exactly). */
export function listPath(query: ListQuery): string {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE), page: String(query.page), sort: query.sort });
  if (query.search !== '') params.set('search', query.search);
  if (query.tags.length) params.set('tags', query.tags.join(','));
  if (query.excludeTags.length) params.set('exclude_tags', query.excludeTags.join(','));
  if (query.animated !== null) params.set('animated', String(query.animated));
  if (query.orientation) params.set('orientation', query.orientation);
  return `/api/pepe?${params}`;
}

export interface ApiClient {
  list(query: ListQuery, signal?: AbortSignal): Promise<ApiResult<ListPage>>;
  byId(id: string, signal?: AbortSignal): Promise<ApiResult<Pepe>>;
  /** One random pepe among the search's matches (a search that matches nothing is a failure, not the API's fallback pepe). */
  random(search: string, filters: Filters, signal?: AbortSignal): Promise<ApiResult<Pepe>>;
  /** Every tag with its number of pepes, by count descending. */
  tags(signal?: AbortSignal): Promise<ApiResult<TagCount[]>>;
  /** The pepe of the day and its date. */
  daily(signal?: AbortSignal): Promise<ApiResult<{ pepe: Pepe; date: string }>>;
  /** The pepes that look like one (`/api/similar/<id>`), nearest first. */
  similar(id: string, signal?: AbortSignal): Promise<ApiResult<SimilarPepe[]>>;
  /** The pepes whose pHash is within the API's cut-off of `phash` (`/api/similar?phash=`), nearest first. */
  similarToHash(phash: string, signal?: AbortSignal): Promise<ApiResult<SimilarPepe[]>>;
  /** The embed HTML of the pepe's oEmbed document (`/oembed/<id>.json`). */
  embedHtml(id: string, signal?: AbortSignal): Promise<ApiResult<string>>;
  /** Absolute URL of a site document (`/feed.xml`, `/api/openapi.json`…) on the API's origin. */
  absoluteUrl(path: string): string;
  /** Absolute URL of the by-id answer, for the "copy API URL" button. */
  apiUrlFor(id: string): string;
  /** Absolute URL of the pepe's share page (`/p/<id>`, a static page the build writes beside the API's files). */
  shareUrlFor(id: string): string;
  /**
   * Where the browser loads the image from: `/images/<file_name>` on the origin the API was
   * reached on. Variant A serves images and API from the same base URL, so this equals the
   * record's `url` once deployed, and still works on a local server of a production build.
   */
  imageSrcFor(pepe: Pepe): string;
  /** The same for a thumbnail: `/images/<its file name>` on the origin the API was reached on. */
  thumbnailSrcFor(thumbnail: Thumbnail): string;
}

/**
 * `base` is '' for same-origin relative URLs, or an absolute http(s) URL without trailing slash.
 * `pageOrigin` turns relative URLs into absolute ones for copying.
 */
export function createApiClient(base: string, pageOrigin: string): ApiClient {
  const absoluteBase = base === '' ? pageOrigin : base;

  const notTheApi = (what: string) => `${absoluteBase} did not answer like the Pepe Catalogue API (${what}).`;

  async function getJson(path: string, signal?: AbortSignal, envelope = true): Promise<ApiResult<Record<string, unknown>>> {
    // The caller's abort (a newer query) or the timeout, whichever comes first, ends the request.
    const request = new AbortController();
    const timer = setTimeout(() => request.abort(), REQUEST_TIMEOUT_MS);
    const follow = () => request.abort();
    signal?.addEventListener('abort', follow, { once: true });
    const failed = (message: string): ApiResult<never> =>
      signal?.aborted ? { ok: false, aborted: true, message: 'aborted' }
      : request.signal.aborted ? { ok: false, aborted: false, message: `The catalogue API at ${absoluteBase} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s.` }
      : { ok: false, aborted: false, message };
    let response: Response;
    let body: unknown;
    try {
      try {
        response = await fetch(`${base}${path}`, { signal: request.signal, headers: { accept: 'application/json' } });
      } catch {
        return failed(`Could not reach the catalogue API at ${absoluteBase} (network error).`);
      }
      try {
        body = await response.json();
      } catch {
        return failed(`The catalogue API answered ${response.status} with something that is not JSON.`);
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', follow);
    }
    // Valid JSON is not yet an answer: `null` or `[]` from a wrong ?api= target or a broken proxy.
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return { ok: false, aborted: false, message: response.ok ? notTheApi('not a JSON object') : `HTTP ${response.status}` };
    }
    const answer = body as { data?: unknown; error?: { message?: unknown } | null };
    if (!response.ok || (envelope && answer.error)) {
      const message = typeof answer.error?.message === 'string' ? answer.error.message : `HTTP ${response.status}`;
      return { ok: false, aborted: false, message };
    }
    return { ok: true, value: answer as Record<string, unknown> };
  }

  async function similarList(path: string, signal?: AbortSignal): Promise<ApiResult<SimilarPepe[]>> {
    const result = await getJson(path, signal);
    if (!result.ok) return result;
    const data = result.value.data;
    if (!Array.isArray(data) || !data.every((p) => isPepe(p) && typeof (p as { distance?: unknown }).distance === 'number')) {
      return { ok: false, aborted: false, message: notTheApi('no list of similar pepes in data') };
    }
    return { ok: true, value: data as SimilarPepe[] };
  }

  return {
    async list(query, signal) {
      const result = await getJson(listPath(query), signal);
      if (!result.ok) return result;
      const meta = result.value.meta as {
        pagination?: { page: number; total_items: number; has_next: boolean };
        search?: { found: boolean };
      } | undefined;
      // A wrong ?api= target answers JSON of another shape: say so instead of failing later.
      if (!Array.isArray(result.value.data) || !meta?.pagination || !meta.search) {
        return { ok: false, aborted: false, message: notTheApi('no data list with meta.pagination') };
      }
      if (!result.value.data.every(isPepe)) return { ok: false, aborted: false, message: notTheApi('an item of data is not a pepe') };
      return {
        ok: true,
        value: {
          pepes: result.value.data as Pepe[],
          page: meta.pagination.page,
          totalItems: meta.pagination.total_items,
          hasNext: meta.pagination.has_next,
          found: meta.search.found,
        },
      };
    },
    async byId(id, signal) {
      const result = await getJson(`/api/pepe/${encodeURIComponent(id)}`, signal);
      if (!result.ok) return result;
      const pepe = result.value.data;
      return isPepe(pepe) ? { ok: true, value: pepe } : { ok: false, aborted: false, message: notTheApi('no pepe in data') };
    },
    async random(search, filters, signal) {
      const params = new URLSearchParams(listPath({ search, sort: 'created_at_desc', page: 1, ...filters }).split('?')[1]);
      for (const key of ['page', 'sort']) params.delete(key);
      params.set('random', 'true');
      params.set('limit', '1');
      const result = await getJson(`/api/pepe?${params}`, signal);
      if (!result.ok) return result;
      const pepe = result.value.data;
      // With no match the API answers some other pepe (found=false): not a pick among matches.
      const found = (result.value.meta as { search?: { found?: boolean } } | undefined)?.search?.found !== false;
      if (search !== '' && !found) return { ok: false, aborted: false, message: `no pepe matches “${search}”.` };
      return isPepe(pepe) ? { ok: true, value: pepe } : { ok: false, aborted: false, message: search !== '' || filters.tags.length ? 'no pepe matches these filters.' : 'The catalogue is empty.' };
    },
    async tags(signal) {
      const result = await getJson('/api/tags', signal);
      if (!result.ok) return result;
      const data = result.value.data;
      const valid = Array.isArray(data) && data.every((t) => typeof t?.tag === 'string' && typeof t?.count === 'number');
      return valid ? { ok: true, value: data as TagCount[] } : { ok: false, aborted: false, message: notTheApi('no tag list in data') };
    },
    async daily(signal) {
      const result = await getJson('/api/daily', signal);
      if (!result.ok) return result;
      const date = (result.value.meta as { date?: unknown } | undefined)?.date;
      return isPepe(result.value.data) && typeof date === 'string'
        ? { ok: true, value: { pepe: result.value.data, date } }
        : { ok: false, aborted: false, message: notTheApi('no pepe of the day') };
    },
    similar: (id, signal) => similarList(`/api/similar/${encodeURIComponent(id)}`, signal),
    similarToHash: (phash, signal) => similarList(`/api/similar?phash=${encodeURIComponent(phash)}`, signal),
    async embedHtml(id, signal) {
      const result = await getJson(`/oembed/${encodeURIComponent(id)}.json`, signal, false);
      if (!result.ok) return result;
      const html = result.value.html;
      return typeof html === 'string' ? { ok: true, value: html } : { ok: false, aborted: false, message: notTheApi('no html in the oEmbed document') };
    },
    absoluteUrl: (path) => `${absoluteBase}${path}`,
    apiUrlFor: (id) => `${absoluteBase}/api/pepe/${id}`,
    shareUrlFor: (id) => `${absoluteBase}/p/${id}`,
    imageSrcFor: (pepe) => `${base}/images/${encodeURIComponent(pepe.file_name)}`,
    thumbnailSrcFor: (thumbnail) => `${base}/images/${thumbnail.url.slice(thumbnail.url.lastIndexOf('/') + 1)}`,
  };
}

/** Enough of a pepe to draw a card without throwing (an id); the API's own schema guarantees the rest. */
function isPepe(value: unknown): value is Pepe {
  return typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string';
}

/** Hosts of a development server (`pepe serve`, a dev build): only there may `?api=` name another origin. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Which API the page talks to: `?api=<origin>` (for a developer trying a local build against
 * another API, and for the CORS test), else `<html data-api="…">`, else the page's own origin.
 * On a public page `?api=` may only name the page's own origin: a link must not make the
 * official page show another origin's text and links as the catalogue's.
 */
export function resolveApiBase(pageUrl: URL, dataApi: string | undefined): { ok: true; base: string } | { ok: false; message: string } {
  const fromQuery = pageUrl.searchParams.get('api');
  const raw = fromQuery ?? dataApi ?? '';
  if (raw.trim() === '') return { ok: true, base: '' };
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return { ok: false, message: `The api parameter must be an absolute http(s) URL such as https://pepe.example (got "${raw}").` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { ok: false, message: `The api parameter must use http or https (got "${raw}").` };
  }
  if (fromQuery !== null && parsed.origin !== pageUrl.origin && !LOOPBACK_HOSTS.has(pageUrl.hostname)) {
    return { ok: false, message: `The api parameter may name another origin only on a development server (localhost); this page shows ${pageUrl.origin}'s catalogue.` };
  }
  // Keep a path prefix (an API mounted under /something) but never the query or a trailing slash.
  return { ok: true, base: `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, '') };
}
