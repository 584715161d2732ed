/**
 * A raw HTTP client for the end-to-end tests: unlike fetch it sends the path exactly as
 * written (no `..` folding, no re-encoding), adds no Accept-Encoding, and returns the bytes
 * as they came, so traversal attempts and compressed bodies can be checked.
 */
import { once } from 'node:events';
import { Agent, createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

export function raw(base: string, path: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  return new Promise((done, fail) => {
    const req = request({ host: hostname, port, path, method: options.method ?? 'GET', headers: options.headers ?? {}, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end();
  });
}

export function json(response: RawResponse): unknown {
  return JSON.parse(response.body.toString('utf8'));
}

export function closeClient(): void {
  agent.destroy();
}

/**
 * A server that tries an early answer (`answer` returns true when it answered) and otherwise
 * stands in for the request chain with a 299, so that a test can tell the two apart.
 */
export async function earlyAnswerServer(answer: (req: IncomingMessage, res: ServerResponse) => boolean): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    if (answer(req, res)) return;
    res.writeHead(299, { 'content-type': 'text/plain' });
    res.end('chain');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
