/**
 * `pepe serve` throughput on loopback, against two baselines measured in the same run:
 * nginx serving the same static by-id file (Debian package; `apt-get install -y nginx-light`
 * if missing) and a bare Node `http` server answering a fixed string.
 *
 * The catalogue is synthetic (10k records, 2k with --quick; metadata only, no images),
 * written the way `pepe build` writes it: compileCatalogue → data module + precomputed
 * files + manifest, then the real esbuild function bundle. Each server runs as a child
 * process. The load generator gets about one core of the two: wrk with one thread (Debian
 * package `wrk`, when installed) and autocannon in this process, each for a bounded time per
 * case, one table each. autocannon, a Node client, spends as much CPU per answer as the
 * servers do (40–50 µs for a 13 kB list page): in slow hours it tops out near 34–44k req/s
 * here, below nginx, so its ratios say as much about the client as about the servers; wrk's
 * do not.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { chmod, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { catalogueModuleSource, compileCatalogue, precomputedFiles } from '../../functions/core/catalogue.js';
import { bundleFunction } from '../build/bundle-function.js';
import { createManifest, type ManifestEntry, stableJson } from '../build/manifest.js';
import { round, type Bench, type BenchContext } from './context.js';
import { syntheticRecords } from './synthetic-records.js';

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
  const put = async (path: string, body: string) => {
    await mkdir(dirname(join(distDir, path)), { recursive: true });
    await writeFile(join(distDir, path), body);
    entries.set(path, { sha256: createHash('sha256').update(body).digest('hex'), size: Buffer.byteLength(body) });
  };
  await put('data/catalogue.mjs', catalogueModuleSource(data));
  for (const file of precomputedFiles(data)) await put(`site/${file.path}`, file.body);
  await bundleFunction({ distDir });
  await writeFile(join(distDir, 'manifest.json'), stableJson(createManifest(entries, URLS, { records: records.length, images: 0 })));
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

async function run(ctx: BenchContext): Promise<void> {
  const count = ctx.quick ? 2_000 : 10_000;
  const seconds = ctx.quick ? 2 : 5;
  const distDir = join(ctx.tmpRoot, 'dist');
  ctx.log(`writing a synthetic build of ${count} records`);
  const { id, searchWord } = await writeSyntheticBuild(distDir, count);
  const wrk = findWrk();
  if (wrk === null) ctx.log('wrk not found: install it with `apt-get install -y wrk` for figures not limited by the load generator');
  for (const generator of wrk === null ? [autocannonGenerator] : [wrkGenerator(wrk), autocannonGenerator]) {
    await measureServers(ctx, generator, { distDir, id, searchWord, count, seconds });
  }
}

async function measureServers(ctx: BenchContext, generator: LoadGenerator, setup: { distDir: string; id: string; searchWord: string; count: number; seconds: number }): Promise<void> {
  const { distDir, id, searchWord, count, seconds } = setup;
  const rows: Record<string, string | number>[] = [];
  const results = new Map<string, Load>();
  const measure = async (name: string, url: string, pid: number | undefined, headers: Record<string, string> = {}) => {
    await load(generator, url, 1, undefined, headers); // warm-up: JIT, caches, connection set-up
    const result = await load(generator, url, seconds, pid, headers);
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx answers and ${result.errors} errors from ${url}`);
    results.set(name, result);
    ctx.log(`${generator.name}: ${name}: ${Math.round(result.rps)} req/s, ${result.cpuUs === null ? '?' : Math.round(result.cpuUs)} µs CPU/request`);
  };

  // Baseline 1: bare Node returning a fixed string.
  const barePort = await freePort();
  const bare = await startChild(process.execPath, ['-e', `require('http').createServer((q, s) => s.end('pepe')).listen(${barePort}, '127.0.0.1', () => console.log('ready'))`], /ready/, ctx);
  try {
    await measure('bare node (fixed string)', `http://127.0.0.1:${barePort}/`, bare.pid);
  } finally {
    await stopChild(bare);
  }

  // Baseline 2: nginx serving the same static by-id file, one worker (like pepe serve) and one per core.
  const nginx = findNginx();
  if (nginx) {
    // nginx workers drop root privileges (to nobody) and must be able to read the files.
    await chmod(ctx.tmpRoot, 0o755);
    for (const workers of [1, 2]) {
      const nginxDir = join(ctx.tmpRoot, `nginx-${workers}`);
      await mkdir(nginxDir, { recursive: true });
      const port = await freePort();
      await writeFile(join(nginxDir, 'nginx.conf'), nginxConfig(nginxDir, join(distDir, 'site'), port, workers));
      const child = spawn(nginx, ['-c', join(nginxDir, 'nginx.conf'), '-p', nginxDir], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      try {
        await waitForHttp(`http://127.0.0.1:${port}/api/pepe/${id}`).catch((error: Error) => {
          throw new Error(`${error.message}; nginx said: ${stderr.slice(0, 1000)}`);
        });
        await measure(`nginx ${workers} worker${workers > 1 ? 's' : ''} (static by-id)`, `http://127.0.0.1:${port}/api/pepe/${id}`, child.pid);
      } finally {
        await stopChild(child);
      }
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
  for (const variant of variants) {
    const port = await freePort();
    const serve = await startChild(process.execPath, [join(REPO, 'tools/pepe.mjs'), 'serve', '--dir', distDir, '--port', String(port), ...variant.flags], /Ctrl-C/, ctx);
    const origin = `http://127.0.0.1:${port}`;
    const urls = {
      static: ['static by-id', `${origin}/api/pepe/${id}`],
      list: ['list page', `${origin}/api/pepe?limit=25&page=3`],
      search: [`search "${searchWord}"`, `${origin}/api/pepe?search=${encodeURIComponent(searchWord)}&limit=10`],
      b: ['variant B list (random, never cached)', `${origin}/v1/pepe?limit=10`],
    } as const;
    const browserLike = { 'accept-encoding': 'gzip, deflate, br' };
    try {
      for (const name of variant.cases) await measure(`${variant.label}: ${urls[name][0]}`, urls[name][1], serve.pid);
      for (const name of variant.browserCases ?? []) await measure(`${variant.label}: ${urls[name][0]}, gzip/br client`, urls[name][1], serve.pid, browserLike);
    } finally {
      await stopChild(serve);
    }
  }

  const bareRps = results.get('bare node (fixed string)')!.rps;
  const nginx1 = results.get('nginx 1 worker (static by-id)')?.rps;
  const nginx2 = results.get('nginx 2 workers (static by-id)')?.rps;
  for (const [name, result] of results) {
    rows.push({
      case: name,
      'req/s': Math.round(result.rps),
      'server CPU µs/req': result.cpuUs === null ? 'n/a' : Math.round(result.cpuUs),
      'p99 ms': round(result.p99, 2),
      'vs bare node': round(result.rps / bareRps),
      'vs nginx 1w': nginx1 ? round(result.rps / nginx1) : 'n/a',
      'vs nginx 2w': nginx2 ? round(result.rps / nginx2) : 'n/a',
    });
  }
  ctx.table(`requests/s on loopback, ${count} records, ${generator.name} ${CONNECTIONS} connections × ${seconds} s`, rows);
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
