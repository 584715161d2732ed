/**
 * `startServer`: one Node process serving a build output folder exactly as production does
 * (request-chain.ts), fit to run behind a CDN: keep-alive, compression, request and header
 * timeouts, and a graceful close that lets in-flight requests finish.
 */
import { existsSync, type FSWatcher, watch } from 'node:fs';
import { access } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { basename, dirname, join, resolve } from 'node:path';
import { readManifestRootSync } from '../shared/manifest.js';
import { errorBodyA, errorBodyB } from '../../functions/core/bodies.js';
import { answerFromCdnCache } from './cached-fast-path.js';
import { CdnCache } from './cdn-cache.js';
import { CROSS_ORIGIN_ERROR_LINES, INTERNAL_ERROR_MESSAGE, sendApiError } from './error-answers.js';
import { lacksHost } from './early-request.js';
import { freshBuild } from './fresh-build.js';
import { type LoadedFunction, loadFunctions } from './functions.js';
import { loadNetlifyConfig } from '../shared/netlify-config.js';
import { compileRedirect, unsupportedRedirect } from './redirects.js';
import { type ChainState, handleRequest } from './request-chain.js';
import { StaticRoutes } from './static-fast-path.js';
import { StaticSite } from './static-files.js';
import { STATIC_METHODS } from './static-response.js';

export interface ServeOptions {
  /** Build output folder (holds site/, functions/, manifest.json). */
  dir: string;
  /** 0 picks a free port. */
  port: number;
  host: string;
  /** Default: `netlify.toml` in the current folder (the repository root). */
  netlifyToml?: string;
  /** Where unexpected failures are reported (a function that throws); the CLI prints them. */
  onError?: (message: string, error: unknown) => void;
  /**
   * Keep function answers that send `Netlify-CDN-Cache-Control` (as Netlify's CDN does) until
   * restart. Default true; false runs the function for every request (for measuring it).
   */
  cdnCache?: boolean;
  /** The CDN cache's clock in ms (default Date.now; tests move it to age and expire answers). */
  now?: () => number;
  /** How long close() waits for in-flight requests before cutting connections. */
  closeGraceMs?: number;
  /** How long a client may take to send the request headers (default 10 s; tests shorten it). */
  headersTimeoutMs?: number;
  /** How long a client may take to send the whole request, body included (default 30 s; tests shorten it). */
  requestTimeoutMs?: number;
  /** How long an answer may go without a byte taken by the client before the connection is cut (default 60 s; tests shorten it). */
  stalledTimeoutMs?: number;
  /** How long a replaced build's function keeps its files open after a rebuild (default 5 min; tests shorten it). */
  releaseGraceMs?: number;
  /**
   * How to choose another port, for the message when this one is taken or not permitted.
   * Default: pass --port. The CLI says PORT when the port did not come from --port.
   */
  otherPort?: string;
  /** Told when a new build in the folder is being served (see `watchForRebuilds`). */
  onReload?: (info: { version: string | null }) => void;
}

export interface RunningServer {
  url: string;
  port: number;
  /** Stops accepting connections, lets in-flight requests finish (up to closeGraceMs), then resolves. */
  close(): Promise<void>;
}

/** A setup failure the CLI reports as a message (no stack): missing build, bad netlify.toml… */
export class ServeSetupError extends Error {
  readonly code = 'SERVE_SETUP';
}

/** Requests one connection may have waiting behind an unfinished answer; past it the connection is closed (admitPipelined). */
const MAX_PIPELINED = 128;
/** Idle keep-alive sockets are closed after this; above typical CDN/load-balancer idle timeouts is not needed locally. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** Slow-loris guard: the request line and headers must arrive within this. */
const HEADERS_TIMEOUT_MS = 10_000;
/** Whole request, including a body nobody reads. */
const REQUEST_TIMEOUT_MS = 30_000;
/**
 * A client that stops reading an answer (nothing read or written on its connection for this
 * long) is cut off, as nginx's send_timeout does; otherwise it holds its connection, and a
 * streamed file's descriptor, for ever.
 */
const STALLED_TIMEOUT_MS = 60_000;
/**
 * A replaced build's function closes its pieces file this long after the swap, not at once:
 * a request that began before the swap takes the old build whole (request-chain.ts), and may
 * reach its function after a static file it first tried (a stalled client is cut off after
 * STALLED_TIMEOUT_MS). Without it, every rebuild left its deleted pieces file open until
 * `pepe serve` stopped, its disk space taken.
 */
const RELEASE_GRACE_MS = 5 * 60_000;
/** The file a build renames last (its commit point). */
const MANIFEST_NAME = 'manifest.json';

/** One build loaded whole (file list, function bundle, netlify.toml, an empty CDN cache): what a reload swaps in. */
export async function loadState(options: ServeOptions, generation = 0): Promise<Omit<ChainState, 'origin'>> {
  const dir = resolve(options.dir);
  const missing = async (path: string) => access(path).then(() => false, () => true);
  if (await missing(join(dir, 'site'))) {
    throw new ServeSetupError(`no build found at ${join(dir, 'site')}: run \`npx pepe build\` first (or pass --dir with a build output folder)`);
  }
  if (await missing(join(dir, 'functions', 'pepe.mjs'))) {
    throw new ServeSetupError(`no function bundle at ${join(dir, 'functions', 'pepe.mjs')}: the build looks incomplete; ${freshBuild(dir)}`);
  }
  let config;
  try {
    config = await loadNetlifyConfig(options.netlifyToml ?? 'netlify.toml');
  } catch (error) {
    throw new ServeSetupError(error instanceof Error ? error.message : String(error));
  }
  for (const rule of config.redirects) {
    const why = unsupportedRedirect(rule);
    if (why) throw new ServeSetupError(`${config.file}: ${why}`);
  }
  let functions, site;
  try {
    functions = await loadFunctions(join(dir, 'functions'), generation);
    site = await StaticSite.load(dir);
  } catch (error) {
    throw new ServeSetupError(error instanceof Error ? error.message : String(error));
  }
  return {
    site,
    config,
    functions,
    redirects: config.redirects.map(compileRedirect),
    onError: options.onError ?? (() => {}),
    cdnCache: options.cdnCache === false ? null : new CdnCache(undefined, undefined, options.now),
    staticRoutes: new StaticRoutes(site, config),
  };
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const state: ChainState = { ...(await loadState(options)), origin: '' };
  // At start-up only: while serving, a listed file can vanish for a moment in a rebuild's commit.
  const missing = await state.site.missingFiles();
  if (missing.length > 0) {
    const shown = missing.slice(0, 3).map((path) => `site/${path}`).join(', ');
    const more = missing.length > 3 ? ` and ${missing.length - 3} more` : '';
    throw new ServeSetupError(`${join(resolve(options.dir), 'manifest.json')} lists ${missing.length === 1 ? 'a file that is' : `${missing.length} files that are`} not in the build folder (${shown}${more}): ${freshBuild(resolve(options.dir))}`);
  }
  let closing = false;
  // The latest response per connection, so close() can end each connection as soon as it has
  // nothing in flight (Node only closes the idle ones once, at the moment close() is called).
  // A map write per request is cheaper than a listener per request on the hot path.
  const latest = new Map<Socket, ServerResponse | null>();
  // Requests pipelined behind an unfinished answer, per connection (admitPipelined).
  const pipelined = new Map<Socket, number>();
  /**
   * Node parses every request a client pipelines before any is answered, and holds each
   * request and response (≈ 2.6 KB) until its turn: one connection sending 20,000 and
   * reading nothing held 53 MB. Pausing the socket does not stop Node's parser, so a
   * connection with more than MAX_PIPELINED requests waiting is closed (what a chunk already
   * read holds, up to 64 KB of requests, is still parsed, then dropped). Only pipelined
   * requests pay for this (a listener each). False when the connection is closed.
   */
  const admitPipelined = (socket: Socket, res: ServerResponse): boolean => {
    const waiting = (pipelined.get(socket) ?? 0) + 1;
    if (waiting > MAX_PIPELINED || socket.destroyed) {
      socket.destroy();
      return false;
    }
    pipelined.set(socket, waiting);
    res.once('close', () => {
      const left = (pipelined.get(socket) ?? 1) - 1;
      if (left === 0) pipelined.delete(socket);
      else pipelined.set(socket, left);
    });
    return true;
  };
  const server = createServer(
    // Node checks the header and request timeouts only every connectionsCheckingInterval
    // (30 s by default): once a second keeps "header timeout 10 s" true to within a second.
    // requireHostHeader off: Node's own 400 for a missing Host was bare (no JSON, no CORS); lacksHost answers it.
    { keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, headersTimeout: options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS, requestTimeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1000, requireHostHeader: false },
    (req: IncomingMessage, res: ServerResponse) => {
      const previous = latest.get(req.socket);
      latest.set(req.socket, res);
      if (previous != null && !previous.writableFinished && !admitPipelined(req.socket, res)) return;
      // While closing, tell keep-alive clients to reconnect elsewhere after this answer.
      if (closing) res.setHeader('connection', 'close');
      if (lacksHost(req)) {
        sendApiError(req, res, 400, 'VALIDATION_ERROR', 'an HTTP/1.1 request must carry a Host header (RFC 9112 3.2): send Host with the name of this server');
        return;
      }
      if (state.staticRoutes.answer(req, res)) return;
      if (state.cdnCache !== null && answerFromCdnCache(state.cdnCache, req, res)) return;
      handleRequest(state, req, res).catch((error: unknown) => {
        state.onError(`unexpected failure on ${req.method} ${req.url}`, error);
        // The API's 500, readable from another origin, as the function's own 500 is (error-answers.ts).
        if (!res.headersSent) sendApiError(req, res, 500, 'INTERNAL_SERVER_ERROR', INTERNAL_ERROR_MESSAGE);
        else {
          res.destroy();
        }
      });
    },
  );
  // Each socket's inactivity timer, for every request (the keep-alive timeout replaces it
  // between requests); on expiry Node destroys the socket.
  server.setTimeout(options.stalledTimeoutMs ?? STALLED_TIMEOUT_MS);
  server.on('connection', (socket: Socket) => {
    latest.set(socket, null);
    socket.once('close', () => latest.delete(socket));
  });
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket) => {
    // An answer already started for the request this error is about (its body never finished
    // arriving, or a pipelined request broke while one was being sent): another one written
    // now would land inside that answer's body or be read as the answer to the client's next
    // request. The connection is closed without a word, as Node's default handler does.
    const res = latest.get(socket as Socket);
    const answered = res != null && res.headersSent && !(res.writableFinished && res.req.complete);
    if (socket.writable && !answered) socket.end(unparsableRequestAnswer(error));
    else socket.destroy();
  });
  // An Expect other than 100-continue: Node answered a bare 417 itself (no JSON, no CORS).
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const expect = JSON.stringify(String(req.headers.expect).slice(0, 100));
    sendApiError(req, res, 417, 'VALIDATION_ERROR', `the Expect header asks for ${expect}, which this server does not offer: send no Expect header (or 100-continue)`);
  });
  // CONNECT never reaches the request handler (Node hands over the socket): it gets the 405
  // every method the API does not serve gets, as on Netlify's edge, readable cross-origin as every error answer is.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    socket.end(`HTTP/1.1 405 Method Not Allowed\r\nallow: ${STATIC_METHODS}\r\ncontent-type: text/plain; charset=utf-8\r\n${CROSS_ORIGIN_ERROR_LINES}cache-control: no-store\r\nconnection: close\r\ncontent-length: 19\r\n\r\nMethod Not Allowed\n`);
  });
  await new Promise<void>((done, fail) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      fail(listenError(error, options.host, options.port, options.otherPort));
    });
    server.listen(options.port, options.host, () => done());
  });
  const stopWatching = watchForRebuilds(options, state);
  server.once('close', stopWatching);
  const { port } = server.address() as AddressInfo;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  state.origin = `http://${shownHost}:${port}`;

  let closed: Promise<void> | undefined;
  return {
    url: state.origin,
    port,
    close() {
      closed ??= new Promise<void>((done) => {
        closing = true;
        const force = setTimeout(() => server.closeAllConnections(), options.closeGraceMs ?? 10_000);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          done();
        });
        // Idle keep-alive sockets would otherwise hold close() open until they time out; busy
        // ones are ended once their response is done (new requests on them get Connection: close).
        // A connection whose request is still arriving is busy too: ending it would drop that
        // request without an answer (an empty reply, a 502 at a CDN). server.close() has already
        // destroyed the ones Node knows to be idle after an answer; one still open after its
        // answer has begun its next request, and one never answered has read some bytes.
        for (const [socket, res] of latest) {
          if (res !== null && !res.writableFinished) res.once('close', () => socket.end());
          else if (res === null && socket.bytesRead === 0) socket.end();
        }
      });
      return closed;
    },
  };
}

/**
 * The answer to bytes Node's HTTP parser refuses: still the API's JSON, since every API
 * answer is JSON, in the variant B shape when the request line names a /v1 path, else
 * variant A's, with a message naming what is wrong (parseProblem). The connection is closed
 * after it (the parser cannot find the next request).
 */
function unparsableRequestAnswer(error: NodeJS.ErrnoException & { rawPacket?: Buffer; reason?: string }): string {
  const packet = error.rawPacket?.toString('latin1') ?? '';
  const lineEnd = packet.indexOf('\r\n');
  const requestLine = lineEnd === -1 ? packet : packet.slice(0, lineEnd);
  const [status, message] = parseProblem(error, packet, requestLine, lineEnd);
  // the specification: a 405 is METHOD_NOT_ALLOWED, as the handler answers other methods.
  const code = status.startsWith('405') ? 'METHOD_NOT_ALLOWED' : 'VALIDATION_ERROR';
  // Any method token, also one in lower case (`get`), which is why the parser refused it; the
  // target in origin form (/v1/…) or absolute form (http://host/v1/…), as requestUrl reads both.
  const body = /^[^ ]+ (?:https?:\/\/[^/?# ]*)?\/v1(?:[/?]|$)/i.test(requestLine) ? errorBodyB(code, message) : errorBodyA(code, message);
  const allow = status.startsWith('405') ? `allow: ${STATIC_METHODS}\r\n` : '';
  // A response to HEAD never has content (RFC 9110 9.3.2), even this one: the headers of the
  // GET's answer, Content-Length included, and nothing after them.
  const head = requestLine.startsWith('HEAD ');
  return (
    `HTTP/1.1 ${status}\r\nconnection: close\r\n${allow}content-type: application/json; charset=utf-8\r\n` +
    `${CROSS_ORIGIN_ERROR_LINES}cache-control: no-store\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n\r\n${head ? '' : body}`
  );
}

/** The API reads no request body: the advice for every body-framing problem. */
const NO_BODY_NEEDED = 'the API takes no request body, so send none';

/**
 * The status line and message for what the parser refused, by llhttp's error code (and, where
 * one code covers several problems, its reason): each names the problem, not a generic one.
 */
function parseProblem(error: NodeJS.ErrnoException & { reason?: string }, packet: string, requestLine: string, lineEnd: number): [string, string] {
  const reason = error.reason ?? '';
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return ['408 Request Timeout', 'the request did not arrive in time: send the whole request at once'];
    case 'HPE_INVALID_METHOD':
      // A TLS handshake begins with byte 0x16: https:// sent to this plain-HTTP port.
      return packet.startsWith('\x16')
        ? ['400 Bad Request', 'this server speaks plain HTTP, not HTTPS: use an http:// URL']
        : ['405 Method Not Allowed', `the method is not one HTTP knows; the API answers ${STATIC_METHODS}`];
    case 'HPE_PAUSED_H2_UPGRADE':
      return ['505 HTTP Version Not Supported', 'this server speaks HTTP/1.1, not HTTP/2 with prior knowledge: send HTTP/1.1 requests (or put a proxy that speaks HTTP/2 in front)'];
    case 'HPE_HEADER_OVERFLOW': {
      // Node's limit (16 KB) covers the request line and the headers: when the line alone is
      // long (or never ended), the URL is the oversized part, which the API answers with a 400.
      if (lineEnd !== -1 && requestLine.length <= 8192) return ['431 Request Header Fields Too Large', 'the request headers are too large: send fewer or shorter headers'];
      // The query string's cap is the API's; a path alone that long has no query string.
      const target = requestLine.split(' ')[1] ?? '';
      const query = target.indexOf('?');
      const longQuery = query !== -1 && (lineEnd === -1 || target.length - query - 1 > 4096);
      return ['400 Bad Request', longQuery ? 'the URL is too long: the query string must be at most 4096 characters' : 'the URL is too long: its path is longer than any this site publishes'];
    }
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return /content-length/i.test(reason)
        ? ['400 Bad Request', `the request has both Content-Length and Transfer-Encoding, which HTTP/1.1 forbids (RFC 9112 6.1): ${NO_BODY_NEEDED}`]
        : ['400 Bad Request', `the request's Transfer-Encoding is not one a server may accept (chunked must come last): ${NO_BODY_NEEDED}`];
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return ['400 Bad Request', /duplicate/i.test(reason) ? `the request has more than one Content-Length header: ${NO_BODY_NEEDED}` : `the request has both Content-Length and Transfer-Encoding, which HTTP/1.1 forbids (RFC 9112 6.1): ${NO_BODY_NEEDED}`];
    case 'HPE_INVALID_CONTENT_LENGTH':
      return ['400 Bad Request', `the request's Content-Length is not a decimal number: ${NO_BODY_NEEDED}`];
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
    case 'HPE_INVALID_EOF_STATE':
      return ['400 Bad Request', `the request body's chunked encoding is malformed (${reason || 'a bad chunk'}): ${NO_BODY_NEEDED}`];
    case 'HPE_INVALID_VERSION':
      return /version/i.test(reason) && !/crlf/i.test(reason)
        ? ['505 HTTP Version Not Supported', `the request line names an HTTP version this server does not speak (${JSON.stringify(requestLine.split(' ').at(-1)?.slice(0, 20) ?? '')}): send HTTP/1.1 or HTTP/1.0`]
        : ['400 Bad Request', 'the request lines must end with CR LF (\\r\\n), not a bare LF or CR'];
    case 'HPE_STRICT':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
      return ['400 Bad Request', 'the request lines must end with CR LF (\\r\\n), not a bare LF or CR'];
    case 'HPE_INVALID_URL':
    case 'HPE_INVALID_CONSTANT':
      return ['400 Bad Request', 'the request could not be parsed as HTTP/1.1: percent-encode spaces and characters outside ASCII in the URL (e.g. %C3%A9 for é)'];
    default:
      if (/HEADER|TOKEN/.test(error.code ?? '')) return ['400 Bad Request', 'a request header is malformed: check the header names and values the client sends'];
      return ['400 Bad Request', `the request could not be parsed as HTTP/1.1${reason ? ` (${reason})` : ''}: check what the client sends`];
  }
}

/** A listen failure as a setup error naming what to change (port taken, address not on this machine, no permission). */
function listenError(error: NodeJS.ErrnoException, host: string, port: number, otherPort?: string): Error {
  switch (error.code) {
    case 'EADDRINUSE':
      return new ServeSetupError(`port ${port} on ${host} is already in use; ${otherPort ?? 'pass --port with another number (or 0 for any free port)'}`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EINVAL':
      return new ServeSetupError(`cannot listen on ${host}: it is not an address of this machine (${error.code}); pass --host 127.0.0.1, 0.0.0.0 or one of this machine's addresses`);
    case 'EACCES':
      return new ServeSetupError(`no permission to listen on port ${port} of ${host}; ${otherPort === undefined ? 'pass --port 1024 or above' : `use 1024 or above: ${otherPort}`}`);
    default:
      return error;
  }
}

/**
 * A Netlify deploy is atomic: after it, every answer comes from the new build, and the CDN
 * cache is cleared. `pepe build` into the folder being served commits by renaming
 * `manifest.json` last (commit-output.ts), so that rename is the signal: the new build is
 * loaded whole (file list, function bundle, netlify.toml) beside the old one and swapped in
 * at once, with an empty CDN cache. Requests in flight finish with the old build; a failing
 * load keeps the old build and is reported. Returns the function that stops watching.
 */
function watchForRebuilds(options: ServeOptions, state: ChainState): () => void {
  const dir = resolve(options.dir);
  let generation = 0;
  let timer: NodeJS.Timeout | undefined;
  let loading: Promise<void> | null = null;
  let again = false;
  const reload = async (): Promise<void> => {
    // No manifest: the folder is being removed or replaced, not a build committed; the
    // commit (the manifest's rename, or the new folder's) schedules a load of its own.
    if (!existsSync(join(dir, MANIFEST_NAME))) return;
    generation += 1;
    try {
      const next = await loadState(options, generation);
      const replaced = state.functions;
      Object.assign(state, next);
      releaseLater(replaced);
      options.onReload?.({ version: manifestVersion(dir) });
    } catch (error) {
      state.onError('a new build in the served folder could not be loaded; still serving the previous one', error);
    }
  };
  /** Replaced builds' functions whose files are still open, by the timer that will close them. */
  const releases = new Map<NodeJS.Timeout, readonly LoadedFunction[]>();
  const release = (key: NodeJS.Timeout): void => {
    clearTimeout(key);
    for (const fn of releases.get(key) ?? []) fn.release();
    releases.delete(key);
  };
  const releaseLater = (functions: readonly LoadedFunction[]): void => {
    const later: NodeJS.Timeout = setTimeout(() => release(later), options.releaseGraceMs ?? RELEASE_GRACE_MS);
    // Never what keeps the process running: its exit closes every file anyway.
    later.unref();
    releases.set(later, functions);
  };
  const schedule = () => {
    clearTimeout(timer);
    // A burst of renames ends with manifest.json; wait for it to settle, and never run two loads at once.
    timer = setTimeout(() => {
      if (loading) {
        again = true;
        return;
      }
      loading = reload().finally(() => {
        loading = null;
        if (again) {
          again = false;
          schedule();
        }
      });
    }, 100);
  };
  // The folder itself may be replaced rather than written into: `rm -rf dist && pepe build`
  // (a first build renames a complete staging folder into place), a `mv` of a build made
  // elsewhere. A watcher follows the folder it was opened on, so a replaced folder would never
  // be heard of again and the old build served forever. So the parent folder is watched too:
  // a 'rename' there naming the folder (created, removed, renamed into place; a build inside
  // it never causes one) re-opens the folder's watcher and schedules a load. The inode cannot
  // tell the folders apart: a removed folder's inode number is often reused at once.
  let watcher: FSWatcher | null = null;
  const watchFolder = (): void => {
    watcher?.close();
    watcher = null;
    try {
      watcher = watch(dir, (_event, name) => {
        if (name === MANIFEST_NAME) schedule();
      });
    } catch {
      return; // gone (being replaced): the parent's watcher hears it come back
    }
    watcher.on('error', (error) => state.onError(`stopped watching ${dir} for new builds; restart pepe serve after a build`, error));
  };
  let parentWatcher: FSWatcher | null = null;
  watchFolder();
  try {
    parentWatcher = watch(dirname(dir), (event, name) => {
      if (event !== 'rename' || name !== basename(dir)) return;
      watchFolder();
      schedule();
    });
    parentWatcher.on('error', () => parentWatcher?.close());
  } catch (error) {
    if (watcher === null) {
      state.onError(`cannot watch ${dir} for new builds; restart pepe serve after a build`, error);
      return () => {};
    }
    // Without the parent's watcher a build into the folder is still picked up; only a replaced folder is not.
  }
  return () => {
    clearTimeout(timer);
    watcher?.close();
    parentWatcher?.close();
    // The server has closed, every request answered: nothing reads a replaced build's files any more.
    for (const later of [...releases.keys()]) release(later);
  };
}

/** The catalogue version of the build in `dir`, for the reload message; null when unreadable. */
function manifestVersion(dir: string): string | null {
  return readManifestRootSync(dir)?.version ?? null;
}
