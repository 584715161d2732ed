/**
 * Every Cache-Control value the service sends, in one place: the function, the static
 * headers in netlify.toml (a test holds them equal) and `pepe publish` use these.
 */

/** Images never change behind a URL (a changed image gets a new id): 30 days, immutable. */
export const IMAGE_CACHE_CONTROL = 'public, max-age=2592000, immutable';

/** Deterministic JSON for browsers: short, then a cheap revalidation with the ETag. */
export const JSON_BROWSER_CACHE_CONTROL = 'public, max-age=60';

/**
 * Deterministic JSON for Netlify's CDN: kept until the next deploy, which clears it.
 * Only sent by the function; static files are cached by Netlify's CDN until a deploy anyway.
 */
export const JSON_NETLIFY_CDN_CACHE_CONTROL = 'public, durable, s-maxage=31536000';

/**
 * JSON in object storage behind a generic CDN, which no deploy invalidates: browsers 60 s,
 * shared caches 5 min. Stale keys may be deleted only after this has expired everywhere.
 */
export const JSON_OBJECT_STORAGE_CACHE_CONTROL = 'public, max-age=60, s-maxage=300';
/** Seconds after which no cache anywhere still holds a published JSON answer. */
export const JSON_OBJECT_STORAGE_MAX_AGE_SECONDS = 300;

/** 400 and 404 answers: cacheable briefly, so a hot bad URL does not reach the function each time. */
export const ERROR_BROWSER_CACHE_CONTROL = 'public, max-age=60';
export const ERROR_NETLIFY_CDN_CACHE_CONTROL = 'public, durable, s-maxage=300';

/** Deterministic JSON that is right for `seconds` more only (the pepe of today), for browsers and shared caches alike. */
export const untilCacheControl = (seconds: number): string => `public, max-age=${seconds}`;
/** The same for Netlify's CDN (a deploy clears it sooner). */
export const untilNetlifyCdnCacheControl = (seconds: number): string => `public, durable, s-maxage=${seconds}`;

/** Anything random, and 500s. */
export const NO_STORE = 'no-store';

/** Gallery scripts and styles: their names carry a content hash, so they never change either. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * What Netlify sends for a static file no `[[headers]]` rule gives a Cache-Control (the
 * gallery page): browsers revalidate every time. `pepe serve` and `pepe publish` send the same.
 */
export const STATIC_DEFAULT_CACHE_CONTROL = 'public, max-age=0, must-revalidate';
