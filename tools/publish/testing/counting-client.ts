/**
 * A real S3Client for tests against s3rver that counts every HTTP request by method
 * (retries included: the middleware sits after the SDK's retry step), so a test can
 * assert "no PUT" on the wire rather than on what the publisher meant to do.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from '../s3-client.js';

export interface CountingClient {
  client: S3Client;
  /** HTTP method → requests sent, and the keys PUT, in order. */
  counts: Record<string, number>;
  putKeys: string[];
  reset(): void;
}

export function countingClient(endpoint: string, maxAttempts = 3): CountingClient {
  const client = createS3Client({ endpoint, maxAttempts, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  const counting: CountingClient = { client, counts: {}, putKeys: [], reset: () => {
    counting.counts = {};
    counting.putKeys = [];
  } };
  client.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { method?: string; path?: string };
      const method = request.method ?? '?';
      counting.counts[method] = (counting.counts[method] ?? 0) + 1;
      if (method === 'PUT' && request.path) counting.putKeys.push(decodeURIComponent(request.path.split('/').slice(2).join('/')));
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'pepeRequestCounter' },
  );
  return counting;
}
