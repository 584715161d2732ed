/**
 * The hot path of `pepe serve`: a GET/HEAD for a list or search URL whose answer is already in
 * the CDN cache (cdn-cache.ts), as almost every API request is after the first one per URL.
 * It answers synchronously, before the request chain: no URL object, no function matching,
 * no promise, no header object built per request (a flat header list is built once per
 * cached answer and only its `Age` slot changes).
 *
 * It only answers when it would answer exactly like the chain (request-chain.ts +
 * function-response.ts `sendCached`); otherwise it returns false and the chain runs:
 * - the raw request target must equal a cache key, and that key must have been reached
 *   through the chain's own function route (`routed`), so a static file or a rewrite can
 *   never be bypassed. A target equal to a key is already in the URL parser's normal form
 *   (keys are `pathname + search` of a parsed URL, and that form parses to itself);
 * - no `If-None-Match` (304s take the chain);
 * - the plain body is what the chain would send: the answer is not compressible, or too
 *   small to compress, or the client accepts no encoding we offer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CachedAnswer, CdnCache } from './cdn-cache.js';
import { MIN_COMPRESS_BYTES } from './compression.js';
import { isCompressible } from './content-types.js';
import { acceptsCompression, flatHeaderList, unconditionalAcceptEncoding } from './early-request.js';
import { plainCachedHeaders } from './function-response.js';

/** The flat header list of the plain answer, `Age` last (updated in place). */
function fastHeaders(hit: CachedAnswer): string[] {
  if (hit.fastHeaders) return hit.fastHeaders;
  const list = flatHeaderList(plainCachedHeaders(hit));
  list.push('age', '0');
  hit.fastHeaders = list;
  return list;
}

/** True when it answered the request from the cache; false to let the request chain answer. */
export function answerFromCdnCache(cache: CdnCache, req: IncomingMessage, res: ServerResponse): boolean {
  const method = req.method;
  if (method !== 'GET' && method !== 'HEAD') return false;
  const target = req.url;
  if (target === undefined || target.charCodeAt(0) !== 47 /* '/' */) return false;
  const now = Date.now();
  const hit = cache.get(target, now);
  if (hit === null || !hit.routed) return false;

  const request = unconditionalAcceptEncoding(req);
  if (request === null) return false;
  hit.compressedForms ??= hasCompressedForms(hit);
  if (hit.compressedForms && acceptsCompression(request.acceptEncoding)) return false;

  const headers = fastHeaders(hit);
  const age = Math.max(0, Math.floor((now - hit.storedAt) / 1000));
  if (age !== hit.fastAge) {
    hit.fastAge = age;
    headers[headers.length - 1] = String(age);
  }
  res.writeHead(hit.status, headers);
  res.end(method === 'HEAD' ? undefined : hit.body);
  return true;
}

/** Whether a client that accepts compression gets a compressed form of this answer (as `sendCached` decides). */
function hasCompressedForms(hit: CachedAnswer): boolean {
  const contentType = hit.headers['content-type'];
  return hit.status === 200 && typeof contentType === 'string' && isCompressible(contentType) && hit.headers['content-encoding'] === undefined && hit.body.length >= MIN_COMPRESS_BYTES;
}
