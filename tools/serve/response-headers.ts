/**
 * The headers of every answer the chain and the early answers send, decided in one place for
 * every path (a static file, a function answer fresh or replayed from the CDN cache, their
 * early answers, their 304s):
 * - what every form of one answer shares (`BaseHeaders`): for a static file the netlify.toml
 *   `[[headers]]` over the extension's Content-Type, and Netlify's default Cache-Control; for a
 *   function answer its headers as the edge forwards them; for both, `Vary: Accept-Encoding`
 *   when the edge compresses it;
 * - what one form adds (`answerHeaders`): Content-Encoding and the ETag of that form (each
 *   compressed form has its own, compression.ts), Cache-Status and Age, the length;
 * - the 304 that stands for a 200 (`notModifiedHeaders`), and the ready header list an answer
 *   sent the same way every time is built into once (`readyForm`).
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { STATIC_DEFAULT_CACHE_CONTROL } from '../../functions/core/cache-policy.js';
import { headersForPath, type NetlifyConfig } from '../shared/netlify-config.js';
import { type Encoding, etagForEncoding, MIN_COMPRESS_BYTES, varyWithEncoding } from './compression.js';
import { contentTypeFor, isCompressible } from './content-types.js';

/** Response headers with lowercase names. */
export type HeaderValues = Record<string, string | string[]>;

/** The methods a static file answers, and the `Allow` of every 405. */
export const STATIC_METHODS = 'GET, HEAD, OPTIONS';

/** What every form of one answer carries, and whether the edge sends compressed forms of it. */
export interface BaseHeaders {
  readonly headers: Readonly<HeaderValues>;
  readonly compressible: boolean;
}

/** One form of an answer, and what it adds to the base. */
export interface Form {
  /** null: sent as it is. */
  encoding: Encoding | null;
  /** The plain form's ETag; default the base's (a function's own). */
  etag?: string;
  /** Content-Length; left out for answers that carry none (204, 304). */
  length?: number;
  /** RFC 9211 Cache-Status, for function answers. */
  cacheStatus?: string;
  age?: string;
  /** Headers a redirect rule or an error page sets on top of the base. */
  extra?: Readonly<Record<string, string>>;
}

/** An answer sent the same way every time, built once: its headers, as an object and as the flat list `writeHead` takes, and its body. */
export interface ReadyForm {
  headers: OutgoingHttpHeaders;
  list: string[];
  body: Buffer;
}

export type ReadyForms = Partial<Record<'identity' | Encoding, ReadyForm>>;

/** Whether the edge may compress an answer with these headers: a text type not encoded already. */
export function mayCompress(headers: Readonly<HeaderValues>): boolean {
  const contentType = headers['content-type'];
  return typeof contentType === 'string' && isCompressible(contentType) && headers['content-encoding'] === undefined;
}

/** Whether a client that accepts compression gets a compressed form: a 200 worth compressing. */
export function hasCompressedForms(base: { compressible: boolean }, status: number, length: number): boolean {
  return base.compressible && status === 200 && length >= MIN_COMPRESS_BYTES;
}

function withVary(headers: HeaderValues): BaseHeaders {
  const compressible = mayCompress(headers);
  if (compressible) headers.vary = varyWithEncoding(headers.vary as string | undefined);
  return { headers, compressible };
}

const staticBases = new WeakMap<object, BaseHeaders>();

/** A static file's base headers, built once per file (`entry` is its StaticEntry). */
export function staticBaseHeaders(config: NetlifyConfig, entry: { urlPath: string }): BaseHeaders {
  let found = staticBases.get(entry);
  if (!found) {
    const headers: HeaderValues = { 'content-type': contentTypeFor(entry.urlPath) };
    // netlify.toml wins over the extension table, whatever the letter case of its names.
    for (const [name, value] of Object.entries(headersForPath(config, entry.urlPath))) headers[name.toLowerCase()] = value;
    headers['cache-control'] ??= STATIC_DEFAULT_CACHE_CONTROL;
    found = withVary(headers);
    staticBases.set(entry, found);
  }
  return found;
}

/**
 * The function's headers as the edge forwards them to the client: without
 * `Netlify-CDN-Cache-Control`, which only Netlify's CDN reads and strips before the browser
 * (Netlify's caching guide, github.com/netlify/context-and-tools, skills/netlify-caching).
 */
export function forwardedHeaders(headers: HeaderValues): HeaderValues {
  if (headers['netlify-cdn-cache-control'] === undefined) return headers;
  const { 'netlify-cdn-cache-control': _cdnOnly, ...forwarded } = headers;
  return forwarded;
}

/** A function answer's base headers: as forwarded (`forwardedHeaders`), plus Vary when compressible. */
export function functionBaseHeaders(forwarded: HeaderValues): BaseHeaders {
  return withVary({ ...forwarded });
}

/** Every header of one form of an answer. */
export function answerHeaders(base: BaseHeaders, form: Form): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = form.extra ? { ...base.headers, ...form.extra } : { ...base.headers };
  if (form.encoding !== null) out['content-encoding'] = form.encoding;
  const etag = form.etag ?? base.headers.etag;
  if (typeof etag === 'string') out.etag = form.encoding === null ? etag : etagForEncoding(etag, form.encoding);
  if (form.cacheStatus !== undefined) out['cache-status'] = form.cacheStatus;
  if (form.age !== undefined) out.age = form.age;
  if (form.length !== undefined) out['content-length'] = form.length;
  return out;
}

/**
 * A 304's headers: those of the 200 it stands for (ETag, Cache-Control, Vary, CORS…) without
 * the representation metadata RFC 9110 15.4.5 says a 304 should not carry.
 */
export function notModifiedHeaders(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const { 'content-type': _type, 'content-encoding': _encoding, 'content-length': _length, ...rest } = headers;
  return rest;
}

/** Weak comparison, as If-None-Match requires; `*` matches any representation. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === bare;
  });
}

/** The form `form.encoding` of an answer sent the same way every time, built on first use and kept in `forms`. */
export function readyForm(forms: ReadyForms, base: BaseHeaders, form: Form, body: Buffer): ReadyForm {
  const key = form.encoding ?? 'identity';
  let found = forms[key];
  if (!found) {
    const headers = answerHeaders(base, { ...form, length: body.length });
    found = { headers, list: flatHeaderList(headers), body };
    forms[key] = found;
  }
  return found;
}

/** A header object as the flat `[name, value, …]` list `res.writeHead` takes without building anything per request. */
export function flatHeaderList(headers: OutgoingHttpHeaders): string[] {
  const list: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (Array.isArray(value)) for (const item of value) list.push(name, item);
    else if (value !== undefined) list.push(name, String(value));
  }
  return list;
}
