/**
 * What one change costs, at 1k and 10k records (--quick: 500; PEPE_BENCH_CHANGE_SIZES=100000
 * for the scale target): an add dated now, a back-dated add, a tag edit and a removal, each
 * built by a fresh `pepe build` process and published to an in-memory S3 bucket. Per change:
 * files the build wrote and deleted and their bytes, PUTs and bytes uploaded (the added
 * record's own images apart), the fresh build against a no-change build of the same minutes
 * (wall and CPU seconds), and the publish (without `--delete-stale`). Then a no-op publish, and one with `--delete-stale`.
 * Before all that, the builds alone in paired rounds (PEPE_BENCH_CHANGE_ROUNDS, default 3; --quick 1):
 * each change right after a no-change build, their gaps as medians. The content is small fixture pictures with dates an
 * hour apart, kept in .bench/ and put back as it was after every run; with PEPE_BENCH_CHANGE_KEEP=1 the build is kept there too.
 * PEPE_BENCH_CHANGE_STEADY=N first edits N random tag lists a build until the manifest's delta
 * is at its bound, the state a long-lived catalogue is in; PEPE_BENCH_CHANGE_DIR=DIR builds
 * DIR/content into DIR/dist and DIR/cache and counts uploads from what the build wrote (no
 * bucket, no no-change builds).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { lstat, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publishBuild } from '../publish/publish.js';
import { MemoryS3 } from '../publish/testing/memory-s3.js';
import { FIXTURE_URLS, fixtureId, fixtureImage } from '../testing/fixture-catalogue.js';
import { makeFolders } from '../shared/make-folders.js';
import { seededRandom } from '../shared/seeded-random.js';
import { DELTA_MAX_LINES, MANIFEST_FILE, type ManifestRoot } from '../shared/manifest.js';
import { type Bench, type BenchContext, median, round } from './context.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BUCKET = 'pepe-change-bench';
/** Dates an hour apart from 2000 on: a million records stay in the past. */
const createdAt = (index: number): string => new Date(Date.UTC(2000, 0, 1) + index * 3_600_000).toISOString();
const TAGS = [['smug'], ['sad', 'rain'], null, ['coffee', 'morning', 'smug'], ['classic']];

async function makeChangeContent(dir: string, count: number, log: (m: string) => void): Promise<void> {
  const marker = join(dir, '.complete');
  if ((await readFile(marker, 'utf8').catch(() => '')) === String(count)) return;
  log(`writing ${count} fixture images to ${dir}`);
  await rm(dir, { recursive: true, force: true });
  for (let index = 0; index < count; index++) {
    const folder = join(dir, `f${Math.floor(index / 1000)}`);
    if (index % 1000 === 0) await makeFolders(folder);
    const { bytes, ext } = await fixtureImage(index);
    const name = join(folder, `pepe-${index}`);
    await writeFile(`${name}${ext}`, bytes);
    await writeFile(`${name}.json`, `${JSON.stringify({ id: fixtureId(`change-${index}`), description: `pepe number ${index}`, tags: TAGS[index % TAGS.length], created_at: createdAt(index) })}\n`);
  }
  await writeFile(marker, String(count));
}

/** Every file below `dir` with what changes when a build replaces it (inode, mtime, size). */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const walk = async (rel: string): Promise<void> => {
    for (const entry of await readdir(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(path);
      else {
        const s = await lstat(join(dir, path));
        files.set(path, `${s.ino}:${s.mtimeMs}:${s.size}`);
      }
    }
  };
  await walk('');
  return files;
}

/** Files written (new or replaced) and deleted between two snapshots, with the written bytes. */
function diff(before: Map<string, string>, after: Map<string, string>): { written: number; bytes: number; deleted: number } {
  let written = 0;
  let bytes = 0;
  for (const [path, mark] of after) {
    if (before.get(path) === mark) continue;
    written++;
    bytes += Number(mark.split(':')[2]);
  }
  let deleted = 0;
  for (const path of before.keys()) if (!after.has(path)) deleted++;
  return { written, bytes, deleted };
}

/** What a publish uploads of a build's files: the site and the manifest (data/ and functions/ are deployed otherwise). */
const uploaded = (path: string): boolean => path.startsWith('site/') || path.startsWith('manifest');

/** The kind of an output file, for where a change's bytes go. */
function kindOf(path: string, deltaParts: ReadonlySet<string>): string {
  if (deltaParts.has(path)) return 'delta';
  const kinds: [RegExp, string][] = [
    [/^manifest/, 'manifest'],
    [/^site\/dataset\/shards\/.*\.jsonl$/, 'shard'],
    [/^site\/dataset\/shards\//, 'checksums'],
    [/^site\/dataset\//, 'dataset index'],
    [/^site\/sitemap/, 'sitemap'],
    [/^site\/api\/listing\//, 'listing'],
    [/^site\/(api|v1)\/pepe\//, 'answers'],
    [/^site\/(p|oembed)\//, 'share pages'],
    [/^site\/images\//, 'images'],
    [/^site\//, 'other site'],
  ];
  return kinds.find(([pattern]) => pattern.test(path))?.[1] ?? 'not uploaded';
}

/** The files a build wrote that a publish uploads, besides the record's own images: count, bytes, and KB by kind, largest first. */
async function whatUploads(outDir: string, before: Map<string, string>, after: Map<string, string>, ownId: string | null): Promise<{ files: number; bytes: number; kinds: string }> {
  const root = JSON.parse(await readFile(join(outDir, MANIFEST_FILE), 'utf8')) as ManifestRoot;
  const deltaParts = new Set(Object.values(root.delta?.parts ?? {}).map((ref) => `manifest/${ref.sha256}.json`));
  const byKind = new Map<string, number>();
  let files = 0;
  let bytes = 0;
  for (const [path, mark] of after) {
    if (before.get(path) === mark || !uploaded(path) || (ownId && path.startsWith(`site/images/${ownId}`))) continue;
    const size = Number(mark.split(':')[2]);
    files++;
    bytes += size;
    const kind = kindOf(path, deltaParts);
    byKind.set(kind, (byKind.get(kind) ?? 0) + size);
  }
  const kinds = [...byKind].sort((a, b) => b[1] - a[1]).map(([kind, size]) => `${kind} ${Math.round(size / 1000)}`).join(', ');
  return { files, bytes, kinds };
}

/** Lines of the manifest's delta in `outDir`. */
const deltaLines = async (outDir: string): Promise<number> => (JSON.parse(await readFile(join(outDir, MANIFEST_FILE), 'utf8')) as ManifestRoot).delta?.files ?? 0;

/**
 * CPU seconds (user and system, every thread) of the child processes this one has waited
 * for, from /proc/self/stat (cutime and cstime, in ticks of 1/100 s); null without /proc.
 */
async function childrenCpu(): Promise<number | null> {
  const stat = await readFile('/proc/self/stat', 'utf8').catch(() => null);
  if (stat === null) return null;
  // The fields after the command name (in parentheses, and it may hold spaces) start at the third.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[16 - 3]) + Number(fields[17 - 3])) / 100;
}

/** Wall and CPU seconds of a build (CPU null where unknown): on two cores it takes at least half its CPU time. */
interface BuildTime {
  seconds: number;
  cpu: number | null;
}

/** `pepe build` in a new process, as a maintainer or CI runs it. */
async function freshBuild(contentDir: string, outDir: string, cacheDir: string): Promise<BuildTime> {
  const cpuBefore = await childrenCpu();
  const { GLIBC_TUNABLES: _tunedHere, ...env } = process.env;
  const args = ['build', '--content', contentDir, '--out', outDir, '--cache', cacheDir, '--base-url', FIXTURE_URLS.baseUrl, '--api-url', FIXTURE_URLS.apiUrl, '--cdn-url', FIXTURE_URLS.cdnUrl];
  const started = performance.now();
  const child = spawn(process.execPath, [resolve(REPO, 'tools/pepe.mjs'), ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`pepe build exited with ${code}: ${stderr.slice(0, 1000)}`);
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = await childrenCpu();
  return { seconds, cpu: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore };
}

/** Wall seconds, and CPU seconds in parentheses when known. */
const timed = ({ seconds, cpu }: BuildTime): string => `${round(seconds, 2)}${cpu === null ? '' : ` (${round(cpu, 2)})`}`;

/** The median of each of a series of builds' wall and CPU seconds. */
const medianBuild = (builds: readonly BuildTime[]): BuildTime => ({
  seconds: median(builds.map((build) => build.seconds)),
  cpu: builds.some((build) => build.cpu === null) ? null : median(builds.map((build) => build.cpu!)),
});

interface Published {
  seconds: number;
  puts: number;
  /** Bytes of objects written, and of those not under the changed record's own image keys. */
  bytes: number;
  otherBytes: number;
  deletes: number;
}

/** Publishes `outDir` to the bucket (with `deleteStale`, clocks moved past their wait) and counts what it wrote. */
async function publish(s3: MemoryS3, outDir: string, ownId: string | null, clock: { now: number }, deleteStale = false): Promise<Published> {
  const before = new Map([...s3.objects].map(([key, object]) => [key, object.etag]));
  const puts = s3.calls.PutObject ?? 0;
  const deletes = s3.calls.DeleteObjects ?? 0;
  const started = performance.now();
  const result = await publishBuild({ bucket: BUCKET, dir: outDir, deleteStale, netlifyToml: join(REPO, 'netlify.toml') }, { client: s3, now: () => new Date(clock.now) });
  const seconds = (performance.now() - started) / 1000;
  clock.now += 3_600_000;
  if (!result.ok) throw new Error(`publish failed: ${result.problems.map((p) => p.message).slice(0, 3).join('; ')}`);
  let bytes = 0;
  let otherBytes = 0;
  for (const [key, object] of s3.objects) {
    if (before.get(key) === object.etag) continue;
    bytes += object.bytes.length;
    if (!(ownId && key.startsWith(`images/${ownId}`))) otherBytes += object.bytes.length;
  }
  return { seconds, puts: (s3.calls.PutObject ?? 0) - puts, bytes, otherBytes, deletes: (s3.calls.DeleteObjects ?? 0) - deletes };
}

/** Writes a file by rename, so a content folder hard-linked elsewhere is never edited through the link. */
async function replaceText(path: string, text: string): Promise<void> {
  await writeFile(`${path}.bench-tmp`, text);
  await rename(`${path}.bench-tmp`, path);
}

/**
 * Edits `perBuild` random tag lists (seeded, so runs compare) and builds, until the manifest's
 * delta is within a tenth of its bound, then once more: where it settles, folding a few
 * segments a build. `edits` keeps each edited sidecar's first text, to put back.
 */
async function warmDelta(ctx: BenchContext, run: { contentDir: string; outDir: string; cacheDir: string; count: number; perBuild: number; skip: string; edits: Map<string, string> }): Promise<void> {
  const random = seededRandom(35);
  for (let build = 0, atBound = 0; atBound < 2 && build < 200; build++) {
    for (let n = 0; n < run.perBuild; n++) {
      const index = Math.floor(random() * run.count);
      const path = join(run.contentDir, `f${Math.floor(index / 1000)}`, `pepe-${index}.json`);
      if (path === run.skip) continue;
      const text = await readFile(path, 'utf8');
      if (!run.edits.has(path)) run.edits.set(path, text);
      const sidecar = JSON.parse(text) as { tags: string[] | null };
      await replaceText(path, `${JSON.stringify({ ...sidecar, tags: [...(sidecar.tags ?? []).slice(0, 4), `steady-${build}`] })}\n`);
    }
    await freshBuild(run.contentDir, run.outDir, run.cacheDir);
    const lines = await deltaLines(run.outDir);
    if (lines >= DELTA_MAX_LINES * 0.9) atBound++;
    ctx.log(`steady state: build ${build + 1}, ${run.perBuild} edits, delta ${lines} lines (bound ${DELTA_MAX_LINES})`);
  }
}

async function runSize(ctx: BenchContext, count: number): Promise<{ rows: Record<string, string | number>[]; paired: Record<string, string | number>[] }> {
  // PEPE_BENCH_CHANGE_DIR=DIR: a state made elsewhere (a 100k build takes long cold), measured without a bucket.
  const own = process.env.PEPE_BENCH_CHANGE_DIR;
  const contentDir = own ? join(own, 'content') : resolve('.bench', `change-content-${count}`);
  if (!own) await makeChangeContent(contentDir, count, ctx.log);
  // PEPE_BENCH_CHANGE_KEEP=1 keeps the build beside the content, so a rerun at 100k starts from it instead of cold.
  const stateRoot = process.env.PEPE_BENCH_CHANGE_KEEP === '1' ? resolve('.bench', `change-state-${count}`) : ctx.tmpRoot;
  const outDir = own ? join(own, 'dist') : join(stateRoot, `dist-${count}`);
  const cacheDir = own ? join(own, 'cache') : join(stateRoot, `cache-${count}`);
  const s3 = own ? null : new MemoryS3(BUCKET);
  const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
  // A run stopped before its `finally` leaves its added records behind, and adding the same bytes again then writes nothing.
  for (const name of await readdir(contentDir)) if (name.startsWith('zz-added-')) await rm(join(contentDir, name));
  ctx.log(`first build (cold unless kept) and first publish of ${count} records`);
  const { seconds: coldSeconds } = await freshBuild(contentDir, outDir, cacheDir);
  const edited = join(contentDir, `f${Math.floor(count / 2 / 1000)}`, `pepe-${Math.floor(count / 2)}.json`);
  const original = await readFile(edited, 'utf8');
  const added = join(contentDir, 'zz-added');
  const addImage = async (n: number, when: string): Promise<string> => {
    const image = await fixtureImage(count + 1000 + n);
    const id = fixtureId(`change-added-${count}-${n}`);
    await writeFile(`${added}-${n}${image.ext}`, image.bytes);
    await writeFile(`${added}-${n}.json`, JSON.stringify({ id, description: 'added', tags: ['added'], created_at: when }));
    return id;
  };
  const removeAdded = async (n: number) => {
    for (const name of await readdir(contentDir)) if (name.startsWith(`zz-added-${n}.`)) await rm(join(contentDir, name));
  };
  const addNow = () => addImage(1, new Date(Date.UTC(2026, 0, 1)).toISOString());
  const addBackDated = () => addImage(2, createdAt(Math.floor(count / 3)).replace(':00.000Z', ':30.000Z'));
  const tagEdit = async (edit: boolean) => {
    const sidecar = JSON.parse(original) as { tags: string[] | null };
    const text = edit ? `${JSON.stringify({ ...sidecar, tags: [...(sidecar.tags ?? []), 'edited'] })}\n` : original;
    // Only when it differs: a file written again has a new stat, and the next build reads it (no longer a no-change build).
    if ((await readFile(edited, 'utf8')) !== text) await replaceText(edited, text);
  };
  // The builds alone first, from the state just built: each change paired with the no-change build before it.
  const rounds = Number(process.env.PEPE_BENCH_CHANGE_ROUNDS ?? (ctx.quick ? 1 : 3));
  if (!(Number.isInteger(rounds) && rounds >= 0)) throw new Error(`PEPE_BENCH_CHANGE_ROUNDS must be a whole number of rounds (0: none), not "${process.env.PEPE_BENCH_CHANGE_ROUNDS}"`);
  const changes: PairedChange[] = [
    { change: 'add one, dated now', apply: addNow },
    { change: 'remove one', apply: () => removeAdded(1) },
    { change: 'add one, back-dated', apply: addBackDated, undo: () => removeAdded(2) },
    { change: 'edit one tag list', apply: () => tagEdit(true), undo: () => tagEdit(false) },
  ];
  let paired: Record<string, string | number>[] = [];
  try {
    if (!own && rounds > 0) paired = await pairedRounds(ctx, count, rounds, changes, () => freshBuild(contentDir, outDir, cacheDir));
  } finally {
    await tagEdit(false);
    await removeAdded(1);
    await removeAdded(2);
  }
  const first = s3 ? await publish(s3, outDir, null, clock) : { seconds: 0, puts: 0 };
  const rows: Record<string, string | number>[] = [];
  const noChange: BuildTime[] = [];
  const steadyEdits = new Map<string, string>();
  const steadyPerBuild = Number(process.env.PEPE_BENCH_CHANGE_STEADY ?? 0);
  const state = steadyPerBuild > 0 ? 'steady' : 'young';
  const row = async (change: string, apply: () => Promise<string | null>, undo?: () => Promise<void>) => {
    // A state of one's own is measured for what a change writes, not timed against a no-change build.
    if (!own) noChange.push(await freshBuild(contentDir, outDir, cacheDir));
    const before = await snapshot(outDir);
    const ownId = await apply();
    const build = await freshBuild(contentDir, outDir, cacheDir);
    const after = await snapshot(outDir);
    const written = diff(before, after);
    const uploads = await whatUploads(outDir, before, after, ownId);
    const published = s3 ? await publish(s3, outDir, ownId, clock) : null;
    rows.push({
      records: count,
      delta: `${state}, ${await deltaLines(outDir)} lines`,
      change,
      'files written / deleted': `${written.written} / ${written.deleted}`,
      'MB written': round(written.bytes / 1e6, 2),
      PUTs: published ? published.puts : `${uploads.files} (files)`,
      'MB uploaded (besides its own images)': published ? `${round(published.bytes / 1e6, 2)} (${round(published.otherBytes / 1e6, 2)})` : `(${round(uploads.bytes / 1e6, 2)})`,
      'KB by kind (besides its own images)': uploads.kinds,
      'fresh build s (CPU s)': timed(build),
      'no-change build s (CPU s; medians so far)': noChange.length ? timed(medianBuild(noChange)) : '',
      'publish s': published ? round(published.seconds, 2) : '',
    });
    await undo?.();
  };
  try {
    if (steadyPerBuild > 0) {
      await warmDelta(ctx, { contentDir, outDir, cacheDir, count, perBuild: steadyPerBuild, skip: edited, edits: steadyEdits });
      // The bucket takes the warmed state, so the first change's publish counts that change alone.
      if (s3) await publish(s3, outDir, null, clock);
    }
    await row('add one, dated now', addNow);
    await row('add one, back-dated', addBackDated);
    await row('edit one tag list', async () => {
      await tagEdit(true);
      return null;
    });
    await row('remove one', async () => {
      await removeAdded(1);
      return null;
    });
    if (!s3) return { rows, paired };
    // A publish of no change, then the run that deletes stale keys, as a workflow's `--delete-stale` does: it lists the bucket.
    const publishOnly = async (change: string, deleteStale: boolean) => {
      const published = await publish(s3, outDir, null, clock, deleteStale);
      rows.push({
        records: count,
        delta: state,
        change,
        'files written / deleted': `0 / ${published.deletes ? `${published.deletes} DeleteObjects` : 0}`,
        'MB written': 0,
        PUTs: published.puts,
        'MB uploaded (besides its own images)': round(published.bytes / 1e6, 2),
        'KB by kind (besides its own images)': '',
        'fresh build s (CPU s)': '',
        'no-change build s (CPU s; medians so far)': timed(medianBuild(noChange)),
        'publish s': round(published.seconds, 2),
      });
    };
    await publishOnly('nothing (no-op publish)', false);
    await publishOnly('`--delete-stale` after the changes', true);
  } finally {
    await tagEdit(false);
    for (const [path, text] of steadyEdits) await replaceText(path, text);
    await removeAdded(1);
    await removeAdded(2);
  }
  const files = (await snapshot(outDir)).size;
  ctx.log(`${count} records: first build ${round(coldSeconds, 1)} s, first publish ${round(first.seconds, 1)} s, ${first.puts} PUTs, ${files} output files`);
  return { rows, paired };
}

/** A change the paired rounds make, and what puts the content back when the next change does not. */
interface PairedChange {
  change: string;
  apply: () => Promise<unknown>;
  undo?: () => Promise<unknown>;
}

/**
 * The fresh builds alone, `rounds` times: each change right after a no-change build, so that a
 * round's gap pairs builds of the same minutes, and the median of the rounds' gaps is the figure
 * (one build a cell swings by seconds at 100k). The undo's build is not counted.
 */
async function pairedRounds(ctx: BenchContext, count: number, rounds: number, changes: readonly PairedChange[], build: () => Promise<BuildTime>): Promise<Record<string, string | number>[]> {
  const samples = new Map(changes.map(({ change }) => [change, [] as { build: BuildTime; before: BuildTime }[]]));
  for (let at = 1; at <= rounds; at++) {
    ctx.log(`${count} records: paired round ${at} of ${rounds}`);
    for (const { change, apply, undo } of changes) {
      const before = await build();
      await apply();
      samples.get(change)!.push({ build: await build(), before });
      if (undo) {
        await undo();
        await build();
      }
    }
  }
  const span = (values: number[]) => `${round(median(values), 2)} (${round(Math.min(...values), 2)}–${round(Math.max(...values), 2)})`;
  return changes.map(({ change }) => {
    const pairs = samples.get(change)!;
    const cpu = pairs.every((pair) => pair.build.cpu !== null) ? round(median(pairs.map((pair) => pair.build.cpu!)), 2) : '';
    return {
      records: count,
      change,
      rounds,
      'fresh build s, median (min–max)': span(pairs.map((pair) => pair.build.seconds)),
      'CPU s, median': cpu,
      'no-change build before it s': span(pairs.map((pair) => pair.before.seconds)),
      'minus no change s, median of the rounds (min–max)': span(pairs.map((pair) => pair.build.seconds - pair.before.seconds)),
    };
  });
}

export default {
  name: 'change',
  async run(ctx) {
    const override = process.env.PEPE_BENCH_CHANGE_SIZES?.split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0);
    const sizes = override?.length ? override : ctx.quick ? [500] : [1000, 10_000];
    for (const size of sizes) {
      const { rows, paired } = await runSize(ctx, size);
      ctx.table(`${size} records: what one change writes, uploads and takes (fresh \`pepe build\`, publish to an in-memory bucket); the repeats of a figure are in HISTORY.md`, rows);
      if (paired.length > 0) ctx.table(`${size} records: a change's fresh build against the no-change build just before it, in paired rounds (PEPE_BENCH_CHANGE_ROUNDS)`, paired);
    }
  },
} satisfies Bench;
