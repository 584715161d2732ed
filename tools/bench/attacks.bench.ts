/**
 * `pepe serve` under cheap attacks (slow clients, floods, oversized requests), on loopback: `pepe serve --workers 1` (its
 * own process, started as a user starts it, a fresh one per attack so that each starts from
 * the same idle state and a cold image) over the sample catalogue (content/), built here.
 * Each attack runs for at most 60 s while the server's RSS is sampled (/proc, every 20 ms)
 * and a probe on its own connection, in a worker thread (so the attacking loops cannot delay
 * its clock), asks for a list page every 20 ms. Reported: the idle RSS before the attack, the
 * largest during it, and the probe's p99, against the same probe with no attack (the
 * baseline of the same run); growth is also compared with a control, as many ordinary
 * requests (unique list pages). Targets: peak ≤ idle + 64 MB, probe p99 ≤ 100 ms.
 *
 * 1. unique paths: 20,000 requests for `/api/<15,000 × a><n>` (404s the CDN cache may keep);
 * 2. unique queries: 20,000 requests for `/api/pepe?x=<15,000 × a><n>` (200s it keeps);
 * 3. pipelining: one connection sends 20,000 `GET /images/<largest image>` for an image not
 *    yet read, and never reads an answer (held 10 s, then closed).
 *
 * `--quick`: 2,000 requests each.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile, stat } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { percentile, round, type Bench, type BenchContext } from './context.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PEPE = join(REPO, 'tools', 'pepe.mjs');
const MB = 1024 * 1024;
/** Every attack stops after this, finished or not: the bound the attack targets are stated for. */
const ATTACK_LIMIT_MS = 60_000;
/** How long the pipelining connection is held open without reading. */
const PIPELINE_HOLD_MS = 10_000;
const LONG = 'a'.repeat(15_000);
/** The probe's request: a list page (kept in the CDN cache after the first). */
const PROBE_PATH = '/api/pepe?limit=5';
const PROBE_EVERY_MS = 20;

/** The resident set size of process `pid` in bytes (Linux /proc). */
async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (!kb) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kb[1]) * 1024;
}

/** Samples `pid`'s RSS every 20 ms until stopped; resolves with the largest seen. */
function samplePeakRss(pid: number): { stop(): Promise<number> } {
  let peak = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      peak = Math.max(peak, await rssBytes(pid));
      await new Promise((done) => setTimeout(done, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return Math.max(peak, await rssBytes(pid));
    },
  };
}

/** The probe, in a worker thread: a GET every PROBE_EVERY_MS on one keep-alive connection, its latencies (ms) posted when told to stop. */
const PROBE_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const latencies = [];
let failures = 0;
let stopped = false;
parentPort.on('message', () => { stopped = true; });
(async () => {
  while (!stopped) {
    const started = performance.now();
    await new Promise((done) => {
      const req = http.get(workerData.url, { agent, timeout: 5000 }, (res) => {
        res.resume();
        res.on('end', () => { if (res.statusCode !== 200) failures++; latencies.push(performance.now() - started); done(); });
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => { failures++; latencies.push(performance.now() - started); done(); });
    });
    await new Promise((done) => setTimeout(done, workerData.every));
  }
  agent.destroy();
  parentPort.postMessage({ latencies, failures });
})();
`;

function startProbe(url: string): { stop(): Promise<{ p99: number; count: number; failures: number }> } {
  const worker = new Worker(PROBE_SOURCE, { eval: true, workerData: { url, every: PROBE_EVERY_MS } });
  const result = once(worker, 'message') as Promise<[{ latencies: number[]; failures: number }]>;
  return {
    async stop() {
      worker.postMessage('stop');
      const [{ latencies, failures }] = await result;
      await worker.terminate();
      return { p99: percentile(latencies, 99), count: latencies.length, failures };
    },
  };
}

/** `count` GETs for `pathOf(n)` over `connections` keep-alive connections, answers read; stops at the deadline. Resolves with the number answered. */
async function uniqueUrls(base: string, count: number, pathOf: (n: number) => string, deadline: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  let next = 0;
  let answered = 0;
  const one = (path: string) =>
    new Promise<void>((done) => {
      const req = request(`${base}${path}`, { agent }, (res) => {
        res.resume();
        res.on('end', () => {
          answered++;
          done();
        });
      });
      req.on('error', () => done());
      req.end();
    });
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count && Date.now() < deadline) await one(pathOf(next++));
    }),
  );
  agent.destroy();
  return answered;
}

/** One connection writing `count` pipelined GETs for `path` and reading nothing, held open PIPELINE_HOLD_MS (or until the server cuts it). */
async function pipelineWithoutReading(base: string, path: string, count: number, deadline: number): Promise<number> {
  const { hostname, port } = new URL(base);
  const socket = connect({ host: hostname, port: Number(port) });
  await once(socket, 'connect');
  socket.pause();
  socket.on('error', () => {});
  socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`.repeat(count));
  // Not once(): it rejects on the reset of a connection the server cuts.
  const closed = new Promise((done) => socket.once('close', done));
  await Promise.race([closed, new Promise((done) => setTimeout(done, Math.min(PIPELINE_HOLD_MS, deadline - Date.now())))]);
  socket.destroy();
  return count;
}

async function startServe(ctx: BenchContext, distDir: string): Promise<{ child: ChildProcess; url: string }> {
  // Without the bench's tuned allocator (main.ts): measured as a user runs pepe serve.
  const { GLIBC_TUNABLES: _tuned, ...env } = process.env;
  const child = spawn(process.execPath, [PEPE, 'serve', '--dir', distDir, '--port', '0', '--workers', '1'], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((done, fail) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /Serving .* at (http:\/\/\S+)/.exec(output);
      if (found) done(found[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => fail(new Error(`pepe serve exited with ${code}:\n${output.slice(0, 2000)}`)));
  });
  ctx.log(`pepe serve at ${url} (pid ${child.pid})`);
  return { child, url };
}

/** The largest image of the build: the costliest one to read once per pipelined request. */
async function largestImage(distDir: string): Promise<string> {
  const folder = join(distDir, 'site', 'images');
  let best = { name: '', size: -1 };
  for (const name of await readdir(folder)) {
    const { size } = await stat(join(folder, name));
    if (size > best.size) best = { name, size };
  }
  return `/images/${best.name}`;
}

async function run(ctx: BenchContext): Promise<void> {
  const count = ctx.quick ? 2_000 : 20_000;
  const distDir = join(ctx.tmpRoot, 'dist');
  ctx.log('building the sample catalogue');
  const build = spawn(process.execPath, [PEPE, 'build', '--content', join(REPO, 'content'), '--out', distDir, '--cache', join(ctx.tmpRoot, 'cache')], { cwd: REPO, stdio: 'inherit' });
  const [code] = (await once(build, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`pepe build exited with ${code}`);
  const image = await largestImage(distDir);
  const attacks: { name: string; run: (url: string, deadline: number) => Promise<number> }[] = [
    { name: 'none (probe only, 5 s)', run: async (_url, deadline) => (await new Promise((done) => setTimeout(done, Math.min(5_000, deadline - Date.now()))), 0) },
    // The control: as many ordinary requests (unique list pages, each kept by the CDN cache), to tell the attacks' cost from what any load costs.
    { name: `control: ${count} unique ordinary list pages`, run: (url, deadline) => uniqueUrls(url, count, (n) => `/api/pepe?limit=25&n=${n}`, deadline) },
    { name: `${count} unique 15 KB paths`, run: (url, deadline) => uniqueUrls(url, count, (n) => `/api/${LONG}${n}`, deadline) },
    { name: `${count} unique 15 KB queries`, run: (url, deadline) => uniqueUrls(url, count, (n) => `/api/pepe?x=${LONG}${n}`, deadline) },
    { name: `${count} pipelined cold-image requests, never read`, run: (url, deadline) => pipelineWithoutReading(url, image, count, deadline) },
  ];
  const rows: Record<string, string | number>[] = [];
  let baselineP99 = Number.NaN;
  let controlGrowth = Number.NaN;
  for (const attack of attacks) {
    const { child, url } = await startServe(ctx, distDir);
    const pid = child.pid!;
    try {
      // Warm the probe's answer, then let the server settle.
      await fetch(`${url}${PROBE_PATH}`).then((res) => res.arrayBuffer());
      await new Promise((done) => setTimeout(done, 1_000));
      const idle = await rssBytes(pid);
      const peak = samplePeakRss(pid);
      const probe = startProbe(`${url}${PROBE_PATH}`);
      const started = Date.now();
      const sent = await attack.run(url, started + ATTACK_LIMIT_MS);
      const seconds = (Date.now() - started) / 1000;
      const probed = await probe.stop();
      const peakRss = await peak.stop();
      if (Number.isNaN(baselineP99)) baselineP99 = probed.p99;
      const growth = (peakRss - idle) / MB;
      if (attack.name.startsWith('control')) controlGrowth = growth;
      rows.push({
        attack: attack.name,
        s: round(seconds, 1),
        'requests sent': sent,
        'idle RSS MB': round(idle / MB, 1),
        'peak RSS MB': round(peakRss / MB, 1),
        'growth MB (≤ 64)': round(growth, 1),
        'growth vs control': Number.isNaN(controlGrowth) ? 'n/a' : round(growth / controlGrowth, 2),
        'probe p99 ms (≤ 100)': round(probed.p99, 1),
        'probe p99 vs no attack': round(probed.p99 / baselineP99, 2),
        'probe failures': probed.failures,
      });
      ctx.log(`${attack.name}: +${round(growth, 1)} MB, probe p99 ${round(probed.p99, 1)} ms`);
    } finally {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  }
  ctx.table('pepe serve --workers 1 over the sample catalogue, loopback, a fresh server per attack', rows);
}

export default { name: 'attacks', run } satisfies Bench;
