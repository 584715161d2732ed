/**
 * `startServer`: one Node process serving a build output folder exactly as production does
 * (request-chain.ts), fit to run behind a CDN: keep-alive, request and header timeouts, a
 * bound on pipelined requests, and a graceful close that lets in-flight requests finish.
 * This module is the lifecycle only: the build and its reload are reload.ts's, the answers
 * to requests the handler never sees are parser-errors.ts's.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { answerFromCdnCache } from './cached-fast-path.js';
import { lacksHost } from './early-request.js';
import { INTERNAL_ERROR_MESSAGE, sendApiError } from './error-answers.js';
import { freshBuild } from './fresh-build.js';
import { CONNECT_ANSWER, type ParserError, unparsableRequestAnswer } from './parser-errors.js';
import { type BuildOptions, loadState, ServeSetupError, watchForRebuilds } from './reload.js';
import { type ChainState, handleRequest } from './request-chain.js';

export { ServeSetupError } from './reload.js';

export interface ServeOptions extends BuildOptions {
  /** 0 picks a free port. */
  port: number;
  host: string;
  /** How long close() waits for in-flight requests before cutting connections. */
  closeGraceMs?: number;
  /** How long a client may take to send the request headers (default 10 s; tests shorten it). */
  headersTimeoutMs?: number;
  /** How long a client may take to send the whole request, body included (default 30 s; tests shorten it). */
  requestTimeoutMs?: number;
  /** How long an answer may go without a byte taken by the client before the connection is cut (default 60 s; tests shorten it). */
  stalledTimeoutMs?: number;
  /**
   * How to choose another port, for the message when this one is taken or not permitted.
   * Default: pass --port. The CLI says PORT when the port did not come from --port.
   */
  otherPort?: string;
}

export interface RunningServer {
  url: string;
  port: number;
  /** Stops accepting connections, lets in-flight requests finish (up to closeGraceMs), then resolves. */
  close(): Promise<void>;
}

/** Requests one connection may have waiting behind an unfinished answer; past it the connection is closed (`Connections.admit`). */
const MAX_PIPELINED = 128;
/** Idle keep-alive sockets are closed after this; longer is not needed behind a CDN or load balancer. */
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
/** How long close() waits for in-flight requests by default. */
const CLOSE_GRACE_MS = 10_000;

/**
 * What the server knows of each open connection: its latest response, so that close() can end
 * each one as soon as nothing is in flight on it (Node closes the idle ones only once, when
 * close() is called), and how many requests wait behind an unfinished answer. A map write per
 * request is cheaper on the hot path than a listener per request.
 */
class Connections {
  private readonly latest = new Map<Socket, ServerResponse | null>();
  private readonly pipelined = new Map<Socket, number>();

  opened(socket: Socket): void {
    this.latest.set(socket, null);
    socket.once('close', () => this.latest.delete(socket));
  }

  /**
   * Records `res` as its connection's latest; false when the connection was closed instead.
   * Node parses every request a client pipelines before any is answered, holding each until
   * its turn, and pausing the socket does not stop its parser: a connection with more than
   * MAX_PIPELINED requests waiting is closed. Only pipelined requests pay a listener.
   */
  admit(req: IncomingMessage, res: ServerResponse): boolean {
    const socket = req.socket;
    const previous = this.latest.get(socket);
    this.latest.set(socket, res);
    if (previous == null || previous.writableFinished) return true;
    const waiting = (this.pipelined.get(socket) ?? 0) + 1;
    if (waiting > MAX_PIPELINED || socket.destroyed) {
      socket.destroy();
      return false;
    }
    this.pipelined.set(socket, waiting);
    res.once('close', () => {
      const left = (this.pipelined.get(socket) ?? 1) - 1;
      if (left === 0) this.pipelined.delete(socket);
      else this.pipelined.set(socket, left);
    });
    return true;
  }

  /**
   * Whether an answer has started on `socket` for a request that is not over (its body never
   * finished arriving, or a pipelined one broke while it was sent): another answer written now
   * would land inside that one's body or be read as the answer to the next request.
   */
  answering(socket: Socket): boolean {
    const res = this.latest.get(socket);
    return res != null && res.headersSent && !(res.writableFinished && res.req.complete);
  }

  /**
   * Ends every connection once nothing is in flight on it. server.close() has already
   * destroyed those Node knows to be idle after an answer; one still open after its answer has
   * begun its next request, and one never answered that has read bytes has a request arriving:
   * ending either would drop a request without an answer (a 502 at a CDN).
   */
  endWhenDone(): void {
    for (const [socket, res] of this.latest) {
      if (res !== null && !res.writableFinished) res.once('close', () => socket.end());
      else if (res === null && socket.bytesRead === 0) socket.end();
    }
  }
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const state: ChainState = { ...(await loadState(options)), origin: '' };
  await refuseMissingFiles(state, options.dir);
  const connections = new Connections();
  let closing = false;
  const server = createServer(
    // Node checks the header and request timeouts only every connectionsCheckingInterval
    // (30 s by default): once a second keeps "header timeout 10 s" true to within a second.
    // requireHostHeader off: Node's own 400 for a missing Host is bare (no JSON, no CORS); lacksHost answers it.
    { keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, headersTimeout: options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS, requestTimeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1000, requireHostHeader: false },
    (req: IncomingMessage, res: ServerResponse) => {
      if (!connections.admit(req, res)) return;
      // While closing, tell keep-alive clients to reconnect elsewhere after this answer.
      if (closing) res.setHeader('connection', 'close');
      answer(state, req, res);
    },
  );
  // Each socket's inactivity timer, for every request (the keep-alive timeout replaces it
  // between requests); on expiry Node destroys the socket.
  server.setTimeout(options.stalledTimeoutMs ?? STALLED_TIMEOUT_MS);
  server.on('connection', (socket: Socket) => connections.opened(socket));
  server.on('clientError', (error: ParserError, socket) => {
    // Mid-answer, the connection is closed without a word, as Node's default handler does.
    if (socket.writable && !connections.answering(socket as Socket)) socket.end(unparsableRequestAnswer(error));
    else socket.destroy();
  });
  // An Expect other than 100-continue: Node's own answer is a bare 417 (no JSON, no CORS).
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const expect = JSON.stringify(String(req.headers.expect).slice(0, 100));
    sendApiError(req, res, { status: 417, code: 'VALIDATION_ERROR', message: `the Expect header asks for ${expect}, which this server does not offer: send no Expect header (or 100-continue)` });
  });
  // CONNECT never reaches the request handler: Node hands over the socket.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => socket.end(CONNECT_ANSWER));
  await new Promise<void>((done, fail) => {
    server.once('error', (error: NodeJS.ErrnoException) => fail(listenError(error, options.host, options.port, options.otherPort)));
    server.listen(options.port, options.host, () => done());
  });
  server.once('close', watchForRebuilds(options, state));
  const { port } = server.address() as AddressInfo;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  state.origin = `http://${shownHost}:${port}`;

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= new Promise<void>((done) => {
      closing = true;
      const force = setTimeout(() => server.closeAllConnections(), options.closeGraceMs ?? CLOSE_GRACE_MS);
      force.unref();
      server.close(() => {
        clearTimeout(force);
        done();
      });
      connections.endWhenDone();
    }));
  return { url: state.origin, port, close };
}

/** One request: the early answers first, then the chain; a failure is the API's 500, or a cut connection once the answer began. */
function answer(state: ChainState, req: IncomingMessage, res: ServerResponse): void {
  if (lacksHost(req)) {
    sendApiError(req, res, { status: 400, code: 'VALIDATION_ERROR', message: 'an HTTP/1.1 request must carry a Host header (RFC 9112 3.2): send Host with the name of this server' });
    return;
  }
  if (state.staticRoutes.answer(req, res)) return;
  if (state.cdnCache !== null && answerFromCdnCache(state.cdnCache, req, res)) return;
  handleRequest(state, req, res).catch((error: unknown) => {
    state.onError(`unexpected failure on ${req.method} ${req.url}`, error);
    if (!res.headersSent) sendApiError(req, res, { status: 500, code: 'INTERNAL_SERVER_ERROR', message: INTERNAL_ERROR_MESSAGE });
    else res.destroy();
  });
}

/** At start-up only (while serving, a listed file can vanish for a moment in a rebuild's commit): files the manifest lists but the folder lacks. */
async function refuseMissingFiles(state: ChainState, dir: string): Promise<void> {
  const missing = await state.site.missingFiles();
  if (missing.length === 0) return;
  const shown = missing.slice(0, 3).map((path) => `site/${path}`).join(', ');
  const more = missing.length > 3 ? ` and ${missing.length - 3} more` : '';
  throw new ServeSetupError(`${join(resolve(dir), 'manifest.json')} lists ${missing.length === 1 ? 'a file that is' : `${missing.length} files that are`} not in the build folder (${shown}${more}): ${freshBuild(resolve(dir))}`);
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
