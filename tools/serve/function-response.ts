/**
 * Calls a v2 function the way Netlify does: a web `Request` for the public URL, the
 * `:name` captures of its `config.path` in `context.params`, and the `Response` it returns
 * copied to the socket. On top, what Netlify's edge does: the CDN cache of answers that
 * allow it (cdn-cache.ts), `Netlify-CDN-Cache-Control` kept from the client, and
 * brotli/gzip for text answers when accepted (with a suffixed ETag, see compression.ts). Every function answer says where it came from in
 * a `Cache-Status` header (RFC 9211): `"pepe serve"; hit` or `"pepe serve"; fwd=miss`, plus `; stored` when the answer was kept.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { type CachedAnswer, type CdnCache, forwardedHeaders, hasCompressedForms, HIT_AGE, isCompressibleAnswer } from './cdn-cache.js';
import { INTERNAL_ERROR_MESSAGE, sendApiError } from './error-answers.js';
import { compressFast, type Encoding, etagForEncoding, negotiateEncoding, varyWithEncoding } from './compression.js';
import type { FunctionContext, FunctionMatch } from './functions.js';
import { etagMatches, notModifiedHeaders, STATIC_METHODS } from './static-response.js';

/** Methods the Fetch API refuses to put in a Request; Netlify's edge rejects them before any function too. */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);
const CACHE_NAME = '"pepe serve"';

export type ErrorSink = (message: string, error: unknown) => void;

/**
 * The request the function sees. For GET and HEAD it is what a CDN sends on a miss: a GET
 * without the client's conditional headers, so that the edge gets the whole answer and
 * decides HEAD, 304 and compression itself, with the headers the GET would carry (a
 * function's HEAD has no body to decide the encoding from, and its 304 none to decide Vary).
 */
function toRequest(req: IncomingMessage, url: URL): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  const method = req.method ?? 'GET';
  const asGet = method === 'GET' || method === 'HEAD';
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (asGet && name.length === 13 && name.toLowerCase() === 'if-none-match') continue;
    headers.append(name, raw[i + 1]!);
  }
  // The API is read-only, so a request body is never forwarded (nor read).
  return new Request(url.href, { method: asGet ? 'GET' : method, headers });
}

/**
 * Runs the function; null when it threw, already answered with the API's JSON 500 (the one the
 * handler itself sends for its own failures, CORS included: error-answers.ts). Netlify answers
 * a crashed function with a page of its own, which no client of the API could read from
 * another origin; the handler catches everything it can, so only a broken bundle gets here.
 */
async function invoke(req: IncomingMessage, res: ServerResponse, url: URL, match: FunctionMatch, onError: ErrorSink) {
  const pending: Promise<unknown>[] = [];
  const context: FunctionContext = {
    params: match.params,
    ip: req.socket.remoteAddress ?? '',
    requestId: randomUUID(),
    waitUntil: (promise) => pending.push(promise),
  };
  try {
    const response = await match.fn.handler(toRequest(req, url), context);
    const body = Buffer.from(await response.arrayBuffer());
    for (const promise of pending) promise.catch((error: unknown) => onError(`function ${match.fn.name}: waitUntil task failed`, error));
    const headers: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const setCookies = response.headers.getSetCookie();
    if (setCookies.length > 0) headers['set-cookie'] = setCookies;
    return { status: response.status, headers, body };
  } catch (error) {
    onError(`function ${match.fn.name} failed on ${req.method} ${url.pathname}${url.search}`, error);
    sendApiError(req, res, 500, 'INTERNAL_SERVER_ERROR', INTERNAL_ERROR_MESSAGE);
    return null;
  }
}

/** Answers from the CDN cache synchronously when it can; otherwise runs the function. */
export function sendFunction(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  match: FunctionMatch,
  onError: ErrorSink,
  cache: CdnCache | null,
  /** True when the chain reached the function by the request's own path (not a rewrite): the key may then be answered early. */
  routed = false,
): void | Promise<void> {
  const method = req.method ?? 'GET';
  if (FORBIDDEN_METHODS.has(method)) {
    // The function's path: the API's 405, as the handler answers every other method it does not serve.
    sendApiError(req, res, 405, 'METHOD_NOT_ALLOWED', `method "${method}" is not allowed; use ${STATIC_METHODS}`, { allow: STATIC_METHODS });
    return;
  }
  // HEAD is answered from the GET entry, as CDNs do; only GET answers are stored.
  const key = url.pathname + url.search;
  const cacheable = cache !== null && (method === 'GET' || method === 'HEAD');
  const hit = cacheable ? cache.get(key) : null;
  if (hit) {
    if (routed) hit.routed = true;
    return sendCached(req, res, hit, cache!.ageOf(hit));
  }
  return sendMiss(req, res, url, match, onError, cacheable ? cache : null, key, routed);
}

async function sendMiss(req: IncomingMessage, res: ServerResponse, url: URL, match: FunctionMatch, onError: ErrorSink, cache: CdnCache | null, key: string, routed: boolean): Promise<void> {
  const answer = await invoke(req, res, url, match, onError);
  if (!answer) return;
  // HEAD was asked as GET (toRequest): its answer is the GET's, stored like it.
  const stored = cache !== null && (req.method === 'GET' || req.method === 'HEAD') ? cache.store(key, answer.status, answer.headers, answer.body) : null;
  if (stored && routed) stored.routed = true;
  const variants = stored?.variants ?? {};
  const headers = stored?.headers ?? forwardedHeaders(answer.headers);
  const cacheStatus = `${CACHE_NAME}; fwd=miss${stored ? '; stored' : ''}`;
  if (notModified(req, res, answer.status, headers, answer.body, cacheStatus)) return;
  write(req, res, answer.status, headers, answer.body, variants, cacheStatus);
}

/**
 * Answers 304 when the client's If-None-Match matches the ETag of the form this client gets
 * (plain, or compressed with the encoding it accepts: each form has its own tag, RFC 9110
 * 13.1.2, as static-response.ts compares them), with the fields RFC 9110 15.4.5 asks of a 304:
 * the ETag, Cache-Control and Vary that 200 would carry, and no Content-Type, Content-Encoding
 * or length. A tag of another form names bytes the client holds in that other form: it used
 * to match too, and the 304 then announced `Content-Encoding: br` and a `"…-br"` tag for a
 * plain or gzip body, which a cache that applies a 304's headers (RFC 9111 4.3.4) stores.
 */
function notModified(req: IncomingMessage, res: ServerResponse, status: number, headers: Record<string, string | string[]>, body: Buffer, cacheStatus: string, age?: string): boolean {
  const etag = headers.etag;
  const ifNoneMatch = req.headers['if-none-match'];
  if (status !== 200 || typeof etag !== 'string' || ifNoneMatch === undefined) return false;
  const encoding = negotiatedEncoding(req, headers, body, status);
  const selected = encoding ? etagForEncoding(etag, encoding) : etag;
  if (!etagMatches(ifNoneMatch, selected)) return false;
  const vary: OutgoingHttpHeaders = isCompressibleAnswer(headers) ? { vary: varyWithEncoding(headers.vary as string | undefined) } : {};
  res.writeHead(304, notModifiedHeaders({ ...edgeHeaders(headers, vary, cacheStatus, age), etag: selected }));
  res.end();
  return true;
}

function sendCached(req: IncomingMessage, res: ServerResponse, hit: CachedAnswer, age: string): void {
  const cacheStatus = `${CACHE_NAME}; hit`;
  if (notModified(req, res, hit.status, hit.headers, hit.body, cacheStatus, age)) return;
  if (!hit.ages && negotiatedEncoding(req, hit.headers, hit.body, hit.status) === null) {
    // The common case: the same bytes and headers every time, built once.
    res.writeHead(hit.status, plainCachedHeaders(hit));
    res.end(req.method === 'HEAD' ? undefined : hit.body);
    return;
  }
  write(req, res, hit.status, hit.headers, hit.body, hit.variants, cacheStatus, age);
}

/** Every header of the cached answer sent uncompressed: the same each time, so built once. */
export function plainCachedHeaders(hit: CachedAnswer): OutgoingHttpHeaders {
  hit.plainHeaders ??= { ...edgeHeaders(hit.headers, encodingHeadersFor(null, hit.headers, hit.body, hit.variants).headers, `${CACHE_NAME}; hit`, HIT_AGE), 'content-length': hit.body.length };
  return hit.plainHeaders;
}

/** The function's headers plus what the edge adds (Vary/encoding headers, Cache-Status, Age): the one composition every answer uses. */
function edgeHeaders(headers: Record<string, string | string[]>, encoding: OutgoingHttpHeaders, cacheStatus: string, age?: string): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = { ...headers, ...encoding, 'cache-status': cacheStatus };
  if (age !== undefined) out.age = age;
  return out;
}

/** The encoding this client gets the answer in: one it accepts when the answer has compressed forms; else null (plain). */
function negotiatedEncoding(req: IncomingMessage, headers: Record<string, string | string[]>, body: Buffer, status: number): Encoding | null {
  return hasCompressedForms(status, headers, body) ? negotiateEncoding(req.headers['accept-encoding']) : null;
}

/** Vary, and when the client accepts it, Content-Encoding, the suffixed ETag and the compressed body. */
function encodingHeaders(req: IncomingMessage, headers: Record<string, string | string[]>, body: Buffer, variants: CachedAnswer['variants'], status = 200) {
  return encodingHeadersFor(negotiatedEncoding(req, headers, body, status), headers, body, variants);
}

/** `encodingHeaders` for an encoding already negotiated (null: none). */
function encodingHeadersFor(encoding: Encoding | null, headers: Record<string, string | string[]>, body: Buffer, variants: CachedAnswer['variants']) {
  if (!isCompressibleAnswer(headers)) return { headers: {}, body };
  const out: OutgoingHttpHeaders = { vary: varyWithEncoding(headers.vary as string | undefined) };
  if (!encoding) return { headers: out, body };
  const compressed = (variants[encoding] ??= compressFast(body, encoding));
  out['content-encoding'] = encoding;
  if (typeof headers.etag === 'string') out.etag = etagForEncoding(headers.etag, encoding);
  return { headers: out, body: compressed };
}

/**
 * The headers and body that `write` sends for a cache hit whose client negotiated `encoding`
 * (the hit has compressed forms: cached-fast-path.ts checks), the same each time, so the
 * early answer builds them once per encoding.
 */
export function encodedCachedAnswer(hit: CachedAnswer, encoding: Encoding): { headers: OutgoingHttpHeaders; body: Buffer } {
  const encoded = encodingHeadersFor(encoding, hit.headers, hit.body, hit.variants);
  return { headers: { ...edgeHeaders(hit.headers, encoded.headers, `${CACHE_NAME}; hit`, HIT_AGE), 'content-length': encoded.body.length }, body: encoded.body };
}

function write(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: Record<string, string | string[]>,
  body: Buffer,
  variants: CachedAnswer['variants'],
  cacheStatus: string,
  age?: string,
): void {
  const encoded = encodingHeaders(req, headers, body, variants, status);
  const out = edgeHeaders(headers, encoded.headers, cacheStatus, age);
  // 204/304 carry no body and no length; HEAD gets the GET's headers (toRequest asked for the GET), without the body.
  if (status !== 204 && status !== 304) out['content-length'] = encoded.body.length;
  res.writeHead(status, out);
  res.end(req.method === 'HEAD' ? undefined : encoded.body);
}
