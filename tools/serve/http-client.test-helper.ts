/**
 * A raw HTTP client for the end-to-end tests: unlike fetch it sends the path exactly as
 * written (no `..` folding, no re-encoding), adds no Accept-Encoding, and returns the bytes
 * as they came, so traversal attempts and compressed bodies can be checked.
 */
import { Agent, request } from 'node:http';

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
