/**
 * API benchmark over synthetic catalogues (metadata only): in-process handler latency
 * (list pages, random, 1–2 word searches, by-id), cold start of the bundled function
 * (spawn node → import → first search answer) as a ratio to a bare `node -e 0` spawn
 * measured in the same run, bundle size, and heap after loading and querying; and what the
 * function's data costs a record as Netlify deploys it (pieces file, bundle, zip made by
 * Netlify's own bundler). `PEPE_BENCH_API_SIZE_ONLY=1` measures only that, at 1k, 10k and 100k.
 */
import { spawn } from 'node:child_process';
import { cp, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { constants as perfConstants, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { zipFunctions } from '@netlify/zip-it-and-ship-it';
import { catalogueDataFiles, compileCatalogue } from '../../functions/core/catalogue.js';
import { createHandler, type Handler } from '../../functions/core/handler.js';
import { bundleFunction } from '../catalogue/bundle-function.js';
import { median, percentile, round, type Bench, type BenchContext } from './context.js';
import { benchQueries } from './search.bench.js';
import { syntheticRecords } from './synthetic-records.js';
import { makeFolders } from '../shared/make-folders.js';

const SEARCH = 'search 1–2 words, limit=25';
const FILTERED_SEARCH = 'the same searches + tags, exclude_tags, animated, orientation';
const URLS = { baseUrl: 'https://pepe.example', apiUrl: 'https://api.pepe.example', cdnUrl: 'https://cdn.pepe.example' };
const ORIGIN = 'https://pepe.example';
const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** Wall time of a child process from spawn to exit, in ms; rejects on a non-zero exit. */
function timedSpawn(args: string[]): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve({ ms, stdout });
      else reject(new Error(`node ${args.slice(0, 2).join(' ')} exited with ${code}: ${stderr.slice(0, 500)}`));
    });
  });
}


/**
 * Full (mark-compact) GCs so far in this process. A tail of the latency sample that comes from
 * them is the process's, not the request's: on Node 24, array-buffer garbage (counted as
 * external memory) started one every few hundred filtered searches, and its incremental steps
 * were the filtered p99 (functions/README.md, "Filters and pages"). Counted, unlike times,
 * whatever the load of the machine.
 */
let majorGcs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) majorGcs++;
}).observe({ entryTypes: ['gc'] });
/** Major GCs so far, once the observer has been told of every GC until now. */
const majorGcsSoFar = async (): Promise<number> => {
  await new Promise((resolve) => setImmediate(resolve));
  return majorGcs;
};

async function latency(handler: Handler, urls: string[], rounds: number): Promise<{ p50: number; p99: number; max: number; majorGcs: number }> {
  const gcsBefore = await majorGcsSoFar();
  const sample: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const url of urls) {
      const request = new Request(`${ORIGIN}${url}`);
      const started = performance.now();
      const response = await handler(request);
      await response.arrayBuffer();
      sample.push(performance.now() - started);
      if (response.status !== 200) throw new Error(`benchmark request ${url} answered ${response.status}`);
    }
  }
  return { p50: round(percentile(sample, 50), 3), p99: round(percentile(sample, 99), 3), max: round(Math.max(...sample), 3), majorGcs: (await majorGcsSoFar()) - gcsBefore };
}

/** The first URL of each case: a fresh handler's first uses (search index, id order, dictionary) but no filter. */
const urls0 = (cases: [string, string[]][]): string[] => cases.filter(([name]) => !name.includes('tags')).map(([, urls]) => urls[0]!);

/** Appended to every child script: its CPU time (user + system, ms since process start) on the last line. */
const reportCpu = ';{const c=process.cpuUsage();console.log((c.user+c.system)/1000)}';

/** Child script: import the bundle, answer one request, print timings (ms since the script started). */
const coldScript = (bundle: string, url: string) => `
const t0 = performance.now();
const mod = await import(${JSON.stringify(pathToFileURL(bundle).href)});
const t1 = performance.now();
const r = await mod.default(new Request(${JSON.stringify(ORIGIN + url)}));
const body = await r.text();
if (r.status !== 200) throw new Error('status ' + r.status);
console.log(JSON.stringify({ importMs: t1 - t0, answerMs: performance.now() - t1, bytes: body.length }));
${reportCpu}`;

/**
 * The floor of any Request → Response function on this Node: an ES module that builds a
 * Request and reads a Response (Node 20 loads its fetch implementation on first use of
 * either), without our bundle. Shows how much of the ratio is ours.
 */
const floorScript = `await new Response(new Request(${JSON.stringify(ORIGIN)}).url).text();\n${reportCpu}`;

/**
 * The floor of any function shipped as a module file: one that only answers with the
 * request's URL, imported and called by coldScript exactly as the bundle is. Above
 * floorScript by what importing a file costs (the ES loader's resolve, read and compile).
 */
const EMPTY_FUNCTION = 'export default (request) => new Response(request.url);\n';

/** Runs a child that reports its CPU time; returns wall ms, CPU ms and the other output lines. */
async function measuredSpawn(args: string[]): Promise<{ ms: number; cpuMs: number; lines: string[] }> {
  const { ms, stdout } = await timedSpawn(args);
  const lines = stdout.trim().split('\n');
  return { ms, cpuMs: Number(lines.pop()), lines };
}

const heapScript = (bundle: string, urls: string[]) => `
const mod = await import(${JSON.stringify(pathToFileURL(bundle).href)});
for (const url of ${JSON.stringify(urls)}) await (await mod.default(new Request(${JSON.stringify(ORIGIN)} + url))).arrayBuffer();
globalThis.gc();
const m = process.memoryUsage();
console.log(JSON.stringify({ heapUsed: m.heapUsed, rss: m.rss }));`;

async function benchSize(ctx: BenchContext, count: number, rows: { latency: Record<string, string | number>[]; cold: Record<string, string | number>[] }): Promise<void> {
  ctx.log(`${count} records: generating and compiling`);
  const records = syntheticRecords(count, 1);
  let started = performance.now();
  const data = compileCatalogue(records, URLS);
  const compileMs = performance.now() - started;
  const distDir = join(ctx.tmpRoot, `dist-${count}`);
  await makeFolders(join(distDir, 'data'));
  for (const { path, body } of catalogueDataFiles(data)) await writeFile(join(distDir, path), body);
  started = performance.now();
  const { bytes, file } = await bundleFunction({ distDir });
  const bundleMs = performance.now() - started;

  const queries = benchQueries(records, ctx.quick ? 100 : 300);
  const ids = records.map((r) => r.id);
  const pick = (i: number) => ids[(i * 7919) % ids.length]!;
  const pages = Math.floor(count / 25);
  // Filters: the commonest tag of the corpus and a query-specific one, so lists of every size are intersected.
  const tagCounts = new Map<string, number>();
  for (const record of records) for (const tag of record.tags ?? []) tagCounts.set(tag, (tagCounts.get(tag) ?? 0) + 1);
  const byCount = [...tagCounts].sort((a, b) => b[1] - a[1]).map(([tag]) => tag);
  const someTag = (i: number) => encodeURIComponent(byCount[(i * 31) % Math.min(byCount.length, 50)]!);
  const cases: [string, string[]][] = [
    ['list limit=25, random page', Array.from({ length: 200 }, (_, i) => `/api/pepe?limit=25&page=${1 + ((i * 104729) % pages)}`)],
    ['list limit=1 (default)', Array.from({ length: 200 }, (_, i) => `/api/pepe?page=${1 + i}`)],
    ['random limit=25', Array.from({ length: 200 }, () => '/api/pepe?random=true&limit=25')],
    ['random seeded, page 5', Array.from({ length: 200 }, (_, i) => `/api/pepe?random=true&seed=s${i}&limit=25&page=5`)],
    ['v1 random limit=10', Array.from({ length: 200 }, () => '/v1/pepe?limit=10')],
    [SEARCH, queries.map((q) => `/api/pepe?limit=25&search=${encodeURIComponent(q)}`)],
    ['search, limit=1', queries.map((q) => `/api/pepe?search=${encodeURIComponent(q)}`)],
    ['search sort=relevance', queries.map((q) => `/api/pepe?limit=25&sort=relevance&search=${encodeURIComponent(q)}`)],
    ['v1 search', queries.map((q) => `/v1/pepe?limit=5&search=${encodeURIComponent(q)}`)],
    [FILTERED_SEARCH, queries.map((q, i) => `/api/pepe?limit=25&search=${encodeURIComponent(q)}&tags=${someTag(i)}&exclude_tags=${encodeURIComponent(byCount[0]!)}&animated=false&orientation=landscape`)],
    ['filters only (tags, exclude_tags, animated, orientation), limit=25', queries.map((_, i) => `/api/pepe?limit=25&tags=${someTag(i)}&exclude_tags=${someTag(i + 1)}&animated=false&orientation=portrait`)],
    ['by id (function path)', Array.from({ length: 200 }, (_, i) => `/api/public/pepe/${pick(i)}`)],
    ['search by picture (a pepe\'s phash, every record scanned)', Array.from({ length: 200 }, (_, i) => `/api/similar?phash=${records[(i * 7919) % count]!.phash}`)],
  ];
  const handler = createHandler(data);
  for (const [name, urls] of cases) {
    await latency(handler, urls.slice(0, 20), 1); // first-use costs (index load, id map) are measured by the cold start
    const { p50, p99, max, majorGcs } = await latency(handler, urls, ctx.quick ? 2 : 5);
    rows.latency.push({ records: count, case: name, 'p50 ms': p50, 'p99 ms': p99, 'max ms': max, 'major GCs': majorGcs });
  }
  // The warm-up above meets 20 of the 50 filter tags; the rest are first used inside the sample.
  // What a first use costs (reading and decoding the tag's posting), on its own: each tag's
  // first request in a fresh handler, then the same requests again.
  const fresh = createHandler(data);
  await latency(fresh, urls0(cases), 1);
  const tagUrls = Array.from({ length: 50 }, (_, i) => `/api/pepe?limit=25&tags=${someTag(i)}`);
  for (const name of ['filter tag, first use (50 tags, a fresh handler)', 'the same requests again']) {
    const { p50, p99, max, majorGcs } = await latency(fresh, tagUrls, 1);
    rows.latency.push({ records: count, case: name, 'p50 ms': p50, 'p99 ms': p99, 'max ms': max, 'major GCs': majorGcs });
  }
  // The target (tools/bench/README.md): a filtered search's p99 within 2× the unfiltered search's, same queries, same run.
  const p99Of = (name: string) => Number(rows.latency.find((row) => row.records === count && row.case === name)!['p99 ms']);
  rows.latency.push({ records: count, case: `${FILTERED_SEARCH}: p99 ratio to the same searches unfiltered`, 'p50 ms': '', 'p99 ms': round(p99Of(FILTERED_SEARCH) / p99Of(SEARCH), 2), 'max ms': '', 'major GCs': '' });

  ctx.log(`${count} records: cold starts`);
  const firstSearch = `/api/pepe?limit=25&search=${encodeURIComponent(queries[0]!)}`;
  const bare: number[] = [];
  const bareCpu: number[] = [];
  const floor: number[] = [];
  const moduleFloor: number[] = [];
  const moduleFloorCpu: number[] = [];
  const coldListCpu: number[] = [];
  const emptyFunction = join(distDir, 'empty-function.mjs');
  await writeFile(emptyFunction, EMPTY_FUNCTION);
  const coldSearch: number[] = [];
  const coldSearchCpu: number[] = [];
  const coldList: number[] = [];
  const inside: { importMs: number; answerMs: number }[] = [];
  // Interleaved, so a change in machine load hits every kind alike; medians of each kind.
  for (let i = 0; i < (ctx.quick ? 3 : 9); i++) {
    bare.push((await timedSpawn(['-e', '0'])).ms);
    bareCpu.push((await measuredSpawn(['-e', reportCpu])).cpuMs);
    floor.push((await measuredSpawn(['--input-type=module', '-e', floorScript])).ms);
    const floorRun = await measuredSpawn(['--input-type=module', '-e', coldScript(emptyFunction, firstSearch)]);
    moduleFloor.push(floorRun.ms);
    moduleFloorCpu.push(floorRun.cpuMs);
    const run = await measuredSpawn(['--input-type=module', '-e', coldScript(file, firstSearch)]);
    coldSearch.push(run.ms);
    coldSearchCpu.push(run.cpuMs);
    inside.push(JSON.parse(run.lines[0]!));
    const listRun = await measuredSpawn(['--input-type=module', '-e', coldScript(file, '/api/pepe?limit=25')]);
    coldList.push(listRun.ms);
    coldListCpu.push(listRun.cpuMs);
  }
  const heap = JSON.parse((await timedSpawn(['--expose-gc', '--input-type=module', '-e', heapScript(file, cases.flatMap(([, urls]) => urls.slice(0, 40)))])).stdout);
  const bareMs = median(bare);
  rows.cold.push({
    records: count,
    'compile ms': round(compileMs, 0),
    'bundle ms': round(bundleMs, 0),
    'bundle MB': round(bytes / 1e6, 2),
    'bare node ms': round(bareMs, 1),
    'floor ratio (Request+Response, no bundle)': round(median(floor) / bareMs, 2),
    'module floor ratio (a function file that only answers)': round(median(moduleFloor) / bareMs, 2),
    'cold → first search ms': round(median(coldSearch), 1),
    'search ratio': round(median(coldSearch) / bareMs, 2),
    'search CPU ratio': round(median(coldSearchCpu) / median(bareCpu), 2),
    'cold → first list ms': round(median(coldList), 1),
    'list ratio': round(median(coldList) / bareMs, 2),
    // The target (≤ 1.1): the catalogue's own cost on top of a function that only answers.
    'search ÷ module floor': round(median(coldSearch) / median(moduleFloor), 2),
    'list ÷ module floor': round(median(coldList) / median(moduleFloor), 2),
    // CPU time (all threads) moves less with the machine's load than wall time does.
    'search CPU ÷ module floor CPU': round(median(coldSearchCpu) / median(moduleFloorCpu), 2),
    'list CPU ÷ module floor CPU': round(median(coldListCpu) / median(moduleFloorCpu), 2),
    'import ms (in child)': round(median(inside.map((x) => x.importMs)), 1),
    'first search ms (in child)': round(median(inside.map((x) => x.answerMs)), 1),
    'heap MB after queries': round(heap.heapUsed / 2 ** 20, 1),
    'rss MB': round(heap.rss / 2 ** 20, 1),
  });
}

/** Bytes of a zip's entries once unzipped: the sizes its central directory lists (no ZIP64: these zips stay far below 4 GB). */
function unzippedBytes(zip: Buffer): number {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = zip.readUInt32LE(end + 16);
  let total = 0;
  for (let entry = zip.readUInt16LE(end + 10); entry > 0; entry--) {
    total += zip.readUInt32LE(at + 24);
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return total;
}

/**
 * The function as a Netlify deploy zips it: Netlify's bundler (the pinned zip-it-and-ship-it,
 * as tools/catalogue/netlify-bundle.test.ts runs it) over a deploy's view of the repository
 * with this data in dist/data. Bytes of the zip and of its contents.
 */
async function zippedFunction(root: string): Promise<{ zipped: number; unzipped: number }> {
  await cp(join(REPO, 'package.json'), join(root, 'package.json'));
  await cp(join(REPO, 'functions'), join(root, 'functions'), { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
  await symlink(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');
  const [result] = await zipFunctions(join(root, 'functions'), join(root, 'zisi-out'), {
    archiveFormat: 'zip',
    basePath: root,
    repositoryRoot: root,
    config: { '*': { nodeBundler: 'esbuild', nodeVersion: 'nodejs24.x' } },
  });
  const zip = await readFile(result!.path);
  return { zipped: zip.length, unzipped: unzippedBytes(zip) };
}

/** Bytes of the function's data at `count` synthetic records: the pieces file, our bundle, Netlify's zip. */
async function functionSize(ctx: BenchContext, count: number): Promise<Record<string, number>> {
  ctx.log(`${count} records: function size`);
  const data = compileCatalogue(syntheticRecords(count, 1), URLS);
  const root = join(ctx.tmpRoot, `deploy-${count}`);
  const distDir = join(root, 'dist');
  await makeFolders(join(distDir, 'data'));
  for (const { path, body } of catalogueDataFiles(data)) await writeFile(join(distDir, path), body);
  const pieces = (await stat(join(distDir, 'data', data.piecesFile))).size;
  const { bytes } = await bundleFunction({ distDir });
  const { zipped, unzipped } = await zippedFunction(root);
  return { records: count, 'pieces file bytes': pieces, 'bundle bytes': bytes, 'zip bytes': zipped, 'unzipped bytes': unzipped };
}

/**
 * Bytes per record between the smallest and the largest size (a straight line through both),
 * and the record count at which each size reaches Netlify's limit on it (the zip and its
 * contents; the pieces file and the bundle have none of their own).
 */
function perRecord(rows: Record<string, number>[]): Record<string, string | number>[] {
  const first = rows[0]!;
  const last = rows.at(-1)!;
  const slope = (key: string) => (last[key]! - first[key]!) / (last.records! - first.records!);
  const crossing = (key: string, limit: number) => Math.round(last.records! + (limit - last[key]!) / slope(key));
  return [
    ...rows,
    { records: 'bytes per record', 'pieces file bytes': round(slope('pieces file bytes'), 1), 'bundle bytes': round(slope('bundle bytes'), 3), 'zip bytes': round(slope('zip bytes'), 1), 'unzipped bytes': round(slope('unzipped bytes'), 1) },
    { records: 'records at the limit', 'pieces file bytes': '', 'bundle bytes': '', 'zip bytes': crossing('zip bytes', NETLIFY_ZIP_LIMIT), 'unzipped bytes': crossing('unzipped bytes', NETLIFY_UNZIPPED_LIMIT) },
  ];
}

/**
 * Netlify's limits on one function: 50 MiB zipped (AWS Lambda's direct upload, which Netlify's
 * deploy reports as "larger than the 50MB limit", or AWS's "Request must be smaller than
 * 69905067 bytes", that zip in base64) and 250 MB unzipped (docs.netlify.com).
 */
const NETLIFY_ZIP_LIMIT = 50 * 2 ** 20;
const NETLIFY_UNZIPPED_LIMIT = 250 * 2 ** 20;

export default {
  name: 'api',
  async run(ctx) {
    const sizes: Record<string, number>[] = [];
    for (const count of ctx.quick ? [1_000, 10_000] : [1_000, 10_000, 100_000]) sizes.push(await functionSize(ctx, count));
    ctx.table(`the function's data as Netlify deploys it (synthetic records): the pieces file, our bundle (data module inlined), Netlify's zip and its contents; bytes per record and the record counts at Netlify's limits (50 MiB zipped, 250 MiB unzipped) from a straight line`, perRecord(sizes));
    if (process.env.PEPE_BENCH_API_SIZE_ONLY === '1') return;
    const rows = { latency: [] as Record<string, string | number>[], cold: [] as Record<string, string | number>[] };
    for (const count of ctx.quick ? [2_000, 10_000] : [10_000, 100_000]) await benchSize(ctx, count, rows);
    ctx.table('handler latency in-process (Request → Response body)', rows.latency);
    ctx.table('cold start (spawn → import bundle → first answer; ratio to bare `node -e 0` in the same run, medians of interleaved spawns), size, heap', rows.cold);
  },
} satisfies Bench;
