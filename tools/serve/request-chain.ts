/**
 * Netlify's request chain for one request (README.md, "The chain"):
 *
 * 1. a function whose `config.path` matches (behind the CDN cache, cdn-cache.ts); with `preferStatic`, only when no static
 *    file exists at the path (for GET/HEAD: other methods always reach the function, so
 *    the API answers OPTIONS and 405 with its own headers on by-id URLs too);
 * 2. the netlify.toml redirects (redirects.ts): a 3xx, or a rewrite to a function path or
 *    a static file (a rewrite to a missing file is a 404, it never falls through);
 * 3. a static file with the netlify.toml headers;
 * 4. 404: the site's `404.html` when the build has one, else a small HTML page. (Under
 *    /api and /v1 the function's paths cover everything, so its JSON 404 comes first.)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CdnCache } from './cdn-cache.js';
import { CROSS_ORIGIN_ERROR_HEADERS, sendApiError, sendPlainError } from './error-answers.js';
import { type ErrorSink, sendFunction } from './function-response.js';
import { type LoadedFunction, matchFunction } from './functions.js';
import type { NetlifyConfig } from '../shared/netlify-config.js';
import { type CompiledRedirect, findRedirect } from './redirects.js';
import type { StaticSite } from './static-files.js';
import type { StaticRoutes } from './static-fast-path.js';
import { STATIC_METHODS } from './response-headers.js';
import { sendStatic } from './static-response.js';
import { decodeUnreserved } from '../../functions/core/http.js';

export interface ChainState {
  site: StaticSite;
  config: NetlifyConfig;
  functions: LoadedFunction[];
  redirects: CompiledRedirect[];
  /** `http://host:port` used when the Host header is missing or not a plain host name. */
  origin: string;
  onError: ErrorSink;
  /** Netlify's CDN cache of function answers; null to reach the function every time. */
  cdnCache: CdnCache | null;
  /** Targets answered with a plain static file, for the early answer (static-fast-path.ts). */
  staticRoutes: StaticRoutes;
}

const PLAIN_HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The public URL of the request, or null when the request target is not a path. The Host
 * header gives the origin when it is a plain host name that a URL can hold; one that looks
 * like a host but is none (`x:99999`, `999.999.999.999`, `[1:2:3]`) falls back to
 * `fallbackOrigin` like a missing one, so it cannot turn a good request into a 400.
 */
function requestUrl(req: IncomingMessage, fallbackOrigin: string): URL | null {
  const host = req.headers.host;
  return (host && PLAIN_HOST.test(host) ? urlFor(req.url ?? '', `http://${host}`) : null) ?? urlFor(req.url ?? '', fallbackOrigin);
}

function urlFor(target: string, origin: string): URL | null {
  try {
    // Concatenation, not `new URL(target, origin)`: a target like `//evil.example/x` must stay a path.
    if (target.startsWith('/')) return new URL(origin + target);
    // Absolute-form targets (proxies send them): keep only the path and query.
    if (/^https?:\/\//i.test(target)) {
      const absolute = new URL(target);
      return new URL(origin + absolute.pathname + absolute.search);
    }
  } catch {
    return null;
  }
  return null;
}

export async function handleRequest(serving: ChainState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // The build as it is now, for the whole request: a reload (reload.ts) replaces the fields of
  // `serving`, possibly while this request waits for a file, and the new build's CDN cache must
  // never store the old function's answer.
  const state: ChainState = { ...serving };
  const url = requestUrl(req, state.origin);
  if (!url) {
    const message = `the request target must be a path such as /api/pepe (got ${JSON.stringify((req.url ?? '').slice(0, 100))})`;
    sendApiError(req, res, { status: 400, code: 'VALIDATION_ERROR', message });
    return;
  }
  const method = req.method ?? 'GET';
  const readsFile = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';

  // Routed as Netlify's edge and the handler see it: `%70` and `p` are the same path (RFC 3986).
  const fn = matchFunction(state.functions, decodeUnreserved(url.pathname));
  if (fn) {
    const file = fn.fn.preferStatic && (method === 'GET' || method === 'HEAD') ? state.site.lookup(url.pathname) : null;
    if (file) {
      // sendStatic answers the hot path synchronously; await only when it could not.
      const sent = sendStatic(req, res, { site: state.site, config: state.config, entry: file });
      if (sent === true || (sent !== false && (await sent))) return state.staticRoutes.remember(req.url, url.pathname, file);
    }
    // Routed (may be answered early next time) only when no static file stands in the way:
    // one that vanished since start-up (ENOENT) could come back.
    return sendFunction(req, res, { url, match: fn, onError: state.onError, cache: state.cdnCache, routed: file === null });
  }

  const redirect = findRedirect(state.redirects, url, (pathname) => state.site.lookup(pathname) !== null);
  if (redirect?.kind === 'redirect') {
    res.writeHead(redirect.status, { ...redirect.headers, location: redirect.location, 'cache-control': 'no-cache', 'content-length': 0 });
    res.end();
    return;
  }
  if (redirect?.kind === 'rewrite') {
    const target = new URL(redirect.pathname + redirect.search, url);
    const targetFn = matchFunction(state.functions, target.pathname);
    if (targetFn) return sendFunction(req, res, { url: target, match: targetFn, onError: state.onError, cache: state.cdnCache });
    const file = state.site.lookup(target.pathname);
    if (file && !readsFile) return sendMethodNotAllowed(req, res);
    if (file && (await sendStatic(req, res, { site: state.site, config: state.config, entry: file, status: redirect.status, extra: redirect.headers }))) return;
    return sendNotFound(state, req, res);
  }

  const file = state.site.lookup(url.pathname);
  if (file) {
    if (!readsFile) return sendMethodNotAllowed(req, res);
    const sent = sendStatic(req, res, { site: state.site, config: state.config, entry: file });
    if (sent === true || (sent !== false && (await sent))) return state.staticRoutes.remember(req.url, url.pathname, file);
  }
  return sendNotFound(state, req, res);
}

function sendMethodNotAllowed(req: IncomingMessage, res: ServerResponse): void {
  sendPlainError(req, res, { status: 405, text: 'Method Not Allowed\n', headers: { allow: STATIC_METHODS } });
}

const NOT_FOUND_HTML = '<!doctype html><html lang="en"><meta charset="utf-8"><title>Not found</title><h1>Not found</h1><p>Nothing is published at this address. The API lives under <a href="/api/pepe">/api/pepe</a> and <a href="/v1/pepe">/v1/pepe</a>.</p></html>\n';

async function sendNotFound(state: ChainState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const page = state.site.lookup('/404.html');
  // CORS on both: a page on another origin asking for an image that is not there must see a 404, not a network failure.
  if (page && (req.method === 'GET' || req.method === 'HEAD') && (await sendStatic(req, res, { site: state.site, config: state.config, entry: page, status: 404, extra: CROSS_ORIGIN_ERROR_HEADERS }))) return;
  res.writeHead(404, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', ...CROSS_ORIGIN_ERROR_HEADERS, 'content-length': Buffer.byteLength(NOT_FOUND_HTML) });
  res.end(req.method === 'HEAD' ? undefined : NOT_FOUND_HTML);
}
