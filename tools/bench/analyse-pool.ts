/**
 * `analyseImage` on worker threads, for batches: the JS part of the analysis (greyscale,
 * Pillow's Lanczos, thumbnail, blurhash) runs on one core per worker instead of all on the
 * main thread, while libvips decodes on its own threads. Same results as `analyseImage`.
 *
 * Usage: `const pool = createAnalysePool(); ... await pool.analyse(bytes) ... await
 * pool.close()`. Submit many images at once (Promise.all over a bounded batch); the pool
 * queues them and keeps `inFlightPerWorker` jobs per worker so decode and JS overlap.
 * The build does not use it: it gained 4% of wall time for a copy and a message round trip
 * per image, so the build analyses in-process, 4 images in flight (tools/bench/HISTORY.md).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { AnalyseOptions, ImageAnalysis, ImageFailure } from '../image/analyse-image.js';
import type { WorkerRequest } from './analyse-worker.js';

export interface AnalysePoolOptions {
  /** Default: the number of cores (2 on the target machine). */
  workers?: number;
  /** Jobs handed to each worker at once: 2 lets one decode while the other runs JS. */
  inFlightPerWorker?: number;
  /** Applied to every image. */
  analyse?: AnalyseOptions;
}

export interface AnalysePool {
  /** Analyses a copy of `bytes` (the caller's buffer stays usable). */
  /** The analysis without its decoded frame (`pixels`), which stays in the worker: only the build's renditions use it. */
  analyse(bytes: Buffer): Promise<Omit<ImageAnalysis, 'pixels'> | ImageFailure>;
  close(): Promise<void>;
}

type Reply = { id: number; result: Omit<ImageAnalysis, 'pixels'> | ImageFailure } | { id: number; error: string };

interface Job {
  id: number;
  bytes: Uint8Array;
  resolve: (r: Omit<ImageAnalysis, 'pixels'> | ImageFailure) => void;
  reject: (e: Error) => void;
}


export function createAnalysePool(options: AnalysePoolOptions = {}): AnalysePool {
  const count = Math.max(1, options.workers ?? availableParallelism());
  const perWorker = Math.max(1, options.inFlightPerWorker ?? 2);
  const analyseOptions = options.analyse ?? {};
  const queue: Job[] = [];
  const pending = new Map<number, Job>();
  let nextId = 0;
  let closed = false;

  const slots = Array.from({ length: count }, () => {
    const worker = new Worker(new URL('./analyse-worker-entry.mjs', import.meta.url));
    const slot = { worker, busy: 0 };
    worker.on('message', (reply: Reply) => {
      const job = pending.get(reply.id);
      if (!job) return;
      pending.delete(reply.id);
      slot.busy--;
      if ('error' in reply) job.reject(new Error(`image analysis worker failed: ${reply.error}`));
      else job.resolve(reply.result);
      pump();
    });
    // A crashed or exited worker is a bug, not a bad image: fail everything still waiting
    // rather than leave promises that never settle.
    const failAll = (err: Error) => {
      for (const job of [...pending.values(), ...queue.splice(0)]) job.reject(err);
      pending.clear();
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => {
      if (!closed) failAll(new Error(`image analysis worker exited (code ${code})`));
    });
    return slot;
  });

  function pump(): void {
    for (const slot of slots) {
      while (slot.busy < perWorker && queue.length > 0) {
        const job = queue.shift()!;
        slot.busy++;
        pending.set(job.id, job);
        const req: WorkerRequest = { id: job.id, bytes: job.bytes, options: analyseOptions };
        slot.worker.postMessage(req, [job.bytes.buffer as ArrayBuffer]);
      }
    }
  }

  return {
    analyse(bytes) {
      if (closed) return Promise.reject(new Error('analyse pool is closed'));
      // Copy into a fresh buffer that can be transferred (the caller keeps its own).
      const copy = new Uint8Array(bytes.length);
      copy.set(bytes);
      return new Promise((resolve, reject) => {
        queue.push({ id: nextId++, bytes: copy, resolve, reject });
        pump();
      });
    },
    async close() {
      closed = true;
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}
