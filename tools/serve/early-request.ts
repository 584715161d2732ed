/**
 * What the early answers (cached-fast-path.ts, static-fast-path.ts) read of a request. They
 * read `rawHeaders`, not `req.headers`: Node builds that object lazily, only when it is read,
 * and building it is a good part of a hot request.
 */
import type { IncomingMessage } from 'node:http';

/**
 * The request's Accept-Encoding (repeated lines joined as Node joins them for
 * `req.headers`), or null when the request is conditional (If-None-Match): 304s are left
 * to the request chain.
 */
export function unconditionalAcceptEncoding(req: IncomingMessage): { acceptEncoding: string | undefined } | null {
  const raw = req.rawHeaders;
  let acceptEncoding: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 13 && name.toLowerCase() === 'if-none-match') return null;
    if (name.length === 15 && name.toLowerCase() === 'accept-encoding') {
      acceptEncoding = acceptEncoding === undefined ? raw[i + 1]! : `${acceptEncoding}, ${raw[i + 1]!}`;
    }
  }
  return { acceptEncoding };
}

/**
 * Whether an HTTP/1.1 request has no Host header, which RFC 9112 3.2 says a server must answer
 * with a 400. Read from `rawHeaders`, as the early answers read them, before any of them runs.
 */
export function lacksHost(req: IncomingMessage): boolean {
  if (req.httpVersionMajor !== 1 || req.httpVersionMinor !== 1) return false;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') return false;
  }
  return true;
}
