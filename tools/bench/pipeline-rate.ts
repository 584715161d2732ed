/**
 * Throughput of a per-image pipeline over a list of files: the build bench's naive pipelines
 * and the full-decode floor (decode-floor.ts) are all timed by this one loop.
 */
import { readFile } from 'node:fs/promises';

/** Same concurrency for the build and every pipeline it is compared with: sharp's work runs on libuv threads either way. */
export const CONCURRENCY = 4;

/** CPU seconds of this process (all threads, so sharp's libuv work counts): robust when other jobs share the machine. */
export const cpuSeconds = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
};

export interface PipelineRate {
  /** Images per second, wall clock. */
  rate: number;
  cpuMsPerImage: number;
}

/** `work` on every item (an image each), CONCURRENCY at a time. */
export async function rateOver<T>(items: readonly T[], work: (item: T) => Promise<unknown>): Promise<PipelineRate> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { rate: items.length / ((performance.now() - started) / 1000), cpuMsPerImage: (cpuSeconds(cpu) * 1000) / items.length };
}

/** Each file read and handed to `analyse`, CONCURRENCY at a time. */
export const pipelineRate = (files: readonly string[], analyse: (bytes: Buffer) => Promise<unknown>): Promise<PipelineRate> =>
  rateOver(files, async (file) => analyse(await readFile(file)));
