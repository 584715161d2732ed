/**
 * Calls a v2 function the way Netlify does: a web `Request` for the public URL, the
 * `:name` captures of its `config.path` in `context.params`, and the `Response` it returns
 * copied to the socket. On top, what Netlify's edge does: the CDN cache of answers that
 * allow it (cdn-cache.ts), and the headers response-headers.ts decides (`Netlify-CDN-Cache-Control`
 * kept from the client, brotli/gzip for text answers when accepted). Every function answer says
 * where it came from in a `Cache-Status` header (RFC 9211): `"pepe serve"; hit` or
 * `"pepe serve"; fwd=miss`, plus `; stored` when the answer was kept.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type CachedAnswer, type CdnCache, HIT_AGE } from './cdn-cache.js';
import { compressFast, type Encoding, negotiateEncoding } from './compression.js';
import { INTERNAL_ERROR_MESSAGE, sendApiError } from './error-answers.js';
import type { FunctionContext, FunctionMatch } from './functions.js';
import { answerHeaders, type BaseHeaders, etagMatches, forwardedHeaders, functionBaseHeaders, hasCompressedForms, notModifiedHeaders, type ReadyForm, readyForm, STATIC_METHODS } from './response-headers.js';

/** Methods the Fetch API refuses to put in a Request; Netlify's edge rejects them before any function too. */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);
const MISS = '"pepe serve"; fwd=miss';
const MISS_STORED = '"pepe serve"; fwd=miss; stored';
const HIT = '"pepe serve"; hit';

export type ErrorSink = (message: string, error: unknown) => void;

/** A function call: where the chain routed the request, and what stands around the function. */
export interface FunctionCall {
  /** The public URL the function sees (after a rewrite, the rewritten one). */
  url: URL;
  match: FunctionMatch;
  onError: ErrorSink;
  /** Netlify's CDN cache in front of the function; null to reach it every time. */
  cache: CdnCache | null;
  /** True when the chain reached the function by the request's own path (not a rewrite): the key may then be answered early. */
  routed?: boolean;
}

/** A function answer as the edge sends it: fresh from the function, or replayed from the CDN cache. */
interface EdgeAnswer {
  status: number;
  base: BaseHeaders;
  body: Buffer;
  variants: Partial<Record<Encoding, Buffer>>;
}

/** What the edge says of where an answer came from. */
interface Provenance {
  cacheStatus: string;
  age?: string;
}

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
async function invoke(req: IncomingMessage, res: ServerResponse, { url, match, onError }: FunctionCall) {
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
    sendApiError(req, res, { status: 500, code: 'INTERNAL_SERVER_ERROR', message: INTERNAL_ERROR_MESSAGE });
    return null;
  }
}

/** Answers from the CDN cache synchronously when it can; otherwise runs the function. */
export function sendFunction(req: IncomingMessage, res: ServerResponse, call: FunctionCall): void | Promise<void> {
  const method = req.method ?? 'GET';
  if (FORBIDDEN_METHODS.has(method)) {
    // The function's path: the API's 405, as the handler answers every other method it does not serve.
    sendApiError(req, res, { status: 405, code: 'METHOD_NOT_ALLOWED', message: `method "${method}" is not allowed; use ${STATIC_METHODS}`, headers: { allow: STATIC_METHODS } });
    return;
  }
  // HEAD is answered from the GET entry, as CDNs do; only GET answers are stored.
  const key = call.url.pathname + call.url.search;
  const cache = method === 'GET' || method === 'HEAD' ? call.cache : null;
  const hit = cache?.get(key) ?? null;
  if (hit) {
    if (call.routed) hit.routed = true;
    return sendCached(req, res, hit, cache!.ageOf(hit));
  }
  return sendMiss(req, res, { ...call, cache }, key);
}

async function sendMiss(req: IncomingMessage, res: ServerResponse, call: FunctionCall, key: string): Promise<void> {
  const answer = await invoke(req, res, call);
  if (!answer) return;
  // HEAD was asked as GET (toRequest): its answer is the GET's, stored like it.
  const stored = call.cache?.store(key, answer.status, answer.headers, answer.body) ?? null;
  if (stored && call.routed) stored.routed = true;
  const fresh: EdgeAnswer = stored ?? { status: answer.status, base: functionBaseHeaders(forwardedHeaders(answer.headers)), body: answer.body, variants: {} };
  send(req, res, fresh, { cacheStatus: stored ? MISS_STORED : MISS });
}

function sendCached(req: IncomingMessage, res: ServerResponse, hit: CachedAnswer, age: string): void {
  // An aging answer's headers change every second: built for each answer.
  if (hit.ages || req.headers['if-none-match'] !== undefined) {
    send(req, res, hit, { cacheStatus: HIT, age });
    return;
  }
  const form = cachedForm(hit, cachedEncoding(hit, req.headers['accept-encoding']));
  res.writeHead(hit.status, form.list);
  res.end(req.method === 'HEAD' ? undefined : form.body);
}

/** The encoding a client accepting `acceptEncoding` gets this answer in: null when plain. */
export function cachedEncoding(answer: EdgeAnswer, acceptEncoding: string | undefined): Encoding | null {
  return hasCompressedForms(answer.base, answer.status, answer.body.length) ? negotiateEncoding(acceptEncoding) : null;
}

/** A cached answer (Age: HIT_AGE) in the form `encoding`, built once: the chain and the early answer (cached-fast-path.ts) both send it. */
export function cachedForm(hit: CachedAnswer, encoding: Encoding | null): ReadyForm {
  return readyForm((hit.forms ??= {}), hit.base, { encoding, cacheStatus: HIT, age: HIT_AGE }, bodyIn(hit, encoding));
}

function bodyIn(answer: EdgeAnswer, encoding: Encoding | null): Buffer {
  return encoding === null ? answer.body : (answer.variants[encoding] ??= compressFast(answer.body, encoding));
}

/**
 * Sends `answer` in the form this client gets, or a 304 when its If-None-Match matches that
 * form's ETag (each form has its own, RFC 9110 13.1.2): a tag of another form names bytes the
 * client holds in that other form.
 */
function send(req: IncomingMessage, res: ServerResponse, answer: EdgeAnswer, provenance: Provenance): void {
  const encoding = cachedEncoding(answer, req.headers['accept-encoding']);
  const ifNoneMatch = req.headers['if-none-match'];
  if (answer.status === 200 && ifNoneMatch !== undefined && typeof answer.base.headers.etag === 'string') {
    const headers = answerHeaders(answer.base, { encoding, ...provenance });
    if (etagMatches(ifNoneMatch, headers.etag as string)) {
      res.writeHead(304, notModifiedHeaders(headers));
      res.end();
      return;
    }
  }
  const body = bodyIn(answer, encoding);
  // 204/304 carry no body and no length; HEAD gets the GET's headers (toRequest asked for the GET), without the body.
  const length = answer.status === 204 || answer.status === 304 ? undefined : body.length;
  res.writeHead(answer.status, answerHeaders(answer.base, { encoding, ...provenance, length }));
  res.end(req.method === 'HEAD' ? undefined : body);
}
