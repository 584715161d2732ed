/**
 * `pepe publish` on a synthetic build output (10k records = 10k small images + 20k by-id
 * JSON + a few files + manifest; --quick: 1k records), written directly (no sharp), against
 * a local s3rver in a child process. Cases: first publish (objects/s, MB/s), no-op
 * republish (target: no PUT, ≤ 2 s), one image added (target: only the changed objects,
 * ≤ 3 s). Baseline, in the same run against the same server: what a size/mtime sync does
 * after a rebuild, i.e. upload every object again (plain PutObject, same concurrency),
 * measured on a sample and given as seconds for the whole build at the sample's rate.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { publishBuild } from '../publish/publish.js';
import { keyForPath } from '../publish/object-keys.js';
import { runPool } from '../publish/run-pool.js';
import { countingClient } from '../publish/testing/counting-client.js';
import { startS3rver } from '../publish/testing/s3rver-process.js';
import { syntheticRecords, writeSyntheticDist } from '../publish/testing/synthetic-dist.js';
import type { PublishResult } from '../publish/types.js';
import { type Bench, round } from './context.js';

const CONCURRENCY = 16;
const BASELINE_SAMPLE = 2000;

/**
 * What a size/mtime sync does after a rebuild: PUT every object again (plain PutObject,
 * same concurrency), timed on a sample of BASELINE_SAMPLE objects and scaled to the build.
 */
async function baseline(client: S3Client, dir: string, paths: string[], when: string): Promise<Record<string, string | number>> {
  const sample = paths.slice(0, Math.min(BASELINE_SAMPLE, paths.length));
  const start = performance.now();
  let bytes = 0;
  const failure = await runPool(sample, CONCURRENCY, async (path) => {
    const body = await readFile(join(dir, path));
    bytes += body.length;
    await client.send(new PutObjectCommand({ Bucket: 'pepe-baseline', Key: keyForPath('', path), Body: body }));
  });
  if (failure) throw failure;
  const seconds = (performance.now() - start) / 1000;
  const rate = sample.length / seconds;
  return {
    case: `baseline ${when}: re-upload all (rate from ${sample.length})`,
    objects: paths.length,
    PUTs: paths.length,
    'MB up': '',
    seconds: round(paths.length / rate),
    'publisher CPU s': '',
    'load avg': round(loadavg()[0]!, 1),
    'objects/s': round(rate, 0),
    'MB/s': round(bytes / 1e6 / seconds),
    target: '',
    'phases (ms)': '',
  };
}

export default {
  name: 'publish',
  async run(ctx) {
    const records = ctx.quick ? 1000 : 10_000;
    const dir = join(ctx.tmpRoot, 'dist');
    const all = syntheticRecords(records);
    ctx.log(`writing a synthetic build of ${records} records`);
    const paths = await writeSyntheticDist(dir, all);
    const s3 = await startS3rver(['pepe-bench', 'pepe-baseline']);
    try {
      const counting = countingClient(s3.endpoint);
      const netlifyToml = join(import.meta.dirname, '../../netlify.toml');
      const publish = async (): Promise<{ result: PublishResult; seconds: number; puts: number; cpu: number; load: number }> => {
        counting.reset();
        const load = loadavg()[0]!;
        const cpuStart = process.cpuUsage();
        const start = performance.now();
        const result = await publishBuild({ bucket: 'pepe-bench', dir, concurrency: CONCURRENCY, netlifyToml }, { client: counting.client });
        const seconds = (performance.now() - start) / 1000;
        if (!result.ok) throw new Error(`publish failed: ${result.problems.map((p) => p.message).join('; ')}`);
        const cpu = process.cpuUsage(cpuStart);
        return { result, seconds, puts: counting.counts.PUT ?? 0, cpu: (cpu.user + cpu.system) / 1e6, load };
      };
      const rows: Record<string, string | number>[] = [];
      const row = (name: string, r: { result: PublishResult; seconds: number; puts: number; cpu: number; load: number }, target: string) =>
        rows.push({
          case: name,
          objects: r.result.counts.uploaded + r.result.counts.skipped,
          PUTs: r.puts,
          'MB up': round(r.result.bytes.uploaded / 1e6),
          seconds: round(r.seconds),
          // The publisher's own CPU (s3rver runs in another process) and the machine's load
          // when the case started: on a shared 2-core machine wall time alone says little.
          'publisher CPU s': round(r.cpu),
          'load avg': round(r.load, 1),
          'objects/s': round(r.result.counts.uploaded / r.seconds, 0),
          'MB/s': round(r.result.bytes.uploaded / 1e6 / r.seconds),
          target,
          'phases (ms)': Object.entries(r.result.timings).map(([k, v]) => `${k} ${v}`).join(', '),
        });

      // The baseline runs before and after the publishes: the machine's load drifts.
      rows.push(await baseline(counting.client, dir, paths, 'before'));
      ctx.log(`first publish of ${paths.length} objects`);
      row('first publish', await publish(), '');
      ctx.log('no-op republish');
      row('no-op republish', await publish(), 'no PUT, ≤ 2 s');
      await writeSyntheticDist(dir, [...all, ...syntheticRecords(1, 'added')]);
      ctx.log('one image added');
      row('one image added', await publish(), '6 PUTs (image, 2 by-id JSON, 2 manifest segments, root) + run marker, ≤ 3 s');

      rows.push(await baseline(counting.client, dir, paths, 'after'));
      const fullSeconds = ((rows[0]!.seconds as number) + (rows[4]!.seconds as number)) / 2;
      const noop = rows[2]!.seconds as number;
      const added = rows[3]!.seconds as number;
      rows.push({ case: 'ratio first publish / baseline', objects: '', PUTs: '', 'MB up': '', seconds: round((rows[1]!.seconds as number) / fullSeconds, 3), 'publisher CPU s': '', 'load avg': '', 'objects/s': '', 'MB/s': '', target: '', 'phases (ms)': '' });
      rows.push({ case: 'ratio no-op / baseline', objects: '', PUTs: '', 'MB up': '', seconds: round(noop / fullSeconds, 3), 'publisher CPU s': '', 'load avg': '', 'objects/s': '', 'MB/s': '', target: '', 'phases (ms)': '' });
      rows.push({ case: 'ratio one-added / baseline', objects: '', PUTs: '', 'MB up': '', seconds: round(added / fullSeconds, 3), 'publisher CPU s': '', 'load avg': '', 'objects/s': '', 'MB/s': '', target: '', 'phases (ms)': '' });
      ctx.table(`${records} records against s3rver (concurrency ${CONCURRENCY})`, rows);
    } finally {
      await s3.stop();
    }
  },
} satisfies Bench;
