/**
 * The answers written straight to the socket, for requests the handler never sees: bytes
 * Node's HTTP parser refuses (`unparsableRequestAnswer`, by llhttp's error code) and CONNECT
 * (Node hands the socket over). Each is the API's JSON error or a plain 405, with CORS and
 * nosniff like every error answer (error-answers.ts), and closes the connection: after a
 * parser error the next request cannot be found.
 */
import { errorBodyA, errorBodyB } from '../../functions/core/bodies.js';
import { CROSS_ORIGIN_ERROR_LINES } from './error-answers.js';
import { STATIC_METHODS } from './response-headers.js';

/** What Node's parser attaches to the error it hands to `clientError`. */
export type ParserError = NodeJS.ErrnoException & { rawPacket?: Buffer; reason?: string };

/** The API reads no request body: the advice for every body-framing problem. */
const NO_BODY_NEEDED = 'the API takes no request body, so send none';

/** The bytes refused, split where the table needs them. */
interface RefusedRequest {
  packet: string;
  /** The first line, or everything when no line end arrived. */
  requestLine: string;
  /** Where the first line ends; -1 when it never did. */
  lineEnd: number;
}

/** A complete HTTP/1.1 answer that closes the connection; no body after the headers for HEAD (RFC 9110 9.3.2). */
function rawAnswer(status: string, contentType: string, body: string, options: { allow: boolean; head: boolean }): string {
  const allow = options.allow ? `allow: ${STATIC_METHODS}\r\n` : '';
  return (
    `HTTP/1.1 ${status}\r\nconnection: close\r\n${allow}content-type: ${contentType}\r\n` +
    `${CROSS_ORIGIN_ERROR_LINES}cache-control: no-store\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n\r\n${options.head ? '' : body}`
  );
}

/** CONNECT: the 405 every method the API does not serve gets, as on Netlify's edge. */
export const CONNECT_ANSWER = rawAnswer('405 Method Not Allowed', 'text/plain; charset=utf-8', 'Method Not Allowed\n', { allow: true, head: false });

/**
 * The answer to bytes the parser refused: the API's JSON error, in variant B's shape when the
 * request line names a /v1 path, else variant A's, with a message naming what is wrong.
 */
export function unparsableRequestAnswer(error: ParserError): string {
  const packet = error.rawPacket?.toString('latin1') ?? '';
  const lineEnd = packet.indexOf('\r\n');
  const requestLine = lineEnd === -1 ? packet : packet.slice(0, lineEnd);
  const [status, message] = parseProblem(error, { packet, requestLine, lineEnd });
  // functions/SPECIFICATION.md: a 405 is METHOD_NOT_ALLOWED, as the handler answers other methods.
  const notAllowed = status.startsWith('405');
  const code = notAllowed ? 'METHOD_NOT_ALLOWED' : 'VALIDATION_ERROR';
  // Any method token, also one in lower case (`get`), which is why the parser refused it; the
  // target in origin form (/v1/…) or absolute form (http://host/v1/…), as request-chain.ts reads both.
  const body = /^[^ ]+ (?:https?:\/\/[^/?# ]*)?\/v1(?:[/?]|$)/i.test(requestLine) ? errorBodyB(code, message) : errorBodyA(code, message);
  return rawAnswer(status, 'application/json; charset=utf-8', body, { allow: notAllowed, head: requestLine.startsWith('HEAD ') });
}

/**
 * The status line and message for what the parser refused, by llhttp's error code (and, where
 * one code covers several problems, its reason): each names the problem, not a generic one.
 */
function parseProblem(error: ParserError, { packet, requestLine, lineEnd }: RefusedRequest): [string, string] {
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
