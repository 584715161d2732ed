/**
 * The public URLs baked into every answer, from flags, then environment, then the local
 * default. Each must be an absolute http(s) URL without query, fragment or credentials; a
 * trailing slash is dropped so `${baseUrl}/images/…` never doubles it.
 */
import type { SiteUrls } from '../../functions/core/record.js';

const DEFAULT_SITE_URL = 'http://localhost:8888';

/**
 * The local default: `http://localhost:$PORT` when PORT names a port (1–65535), so that
 * `PORT=9000 npm start` bakes in the URLs it then serves on; else DEFAULT_SITE_URL.
 */
function localSiteUrl(env: NodeJS.ProcessEnv): string {
  const port = env.PORT;
  return port && /^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535 ? `http://localhost:${Number(port)}` : DEFAULT_SITE_URL;
}

const SOURCES: Record<keyof SiteUrls, { flag: string; env: string }> = {
  baseUrl: { flag: '--base-url', env: 'PEPE_BASE_URL' },
  apiUrl: { flag: '--api-url', env: 'PEPE_API_URL' },
  cdnUrl: { flag: '--cdn-url', env: 'PEPE_CDN_URL' },
};

export type UrlsResult = { ok: true; urls: SiteUrls } | { ok: false; message: string };

function validateSiteUrl(raw: string, origin: string): { ok: true; url: string } | { ok: false; message: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: `${origin} must be an absolute URL such as https://pepe.example.org (got "${raw}")` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, message: `${origin} must start with http:// or https:// (got "${raw}")` };
  if (url.search || url.hash || raw.includes('?') || raw.includes('#')) return { ok: false, message: `${origin} must not contain a query or fragment (got "${raw}")` };
  if (url.username || url.password) return { ok: false, message: `${origin} must not contain credentials (got "${raw}")` };
  return { ok: true, url: `${url.origin}${url.pathname}`.replace(/\/+$/, '') };
}

/**
 * A PORT that `pepe serve` would refuse (not a whole number from 0 to 65535) is refused here
 * too, when the local default is used: else `PORT=abc pepe build` would bake in port 8888
 * without a word, and only the serve after it would say what was wrong.
 */
function badPort(env: NodeJS.ProcessEnv): string | null {
  const port = env.PORT;
  if (port === undefined || port === '' || (/^\d+$/.test(port) && Number(port) <= 65535)) return null;
  return `the PORT environment variable must be a whole number from 0 to 65535 (got "${port}"): it sets the port of the local URLs baked into the build; fix or unset it, or pass --base-url, --api-url and --cdn-url`;
}

/** Flags win over environment variables, which win over the local default (`localSiteUrl`). */
export function resolveSiteUrls(flags: Partial<Record<keyof SiteUrls, string | undefined>>, env: NodeJS.ProcessEnv): UrlsResult {
  const urls: Partial<SiteUrls> = {};
  for (const key of Object.keys(SOURCES) as (keyof SiteUrls)[]) {
    const { flag, env: name } = SOURCES[key];
    const fromFlag = flags[key];
    const fromEnv = env[name];
    const portProblem = fromFlag === undefined && !fromEnv ? badPort(env) : null;
    if (portProblem !== null) return { ok: false, message: portProblem };
    const [raw, origin] = fromFlag !== undefined ? [fromFlag, flag] : fromEnv ? [fromEnv, name] : [localSiteUrl(env), 'the default URL'];
    const checked = validateSiteUrl(raw, origin);
    if (!checked.ok) return checked;
    urls[key] = checked.url;
  }
  return { ok: true, urls: urls as SiteUrls };
}
