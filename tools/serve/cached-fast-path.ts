/**
 * The hot path of `pepe serve`: a GET/HEAD for a list or search URL whose answer is already in
 * the CDN cache (cdn-cache.ts), as almost every API request is after the first one per URL.
 * It answers synchronously, before the request chain: no URL object, no function matching,
 * no promise, no header object built per request (a flat header list is built once per
 * cached answer and form).
 *
 * It only answers when it would answer exactly like the chain (request-chain.ts +
 * function-response.ts `sendCached`); otherwise it returns false and the chain runs:
 * - the raw request target must equal a cache key, and that key must have been reached
 *   through the chain's own function route (`routed`), so a static file or a rewrite can
 *   never be bypassed. A target equal to a key is already in the URL parser's normal form
 *   (keys are `pathname + search` of a parsed URL, and that form parses to itself);
 * - no `If-None-Match` (304s take the chain);
 * - the form sent is the one the chain would send: compressed with the negotiated encoding
 *   (the same bytes, made once per answer and encoding) when the answer has compressed
 *   forms and the client accepts one, else plain.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type CachedAnswer, type CdnCache, type FastAnswer, hasCompressedForms } from './cdn-cache.js';
import { type Encoding, negotiateEncoding } from './compression.js';
import { flatHeaderList, unconditionalAcceptEncoding } from './early-request.js';
import { encodedCachedAnswer, plainCachedHeaders } from './function-response.js';

/** The answer in the form the client gets (plain, or compressed with `encoding`), built once per form. */
function fastForm(hit: CachedAnswer, encoding: Encoding | null): FastAnswer {
  const forms = (hit.fastForms ??= {});
  const found = forms[encoding ?? 'identity'];
  if (found) return found;
  let headers: string[];
  let body: Buffer;
  if (encoding === null) {
    headers = flatHeaderList(plainCachedHeaders(hit));
    body = hit.body;
  } else {
    const encoded = encodedCachedAnswer(hit, encoding);
    headers = flatHeaderList(encoded.headers);
    body = encoded.body;
  }
  const form: FastAnswer = { headers, body };
  forms[encoding ?? 'identity'] = form;
  return form;
}

/** True when it answered the request from the cache; false to let the request chain answer. */
export function answerFromCdnCache(cache: CdnCache, req: IncomingMessage, res: ServerResponse): boolean {
  const method = req.method;
  if (method !== 'GET' && method !== 'HEAD') return false;
  const target = req.url;
  if (target === undefined || target.charCodeAt(0) !== 47 /* '/' */) return false;
  const hit = cache.get(target);
  // An aging answer's headers change every second: the chain sends it (cdn-cache.ts ageOf).
  if (hit === null || !hit.routed || hit.ages) return false;

  const request = unconditionalAcceptEncoding(req);
  if (request === null) return false;
  hit.compressedForms ??= hasCompressedForms(hit.status, hit.headers, hit.body);
  const form = fastForm(hit, hit.compressedForms ? negotiateEncoding(request.acceptEncoding) : null);
  res.writeHead(hit.status, form.headers);
  res.end(method === 'HEAD' ? undefined : form.body);
  return true;
}
