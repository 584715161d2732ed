/**
 * The part of Netlify's redirect engine that `pepe serve` reproduces, over the rules of
 * netlify.toml (already validated by @netlify/redirect-parser in netlify-config.ts):
 *
 * - rules are tried in file order; the first that matches wins;
 * - `from` is matched case-sensitively (Netlify: "paths are case-sensitive") against the
 *   URL pathname as received (percent-encoding kept), a trailing slash ignored;
 *   `:name` matches one segment; a final `*` matches the rest, possibly nothing
 *   (`/news/*` matches `/news` too) and is available as `:splat` in `to`;
 * - a rule with `query` only matches when every listed parameter is present; a
 *   `:placeholder` value captures it (we allow extra parameters; Netlify's engine and its
 *   docs disagree there, which is why this project never routes query strings);
 * - the request's query string is passed on to `to` unless `to` has its own;
 * - a rule is "shadowed" (skipped) when a static file exists at the requested path, unless
 *   it has `force = true`;
 * - status 200 is a rewrite (the target is served under the original URL, never chained
 *   into another rule); 3xx is a redirect with `Location`; any other status (404, 410…)
 *   serves the target with that status.
 *
 * Not reproduced, and refused when loading (see unsupportedRedirect): proxying to an
 * absolute URL (status 200 with `to` = http…), conditions (country, language, role,
 * cookie), signed proxies and domain-level `from` URLs.
 */
import type { RedirectRule } from '../shared/netlify-config.js';

export type RedirectOutcome =
  | { kind: 'redirect'; status: number; location: string; headers: Record<string, string> }
  | { kind: 'rewrite'; status: number; pathname: string; search: string; headers: Record<string, string> };

export interface CompiledRedirect {
  rule: RedirectRule;
  pattern: RegExp;
  names: string[];
}

/** Why `pepe serve` cannot reproduce a rule, or null when it can. */
export function unsupportedRedirect(rule: RedirectRule): string | null {
  const where = `redirect from "${rule.from}" to "${rule.to}"`;
  if (/^https?:\/\//.test(rule.from)) return `${where}: domain-level rules are not reproduced by pepe serve`;
  if (Object.keys(rule.conditions).length > 0) return `${where}: conditions (${Object.keys(rule.conditions).join(', ')}) are not reproduced by pepe serve`;
  if (rule.status === 200 && /^https?:\/\//.test(rule.to)) return `${where}: proxying to another site is not reproduced by pepe serve (it only talks to loopback)`;
  if (!rule.from.startsWith('/')) return `${where}: "from" must start with "/"`;
  return null;
}

export function compileRedirect(rule: RedirectRule): CompiledRedirect {
  const names: string[] = [];
  const segments = stripTrailingSlash(rule.from).split('/').slice(1);
  let regex = '^';
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === '*' && last) {
      names.push('splat');
      regex += '(?:/(.*))?';
    } else if (segment.startsWith(':')) {
      names.push(segment.slice(1));
      regex += '/([^/]+)';
    } else {
      regex += `/${segment.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`;
    }
  });
  return { rule, pattern: new RegExp(`${regex === '^' ? '^/' : regex}$`, 'u'), names };
}

/** The first rule that applies to `url`, or null. `staticExists` tells whether a file would shadow a rule. */
export function findRedirect(rules: CompiledRedirect[], url: URL, staticExists: (pathname: string) => boolean): RedirectOutcome | null {
  const pathname = stripTrailingSlash(url.pathname);
  let shadowed: boolean | undefined;
  for (const { rule, pattern, names } of rules) {
    const found = pattern.exec(pathname);
    if (!found) continue;
    const values: Record<string, string> = {};
    names.forEach((name, index) => {
      values[name] = found[index + 1] ?? '';
    });
    if (!queryMatches(rule.query, url.searchParams, values)) continue;
    if (!rule.force) {
      shadowed ??= staticExists(url.pathname);
      if (shadowed) return null;
    }
    const target = substitute(rule.to, values);
    const [targetPath, targetQuery] = splitQuery(target);
    const search = targetQuery === undefined ? url.search : `?${targetQuery}`;
    if (rule.status >= 300 && rule.status < 400) {
      return { kind: 'redirect', status: rule.status, location: `${targetPath}${search}`, headers: rule.headers };
    }
    return { kind: 'rewrite', status: rule.status, pathname: targetPath, search, headers: rule.headers };
  }
  return null;
}

function stripTrailingSlash(pathname: string): string {
  return pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
}

function queryMatches(query: Record<string, string>, params: URLSearchParams, values: Record<string, string>): boolean {
  for (const [name, expected] of Object.entries(query)) {
    const actual = params.get(name);
    if (actual === null) return false;
    if (expected.startsWith(':')) values[expected.slice(1)] = encodeURIComponent(actual);
    else if (expected !== actual) return false;
  }
  return true;
}

/** Replaces `:name` in `to` by the captured values; longest names first so `:splat` is not read as `:s`. */
function substitute(to: string, values: Record<string, string>): string {
  const names = Object.keys(values).sort((a, b) => b.length - a.length);
  if (names.length === 0) return to;
  const pattern = new RegExp(`:(${names.map((n) => n.replace(/[$]/g, '\\$&')).join('|')})`, 'g');
  return to.replace(pattern, (_, name: string) => values[name] ?? '');
}

function splitQuery(target: string): [string, string | undefined] {
  const index = target.indexOf('?');
  return index === -1 ? [target, undefined] : [target.slice(0, index), target.slice(index + 1)];
}
