/**
 * Answers a request with a static file: the headers response-headers.ts decides for it, a
 * strong ETag with If-None-Match → 304, HEAD without body, and brotli/gzip for text types when
 * accepted. No range requests.
 */
import { createReadStream, fstatSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { NetlifyConfig } from '../shared/netlify-config.js';
import { NONBLOCKING_READ, refuseUnlessFile } from '../shared/read-regular-file.js';
import { type Encoding, negotiateEncoding } from './compression.js';
import { sendPlainError } from './error-answers.js';
import { answerHeaders, type BaseHeaders, etagMatches, hasCompressedForms, notModifiedHeaders, type ReadyForm, readyForm, STATIC_METHODS, staticBaseHeaders } from './response-headers.js';
import { type CachedBody, type StaticEntry, type StaticSite, streamEtag } from './static-files.js';

/** What to answer with: the file, and a status and headers a redirect rule or the 404 page sets. */
export interface StaticAnswer {
  site: StaticSite;
  config: NetlifyConfig;
  entry: StaticEntry;
  /** 200, or the status of a rewrite rule or of the 404 page. */
  status?: number;
  /** Headers set on top of the file's own. */
  extra?: Readonly<Record<string, string>>;
}

/**
 * The ready answer of a file in memory in the form `encoding` (null: plain), or undefined when
 * that compressed form is not made yet. The chain's common answer and the early answer
 * (static-fast-path.ts) both send it.
 */
export function staticForm(config: NetlifyConfig, entry: StaticEntry, cached: CachedBody, encoding: Encoding | null): ReadyForm | undefined {
  const body = encoding === null ? cached.body : cached.compressedReady[encoding];
  if (body === undefined) return undefined;
  return readyForm((cached.forms ??= {}), staticBaseHeaders(config, entry), { encoding, etag: cached.etag }, body);
}

/** The encoding a client accepting `acceptEncoding` gets this file in: null when plain. */
export function staticEncoding(config: NetlifyConfig, entry: StaticEntry, cached: CachedBody, acceptEncoding: string | undefined): Encoding | null {
  return hasCompressedForms(staticBaseHeaders(config, entry), 200, cached.body.length) ? negotiateEncoding(acceptEncoding) : null;
}

/**
 * Serves a static file. Returns false when the file vanished from disk. The common case (a
 * GET for a plain 200 of a body already in memory, no conditional) is answered synchronously.
 */
export function sendStatic(req: IncomingMessage, res: ServerResponse, answer: StaticAnswer): boolean | Promise<boolean> {
  const { site, config, entry } = answer;
  const cached = site.peek(entry);
  if (cached && req.method === 'GET' && answer.status === undefined && answer.extra === undefined && req.headers['if-none-match'] === undefined) {
    const form = staticEncoding(config, entry, cached, req.headers['accept-encoding']) === null ? staticForm(config, entry, cached, null) : undefined;
    if (form) {
      res.writeHead(200, form.list);
      res.end(form.body);
      return true;
    }
  }
  return sendStaticFully(req, res, answer);
}

async function sendStaticFully(req: IncomingMessage, res: ServerResponse, { site, config, entry, status = 200, extra }: StaticAnswer): Promise<boolean> {
  const base = staticBaseHeaders(config, entry);
  if (req.method === 'OPTIONS') {
    const { 'content-type': _type, ...headers } = answerHeaders(base, { encoding: null, extra });
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
  if (!cached) return streamFile(req, res, { base, entry, status, extra });

  let body = cached.body;
  let encoding: Encoding | null = status === 200 && base.compressible ? negotiateEncoding(req.headers['accept-encoding']) : null;
  const compressed = encoding ? site.compressed(cached, encoding) : null;
  if (compressed) body = await compressed;
  else encoding = null;
  const headers = answerHeaders(base, { encoding, etag: cached.etag, extra, length: body.length });
  if (status === 200 && etagMatches(req.headers['if-none-match'], headers.etag as string)) {
    res.writeHead(304, notModifiedHeaders(headers));
    res.end();
    return true;
  }
  res.writeHead(status, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}

/** A file too large to keep in memory, read from disk for this answer. */
async function streamFile(req: IncomingMessage, res: ServerResponse, { base, entry, status, extra }: { base: BaseHeaders; entry: StaticEntry; status: number; extra?: Readonly<Record<string, string>> }): Promise<boolean> {
  const headers = answerHeaders(base, { encoding: null, etag: await streamEtag(entry), extra, length: entry.size });
  if (status === 200 && etagMatches(req.headers['if-none-match'], headers.etag as string)) {
    res.writeHead(304, notModifiedHeaders(headers));
    res.end();
    return true;
  }
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
        sendPlainError(req, res, { status: 503, text: 'A new build is being put in place; try again in a moment.\n', headers: { 'retry-after': '1' } });
        done(true);
        return;
      }
      res.writeHead(status, headers);
      // pipeline, not pipe: when the client goes away mid-answer, the file is closed too.
      pipeline(stream, res, () => done(true));
    });
  });
}
