/**
 * `pepe serve` throughput on loopback, against two baselines measured in the same run:
 * nginx serving the same static by-id file (Debian package; `apt-get install -y nginx-light`
 * if missing) and a bare Node `http` server answering a fixed string.
 *
 * The catalogue is synthetic (10k records, 2k with --quick; metadata only, no images),
 * written the way `pepe build` writes it: compileCatalogue → data module + precomputed
 * files + manifest, then the real esbuild function bundle. Each server runs as a child
 * process, all started at once. The load generator gets about one core of the two: wrk with
 * one thread (Debian package `wrk`, when installed) and autocannon in this process, one table
 * each. Every case is loaded for a bounded time in each of three interleaved rounds, and a
 * ratio is the median of its per-round ratios (measureRounds says why). autocannon, a Node
 * client, spends as much CPU per answer as the servers do and tops out below nginx, so its
 * ratios say as much about the client as about the servers; wrk's do not.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { chmod, readFile, readdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { catalogueDataFiles, compileCatalogue } from '../../functions/core/catalogue.js';
import { precomputedFiles } from '../testing/test-catalogue.js';
import { bundleFunction } from '../catalogue/bundle-function.js';
import { createManifest, type ManifestEntry, writeManifestFiles } from '../shared/manifest.js';
import { median, round, type Bench, type BenchContext } from './context.js';
import { syntheticRecords } from './synthetic-records.js';
import { makeFolders } from '../shared/make-folders.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const URLS = { baseUrl: 'http://127.0.0.1:8888', apiUrl: 'http://127.0.0.1:8888', cdnUrl: 'http://127.0.0.1:8888' };
/** The part of autocannon's result we read (the package ships no types). */
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: { url: string; connections: number; duration: number; headers?: Record<string, string> }) => Promise<AutocannonResult>;

/** Enough concurrent keep-alive connections to saturate one core without queueing for long. */
const CONNECTIONS = 32;

async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  return port;
}

/** Writes what `pepe build` would write for `count` synthetic records (no images). */
export async function writeSyntheticBuild(distDir: string, count: number): Promise<{ id: string; searchWord: string }> {
  const records = syntheticRecords(count);
  const data = compileCatalogue(records, URLS);
  const entries = new Map<string, ManifestEntry>();
  const put = async (path: string, body: string | Buffer) => {
    await makeFolders(dirname(join(distDir, path)));
    await writeFile(join(distDir, path), body);
    entries.set(path, { sha256: createHash('sha256').update(body).digest('hex'), size: Buffer.byteLength(body) });
  };
  for (const { path, body } of catalogueDataFiles(data)) await put(path, body);
  for (const file of precomputedFiles(data)) await put(`site/${file.path}`, file.body);
  await bundleFunction({ distDir });
  await writeManifestFiles(distDir, createManifest(entries, URLS, { records: records.length, images: 0 }));
  // A common tag word, so the search case matches many records (the costly kind).
  const counts = new Map<string, number>();
  for (const r of records) for (const tag of r.tags ?? []) for (const w of tag.split(/\s+/)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const searchWord = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
  return { id: records[Math.floor(records.length / 2)]!.id, searchWord };
}

/** Spawns a server and resolves once `ready` appears on its stdout (or stderr). */
async function startChild(command: string, args: string[], ready: RegExp, ctx: BenchContext): Promise<ChildProcess> {
  const child = spawn(command, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((done, fail) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) done();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => fail(new Error(`${command} exited with ${code} before it was ready:\n${output.slice(0, 2000)}`)));
    setTimeout(() => fail(new Error(`${command} not ready after 60 s:\n${output.slice(0, 2000)}`)), 60_000).unref();
  });
  ctx.log(`started ${command} ${args.slice(0, 3).join(' ')} (pid ${child.pid})`);
  return child;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** CPU seconds used so far by a process and its descendants (Linux /proc; null elsewhere). */
async function cpuSeconds(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces): utime is the 14th, stime the 15th field.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    let ticks = Number(fields[11]) + Number(fields[12]);
    const tasks = await readdir(`/proc/${pid}/task`);
    for (const task of tasks) {
      const children = (await readFile(`/proc/${pid}/task/${task}/children`, 'utf8')).trim();
      for (const child of children ? children.split(' ') : []) ticks += ((await cpuSeconds(Number(child))) ?? 0) * CLOCK_TICKS;
    }
    return ticks / CLOCK_TICKS;
  } catch {
    return null;
  }
}
/** USER_HZ on Linux. */
const CLOCK_TICKS = 100;

interface Load {
  rps: number;
  /** Server CPU per answered request, in µs: unlike req/s, barely moved by other load on the machine. */
  cpuUs: number | null;
  p99: number;
  non2xx: number;
  errors: number;
}

/** What one load run reports, whichever generator made it. */
interface Fired {
  rps: number;
  total: number;
  p99: number;
  non2xx: number;
  errors: number;
}

interface LoadGenerator {
  name: string;
  /** `headers`: request headers to send with every request. */
  fire(url: string, seconds: number, headers: Record<string, string>): Promise<Fired>;
}

const autocannonGenerator: LoadGenerator = {
  name: 'autocannon',
  async fire(url, seconds, headers) {
    const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers });
    return { rps: result.requests.average, total: result.requests.total, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors + result.timeouts };
  },
};

/** wrk's latency figure (`812.00us`, `1.23ms`, `2.00s`) in ms. */
function wrkMs(text: string): number {
  const found = /^([\d.]+)(us|ms|s)$/.exec(text);
  if (!found) throw new Error(`unexpected wrk latency "${text}"`);
  return Number(found[1]) * (found[2] === 'us' ? 0.001 : found[2] === 's' ? 1000 : 1);
}

/** Parses `wrk --latency` output. */
export function parseWrk(output: string): Fired {
  const number = (pattern: RegExp) => {
    const found = pattern.exec(output);
    if (!found) throw new Error(`wrk output without ${pattern}:\n${output.slice(0, 1000)}`);
    return found;
  };
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  return {
    rps: Number(number(/Requests\/sec:\s+([\d.]+)/)[1]),
    total: Number(number(/(\d+) requests in/)[1]),
    p99: wrkMs(number(/\s99%\s+(\S+)/)[1]!),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0),
    errors: socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
  };
}

function wrkGenerator(wrk: string): LoadGenerator {
  return {
    name: 'wrk',
    async fire(url, seconds, headers) {
      const headerFlags = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
      const child = spawn(wrk, ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', ...headerFlags, url], { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const [code] = (await once(child, 'exit')) as [number | null];
      if (code !== 0) throw new Error(`wrk exited with ${code}: ${output.slice(0, 1000)}`);
      return parseWrk(output);
    },
  };
}

async function load(generator: LoadGenerator, url: string, seconds: number, pid: number | undefined, headers: Record<string, string> = {}): Promise<Load> {
  const before = pid === undefined ? null : await cpuSeconds(pid);
  const result = await generator.fire(url, seconds, headers);
  const after = pid === undefined ? null : await cpuSeconds(pid);
  const cpuUs = before !== null && after !== null && result.total > 0 ? ((after - before) * 1e6) / result.total : null;
  return { rps: result.rps, cpuUs, p99: result.p99, non2xx: result.non2xx, errors: result.errors };
}

function nginxConfig(dir: string, root: string, port: number, workers: number): string {
  return `worker_processes ${workers};
daemon off;
pid ${dir}/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    location /api/pepe/ { default_type "application/json; charset=utf-8"; add_header Cache-Control "public, max-age=60"; }
  }
}
`;
}

/** The first of `candidates` that runs with `versionFlag`, or null. */
function findProgram(candidates: string[], versionFlag: string): string | null {
  for (const candidate of candidates) {
    const probe = spawnSync(candidate, [versionFlag]);
    if (probe.error === undefined && probe.status !== null) return candidate;
  }
  return null;
}

const findNginx = () => findProgram(['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'], '-v');
/** `wrk -v` prints its version and exits 1. */
const findWrk = () => findProgram(['/usr/bin/wrk', '/usr/local/bin/wrk'], '-v');

/** One measured case: a URL of a running server, the process whose CPU is counted, the request headers. */
interface LoadCase {
  name: string;
  url: string;
  pid: number | undefined;
  headers: Record<string, string>;
}

async function run(ctx: BenchContext): Promise<void> {
  const count = ctx.quick ? 2_000 : 10_000;
  const setup = { seconds: ctx.quick ? 2 : 3, rounds: ctx.quick ? 1 : 3 };
  const distDir = join(ctx.tmpRoot, 'dist');
  ctx.log(`writing a synthetic build of ${count} records`);
  const { id, searchWord } = await writeSyntheticBuild(distDir, count);
  const wrk = findWrk();
  if (wrk === null) ctx.log('wrk not found: install it with `apt-get install -y wrk` for figures not limited by the load generator');
  const children: ChildProcess[] = [];
  try {
    const cases = await startServers(ctx, { distDir, id, searchWord }, children);
    for (const generator of wrk === null ? [autocannonGenerator] : [wrkGenerator(wrk), autocannonGenerator]) {
      const samples = await measureRounds(ctx, generator, cases, setup);
      ctx.table(`requests/s on loopback, ${count} records, ${generator.name} ${CONNECTIONS} connections, ${setup.rounds} interleaved round${setup.rounds > 1 ? 's' : ''} of ${setup.seconds} s`, reportRows(samples));
    }
  } finally {
    await Promise.all(children.map(stopChild));
  }
}

const BARE = 'bare node (fixed string)';
const NGINX_1 = 'nginx 1 worker (static by-id)';
const NGINX_2 = 'nginx 2 workers (static by-id)';

/**
 * Starts every server at once (idle ones cost nothing) and returns the cases to load, baselines
 * first. The servers stay up for every round and both load generators.
 */
async function startServers(ctx: BenchContext, setup: { distDir: string; id: string; searchWord: string }, children: ChildProcess[]): Promise<LoadCase[]> {
  const { distDir, id, searchWord } = setup;
  const cases: LoadCase[] = [];
  const add = (name: string, url: string, pid: number | undefined, headers: Record<string, string> = {}) => cases.push({ name, url, pid, headers });

  // Baseline 1: bare Node returning a fixed string.
  const barePort = await freePort();
  const bare = await startChild(process.execPath, ['-e', `require('http').createServer((q, s) => s.end('pepe')).listen(${barePort}, '127.0.0.1', () => console.log('ready'))`], /ready/, ctx);
  children.push(bare);
  add(BARE, `http://127.0.0.1:${barePort}/`, bare.pid);

  // Baseline 2: nginx serving the same static by-id file, one worker (like pepe serve) and one per core.
  const nginx = findNginx();
  if (nginx) {
    // nginx workers drop root privileges (to nobody) and must be able to read the files.
    await chmod(ctx.tmpRoot, 0o755);
    for (const workers of [1, 2]) {
      const nginxDir = join(ctx.tmpRoot, `nginx-${workers}`);
      await makeFolders(nginxDir);
      const port = await freePort();
      await writeFile(join(nginxDir, 'nginx.conf'), nginxConfig(nginxDir, join(distDir, 'site'), port, workers));
      const child = spawn(nginx, ['-c', join(nginxDir, 'nginx.conf'), '-p', nginxDir], { stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(child);
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const url = `http://127.0.0.1:${port}/api/pepe/${id}`;
      await waitForHttp(url).catch((error: Error) => {
        throw new Error(`${error.message}; nginx said: ${stderr.slice(0, 1000)}`);
      });
      add(workers === 1 ? NGINX_1 : NGINX_2, url, child.pid);
    }
  } else {
    ctx.log('nginx not found: install it with `apt-get install -y nginx-light` for the static baseline');
  }

  // pepe serve, the real CLI in a child process: one process (the default), two worker
  // processes (one per core), and one process without the CDN cache (every request runs the
  // function: its own cost, which the cache hides). The "gzip/br client" cases send
  // `Accept-Encoding: gzip, deflate, br` as browsers and most HTTP libraries do, and get
  // the brotli form of the answer.
  type Case = 'static' | 'list' | 'search' | 'b';
  const variants: { label: string; flags: string[]; cases: Case[]; browserCases?: Case[] }[] = [
    { label: 'pepe serve', flags: [], cases: ['static', 'list', 'search', 'b'], browserCases: ['static', 'list', 'search'] },
    { label: 'pepe serve --workers 2', flags: ['--workers', '2'], cases: ['static', 'list', 'search'] },
    { label: 'pepe serve --no-cdn-cache', flags: ['--no-cdn-cache'], cases: ['list', 'search'] },
  ];
  const browserLike = { 'accept-encoding': 'gzip, deflate, br' };
  for (const variant of variants) {
    const port = await freePort();
    const serve = await startChild(process.execPath, [join(REPO, 'tools/pepe.mjs'), 'serve', '--dir', distDir, '--port', String(port), ...variant.flags], /Ctrl-C/, ctx);
    children.push(serve);
    const origin = `http://127.0.0.1:${port}`;
    const urls = {
      static: ['static by-id', `${origin}/api/pepe/${id}`],
      list: ['list page', `${origin}/api/pepe?limit=25&page=3`],
      search: [`search "${searchWord}"`, `${origin}/api/pepe?search=${encodeURIComponent(searchWord)}&limit=10`],
      b: ['variant B list (random, never cached)', `${origin}/v1/pepe?limit=10`],
    } as const;
    for (const name of variant.cases) add(`${variant.label}: ${urls[name][0]}`, urls[name][1], serve.pid);
    for (const name of variant.browserCases ?? []) add(`${variant.label}: ${urls[name][0]}, gzip/br client`, urls[name][1], serve.pid, browserLike);
  }
  return cases;
}

/**
 * Loads every case in turn, `rounds` times over: each round measures the baselines and every
 * case within a minute or two, so a ratio is taken between figures of the same minutes: a
 * shared VM's speed drifts within an hour, and one baseline run for a whole table would carry
 * that drift into every ratio.
 */
async function measureRounds(ctx: BenchContext, generator: LoadGenerator, cases: LoadCase[], setup: { seconds: number; rounds: number }): Promise<Map<string, Load[]>> {
  const samples = new Map<string, Load[]>(cases.map((c) => [c.name, []]));
  for (let round = 1; round <= setup.rounds; round++) {
    for (const c of cases) {
      if (round === 1) await load(generator, c.url, 1, undefined, c.headers); // warm-up: JIT, caches, connection set-up
      const result = await load(generator, c.url, setup.seconds, c.pid, c.headers);
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${c.name}: ${result.non2xx} non-2xx answers and ${result.errors} errors from ${c.url}`);
      samples.get(c.name)!.push(result);
      ctx.log(`${generator.name}, round ${round}: ${c.name}: ${Math.round(result.rps)} req/s, ${result.cpuUs === null ? '?' : Math.round(result.cpuUs)} µs CPU/request`);
    }
  }
  return samples;
}

/** One row per case: medians over the rounds, and each ratio as the median of the per-round ratios (with their range for bare Node). */
export function reportRows(samples: Map<string, Load[]>): Record<string, string | number>[] {
  const ratios = (name: string, baseline: string) => {
    const base = samples.get(baseline);
    return base ? samples.get(name)!.map((load, round) => load.rps / base[round]!.rps) : null;
  };
  const ratioCell = (values: number[] | null) => (values ? round(median(values)) : 'n/a');
  const rows: Record<string, string | number>[] = [];
  for (const [name, loads] of samples) {
    const cpu = loads.map((l) => l.cpuUs).filter((us): us is number => us !== null);
    const vsBare = ratios(name, BARE)!;
    rows.push({
      case: name,
      'req/s': Math.round(median(loads.map((l) => l.rps))),
      'server CPU µs/req': cpu.length === loads.length ? Math.round(median(cpu)) : 'n/a',
      'p99 ms': round(median(loads.map((l) => l.p99)), 2),
      'vs bare node': ratioCell(vsBare),
      'vs bare node, per round': vsBare.length > 1 ? `${round(Math.min(...vsBare))}–${round(Math.max(...vsBare))}` : round(vsBare[0]!),
      'vs nginx 1w': ratioCell(ratios(name, NGINX_1)),
      'vs nginx 2w': ratioCell(ratios(name, NGINX_2)),
    });
  }
  return rows;
}

/** nginx prints nothing when ready; poll until it answers. */
async function waitForHttp(url: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`${url} did not answer within 5 s`);
}

export default { name: 'serve', run } satisfies Bench;
