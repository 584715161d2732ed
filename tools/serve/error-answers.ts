/**
 * The answers `pepe serve` makes itself when something goes wrong (no function answer, no
 * file): 500s, 405s, 404s, 503s, 400s. Every one carries CORS `*` (and nosniff): a browser
 * refuses a cross-origin page any answer without `Access-Control-Allow-Origin`, so the API's
 * clients on other origins (functions/SPECIFICATION.md: CORS `*` on every JSON answer, and on
 * images) would see a network failure in place of the status and the message, and could not
 * tell "no such image" or "try again later" from the server being down.
 *
 * Where the API itself would answer (a path of the function, /api and /v1), the error is the
 * API's JSON envelope (variant B's shape under /v1), as the function's own errors are; the
 * static site's 404 page and the plain 405/503 of static files keep their bodies.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { errorBodyA, errorBodyB } from '../../functions/core/bodies.js';
import { NO_STORE } from '../../functions/core/cache-policy.js';
import { CROSS_ORIGIN_HEADERS, decodeUnreserved } from '../../functions/core/http.js';
import type { ErrorCode } from '../../functions/core/schemas.js';

/** What every error answer of pepe serve adds, so that a page on another origin can read it. */
export const CROSS_ORIGIN_ERROR_HEADERS: Readonly<Record<string, string>> = Object.freeze(
  // The function's own set, in the lower case node:http writes.
  Object.fromEntries(Object.entries(CROSS_ORIGIN_HEADERS).map(([name, value]) => [name.toLowerCase(), value])),
);

/** The same headers as raw HTTP/1.1 lines, for the answers written straight to a socket (CONNECT, unparsable requests). */
export const CROSS_ORIGIN_ERROR_LINES = Object.entries(CROSS_ORIGIN_ERROR_HEADERS).map(([name, value]) => `${name}: ${value}\r\n`).join('');

/** The message of the API's own 500 (functions/core/handler.ts): nothing about what failed. */
export const INTERNAL_ERROR_MESSAGE = 'The server failed to answer this request; please try again later';

/** The path part of a request target (origin or absolute form), with unreserved escapes decoded as the router decodes them. */
function targetPath(target: string): string {
  const withoutOrigin = /^https?:\/\//i.test(target) ? target.replace(/^https?:\/\/[^/?#]*/i, '') : target;
  const path = withoutOrigin.split(/[?#]/, 1)[0] ?? '';
  return decodeUnreserved(path);
}

/** Variant B's paths: its errors have its envelope. */
const isVariantB = (path: string): boolean => path === '/v1' || path.startsWith('/v1/');

/** An error answer: its status, what it says, and headers it adds (Allow, Retry-After). */
interface ErrorAnswer {
  status: number;
  headers?: OutgoingHttpHeaders;
}

/** The API's JSON error envelope for `target` (variant B's under /v1, else A's), with the headers of every JSON answer and no-store. */
export function sendApiError(req: IncomingMessage, res: ServerResponse, error: ErrorAnswer & { code: ErrorCode; message: string }): void {
  const body = isVariantB(targetPath(req.url ?? '')) ? errorBodyB(error.code, error.message) : errorBodyA(error.code, error.message);
  sendError(req, res, { ...error, contentType: 'application/json; charset=utf-8', body });
}

/** A short plain-text error (a static file's 405 or 503), readable cross-origin, never stored. */
export function sendPlainError(req: IncomingMessage, res: ServerResponse, error: ErrorAnswer & { text: string }): void {
  sendError(req, res, { ...error, contentType: 'text/plain; charset=utf-8', body: error.text });
}

/** Every error answer's headers: its type, CORS, no-store, its length; no body for HEAD. */
function sendError(req: IncomingMessage, res: ServerResponse, { status, headers, contentType, body }: ErrorAnswer & { contentType: string; body: string }): void {
  res.writeHead(status, {
    ...headers,
    'content-type': contentType,
    ...CROSS_ORIGIN_ERROR_HEADERS,
    'cache-control': NO_STORE,
    'content-length': Buffer.byteLength(body),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
