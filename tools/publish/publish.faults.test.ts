/**
 * Interruptions at every step of a publish, against the in-memory S3 double (so the bucket
 * can be inspected between any two requests): the published JSON never points at a missing
 * image, and a clean rerun always converges to exactly the new build.
 */
import fc from 'fast-check';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { publishBuild } from './publish.js';
import { bucketMismatches, danglingReferences, rootMissing } from './testing/bucket-checks.js';
import { FaultClient } from './testing/fault-client.js';
import { MemoryS3 } from './testing/memory-s3.js';
import { syntheticRecords, writeSyntheticDist, type SyntheticRecord } from './testing/synthetic-dist.js';
import type { S3Like } from './types.js';

const NETLIFY_TOML = join(import.meta.dirname, '../../netlify.toml');
const BOOKKEEPING = new Set(['_build/publish-state.json', '_build/publish-run']);
let temp: TempDir;
beforeAll(async () => {
  temp = await makeTempDir('pepe-publish-faults-');
});
afterAll(async () => temp?.cleanup());

let runNumber = 0;
const T0 = Date.parse('2030-06-01T00:00:00Z');
const publish = (dir: string, client: S3Like, deleteStale = false, minutes = 0) =>
  publishBuild({ bucket: 'pepe-faults', dir, netlifyToml: NETLIFY_TOML, concurrency: 3, deleteStale }, { client, now: () => new Date(T0 + minutes * 60_000) });

/** Build A, then build B = A with some records removed, some descriptions changed, some added. */
function scenario(removed: number[], changed: number[], added: number): { a: SyntheticRecord[]; b: SyntheticRecord[] } {
  const a = syntheticRecords(5);
  const b = a
    .filter((_, n) => !removed.includes(n))
    .map((r, n) => (changed.includes(n) ? { ...r, description: `${r.description} (edited)` } : r))
    .concat(syntheticRecords(added, 'added'));
  return { a, b };
}

async function interruptedThenRerun(removed: number[], changed: number[], added: number, allowed: number, mode: 'crash' | 'fail', deleteStale = true): Promise<{ interruptedOk: boolean; calls: number }> {
  const dirA = join(temp.path, `a${runNumber}`);
  const dirB = join(temp.path, `b${runNumber++}`);
  const { a, b } = scenario(removed, changed, added);
  await writeSyntheticDist(dirA, a);
  // B rebuilt from A as a build does (its id segments' changes in the delta), in a folder of its own.
  await writeSyntheticDist(dirB, a);
  await writeSyntheticDist(dirB, b, { incremental: true });
  const store = new MemoryS3('pepe-faults');
  expect((await publish(dirA, store)).ok).toBe(true);

  // After every request: no JSON points at a missing image, and the root names only segments (and files) the bucket holds.
  const check = () => {
    expect(danglingReferences(store.objects)).toEqual([]);
    expect(rootMissing(store.objects)).toEqual([]);
  };
  const faulty = new FaultClient(store, allowed, mode, check);
  // Without --delete-stale the run plans from the roots alone (the diff path); with it, it also lists.
  const interrupted = await publish(dirB, faulty, deleteStale, 1);
  check();
  if (!interrupted.ok) expect(interrupted.problems[0]!.message).toMatch(/failed|hang up|SlowDown/);

  // Clean reruns, far enough apart for every stale key's safety clock: exactly build B.
  for (const minutes of [2, 10, 20]) {
    const rerun = await publish(dirB, new FaultClient(store, Infinity, 'crash', check), true, minutes);
    expect(rerun.problems).toEqual([]);
  }
  expect(await bucketMismatches(store.objects, dirB, '', (key) => BOOKKEEPING.has(key))).toEqual([]);
  return { interruptedOk: interrupted.ok, calls: faulty.calls };
}

describe('an interrupted publish', () => {
  it('keeps every published JSON pointing at existing images for every k, and a rerun converges', async () => {
    // Count the operations of an uninterrupted publish first, then interrupt after each one.
    for (const deleteStale of [true, false]) {
      const { calls: total } = await interruptedThenRerun([0], [1], 2, Infinity, 'crash', deleteStale);
      expect(total).toBeGreaterThan(8);
      for (let k = 0; k < total; k++) {
        const { interruptedOk } = await interruptedThenRerun([0], [1], 2, k, k % 2 ? 'crash' : 'fail', deleteStale);
        expect(interruptedOk).toBe(false);
      }
    }
  }, 240_000);

  it('holds for any mix of removed, edited and added records and any interruption point (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([0, 1, 2, 3, 4]),
        fc.subarray([0, 1, 2]),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 40 }),
        fc.constantFrom<'crash' | 'fail'>('crash', 'fail'),
        async (removed, changed, added, allowed, mode) => {
          await interruptedThenRerun(removed, changed, added, allowed, mode);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it('deletes nothing when any step before the deletions failed, even with expired clocks', async () => {
    const { a, b } = scenario([0, 1], [], 0);
    const dirA = join(temp.path, `a${runNumber}`);
    const dirB = join(temp.path, `b${runNumber}`);
    const dirC = join(temp.path, `c${runNumber++}`);
    await writeSyntheticDist(dirA, a);
    await writeSyntheticDist(dirB, b);
    await writeSyntheticDist(dirC, [...b, ...syntheticRecords(1, 'late')]);
    const store = new MemoryS3('pepe-faults');
    expect((await publish(dirA, store)).ok).toBe(true);
    // By-id answers of the removed records go at once (nothing points at them); the next run starts the images' clocks.
    const first = (await publish(dirB, store, true, 0)).plan!.deletions;
    expect(first).toHaveLength(4);
    for (const key of first) expect(key).toMatch(/^(api|v1)\/pepe\//);
    expect((await publish(dirB, store, true, 1)).plan!.kept.filter((k) => k.key.startsWith('images/'))).toHaveLength(2);
    const keysBefore = [...store.objects.keys()].sort();
    // Fails at the first write of the next publish, 10 minutes later (stale documents are due).
    let writes = 0;
    const failingWrites: S3Like = {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      async send(command: any) {
        if (/Put|Delete/.test(command.constructor.name) && ++writes >= 3) throw Object.assign(new Error('boom'), { name: 'InternalError', $metadata: { httpStatusCode: 500 } });
        return store.send(command);
      },
    };
    const failed = await publish(dirC, failingWrites, true, 10);
    expect(failed.ok).toBe(false);
    expect(failed.plan!.deletions.length).toBeGreaterThan(0); // they were due…
    expect(failed.counts.deleted).toBe(0); // …but nothing was deleted
    for (const key of keysBefore) expect(store.objects.has(key)).toBe(true);
  });
});
