/**
 * The hot path of `pepe serve`: a GET/HEAD for a list or search URL whose answer is already in
 * the CDN cache (cdn-cache.ts), as almost every API request is after the first one per URL.
 * It answers synchronously, before the request chain: no URL object, no function matching,
 * no promise, and the same ready answer the chain sends (function-response.ts `cachedForm`).
 *
 * It only answers when it would answer exactly like the chain; otherwise it returns false and
 * the chain runs:
 * - the raw request target must equal a cache key, and that key must have been reached
 *   through the chain's own function route (`routed`), so a static file or a rewrite can
 *   never be bypassed. A target equal to a key is already in the URL parser's normal form
 *   (keys are `pathname + search` of a parsed URL, and that form parses to itself);
 * - no `If-None-Match` (304s take the chain), and not an answer whose Age grows (`ageOf`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CdnCache } from './cdn-cache.js';
import { unconditionalAcceptEncoding } from './early-request.js';
import { cachedEncoding, cachedForm } from './function-response.js';

/** True when it answered the request from the cache; false to let the request chain answer. */
export function answerFromCdnCache(cache: CdnCache, req: IncomingMessage, res: ServerResponse): boolean {
  const method = req.method;
  if (method !== 'GET' && method !== 'HEAD') return false;
  const target = req.url;
  if (target === undefined || target.charCodeAt(0) !== 47 /* '/' */) return false;
  const hit = cache.get(target);
  if (hit === null || !hit.routed || hit.ages) return false;
  const request = unconditionalAcceptEncoding(req);
  if (request === null) return false;
  const form = cachedForm(hit, cachedEncoding(hit, request.acceptEncoding));
  res.writeHead(hit.status, form.list);
  res.end(method === 'HEAD' ? undefined : form.body);
  return true;
}
