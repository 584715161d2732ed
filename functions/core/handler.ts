/**
 * The API as one `fetch`-style function over the build's data: routing, methods and the
 * last-resort 500. Platform adapters (the Netlify function, `pepe serve`) are a few lines
 * around `createHandler(data)`.
 */
import { DAILY_PATH, LISTING_HEAD_PATH, LISTING_PATH, OPENAPI_PATH, PAGES_PATH, SIMILAR_PATH, TAGS_PATH, VARIANT_A_LIST_PATHS, VARIANT_B_LIST_PATH } from './api-limits.js';
import { errorBodyA, errorBodyB } from './bodies.js';
import type { CatalogueData, PieceSource } from './catalogue-data.js';
import { openCatalogue, type Catalogue } from './catalogue-runtime.js';
import { NO_STORE } from './cache-policy.js';
import { ALLOWED_METHODS, decodeUnreserved, jsonHeaders, preflight, respond, type Answer } from './http.js';
import { quote } from './query-string.js';
import type { ErrorCode } from './schemas.js';
import type { RandomSource } from './shuffle.js';
import { byIdA, listA, sortedPageA } from './variant-a.js';
import { byIdB, listB } from './variant-b.js';
import { dailyA, similarA, similarByHashA, tagsA } from './discovery.js';

export interface HandlerOptions {
  /** Source of unseeded randomness (tests pass a seeded one). Default Math.random. */
  random?: RandomSource;
  /** Called with any unexpected error before the generic 500 is sent (default: console.error). */
  onError?: (error: unknown) => void;
  /** Reads the data's pieces (the function passes its pieces file's reader); default: the pieces of data compiled in this process. */
  pieces?: PieceSource;
  /** The clock of the pepe of the day, epoch milliseconds (tests pass a fixed one). Default Date.now. */
  now?: () => number;
}

export type Handler = (request: Request, context?: { params?: Record<string, string> }) => Promise<Response>;

const isVariantB = (path: string): boolean => path === '/v1' || path.startsWith('/v1/');

function errorAnswer(path: string, status: number, code: ErrorCode, message: string, caching: Answer['caching']): Answer {
  return { status, body: isVariantB(path) ? errorBodyB(code, message) : errorBodyA(code, message), caching };
}

function route(catalogue: Catalogue, url: URL, random: RandomSource, now: () => number): Answer {
  const raw = decodeUnreserved(url.pathname);
  // A trailing slash is accepted on every path.
  const path = raw.length > 1 && raw.endsWith('/') ? raw.slice(0, -1) : raw;
  const query = url.search.slice(1);
  if (path === OPENAPI_PATH) return { status: 200, body: catalogue.openapi(), caching: 'deterministic' };
  // Deprecated for the static listing: the build writes no files for them, so the function answers.
  if (path.startsWith(`${PAGES_PATH}/`)) return sortedPageA(catalogue, path.slice(PAGES_PATH.length + 1));
  // The listing is static files only: a page the function sees is not (or no longer) in the chain.
  if (path === LISTING_PATH || path.startsWith(`${LISTING_PATH}/`)) {
    return errorAnswer(path, 404, 'NOT_FOUND', `No listing page ${quote(raw)}; the listing starts at ${LISTING_HEAD_PATH}, whose pages link each other`, 'error');
  }
  if (path === TAGS_PATH) return tagsA(catalogue);
  if (path === DAILY_PATH) return dailyA(catalogue, query, now());
  if (path === SIMILAR_PATH) return similarByHashA(catalogue, query);
  if (path.startsWith(`${SIMILAR_PATH}/`)) {
    const id = path.slice(SIMILAR_PATH.length + 1);
    if (!id.includes('/')) return similarA(catalogue, id);
  }
  if (path === VARIANT_B_LIST_PATH) return listB(catalogue, query, random);
  if (path.startsWith(`${VARIANT_B_LIST_PATH}/`)) {
    const id = path.slice(VARIANT_B_LIST_PATH.length + 1);
    if (!id.includes('/')) return byIdB(catalogue, id);
  }
  for (const prefix of VARIANT_A_LIST_PATHS) {
    if (path === prefix) return listA(catalogue, query, random);
    if (path.startsWith(`${prefix}/`)) {
      const id = path.slice(prefix.length + 1);
      if (!id.includes('/')) return byIdA(catalogue, id);
    }
  }
  const where = isVariantB(path) ? 'see GET /v1/pepe and GET /v1/pepe/{id}' : `see ${OPENAPI_PATH}`;
  return errorAnswer(path, 404, 'NOT_FOUND', `No API route for path ${quote(raw)}; ${where}`, 'error');
}

export function createHandler(data: CatalogueData, options: HandlerOptions = {}): Handler {
  const catalogue = openCatalogue(data, options.pieces);
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const onError = options.onError ?? ((error: unknown) => console.error('pepe api: unexpected error', error));
  return async (request) => {
    let path = '/';
    try {
      const url = new URL(request.url);
      // Decoded as route() decodes it, so that a 405 or 500 on `/v%31/pepe` has the error
      // shape of variant B, the variant that path is routed to.
      path = decodeUnreserved(url.pathname);
      const method = request.method.toUpperCase();
      if (method === 'OPTIONS') return preflight();
      if (method !== 'GET' && method !== 'HEAD') {
        const message = `method ${quote(request.method)} is not allowed; use ${ALLOWED_METHODS}`;
        return respond(request, { ...errorAnswer(path, 405, 'METHOD_NOT_ALLOWED', message, 'no-store'), headers: { Allow: ALLOWED_METHODS } });
      }
      return respond(request, route(catalogue, url, random, now));
    } catch (error) {
      // Never leak a stack, a file path or a library message to the client.
      try {
        onError(error);
      } catch {
        // a failing logger must not turn a 500 into a crash
      }
      const answer = errorAnswer(path, 500, 'INTERNAL_SERVER_ERROR', 'The server failed to answer this request; please try again later', 'no-store');
      // Not through respond(): the last resort uses as little as it can of what may have failed.
      return new Response(request.method === 'HEAD' ? null : answer.body, { status: 500, headers: { ...jsonHeaders(), 'Cache-Control': NO_STORE } });
    }
  };
}
