/**
 * The catalogue build on a synthetic corpus (mixed PNG/JPEG/WebP/GIF, 256–2048 px,
 * 20 KB–1 MB; 1k and 10k images, --quick: 200): cold build images/s, no-change and
 * one-added rebuild seconds, the time split, peak RSS; and, in the same run over the
 * same files, the naive pipeline (sharp resize per hash + npm blurhash), so the headline
 * figure is a ratio that machine load cannot fake (wall-clock and CPU-time ratios); and a
 * naive exact pipeline, which computes the same (Pillow-exact) phash as the build, plainly;
 * and two floors: one full decode per image and nothing else, the least an exact phash needs.
 * Rebuild costs are also measured on 10k small fixture images (--quick: 500), which take
 * seconds to generate. Corpora live in .bench/ and are reused.
 * Env: PEPE_BENCH_BUILD_SIZES / PEPE_BENCH_REBUILD_SIZES (comma-separated, 0 = skip).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { cp, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCatalogue, type BuildResult } from '../catalogue/build-catalogue.js';
import { naiveAnalyse, naiveExactAnalyse } from './naive-pipeline.js';
import { FIXTURE_URLS, fixtureCreatedAt, fixtureId, fixtureImage, makeFixtureContent } from '../testing/fixture-catalogue.js';
import type { SiteUrls } from '../../functions/core/record.js';
import { type Bench, type BenchContext, median, round } from './context.js';
import type { DecodeFloorResult } from './decode-floor.js';
import { CONCURRENCY, cpuSeconds, pipelineRate } from './pipeline-rate.js';
import { syntheticImageCorpus } from './synthetic-images.js';
import { RENDITION_SETTINGS, type RenditionSettings } from '../image/renditions.js';

/** The same build making no rendition: the baseline of the renditions' share of a cold build. */
const NO_RENDITIONS: RenditionSettings = { ...RENDITION_SETTINGS, widths: [] };

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Sidecars for the corpus images, written beside them once (ids derived from the file name). */
async function ensureSidecars(files: string[]): Promise<void> {
  for (const [i, file] of files.entries()) {
    const sidecar = file.slice(0, file.length - extname(file).length) + '.json';
    const exists = await readFile(sidecar).then(() => true, () => false);
    if (exists) continue;
    const created = new Date(Date.UTC(2018, 0, 1) + i * 3_600_000 * 7).toISOString();
    await writeFile(sidecar, JSON.stringify({ id: fixtureId(`bench-${basename(file)}`), description: `Synthetic picture ${i}`, tags: ['bench', `group-${i % 17}`], created_at: created }));
  }
}

/** Peak RSS during `work`, sampled every 20 ms (the process high-water mark would include earlier stages). */
async function withPeakRss<T>(work: () => Promise<T>): Promise<{ value: T; peakMb: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { value, peakMb: peak / 1024 / 1024 };
  } finally {
    clearInterval(timer);
  }
}

/**
 * A full garbage collection, so that a timed build starts from a collected heap as a fresh
 * `pepe build` process does, instead of paying for the garbage of the build measured before it.
 */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/**
 * Runs `fn` with one more fixture image (number `n`, so each call decodes a new one) in the
 * content, removed afterwards. `createdAt` places it in the catalogue's order: after every
 * other image is what `pepe add` does (it dates an image now).
 */
async function withAddedImage<T>(contentDir: string, n: number, createdAt: string, fn: () => Promise<T>, scale = 1): Promise<T> {
  const added = await fixtureImage(n, scale);
  const addedImage = join(contentDir, `zz-added${added.ext}`);
  const addedSidecar = join(contentDir, 'zz-added.json');
  try {
    await writeFile(addedImage, added.bytes);
    await writeFile(addedSidecar, JSON.stringify({ id: fixtureId(`bench-added-${n}`), description: 'added', tags: null, created_at: createdAt }));
    return await fn();
  } finally {
    await rm(addedImage, { force: true });
    await rm(addedSidecar, { force: true });
  }
}

const urlFlags = (urls: SiteUrls) => ['--base-url', urls.baseUrl, '--api-url', urls.apiUrl, '--cdn-url', urls.cdnUrl];

/**
 * Wall seconds of `node tools/pepe.mjs …` in a new process, as a user runs it: without this
 * process's GLIBC_TUNABLES, so that the command re-runs itself with them as it does for users.
 */
async function timedCli(args: string[], env: Record<string, string>): Promise<number> {
  return (await timedCliRun(args, env)).seconds;
}

/** timedCli with the command's stderr (its summary line: images, cache hits). */
async function timedCliRun(args: string[], env: Record<string, string>): Promise<{ seconds: number; stderr: string }> {
  const { GLIBC_TUNABLES: _tunedHere, ...base } = process.env;
  const started = performance.now();
  const child = spawn(process.execPath, [resolve(REPO, 'tools/pepe.mjs'), ...args], { env: { ...base, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`pepe ${args.join(' ')} exited with ${code}: ${stderr.slice(0, 1000)}`);
  return { seconds: (performance.now() - started) / 1000, stderr };
}

/** Wall seconds of a bare `node -e 0`, best of 3: the start-up every fresh `pepe build` pays. */
async function nodeStartSeconds(): Promise<number> {
  const runs: number[] = [];
  for (let k = 0; k < 3; k++) {
    const started = performance.now();
    await once(spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }), 'exit');
    runs.push((performance.now() - started) / 1000);
  }
  return Math.min(...runs);
}

/** The fresh-clone table row, beside the cold build of the same run. */
function cloneFigures(count: number, coldSeconds: number, { floorSeconds, startSeconds, ...figures }: Awaited<ReturnType<typeof freshCloneRun>>) {
  return { images: count, 'cold build s (in process)': round(coldSeconds, 2), ...figures, 'cold ÷ (floor + node start)': round(coldSeconds / (floorSeconds + startSeconds), 2) };
}

/**
 * What a CI run pays with the analysis cache carried over (netlify.toml's cache plugin,
 * .github/workflows/publish.yml): a fresh clone (the content copied: new inodes and mtimes,
 * so the stat cache misses everywhere), the cache folder restored, no output folder, and
 * `pepe build` in a new process. Against its I/O floor, measured on the same files just
 * before: copying the content once (the build copies every image into the output) and
 * hashing every file (what trusting the cache by content costs). The clone's output must be
 * byte-identical to the cold build's (`referenceOut`, same URLs).
 */
async function freshCloneRun(ctx: BenchContext, label: string, linkedContentDir: string, cacheDir: string, referenceOut: string) {
  const root = join(ctx.tmpRoot, `clone-${label}`);
  // The corpus folder may be a symlink to a shared one: `cp` would copy the link, not the files.
  const contentDir = await realpath(linkedContentDir);
  await rm(root, { recursive: true, force: true });
  // I/O floor: one copy of the content, then sha256 of every file, CONCURRENCY at a time.
  collectGarbage();
  const floorStarted = performance.now();
  await cp(contentDir, join(root, 'floor'), { recursive: true });
  const copySeconds = (performance.now() - floorStarted) / 1000;
  const copied = (await readdir(join(root, 'floor'), { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  const hashed = await pipelineRate(copied, async (bytes) => createHash('sha256').update(bytes).digest());
  const floorSeconds = (performance.now() - floorStarted) / 1000;
  await rm(join(root, 'floor'), { recursive: true, force: true });
  // The clone and the restored cache (not timed in the build: CI does both before it).
  const restoreStarted = performance.now();
  await cp(contentDir, join(root, 'content'), { recursive: true });
  await cp(cacheDir, join(root, 'cache'), { recursive: true });
  const cloneSeconds = (performance.now() - restoreStarted) / 1000;
  const build = await timedCliRun(['build', '--content', join(root, 'content'), '--out', join(root, 'dist'), '--cache', join(root, 'cache'), ...urlFlags(FIXTURE_URLS)], {});
  const identical = (await readFile(join(root, 'dist/manifest.json'))).equals(await readFile(join(referenceOut, 'manifest.json')));
  const summary = /: (\d+) images?, .*?(\d+) cache hits?/.exec(build.stderr);
  const start = await nodeStartSeconds();
  await rm(root, { recursive: true, force: true });
  ctx.log(`fresh clone ${label}: build ${round(build.seconds, 2)} s, floor ${round(floorSeconds, 2)} s, node ${round(start, 3)} s`);
  return {
    floorSeconds,
    startSeconds: start,
    'fresh clone + cache: `pepe build` s': round(build.seconds, 2),
    'I/O floor s (copy / + hash)': `${round(floorSeconds, 2)} (${round(copySeconds, 2)} / ${round(floorSeconds - copySeconds, 2)}; ${round(hashed.rate, 0)} files/s)`,
    'bare node start s': round(start, 3),
    'fresh clone ÷ (floor + node start)': round(build.seconds / (floorSeconds + start), 2),
    'fresh clone: images / cache hits': summary ? `${summary[1]} / ${summary[2]}` : 'no summary line',
    'fresh clone output = cold output': identical ? 'identical' : 'DIFFERENT',
    'clone + restore (copies, before the build) s': round(cloneSeconds, 2),
  };
}

/** `renditions`: the build's rendition settings (default: the shipped ones; `NO_RENDITIONS`: none). */
async function timedBuild(contentDir: string, outDir: string, cacheDir: string, renditions?: RenditionSettings): Promise<{ result: BuildResult; seconds: number; cpuSeconds: number }> {
  collectGarbage();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await buildCatalogue({ contentDir, outDir, cacheDir, urls: FIXTURE_URLS, concurrency: CONCURRENCY, renditions });
  if (!result.ok) throw new Error(`benchmark build failed: ${result.problems.filter((p) => p.severity === 'error').slice(0, 3).map((p) => p.message).join('; ')}`);
  return { result, seconds: (performance.now() - started) / 1000, cpuSeconds: cpuSeconds(cpu) };
}

/** Images the floor run takes: enough for a stable rate, few enough that its rounds stay short at 10k. */
const FLOOR_SAMPLE = 2000;
const FLOOR_ROUNDS = 2;

/**
 * The full-decode floors against the naive pipeline, all in a fresh process
 * (decode-floor.ts says why), on every image of the corpus or an even sample of FLOOR_SAMPLE.
 * Any pipeline that computes the specification's phash decodes every pixel, so floor ÷ naive is
 * the most such a build can reach against the naive pipeline with nothing else to do.
 */
async function decodeFloorRun(ctx: BenchContext, files: string[]): Promise<DecodeFloorResult> {
  const step = Math.max(1, Math.floor(files.length / FLOOR_SAMPLE));
  const list = join(ctx.tmpRoot, `decode-floor-${files.length}.txt`);
  await writeFile(list, files.filter((_, k) => k % step === 0).join('\n'));
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(REPO, 'tools/bench/decode-floor.ts'), list, String(FLOOR_ROUNDS)], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the decode-floor process exited with ${code}: ${stderr.slice(0, 1000)}`);
  return JSON.parse(stdout) as DecodeFloorResult;
}

/**
 * A cold build's CPU per image against the full-decode floor of the same run (the cold-build
 * target of tools/bench/README.md), the analysis alone (the build making no rendition, like-for-like with the floor,
 * which makes none) and the whole build; and the renditions' share of the cold build, from the
 * two builds' wall and CPU times.
 */
function coldFigures(count: number, cold: Timed, bare: Timed, floor: DecodeFloorResult) {
  const cpuMs = (run: Timed) => (run.cpuSeconds * 1000) / count;
  const analysisMs = (run: Timed) => run.result.stats.timings.cpuMs / count;
  const floorMs = floor.floor.cpuMsPerImage;
  return {
    images: count,
    'cold s / CPU ms per image (analysis stage)': `${round(cold.seconds, 2)} / ${round(cpuMs(cold), 1)} (${round(analysisMs(cold), 1)})`,
    'no renditions: cold s / CPU ms per image (analysis stage)': `${round(bare.seconds, 2)} / ${round(cpuMs(bare), 1)} (${round(analysisMs(bare), 1)})`,
    'floor: full decode CPU ms per image': round(floorMs, 1),
    'cold CPU ÷ floor, no renditions (like-for-like)': round(cpuMs(bare) / floorMs, 2),
    'cold CPU ÷ floor, with renditions': round(cpuMs(cold) / floorMs, 2),
    // The floor as the build treats its frames (each freed once used): not the target's floor.
    'floor with each frame freed at once: CPU ms per image / cold ÷ it, no renditions': `${round(floor.freed.cpuMsPerImage, 1)} / ${round(cpuMs(bare) / floor.freed.cpuMsPerImage, 2)}`,
    'analysis stage CPU ÷ floor, no renditions / with': `${round(analysisMs(bare) / floorMs, 2)} / ${round(analysisMs(cold) / floorMs, 2)}`,
    'renditions share of cold wall / CPU %': `${round((100 * (cold.seconds - bare.seconds)) / cold.seconds, 1)} / ${round((100 * (cold.cpuSeconds - bare.cpuSeconds)) / cold.cpuSeconds, 1)}`,
    // The least share any way of making the copies can reach: their WebP encodes alone (decode-floor.ts).
    'renditions floor: encodes alone CPU ms per image / share of CPU %': `${round(floor.encodes.cpuMsPerImage, 1)} / ${round((100 * floor.encodes.cpuMsPerImage) / (cpuMs(bare) + floor.encodes.cpuMsPerImage), 1)}`,
    'renditions encoded': cold.result.stats.renditions?.encoded ?? 0,
  };
}

/**
 * No-change and one-added rebuilds of the realistic corpus, after the cold builds with and
 * without renditions (each in its own output and cache folders), best of REPEATS each,
 * interleaved round by round; both add the same image in a round. The added image is a new
 * fixture image 256–800 px wide, so that it has renditions to encode.
 */
async function rebuildsWithAndWithout(contentDir: string, withDirs: { outDir: string; cacheDir: string }, bareDirs: { outDir: string; cacheDir: string }) {
  const builds = [
    () => timedBuild(contentDir, withDirs.outDir, withDirs.cacheDir),
    () => timedBuild(contentDir, bareDirs.outDir, bareDirs.cacheDir, NO_RENDITIONS),
  ];
  const unchanged: Timed[][] = [[], []];
  const added: Timed[][] = [[], []];
  for (let k = 0; k < REPEATS; k++) for (const [b, build] of builds.entries()) unchanged[b]!.push(await build());
  for (let k = 0; k < REPEATS; k++) {
    for (const [b, build] of builds.entries()) {
      added[b]!.push(await withAddedImage(contentDir, 300 + k, '2030-01-01T00:00:00Z', build, 4));
      await build();
    }
  }
  const figures = builds.map((_, b) => ({ unchanged: fastest(unchanged[b]!), added: fastest(added[b]!) }));
  const [withR, bare] = figures as [(typeof figures)[0], (typeof figures)[0]];
  return {
    'no-change s, with / without renditions (best of 3)': `${round(withR.unchanged.seconds, 3)} / ${round(bare.unchanged.seconds, 3)}`,
    'one-added s, with / without renditions (best of 3)': `${round(withR.added.seconds, 3)} / ${round(bare.added.seconds, 3)}`,
    'one-added CPU s, with / without': `${round(withR.added.cpuSeconds, 3)} / ${round(bare.added.cpuSeconds, 3)}`,
    'one-added: renditions encoded / reused': `${withR.added.result.stats.renditions?.encoded ?? 0} / ${withR.added.result.stats.renditions?.reused ?? 0}`,
  };
}

async function runSize(ctx: BenchContext, count: number) {
  const contentDir = resolve('.bench', `build-corpus-${count}`);
  ctx.log(`corpus of ${count} images in ${contentDir} (generated once, then reused)`);
  const corpus = await syntheticImageCorpus(contentDir, count, 1, (done) => done % 500 === 0 && ctx.log(`generated ${done}/${count}`));
  await ensureSidecars(corpus.files);
  const outDir = join(ctx.tmpRoot, `dist-${count}`);
  const cacheDir = join(ctx.tmpRoot, `cache-${count}`);

  ctx.log('cold build');
  const cold = await withPeakRss(() => timedBuild(contentDir, outDir, cacheDir));
  const bareDirs = { outDir: join(ctx.tmpRoot, `dist-bare-${count}`), cacheDir: join(ctx.tmpRoot, `cache-bare-${count}`) };
  const bareBuild = () => {
    ctx.log('cold build without renditions');
    return timedBuild(contentDir, bareDirs.outDir, bareDirs.cacheDir, NO_RENDITIONS);
  };
  const renditionRebuilds = () => {
    ctx.log('rebuilds with and without renditions');
    return rebuildsWithAndWithout(contentDir, { outDir, cacheDir }, bareDirs);
  };
  // PEPE_BENCH_BUILD_COLD_ONLY=1: the cold builds (with and without renditions), their rebuilds and the decode floor alone.
  if (process.env.PEPE_BENCH_BUILD_COLD_ONLY === '1') {
    const bare = await bareBuild();
    return { cold: { ...coldFigures(count, cold.value, bare, await decodeFloorRun(ctx, corpus.files)), ...(await renditionRebuilds()) } };
  }
  ctx.log('fresh clone with the cache restored, and its I/O floor');
  const clone = await freshCloneRun(ctx, String(count), contentDir, cacheDir, outDir);
  const cloneTable = cloneFigures(count, cold.value.seconds, clone);
  // PEPE_BENCH_BUILD_CLONE_ONLY=1: the cold build and the fresh-clone comparison alone (minutes at 10k, not an hour).
  if (process.env.PEPE_BENCH_BUILD_CLONE_ONLY === '1') return { clone: cloneTable };
  const bare = await bareBuild();
  ctx.log('naive pipeline');
  const naive = await pipelineRate(corpus.files, naiveAnalyse);
  // The naive pipeline computes a different phash (libvips' greyscale and resampler);
  // this one computes ours, plainly: the baseline for the same outputs.
  ctx.log('naive exact pipeline');
  const naiveExact = await pipelineRate(corpus.files, naiveExactAnalyse);
  ctx.log('full-decode floor (its own process)');
  const decodeFloor = await decodeFloorRun(ctx, corpus.files);
  ctx.log('rebuilds');
  const unchanged = await timedBuild(contentDir, outDir, cacheDir);
  // Without the last-build shortcut: every output is regenerated, compared and found identical.
  await rm(join(cacheDir, 'last-build.json'));
  const unchangedFull = await timedBuild(contentDir, outDir, cacheDir);

  // The corpus is dated 2018–2026 (ensureSidecars): 2030 puts the added image last, as `pepe add` would.
  const oneAdded = await withAddedImage(contentDir, 99, '2030-01-01T00:00:00Z', () => timedBuild(contentDir, outDir, cacheDir));

  const coldRate = count / cold.value.seconds;
  const t = cold.value.result.stats.timings;
  return {
    cold: { ...coldFigures(count, cold.value, bare, decodeFloor), ...(await renditionRebuilds()) },
    summary: {
      images: count,
      'corpus MB': round(corpus.bytes / 1024 / 1024, 0),
      'cold images/s': round(coldRate, 0),
      'naive images/s': round(naive.rate, 0),
      'cold ÷ naive (wall)': round(coldRate / naive.rate, 2),
      'cold CPU ms/image': round((cold.value.cpuSeconds * 1000) / count, 1),
      'naive CPU ms/image': round(naive.cpuMsPerImage, 1),
      'cold ÷ naive (CPU)': round(naive.cpuMsPerImage / ((cold.value.cpuSeconds * 1000) / count), 2),
      'naive exact images/s': round(naiveExact.rate, 0),
      'cold ÷ naive exact (wall)': round(coldRate / naiveExact.rate, 2),
      'cold ÷ naive exact (CPU)': round(naiveExact.cpuMsPerImage / ((cold.value.cpuSeconds * 1000) / count), 2),
      'floor run: images × rounds': `${decodeFloor.images} × ${decodeFloor.rounds}`,
      'floor run: naive images/s': round(decodeFloor.naive.rate, 0),
      'floor run: full decode to memory, images/s': round(decodeFloor.floor.rate, 0),
      'floor ÷ naive, wall / CPU': `${round(decodeFloor.floor.rate / decodeFloor.naive.rate, 2)} / ${round(decodeFloor.naive.cpuMsPerImage / decodeFloor.floor.cpuMsPerImage, 2)}`,
      'floor run: streamed full decode, images/s': round(decodeFloor.streamed.rate, 0),
      'streamed floor ÷ naive, wall / CPU': `${round(decodeFloor.streamed.rate / decodeFloor.naive.rate, 2)} / ${round(decodeFloor.naive.cpuMsPerImage / decodeFloor.streamed.cpuMsPerImage, 2)}`,
      'no-change s': round(unchanged.seconds, 3),
      'no-change, no shortcut s': round(unchangedFull.seconds, 3),
      'one-added s': round(oneAdded.seconds, 3),
      'one-added decodes / docs indexed': `${oneAdded.result.stats.decoded} / ${oneAdded.result.stats.searchIndex?.indexedDocs}`,
      'peak RSS MB (cold)': round(cold.peakMb, 0),
    },
    clone: cloneTable,
    split: {
      images: count,
      'decode+thumb ms (summed)': round(t.decodeMs, 0),
      'phash ms (summed)': round(t.pixelsMs, 0),
      'blurhash ms (summed)': round(t.blurhashMs, 0),
      'read+sha256 ms (summed)': round(t.readHashMs, 0),
      'near-dupes ms': round(t.dupesMs, 0),
      'index+answers ms': round(t.compileMs, 0),
      'write+bundle ms': round(t.writeMs, 0),
      'bundle+gallery ms': round(t.generateMs, 0),
      // Most renditions are encoded during the analysis (its share: the cold table); this is the stage after it.
      'renditions stage after the analysis ms': round(t.renditionsMs, 0),
      'one-added: renditions encoded': oneAdded.result.stats.renditions?.encoded ?? 0,
      'one-added: index+answers ms': round(oneAdded.result.stats.timings.compileMs, 0),
      'one-added: bundle+gallery ms': round(oneAdded.result.stats.timings.generateMs, 0),
      'one-added: write (excl. bundle) ms': round(oneAdded.result.stats.timings.writeMs - oneAdded.result.stats.timings.generateMs, 0),
      'no-change: cache load ms': round(unchanged.result.stats.timings.cacheLoadMs, 0),
      'no-change: scan ms': round(unchanged.result.stats.timings.scanMs, 0),
      'wall s': round(cold.value.seconds, 2),
    },
  };
}

/**
 * Rebuild costs depend on the number of files, not on image sizes (nothing is decoded), so
 * they are also measured at scale on the small fixture images, which take seconds rather
 * than an hour to generate on a shared 2-core machine.
 */
type Timed = Awaited<ReturnType<typeof timedBuild>>;
const REPEATS = 3;
const fastest = (runs: Timed[]): Timed => runs.reduce((best, run) => (run.seconds < best.seconds ? run : best));
const medianSeconds = (runs: Timed[]): number => median(runs.map((run) => run.seconds));

async function runRebuildScale(ctx: BenchContext, count: number) {
  const contentDir = resolve('.bench', `build-fixtures-${count}`);
  const marker = join(contentDir, '.complete');
  if (!(await stat(marker).catch(() => null))) {
    ctx.log(`writing ${count} fixture images to ${contentDir}`);
    await rm(contentDir, { recursive: true, force: true });
    await makeFixtureContent(contentDir, { count });
    await writeFile(marker, String(count));
  }
  const outDir = join(ctx.tmpRoot, `fixtures-dist-${count}`);
  const cacheDir = join(ctx.tmpRoot, `fixtures-cache-${count}`);
  ctx.log(`cold build of ${count} small fixture images`);
  collectGarbage();
  const cold = await withPeakRss(async () => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const result = await buildCatalogue({ contentDir, outDir, cacheDir, urls: FIXTURE_URLS, concurrency: CONCURRENCY });
    if (!result.ok) throw new Error(`fixture build failed: ${result.problems.filter((p) => p.severity === 'error').slice(0, 3).map((p) => p.message).join('; ')}`);
    return { result, seconds: (performance.now() - started) / 1000, cpuSeconds: cpuSeconds(cpu) };
  });
  ctx.log(`fresh clone of ${count} small fixture images with the cache restored, and its I/O floor`);
  const clone = cloneFigures(count, cold.value.seconds, await freshCloneRun(ctx, `fixtures-${count}`, contentDir, cacheDir, outDir));
  if (process.env.PEPE_BENCH_BUILD_CLONE_ONLY === '1') return { clone };
  // Rebuilds take well under a second on a machine shared with other jobs: each is run
  // REPEATS times and the fastest run is reported (its CPU time too), the median beside it.
  const unchangedRuns: Timed[] = [];
  for (let k = 0; k < REPEATS; k++) unchangedRuns.push(await timedBuild(contentDir, outDir, cacheDir));
  await rm(join(cacheDir, 'last-build.json'));
  const unchangedFull = await timedBuild(contentDir, outDir, cacheDir);
  // The added image is the newest, as `pepe add` dates it (the fixture's dates rise with the
  // index: search-index-memo.ts then indexes its doc alone); for comparison, one dated 2030,
  // which falls among the first hundred of the fixture's dates (2019–3032): every doc after it
  // moves, and the search index is built from scratch.
  const newest = fixtureCreatedAt(count + 100);
  const addedRuns: Timed[] = [];
  const addedEarlierRuns: Timed[] = [];
  for (let k = 0; k < REPEATS; k++) {
    addedRuns.push(await withAddedImage(contentDir, count + 7 + k, newest, () => timedBuild(contentDir, outDir, cacheDir)));
    await timedBuild(contentDir, outDir, cacheDir);
    addedEarlierRuns.push(await withAddedImage(contentDir, count + 27 + k, '2030-01-01T00:00:00Z', () => timedBuild(contentDir, outDir, cacheDir)));
    await timedBuild(contentDir, outDir, cacheDir);
  }
  // What a maintainer waits for: `pepe build` in a fresh process (Node start-up, the malloc
  // re-run, loading the CLI, code not yet optimised), from the CLI's bundle and, for
  // comparison in the same minutes, through tsx (tools/cli/compiled-cli.mjs).
  const cli = (env: Record<string, string> = {}) => timedCli(['build', '--content', contentDir, '--out', outDir, '--cache', cacheDir, ...urlFlags(FIXTURE_URLS)], env);
  const freshUnchanged: number[] = [];
  const freshUnchangedTsx: number[] = [];
  for (let k = 0; k < REPEATS; k++) {
    freshUnchanged.push(await cli());
    freshUnchangedTsx.push(await cli({ PEPE_CLI_TSX: '1' }));
  }
  const freshAdded: number[] = [];
  for (let k = 0; k < REPEATS; k++) {
    freshAdded.push(await withAddedImage(contentDir, count + 17 + k, newest, () => cli()));
    await cli();
  }
  const unchanged = fastest(unchangedRuns);
  const oneAdded = fastest(addedRuns);
  const u = unchanged.result.stats.timings;
  const a = oneAdded.result.stats.timings;
  const rebuilds = {
    images: count,
    'cold s (small images)': round(cold.value.seconds, 1),
    'peak RSS MB (cold)': round(cold.peakMb, 0),
    'no-change s (best / median of 3)': `${round(unchanged.seconds, 3)} / ${round(medianSeconds(unchangedRuns), 3)}`,
    // The first rebuild after a change analyses ('records'); the ones after it need only the listing ('listing').
    'no-change paths of the 3 runs': unchangedRuns.map((run) => run.result.stats.shortcut ?? 'full').join(', '),
    'no-change: cache load / scan / analyse / dupes ms': `${round(u.cacheLoadMs, 0)} / ${round(u.scanMs, 0)} / ${round(u.totalMs, 0)} / ${round(u.dupesMs, 0)}`,
    'no-change, no shortcut s': round(unchangedFull.seconds, 3),
    'one-added s (best / median of 3)': `${round(oneAdded.seconds, 3)} / ${round(medianSeconds(addedRuns), 3)}`,
    'one-added decodes / docs indexed': `${oneAdded.result.stats.decoded} / ${oneAdded.result.stats.searchIndex?.indexedDocs}`,
    'one-added: analyse / near-dupes / index+answers / bundle+gallery / other write ms': `${round(a.totalMs, 0)} / ${round(a.dupesMs, 0)} / ${round(a.compileMs, 0)} / ${round(a.generateMs, 0)} / ${round(a.writeMs - a.generateMs, 0)}`,
    'one-added CPU s': round(oneAdded.cpuSeconds, 3),
    'one-added dated 2030 (among the oldest) s (best / median of 3)': `${round(fastest(addedEarlierRuns).seconds, 3)} / ${round(medianSeconds(addedEarlierRuns), 3)}`,
    'no-change CPU s': round(unchanged.cpuSeconds, 3),
    'one-added files written / untouched': `${oneAdded.result.stats.written} / ${oneAdded.result.stats.kept}`,
    'fresh `pepe build` process, no-change s: bundle / tsx (best of 3)': `${round(Math.min(...freshUnchanged), 3)} / ${round(Math.min(...freshUnchangedTsx), 3)}`,
    'fresh `pepe build` process, one-added s (best / median of 3)': `${round(Math.min(...freshAdded), 3)} / ${round(median(freshAdded), 3)}`,
  };
  return { rebuilds, clone };
}

export default {
  name: 'build',
  async run(ctx) {
    // PEPE_BENCH_BUILD_SIZES=1000,10000 overrides the realistic corpus sizes; PEPE_BENCH_REBUILD_SIZES the fixture ones.
    const sizes = (name: string, fallback: number[]) => {
      const override = process.env[name]?.split(',').map(Number).filter((n) => Number.isInteger(n) && n >= 0);
      return override?.length ? override.filter((n) => n > 0) : fallback;
    };
    // One table pair per size, printed as soon as it is measured.
    for (const size of sizes('PEPE_BENCH_BUILD_SIZES', ctx.quick ? [200] : [1000, 10_000])) {
      const { cold, summary, clone, split } = await runSize(ctx, size);
      if (cold) ctx.table(`${size} images: cold build CPU vs the full-decode floor; renditions' share (same run, with and without)`, [cold]);
      if (clone) ctx.table(`${size} images: a CI run's fresh clone with the analysis cache restored vs its I/O floor`, [clone]);
      if (summary) ctx.table(`${size} images: cold build vs naive pipeline, rebuilds, memory`, [summary]);
      if (split) ctx.table(`${size} images: cold build time split (per-image stages summed over concurrent tasks)`, [split]);
    }
    for (const size of sizes('PEPE_BENCH_REBUILD_SIZES', ctx.quick ? [500] : [10_000])) {
      const { rebuilds, clone } = await runRebuildScale(ctx, size);
      ctx.table(`${size} small fixture images: a CI run's fresh clone with the analysis cache restored vs its I/O floor`, [clone]);
      if (rebuilds) ctx.table(`${size} small fixture images: rebuild costs at scale`, [rebuilds]);
    }
  },
} satisfies Bench;
