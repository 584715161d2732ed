/**
 * Wraps an S3 client so that every call after the first `allowed` ones fails, as if the
 * process had crashed or the network had gone (mode 'crash': a connection error) or the
 * service kept failing past the SDK's retries (mode 'fail': 503 SlowDown). `afterEach` runs
 * after every call that went through, so a test can check the bucket between steps.
 */
import type { S3Like } from '../types.js';

export class FaultClient implements S3Like {
  calls = 0;
  constructor(
    private readonly inner: S3Like,
    private readonly allowed: number,
    private readonly mode: 'crash' | 'fail' = 'crash',
    private readonly afterEach?: (operation: string) => void,
  ) {}

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async send(command: any): Promise<any> {
    this.calls += 1;
    if (this.calls > this.allowed) {
      if (this.mode === 'crash') throw Object.assign(new Error('socket hang up'), { name: 'Error', code: 'ECONNRESET' });
      throw Object.assign(new Error('Please reduce your request rate.'), { name: 'SlowDown', $metadata: { httpStatusCode: 503, attempts: 5 } });
    }
    const answer = await this.inner.send(command);
    this.afterEach?.(String(command.constructor.name));
    return answer;
  }
}
