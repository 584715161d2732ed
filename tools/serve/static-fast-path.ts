/**
 * The hot path of `pepe serve` for static files (the by-id answers, images, the gallery): a
 * GET or HEAD whose raw request target the request chain has already answered with a plain
 * static file is answered synchronously, before the chain: no URL object, no function or
 * redirect matching, no promise, no `req.headers` object, a flat header list built once per
 * file and form. Measured with wrk on loopback, a by-id request answered through the chain
 * cost 34–39 µs of server CPU, and 19–21 µs answered here (tools/bench/HISTORY.md).
 *
 * It only answers when it would answer exactly like the chain (request-chain.ts +
 * static-response.ts `sendStatic`); otherwise it returns false and the chain runs:
 * - the chain remembers a target only when it served a file for it with status 200 and no
 *   rule headers (a function route with `preferStatic`, or a plain static file that no
 *   redirect rule matched), and only a target with no query and no percent-encoding that is
 *   its own pathname: the same text always parses to the same path, and with no query the
 *   routing depends on the path alone (pepe serve refuses rules on hosts or conditions).
 *   So the routes are at most the site's file paths (and their folder forms), whatever
 *   clients send;
 * - the body is in memory (`StaticSite.peek`): files too large to keep are streamed by the chain;
 * - no `If-None-Match` (304s take the chain), and the form sent is the one the chain would
 *   send: compressed with the negotiated encoding when the file has compressed forms and the
 *   client accepts one (only once the chain has made that form: it is compressed once, at
 *   the best level, and never waited for here), else plain.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { negotiateEncoding } from './compression.js';
import { flatHeaderList, unconditionalAcceptEncoding } from './early-request.js';
import type { NetlifyConfig } from '../shared/netlify-config.js';
import type { StaticEntry, StaticSite } from './static-files.js';
import { encodedStaticHeaders, hasCompressedForms, plainStaticHeaders } from './static-response.js';

export class StaticRoutes {
  private readonly routes = new Map<string, StaticEntry>();

  constructor(
    private readonly site: StaticSite,
    private readonly config: NetlifyConfig,
  ) {}

  /** The chain served `entry` (200, no rule headers) for the request target `target`, whose parsed pathname is `pathname`. */
  remember(target: string | undefined, pathname: string, entry: StaticEntry): void {
    if (target === pathname && !target.includes('%')) this.routes.set(target, entry);
  }

  /** True when it answered the request; false to let the request chain answer. */
  answer(req: IncomingMessage, res: ServerResponse): boolean {
    const { site, config } = this;
    const method = req.method;
    if ((method !== 'GET' && method !== 'HEAD') || req.url === undefined) return false;
    const entry = this.routes.get(req.url);
    if (entry === undefined) return false;
    const cached = site.peek(entry);
    if (cached === undefined) return false;
    const request = unconditionalAcceptEncoding(req);
    if (request === null) return false;
    const lists = (cached.headerLists ??= {});
    const encoding = hasCompressedForms(config, entry, cached) ? negotiateEncoding(request.acceptEncoding) : null;
    if (encoding === null) {
      res.writeHead(200, (lists.identity ??= flatHeaderList(plainStaticHeaders(config, entry, cached))));
      res.end(method === 'HEAD' ? undefined : cached.body);
      return true;
    }
    // The chain makes the compressed form (once, at the best level); until then it answers.
    const compressed = cached.compressedReady[encoding];
    if (compressed === undefined) return false;
    res.writeHead(200, (lists[encoding] ??= flatHeaderList(encodedStaticHeaders(config, entry, cached, encoding, compressed))));
    res.end(method === 'HEAD' ? undefined : compressed);
    return true;
  }
}
