/**
 * The full-decode floors (`fullDecodeOnly`, `streamedDecodeOnly`, `fullDecodeFreed`: naive-pipeline.ts) against
 * the naive pipeline, and the renditions' encode floor (`encodeOnly`), in a Node process of its own: `node --import tsx decode-floor.ts
 * LIST ROUNDS`, LIST a file of image paths (one per line). The four alternate for ROUNDS
 * rounds; the best round of each is printed as JSON on stdout. Spawned by build.bench.ts.
 *
 * A process of its own because the floor depends on the state of the process it runs in, and a
 * floor must be taken at its best: in a process that has just run a build it is markedly
 * slower, while the naive pipeline's rate barely moves (tools/bench/HISTORY.md).
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { configureSharpForBatch } from '../image/decode.js';
import { encodeOnly, fullDecodeFreed, fullDecodeOnly, naiveAnalyse, reducedCopies, type ReducedCopies, streamedDecodeOnly } from './naive-pipeline.js';
import { type PipelineRate, pipelineRate, rateOver } from './pipeline-rate.js';

export interface DecodeFloorResult {
  images: number;
  rounds: number;
  naive: PipelineRate;
  /** Decoded into a frame-sized buffer. */
  floor: PipelineRate;
  /** Decoded row after row, only the last kept. */
  streamed: PipelineRate;
  /** Decoded into a frame-sized buffer, freed at once (as the build frees its frames). */
  freed: PipelineRate;
  /** The renditions' WebP encodes alone, of ENCODE_SAMPLE images at most (their copies reduced beforehand, untimed). */
  encodes: PipelineRate;
}

/** Images whose copies the encode floor holds in memory at once (~1 MB each). */
const ENCODE_SAMPLE = 400;

/** `encodeOnly` over the copies of an even sample of `files`, CONCURRENCY at a time, as the build encodes them. */
async function encodeFloor(files: string[]): Promise<PipelineRate> {
  const step = Math.max(1, Math.ceil(files.length / ENCODE_SAMPLE));
  const images: ReducedCopies[] = [];
  for (const [k, file] of files.entries()) if (k % step === 0) images.push(await reducedCopies(await readFile(file)));
  const restore = await configureSharpForBatch();
  try {
    return await rateOver(images, encodeOnly);
  } finally {
    restore();
  }
}

const [list, roundsArg] = process.argv.slice(2);
const files = readFileSync(list!, 'utf8').split('\n').filter((line) => line !== '');
const rounds = Number(roundsArg ?? 2);
const best = (a: PipelineRate | null, b: PipelineRate): PipelineRate => (a === null || b.rate > a.rate ? b : a);
let naive: PipelineRate | null = null;
let floor: PipelineRate | null = null;
let streamed: PipelineRate | null = null;
let freed: PipelineRate | null = null;
for (let round = 0; round < rounds; round++) {
  naive = best(naive, await pipelineRate(files, naiveAnalyse));
  floor = best(floor, await pipelineRate(files, fullDecodeOnly));
  streamed = best(streamed, await pipelineRate(files, streamedDecodeOnly));
  freed = best(freed, await pipelineRate(files, fullDecodeFreed));
}
let encodes: PipelineRate | null = null;
for (let round = 0; round < rounds; round++) encodes = best(encodes, await encodeFloor(files));
const result: DecodeFloorResult = { images: files.length, rounds, naive: naive!, floor: floor!, streamed: streamed!, freed: freed!, encodes: encodes! };
process.stdout.write(`${JSON.stringify(result)}\n`);
