/**
 * Response compression for JSON, HTML, JS and CSS when the client accepts it: brotli
 * first, then gzip. Static bodies are compressed once at the highest level and kept
 * (static-files.ts); function answers are compressed per response at a fast level,
 * because brotli's maximum level costs milliseconds per kilobyte.
 *
 * A compressed body is a different representation, so its strong ETag gets a suffix
 * (`"abc"` → `"abc-br"`), as Apache does; If-None-Match is compared with the tag of the
 * form the client gets (RFC 9110 13.1.2), so a client revalidates the form it holds.
 */
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';
import { promisify } from 'node:util';

export type Encoding = 'br' | 'gzip';

/** Bodies smaller than this are sent as they are: the framing would eat the gain. */
export const MIN_COMPRESS_BYTES = 256;

/** Accept-Encoding values seen so far and what they negotiate to: clients send only a handful of distinct values, and every compressible answer asks. */
const negotiated = new Map<string, Encoding | null>();
/** Values remembered before the map is cleared: a client sending a new value per request cannot grow it without bound. */
const MAX_NEGOTIATED = 64;

/** The preferred encoding the Accept-Encoding header allows (q > 0), or null; remembered per header value. */
export function negotiateEncoding(acceptEncoding: string | undefined): Encoding | null {
  if (!acceptEncoding) return null;
  let encoding = negotiated.get(acceptEncoding);
  if (encoding === undefined) {
    encoding = parseAcceptEncoding(acceptEncoding);
    if (negotiated.size >= MAX_NEGOTIATED) negotiated.clear();
    negotiated.set(acceptEncoding, encoding);
  }
  return encoding;
}

function parseAcceptEncoding(acceptEncoding: string): Encoding | null {
  let best: Encoding | null = null;
  let bestQ = 0;
  let wildcardQ: number | null = null;
  const seen = new Set<string>();
  for (const part of acceptEncoding.split(',')) {
    const [rawName = '', ...params] = part.trim().toLowerCase().split(';');
    const name = rawName.trim();
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q)) continue;
    seen.add(name);
    if (name === '*') wildcardQ = q;
    // Prefer br over gzip at equal weight: smaller for JSON.
    if ((name === 'br' || name === 'gzip') && q > 0 && (q > bestQ || (q === bestQ && name === 'br'))) {
      best = name;
      bestQ = q;
    }
  }
  if (best === null && wildcardQ !== null && wildcardQ > 0) {
    if (!seen.has('br')) return 'br';
    if (!seen.has('gzip')) return 'gzip';
  }
  return best;
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Highest ratio, for bodies compressed once and cached. */
export function compressBest(body: Buffer, encoding: Encoding): Promise<Buffer> {
  return encoding === 'br'
    ? brotliAsync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
    : gzipAsync(body, { level: 9 });
}

/** Fast, for per-response bodies (function answers are a few kilobytes). */
export function compressFast(body: Buffer, encoding: Encoding): Buffer {
  return encoding === 'br'
    ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
    : gzipSync(body, { level: 6 });
}

const SUFFIX: Record<Encoding, string> = { br: '-br', gzip: '-gz' };

export function etagForEncoding(etag: string, encoding: Encoding): string {
  return etag.endsWith('"') ? `${etag.slice(0, -1)}${SUFFIX[encoding]}"` : etag;
}

/** Appends Accept-Encoding to an existing Vary value. */
export function varyWithEncoding(vary: string | null | undefined): string {
  if (!vary) return 'Accept-Encoding';
  if (vary.split(',').some((v) => v.trim().toLowerCase() === 'accept-encoding' || v.trim() === '*')) return vary;
  return `${vary}, Accept-Encoding`;
}
