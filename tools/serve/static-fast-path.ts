/**
 * The hot path of `pepe serve` for static files (the by-id answers, images, the gallery): a
 * GET or HEAD whose raw request target the request chain has already answered with a plain
 * static file is answered synchronously, before the chain: no URL object, no function or
 * redirect matching, no promise, no `req.headers` object, and the same ready answer the chain
 * sends (static-response.ts `staticForm`). Its gain is measured by the serve bench
 * (tools/bench/README.md).
 *
 * It only answers when it would answer exactly like the chain; otherwise it returns false and
 * the chain runs:
 * - the chain remembers a target only when it served a file for it with status 200 and no
 *   rule headers (a function route with `preferStatic`, or a plain static file that no
 *   redirect rule matched), and only a target with no query and no percent-encoding that is
 *   its own pathname: the same text always parses to the same path, and with no query the
 *   routing depends on the path alone (pepe serve refuses rules on hosts or conditions).
 *   So the routes are at most the site's file paths (and their folder forms), whatever
 *   clients send;
 * - the body is in memory (`StaticSite.peek`): files too large to keep are streamed by the chain;
 * - no `If-None-Match` (304s take the chain), and a compressed form only once the chain has
 *   made it (once, at the best level; never waited for here).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NetlifyConfig } from '../shared/netlify-config.js';
import { unconditionalAcceptEncoding } from './early-request.js';
import type { StaticEntry, StaticSite } from './static-files.js';
import { staticEncoding, staticForm } from './static-response.js';

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
    const method = req.method;
    if ((method !== 'GET' && method !== 'HEAD') || req.url === undefined) return false;
    const entry = this.routes.get(req.url);
    if (entry === undefined) return false;
    const cached = this.site.peek(entry);
    if (cached === undefined) return false;
    const request = unconditionalAcceptEncoding(req);
    if (request === null) return false;
    const form = staticForm(this.config, entry, cached, staticEncoding(this.config, entry, cached, request.acceptEncoding));
    if (form === undefined) return false;
    res.writeHead(200, form.list);
    res.end(method === 'HEAD' ? undefined : form.body);
    return true;
  }
}
