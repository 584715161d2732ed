/**
 * Answers a request with a static file: Content-Type by extension unless netlify.toml sets
 * one, every matching `[[headers]]` value, a strong ETag with If-None-Match → 304, HEAD
 * without body, and brotli/gzip for text types when accepted. No range requests.
 */
import { createReadStream, fstatSync } from 'node:fs';
import { pipeline } from 'node:stream';
import { STATIC_DEFAULT_CACHE_CONTROL } from '../../functions/core/cache-policy.js';
import { NONBLOCKING_READ, refuseUnlessFile } from '../shared/read-regular-file.js';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { type Encoding, etagForEncoding, MIN_COMPRESS_BYTES, negotiateEncoding, varyWithEncoding } from './compression.js';
import { contentTypeFor, isCompressible } from './content-types.js';
import { headersForPath, type NetlifyConfig } from '../shared/netlify-config.js';
import { sendPlainError } from './error-answers.js';
import { type CachedBody, type StaticEntry, type StaticSite, streamEtag } from './static-files.js';

export const STATIC_METHODS = 'GET, HEAD, OPTIONS';

/** Headers that depend only on the file's path, computed once per path. */
const baseHeadersCache = new WeakMap<StaticEntry, { headers: Record<string, string>; compressible: boolean }>();

function baseHeaders(config: NetlifyConfig, entry: StaticEntry): { headers: Record<string, string>; compressible: boolean } {
  let found = baseHeadersCache.get(entry);
  if (!found) {
    const headers: Record<string, string> = { 'content-type': contentTypeFor(entry.urlPath) };
    // netlify.toml wins over the extension table, whatever the letter case of its names.
    for (const [name, value] of Object.entries(headersForPath(config, entry.urlPath))) headers[name.toLowerCase()] = value;
    headers['cache-control'] ??= STATIC_DEFAULT_CACHE_CONTROL;
    const compressible = isCompressible(headers['content-type']);
    if (compressible) headers.vary = varyWithEncoding(headers.vary);
    found = { headers, compressible };
    baseHeadersCache.set(entry, found);
  }
  return found;
}

/** Every header of the common answer (200, uncompressed) of a file in memory: the same each time, so built once. */
export function plainStaticHeaders(config: NetlifyConfig, entry: StaticEntry, cached: CachedBody): Record<string, string | number> {
  cached.plainHeaders ??= { ...baseHeaders(config, entry).headers, etag: cached.etag, 'content-length': cached.body.length };
  return cached.plainHeaders;
}

/** The headers of the 200 answer of a file in memory sent compressed with `encoding` (as sendStaticFully builds them). */
export function encodedStaticHeaders(config: NetlifyConfig, entry: StaticEntry, cached: CachedBody, encoding: Encoding, compressed: Buffer): Record<string, string | number> {
  return { ...baseHeaders(config, entry).headers, 'content-encoding': encoding, etag: etagForEncoding(cached.etag, encoding), 'content-length': compressed.length };
}

/** Whether a client that accepts compression gets a compressed form of this file (as sendStaticFully decides). */
export function hasCompressedForms(config: NetlifyConfig, entry: StaticEntry, cached: CachedBody): boolean {
  return baseHeaders(config, entry).compressible && cached.body.length >= MIN_COMPRESS_BYTES;
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

/**
 * A 304's headers: those of the 200 it stands for (ETag, Cache-Control, Vary, CORS…) without
 * the representation metadata RFC 9110 15.4.5 says a 304 should not carry (Content-Type,
 * Content-Encoding, Content-Length). Static files and function answers (function-response.ts)
 * both send their 304s through it.
 */
export function notModifiedHeaders(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const { 'content-type': _type, 'content-encoding': _encoding, 'content-length': _length, ...rest } = headers;
  return rest;
}

/** The default "no extra headers", compared by identity to recognise the hot path. */
const NO_EXTRA: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * Serves `entry` with `status` (200, or the status of a 404/410 redirect rule). Returns
 * false when the file vanished from disk. The common case (a GET for a body already in
 * memory, no conditional, no compression) is answered synchronously with headers built once.
 */
export function sendStatic(
  site: StaticSite,
  config: NetlifyConfig,
  req: IncomingMessage,
  res: ServerResponse,
  entry: StaticEntry,
  status = 200,
  extra: Record<string, string> = NO_EXTRA,
): boolean | Promise<boolean> {
  const cached = site.peek(entry);
  if (cached && status === 200 && req.method === 'GET' && extra === NO_EXTRA) {
    const { compressible } = baseHeaders(config, entry);
    const { 'if-none-match': ifNoneMatch, 'accept-encoding': acceptEncoding } = req.headers;
    if (ifNoneMatch === undefined && (!compressible || negotiateEncoding(acceptEncoding) === null)) {
      res.writeHead(200, plainStaticHeaders(config, entry, cached));
      res.end(cached.body);
      return true;
    }
  }
  return sendStaticFully(site, config, req, res, entry, status, extra);
}

async function sendStaticFully(
  site: StaticSite,
  config: NetlifyConfig,
  req: IncomingMessage,
  res: ServerResponse,
  entry: StaticEntry,
  status: number,
  extra: Record<string, string>,
): Promise<boolean> {
  const { headers: base, compressible } = baseHeaders(config, entry);
  const headers: OutgoingHttpHeaders = { ...base, ...extra };
  if (req.method === 'OPTIONS') {
    delete headers['content-type'];
    res.writeHead(204, { ...headers, allow: STATIC_METHODS });
    res.end();
    return true;
  }
  let cached;
  try {
    cached = await site.body(entry);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  if (!cached) return streamFile(req, res, entry, status, headers);

  let body = cached.body;
  let etag = cached.etag;
  const encoding = compressible && status === 200 ? negotiateEncoding(req.headers['accept-encoding']) : null;
  if (encoding) {
    const compressed = site.compressed(cached, encoding);
    if (compressed) {
      body = await compressed;
      etag = etagForEncoding(etag, encoding);
      headers['content-encoding'] = encoding;
    }
  }
  headers.etag = etag;
  if (status === 200 && etagMatches(req.headers['if-none-match'], etag)) {
    res.writeHead(304, notModifiedHeaders(headers));
    res.end();
    return true;
  }
  headers['content-length'] = body.length;
  res.writeHead(status, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}

async function streamFile(req: IncomingMessage, res: ServerResponse, entry: StaticEntry, status: number, headers: OutgoingHttpHeaders): Promise<boolean> {
  headers.etag = await streamEtag(entry);
  if (status === 200 && etagMatches(req.headers['if-none-match'], headers.etag)) {
    res.writeHead(304, notModifiedHeaders(headers));
    res.end();
    return true;
  }
  headers['content-length'] = entry.size;
  if (req.method === 'HEAD') {
    res.writeHead(status, headers);
    res.end();
    return true;
  }
  return new Promise<boolean>((done, fail) => {
    // Without blocking: open() of a named pipe waits for a writer (a thread-pool thread held for ever).
    const stream = createReadStream(entry.file, { flags: NONBLOCKING_READ });
    stream.once('error', (error: NodeJS.ErrnoException) => {
      if (!res.headersSent && error.code === 'ENOENT') done(false);
      else if (!res.headersSent) fail(error);
      else res.destroy(error);
    });
    stream.once('open', (fd: number) => {
      // A build replacing the file right now (its manifest, and so this listing, follows in a
      // moment): the bytes opened are not the ones listed, so ask the client to come back
      // rather than announce a length the file no longer has.
      const info = fstatSync(fd);
      try {
        refuseUnlessFile(entry.file, info);
      } catch (error) {
        stream.destroy();
        fail(error);
        return;
      }
      if (info.size !== entry.size) {
        stream.destroy();
        sendPlainError(req, res, 503, 'A new build is being put in place; try again in a moment.\n', { 'retry-after': '1' });
        done(true);
        return;
      }
      res.writeHead(status, headers);
      // pipeline, not pipe: when the client goes away mid-answer, the file is closed too (pipe
      // left it open, one descriptor per aborted download, for as long as the process ran).
      pipeline(stream, res, () => done(true));
    });
  });
}
