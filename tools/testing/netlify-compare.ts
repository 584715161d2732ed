/**
 * `pepe serve` against Netlify's own local server, request by request, over one build.
 * Netlify's CLI is large (hundreds of packages) and needs Node 22+, so it is not a
 * dependency: install it in a folder of its own and point at it, then run on Node 22+:
 *
 *   npm install --prefix /tmp/netlify-cli netlify-cli@27
 *   node --import tsx tools/testing/netlify-compare.ts /tmp/netlify-cli/node_modules/.bin/netlify
 *
 * It builds the fixture catalogue into a deploy-shaped folder (package.json, netlify.toml,
 * functions/, node_modules linked, dist/), starts `netlify dev --offline` there (static files
 * from dist/site with netlify.toml's headers, functions/pepe.ts run by Netlify's function
 * runtime) and `pepe serve` over the same dist/, sends each request to both and compares
 * status, the headers the specification names, and the body's bytes. Each difference is
 * classified against EXPLAINED (netlify dev's own behaviour, with its reason) or is new; the
 * table lists every difference, and the exit status is 0 only when each one is explained.
 * Random answers are compared on status and headers only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, readFile, symlink, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../serve/server.js';
import { buildFixtureSite } from './fixture-catalogue.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** The headers the specification names (plus Vary, which decides what a cache may reuse). */
const COMPARED = [
  'content-type',
  'cache-control',
  'netlify-cdn-cache-control',
  'netlify-vary',
  'etag',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'access-control-allow-methods',
  'access-control-max-age',
  'allow',
  'x-content-type-options',
  'vary',
];

interface Probe {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Random answers: the bodies differ by design. */
  random?: boolean;
}
interface Answer {
  status: number;
  body: string;
  headers: Record<string, string>;
  bodySha: string;
  bytes: number;
}

/** A plain HTTP/1.1 request (not fetch: it would add headers and refuse some methods' bodies). */
function send(port: number, probe: Probe): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: probe.method, path: probe.path, headers: probe.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        const headers: Record<string, string> = {};
        for (const name of COMPARED) {
          const value = res.headers[name];
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        resolve({ status: res.statusCode ?? 0, body: body.toString('utf8'), headers, bodySha: createHash('sha256').update(body).digest('hex').slice(0, 12), bytes: body.length });
      });
    });
    req.on('error', reject);
    req.end(probe.method === 'POST' ? '{}' : undefined);
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once `port` answers HTTP; rejects if the child exits first. */
async function waitForHttp(child: ChildProcess, port: number, log: () => string): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`netlify exited with ${child.exitCode} before serving:\n${log()}`);
    try {
      await send(port, { method: 'GET', path: '/api/openapi.json' });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  throw new Error(`netlify did not answer on port ${port} within 180 s:\n${log()}`);
}

/** One way an answer of netlify dev differs from pepe serve's: `field` is 'status', 'body' or a header name. */
interface Difference {
  request: string;
  field: string;
  ours: string;
  theirs: string;
}

const STATIC_BY_ID = String.raw`/(api|v1)/pepe/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/**
 * The differences that are netlify dev's own, each with its reason: one entry matches a
 * difference when `request` matches "METHOD path[ [request headers]]", `field` the field and,
 * when given, `theirs` netlify dev's value (a header it did not send is '—'). Anything else
 * is a new difference: fix it in `pepe serve`, or add it here with Netlify's reason.
 */
const EXPLAINED: { request: RegExp; field: RegExp; theirs?: RegExp; reason: string }[] = [
  {
    request: /./,
    field: /^netlify-cdn-cache-control$/,
    reason: "Netlify's CDN reads this header and never passes it to clients; pepe serve leaves it out (self-hosting puts other CDNs in front)",
  },
  { request: /./, field: /^vary$/, theirs: /^—$/, reason: "pepe serve compresses and says so; netlify dev does not compress (Netlify's CDN does, with its own Vary)" },
  {
    request: new RegExp(String.raw`^(GET|HEAD) (${STATIC_BY_ID}|/images/[^/]+\.png|/api/openapi\.json|/)( \[.*\])?$`),
    field: /^(content-type|cache-control|etag)$/,
    theirs: /^(application\/octet-stream|public, max-age=0|W\/".*")$/,
    reason: "netlify dev's static server puts its own type, max-age=0 and weak ETag over netlify.toml's [[headers]] (utils/proxy.js); Netlify serves the [[headers]]",
  },
  {
    request: new RegExp(String.raw`^GET ${STATIC_BY_ID} \[if-none-match\]$`),
    field: /^(status|content-type|body)$/,
    reason: "netlify dev's static server answers a matching If-None-Match with the whole file (200), where Netlify's CDN and pepe serve answer 304",
  },
  {
    request: new RegExp(String.raw`^GET (/(api|v1)/pepe/${UNKNOWN_ID}|/api|/v1|/api/nope|/v1/nope/deeper)( \[.*\])?$`),
    field: /^(status|etag|body)$/,
    reason: "netlify dev hands the function the path it tried last for a static file (\"….html\", \"…/index.htm\": alternativePathsFor), so the id is no UUID and the 404 names that path; Netlify documents that a function gets the original URL",
  },
  {
    request: /^OPTIONS \/api\/pepe( \[.*\])?$/,
    field: /^(content-type|cache-control)$/,
    reason: "netlify dev adds netlify.toml's [[headers]] to a function's answer (here the 204 to a preflight); Netlify applies them only to files it serves (docs.netlify.com/manage/routing/headers, Limitations)",
  },
  {
    request: new RegExp(String.raw`^(OPTIONS|POST) ${STATIC_BY_ID}( \[.*\])?$`),
    field: /./,
    reason: "with preferStatic the static file wins, and netlify dev's static server answers other methods with a plain-text 405 before the function runs; what Netlify's CDN does here cannot be seen offline",
  },
  {
    request: /^GET (\/images\/[^/]+|\/nope)$/,
    field: /./,
    reason: "for a path with no file and no function route netlify dev's static server answers a plain-text 404, not the site's 404 page",
  },
];

/** The reason that explains `difference`, or null: a new difference. */
function explanationOf(difference: Difference): string | null {
  const entry = EXPLAINED.find((e) => e.request.test(difference.request) && e.field.test(difference.field) && (e.theirs === undefined || e.theirs.test(difference.theirs)));
  return entry?.reason ?? null;
}

function probes(id: string, image: string, etag: string): Probe[] {
  const gets = [
    '/api/pepe',
    '/api/pepe?limit=3&page=2',
    '/api/pepe?tags=smug&sort=created_at&order=desc',
    '/api/pepe?search=frog&limit=5',
    '/v1/pepe?search=sad',
    `/api/pepe/${id}`,
    `/v1/pepe/${id}`,
    '/api/pepe/00000000-0000-4000-8000-000000000000',
    '/v1/pepe/00000000-0000-4000-8000-000000000000',
    '/api/pepe/not-a-uuid',
    '/api',
    '/v1',
    '/api/nope',
    '/v1/nope/deeper',
    '/api/pepe?page=abc',
    '/api/pepe?limit=0',
    '/api/pepe?limit=101',
    '/api/pepe?sort=nope',
    '/api/pepe?search=%E0%A4%A',
    '/api/openapi.json',
    `/images/${image}`,
    '/images/00000000-0000-4000-8000-000000000000.png',
    '/nope',
    '/',
  ];
  return [
    ...gets.map((path) => ({ method: 'GET', path })),
    ...gets.slice(0, 8).map((path) => ({ method: 'GET', path, headers: { origin: 'https://elsewhere.example', 'if-none-match': '"nope"' } })),
    { method: 'GET', path: `/api/pepe/${id}`, headers: { 'if-none-match': etag } },
    { method: 'GET', path: '/api/pepe?random=true&limit=3', random: true },
    { method: 'GET', path: '/v1/pepe?limit=2', random: true },
    { method: 'GET', path: '/v1/pepe?unknown=1', random: true },
    { method: 'GET', path: '/api/pepe?search=zzzz-nothing', random: true },
    { method: 'HEAD', path: '/api/pepe?limit=1' },
    { method: 'HEAD', path: `/api/pepe/${id}` },
    { method: 'HEAD', path: `/images/${image}` },
    { method: 'OPTIONS', path: '/api/pepe', headers: { origin: 'https://a.example', 'access-control-request-method': 'GET' } },
    { method: 'OPTIONS', path: `/v1/pepe/${id}`, headers: { origin: 'https://a.example', 'access-control-request-method': 'GET' } },
    { method: 'POST', path: '/api/pepe', headers: { 'content-type': 'application/json' } },
    { method: 'POST', path: `/api/pepe/${id}`, headers: { 'content-type': 'application/json' } },
    { method: 'DELETE', path: '/v1/pepe' },
  ];
}

/** netlify.toml without its [[plugins]] tables (each up to the next table that is not one of its own). */
function withoutBuildPlugins(toml: string): string {
  let inPlugin = false;
  return toml
    .split('\n')
    .filter((line) => {
      if (line.startsWith('[')) inPlugin = /^\[\[?plugins[\].]/.test(line);
      return !inPlugin;
    })
    .join('\n');
}

const netlifyBin = process.argv[2];
if (!netlifyBin) {
  console.error('usage: node --import tsx tools/testing/netlify-compare.ts PATH/TO/netlify');
  process.exit(2);
}

const site = await buildFixtureSite({ count: 12 });
let netlify: ChildProcess | undefined;
let output = '';
try {
  // The deploy's view of the repository, as tools/catalogue/netlify-bundle.test.ts builds it.
  await cp(join(REPO, 'package.json'), join(site.root, 'package.json'));
  // Without the [[plugins]] tables: build plugins take no part in serving, and netlify dev
  // refuses to start when one is not installed, which an offline machine cannot fix.
  await writeFile(join(site.root, 'netlify.toml'), withoutBuildPlugins(await readFile(join(REPO, 'netlify.toml'), 'utf8')));
  await cp(join(REPO, 'functions'), join(site.root, 'functions'), { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
  await symlink(join(REPO, 'node_modules'), join(site.root, 'node_modules'), 'dir');

  const port = await freePort();
  // --internal-disable-edge-functions: without it, netlify-cli 27 sets up its Edge Functions
  // environment on the first request even with no edge function in the site, downloading Deno
  // (edge-functions/proxy.js prepareServer: "fetch failed", and the CLI exits). This site has none.
  // No --dir: with it, netlify dev serves files with a "simple static server" that ignores
  // netlify.toml's [[headers]]; without it, the publish folder comes from netlify.toml.
  const args = ['dev', '--offline', '--port', String(port), '--no-open', '--internal-disable-edge-functions'];
  netlify = spawn(netlifyBin, args, {
    cwd: site.root,
    env: { ...process.env, NETLIFY_SITE_ID: '', BROWSER: 'none', NETLIFY_TELEMETRY_DISABLED: '1', CI: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  netlify.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  netlify.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitForHttp(netlify, port, () => output.slice(-8000));
  const pepe = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: join(REPO, 'netlify.toml') });
  try {
    const record = site.records[0]!;
    const image = `${record.id}${record.file_ext}`;
    const etag = (await send(pepe.port, { method: 'GET', path: `/api/pepe/${record.id}` })).headers.etag ?? '"none"';
    const list = probes(record.id, image, etag);
    const differences: Difference[] = [];
    let same = 0;
    for (const probe of list) {
      const ours = await send(pepe.port, probe);
      const theirs = await send(port, probe);
      const request = `${probe.method} ${probe.path}${probe.headers ? ` [${Object.keys(probe.headers).join(', ')}]` : ''}`;
      const found: Difference[] = [];
      if (ours.status !== theirs.status) found.push({ request, field: 'status', ours: String(ours.status), theirs: String(theirs.status) });
      for (const name of COMPARED) if (ours.headers[name] !== theirs.headers[name]) found.push({ request, field: name, ours: ours.headers[name] ?? '—', theirs: theirs.headers[name] ?? '—' });
      if (!probe.random && ours.bodySha !== theirs.bodySha) found.push({ request, field: 'body', ours: `${ours.bytes} B`, theirs: `${theirs.bytes} B` });
      if (found.some((d) => d.field === 'body') && process.env.SHOW_BODIES) console.log(`${request}\n  ours: ${ours.body.slice(0, 400)}\n  theirs: ${theirs.body.slice(0, 400)}`);
      if (found.length === 0) same++;
      differences.push(...found);
    }
    const cell = (text: string) => text.replaceAll('|', '\\|');
    console.log('| request | field | pepe serve | netlify dev | explained? |\n|---|---|---|---|---|');
    let unexplained = 0;
    for (const difference of differences) {
      const reason = explanationOf(difference);
      if (reason === null) unexplained++;
      console.log(`| ${cell(difference.request)} | ${difference.field} | ${cell(difference.ours)} | ${cell(difference.theirs)} | ${reason === null ? '**NEW**' : `yes: ${cell(reason)}`} |`);
    }
    const unused = EXPLAINED.filter((entry) => !differences.some((d) => explanationOf(d) === entry.reason));
    for (const entry of unused) console.log(`\nnote: no difference needed the explanation "${entry.reason}" (netlify dev may have changed)`);
    console.log(`\n${list.length} requests: ${same} the same, ${list.length - same} with differences; ${differences.length} differences, ${differences.length - unexplained} explained, ${unexplained} new`);
    process.exitCode = unexplained === 0 ? 0 : 1;
  } finally {
    await pepe.close();
  }
} finally {
  if (netlify && netlify.exitCode === null) {
    const exited = new Promise((resolve) => netlify!.once('exit', resolve));
    netlify.kill('SIGTERM');
    await exited;
  }
  await site.cleanup();
}
