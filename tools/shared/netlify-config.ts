/**
 * Reads `netlify.toml`, the single source of truth for static headers and redirects:
 * `pepe serve` applies it to every static answer and `pepe publish` takes each object's
 * Content-Type / Cache-Control from it, so all three deployments send the same headers.
 *
 * Headers follow Netlify's own rules (as in @netlify/headers-parser and the Netlify CLI):
 * `for` is matched case-insensitively against the URL path; `:name` matches one segment;
 * a segment that is exactly `*` matches anything, slashes included, and may be empty
 * (so `/images/*` also matches `/images`, but not `/imagesx`: Netlify's regexp would,
 * a quirk we do not copy); `*` inside a segment (`*.png`) matches any run
 * of characters; a trailing slash on the request is ignored. Every matching rule applies;
 * when two set the same header, the later rule wins (Netlify CLI: `Object.assign`).
 * Header values written over several lines or with loose commas are joined with ", ".
 *
 * Redirects are parsed and validated by Netlify's own parser (@netlify/redirect-parser).
 */
import { parseAllRedirects } from '@netlify/redirect-parser';
import { parse as parseToml } from 'smol-toml';
import { NotAFileError, readRegularFile } from './read-regular-file.js';

export interface HeaderRule {
  /** The `for` path as written (trimmed). */
  for: string;
  /** Header name → value, names as written in the file. */
  values: Record<string, string>;
  /** Compiled `for`, see the module comment. */
  pattern: RegExp;
}

export interface RedirectRule {
  /** Path pattern: literal segments, `:placeholder` segments, a final `*` (splat). */
  from: string;
  /** Target path or absolute URL; may use `:placeholder` and `:splat`. */
  to: string;
  /** 200 = rewrite; 301/302/303/307/308 = redirect; 404 etc. = custom answer with that status. */
  status: number;
  /** Apply even when a static file exists at `from` (Netlify's "shadowing" rule). */
  force: boolean;
  /** Query parameters the rule requires (`{ name: ':placeholder' }`). Unused by this project. */
  query: Record<string, string>;
  /** Country/language/role conditions. `pepe serve` cannot evaluate them and refuses such rules. */
  conditions: Record<string, unknown>;
  /** Extra response headers for the rule (signed proxy headers etc.). */
  headers: Record<string, string>;
}

export interface NetlifyConfig {
  /** The file read, for messages. */
  file: string;
  build: { command?: string; publish?: string; functions?: string; environment: Record<string, string> };
  headers: HeaderRule[];
  redirects: RedirectRule[];
}

/** netlify.toml is part of the repository, so a broken one is a bug to fix there; the message names the file and the rule. */
export class NetlifyConfigError extends Error {
  readonly code = 'NETLIFY_CONFIG';
}

/** "Run from the repository root" fits a missing file only: a folder by that name, or a file this user may not read, is fixed where it is. */
function unreadableFix(code: string | undefined): string {
  if (code === 'EISDIR') return 'it is a folder, not the file: point to the netlify.toml file (pepe publish: --netlify-toml FILE)';
  if (code === 'EACCES' || code === 'EPERM') return 'this user may not read it: fix its permissions';
  return 'run from the repository root, where netlify.toml is (pepe publish also takes --netlify-toml FILE)';
}

export async function loadNetlifyConfig(file = 'netlify.toml'): Promise<NetlifyConfig> {
  let text: string;
  try {
    // A named pipe here blocked pepe serve and pepe publish for ever; /dev/null read as a configuration without a header rule.
    text = (await readRegularFile(file)).toString('utf8');
  } catch (error) {
    if (error instanceof NotAFileError) throw new NetlifyConfigError(`${file}: cannot read the Netlify configuration: it is ${error.kind}, not a file: point to the netlify.toml file (pepe publish: --netlify-toml FILE)`);
    const code = (error as NodeJS.ErrnoException).code;
    throw new NetlifyConfigError(`${file}: cannot read the Netlify configuration (${code ?? String(error)}); ${unreadableFix(code)}`);
  }
  return parseNetlifyConfig(text, file);
}

/** Same as loadNetlifyConfig over text already read (tests, and anything holding the file in memory). */
export async function parseNetlifyConfig(text: string, file = 'netlify.toml'): Promise<NetlifyConfig> {
  let raw: Record<string, unknown>;
  try {
    raw = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    throw new NetlifyConfigError(`${file}: not valid TOML: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { file, build: readBuild(raw.build, file), headers: readHeaders(raw.headers, file), redirects: await readRedirects(raw.redirects, file) };
}

/** The merged headers of every `[[headers]]` rule matching `urlPath` (a URL pathname, no query). */
export function headersForPath(config: Pick<NetlifyConfig, 'headers'>, urlPath: string): Record<string, string> {
  // Keyed by lowercase name so that `cache-control` in a later rule replaces `Cache-Control`.
  const merged = new Map<string, [string, string]>();
  for (const rule of config.headers) {
    if (!rule.pattern.test(urlPath)) continue;
    for (const [name, value] of Object.entries(rule.values)) merged.set(name.toLowerCase(), [name, value]);
  }
  return Object.fromEntries(merged.values());
}

/** Compiles a `for` path the way Netlify does (see the module comment). */
export function compileHeaderPath(forPath: string): RegExp {
  const parts = forPath.split('/').map((part) => part.trimEnd()).filter(Boolean);
  if (parts.length === 0) return /^\/$/u;
  return new RegExp(`^${parts.map(partPattern).join('')}/?$`, 'iu');
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** One segment with its leading slash. */
function partPattern(part: string): string {
  if (part.startsWith(':')) return '/([^/]+)';
  // Netlify compiles this to `/?(.*)`, which also lets `/images/*` match `/imagesx`; we keep
  // the intended meaning (the folder itself or anything below it) and document the difference.
  if (part === '*') return '(?:/(.*))?';
  // Unlike Netlify's own parser we escape the literal pieces, so the `.` of `*.png` is a dot.
  return `/${part.split('*').map(escapeRegExp).join('(.*)')}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function readBuild(raw: unknown, file: string): NetlifyConfig['build'] {
  if (raw === undefined) return { environment: {} };
  if (!isPlainObject(raw)) throw new NetlifyConfigError(`${file}: [build] must be a table`);
  const build: NetlifyConfig['build'] = { environment: {} };
  for (const key of ['command', 'publish', 'functions'] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new NetlifyConfigError(`${file}: build.${key} must be a string`);
    build[key] = value;
  }
  if (raw.environment !== undefined) {
    if (!isPlainObject(raw.environment)) throw new NetlifyConfigError(`${file}: [build.environment] must be a table`);
    for (const [name, value] of Object.entries(raw.environment)) build.environment[name] = String(value);
  }
  return build;
}

function readHeaders(raw: unknown, file: string): HeaderRule[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new NetlifyConfigError(`${file}: headers must be an array of tables ([[headers]])`);
  return raw.map((entry, index) => {
    const where = `${file}: [[headers]] number ${index + 1}`;
    if (!isPlainObject(entry)) throw new NetlifyConfigError(`${where} must be a table`);
    if (typeof entry.for !== 'string' || !entry.for.trim().startsWith('/')) {
      throw new NetlifyConfigError(`${where}: "for" must be a path starting with "/" (got ${JSON.stringify(entry.for)})`);
    }
    if (!isPlainObject(entry.values)) throw new NetlifyConfigError(`${where} (for = "${entry.for}"): [headers.values] must be a table`);
    const values: Record<string, string> = {};
    for (const [rawName, rawValue] of Object.entries(entry.values)) {
      const name = rawName.trim();
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new NetlifyConfigError(`${where}: "${rawName}" is not a valid header name`);
      const value = Array.isArray(rawValue) && rawValue.every((v) => typeof v === 'string') ? rawValue.map((v) => v.trim()).join(', ') : rawValue;
      if (typeof value !== 'string') throw new NetlifyConfigError(`${where}: header "${name}" must be a string or an array of strings`);
      values[name] = value.trim().split(/\s*,\s*/).join(', ');
    }
    const forPath = entry.for.trim();
    return { for: forPath, values, pattern: compileHeaderPath(forPath) };
  });
}

async function readRedirects(raw: unknown, file: string): Promise<RedirectRule[]> {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new NetlifyConfigError(`${file}: redirects must be an array of tables ([[redirects]])`);
  const { redirects, errors } = await parseAllRedirects({ redirectsFiles: [], configRedirects: raw, minimal: true });
  if (errors.length > 0) {
    const messages = errors.map((error: unknown) => (error instanceof Error ? error.message : String(error)));
    throw new NetlifyConfigError(`${file}: invalid [[redirects]]:\n${messages.join('\n')}`);
  }
  return (redirects as Record<string, unknown>[]).map((rule) => ({
    from: String(rule.from),
    to: String(rule.to),
    status: typeof rule.status === 'number' ? rule.status : 301,
    force: rule.force === true,
    query: (isPlainObject(rule.query) ? rule.query : {}) as Record<string, string>,
    conditions: isPlainObject(rule.conditions) ? rule.conditions : {},
    headers: (isPlainObject(rule.headers) ? rule.headers : {}) as Record<string, string>,
  }));
}
