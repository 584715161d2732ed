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
 * status, the headers the specification names, and the body's bytes; a conditional GET sends
 * each server the ETag it gave. netlify dev's static server puts its own Content-Type,
 * Cache-Control and ETag over netlify.toml's, so a file's headers are also checked against
 * Netlify's own header parser (from the CLI's install) over the same netlify.toml. Each
 * difference is classified against EXPLAINED (netlify dev's own behaviour, with its reason) or
 * is new; the table lists every difference, and the exit status is 0 only when each one is
 * explained. Random answers are compared on status and headers only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, readdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { STATIC_DEFAULT_CACHE_CONTROL } from '../../functions/core/cache-policy.js';
import { startServer } from '../serve/server.js';
import { buildFixtureSite, type FixtureSite } from './fixture-catalogue.js';

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
  'content-security-policy',
  'vary',
];

interface Probe {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Random answers: the bodies differ by design. */
  random?: boolean;
  /** Sent with `If-None-Match` holding the ETag that same server gave a plain GET of the path. */
  conditional?: boolean;
}
interface Answer {
  status: number;
  body: string;
  headers: Record<string, string>;
  bodySha: string;
  bytes: number;
}

/** A plain HTTP/1.1 request (not fetch: it would add headers and refuse some methods' bodies). */
async function send(port: number, probe: Probe): Promise<Answer> {
  if (!probe.conditional) return sendOnce(port, probe);
  const etag = (await sendOnce(port, { method: 'GET', path: probe.path })).headers.etag;
  return sendOnce(port, { ...probe, headers: { ...probe.headers, 'if-none-match': etag ?? '"none"' } });
}

function sendOnce(port: number, probe: Probe): Promise<Answer> {
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

/** What answers a request on Netlify: a file of the published folder, the function, or neither (the 404 page). */
type Source = 'file' | 'function' | 'nothing';

/** One way an answer of netlify dev differs from pepe serve's: `field` is 'status', 'body' or a header name. */
interface Difference {
  request: string;
  source: Source;
  field: string;
  ours: string;
  theirs: string;
  /** netlify dev's body, to recognise the path it answered for. */
  theirsBody: string;
}

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/**
 * The differences that are netlify dev's own (or our decision), each with its reason: one entry
 * matches a difference when each condition it sets holds: `source`, `request` against
 * "METHOD path[ [request headers]]", `field`, `theirs` against netlify dev's value (a header it
 * did not send is '—'), `theirsBody` against its body. Anything else is a new difference: fix
 * it in `pepe serve` or netlify.toml, or add it here with Netlify's reason.
 */
const EXPLAINED: { source?: Source; request?: RegExp; field: RegExp; theirs?: RegExp; theirsBody?: RegExp; reason: string }[] = [
  {
    field: /^netlify-cdn-cache-control$/,
    reason: "Netlify's CDN reads this header and never passes it to clients; pepe serve leaves it out (self-hosting puts other CDNs in front)",
  },
  { field: /^vary$/, theirs: /^—$/, reason: "pepe serve compresses and says so; netlify dev does not compress (Netlify's CDN does, with its own Vary)" },
  {
    source: 'file',
    request: /^(GET|HEAD) /,
    field: /^(content-type|cache-control|etag)$/,
    reason:
      "netlify dev's static server sends its own type, max-age=0 and weak ETag over netlify.toml's [[headers]] (utils/proxy.js: writeHead after setHeader); Netlify serves the [[headers]], which the `[[headers]]` rows check with Netlify's own parser",
  },
  {
    source: 'function',
    field: /^(status|etag|body)$/,
    theirsBody: /\.html?\b/,
    reason:
      "after a function's 404 netlify dev asks it again for \"….html\", \"…/index.htm\" (alternativePathsFor) and sends the last answer, which names that path; Netlify documents that a function gets the original URL",
  },
  {
    source: 'function',
    request: /^(OPTIONS|GET) \/api\/pepe[?/ ]?.*( \[.*\])$/,
    field: /^(content-type|cache-control)$/,
    theirs: /^(application\/json; charset=utf-8|public, max-age=60)$/,
    reason:
      "netlify dev adds the `/api/pepe/*` [[headers]] (its pattern also matches /api/pepe) to the function's 204 and 304, which carry no type; Netlify applies [[headers]] only to files it serves (docs.netlify.com/manage/routing/headers, Limitations)",
  },
  {
    source: 'file',
    request: /^(OPTIONS|POST) \/(api|v1)\//,
    field: /./,
    reason:
      "with preferStatic the static file wins, and netlify dev's static server answers other methods with a plain-text 405 before the function runs; what Netlify's CDN does here cannot be seen offline",
  },
  {
    source: 'nothing',
    field: /^(cache-control|etag|access-control-allow-origin|access-control-expose-headers|content-security-policy)$/,
    reason:
      "both send the site's 404 page: pepe serve with its error headers (CORS and an ETag: every error answer is readable from another origin) and none of the path's rules (those of /images/* would cache a 404 for 30 days), netlify dev with the path's [[headers]] (here /p/*'s policy) under its static server's max-age=0; Netlify does not document which",
  },
  {
    source: 'function',
    request: /^GET \/(api|v1)\/\S+\/$/,
    field: /./,
    theirsBody: /^<!doctype html>/i,
    reason:
      "netlify dev finds a file for \"<file>/\" (path.resolve drops the slash), so it skips the function (preferStatic), and its static server then sends the 404 page; pepe serve hands the path to the function (the by-id answer's bytes, a 404 naming the listing's head); Netlify's CDN does not document this case",
  },
  {
    request: /^GET \/api\/daily$/,
    field: /^cache-control$/,
    theirs: /^public, max-age=\d+$/,
    reason: 'the seconds left until UTC midnight, counted when each server answers',
  },
];

/** The reason that explains `difference`, or null: a new difference. */
function explanationOf(difference: Difference): string | null {
  const entry = EXPLAINED.find(
    (e) =>
      (e.source === undefined || e.source === difference.source) &&
      (e.request === undefined || e.request.test(difference.request)) &&
      e.field.test(difference.field) &&
      (e.theirs === undefined || e.theirs.test(difference.theirs)) &&
      (e.theirsBody === undefined || e.theirsBody.test(difference.theirsBody)),
  );
  return entry?.reason ?? null;
}

/** What answers `path` on Netlify: a file of the site folder (`/` is index.html), else the function under its routes, else nothing. */
function sourceOf(siteFiles: Set<string>, path: string): Source {
  const pathname = new URL(path, 'http://x').pathname;
  if (siteFiles.has(pathname === '/' ? '/index.html' : decodeURIComponent(pathname))) return 'file';
  return /^\/(api|v1)(\/|$)/.test(pathname) ? 'function' : 'nothing';
}

/**
 * The headers netlify dev's static server hides, as Netlify derives them: its own header
 * parser (`@netlify/headers-parser`, from the CLI's install) over the same netlify.toml.
 * Returns the rules' headers for a path, names in lowercase.
 */
async function netlifyHeaderRules(netlifyBin: string, netlifyToml: string): Promise<(path: string) => Record<string, string>> {
  const cli = dirname(dirname(await realpath(netlifyBin)));
  const candidates = [join(cli, 'node_modules/@netlify/headers-parser'), join(dirname(cli), '@netlify/headers-parser')];
  const found = candidates.find((folder) => existsSync(join(folder, 'package.json')));
  if (!found) throw new Error(`@netlify/headers-parser is not beside ${cli} (looked in ${candidates.join(', ')}): install netlify-cli whole`);
  const parser = (await import(pathToFileURL(join(found, 'lib/index.js')).href)) as {
    parseAllHeaders: (options: { netlifyConfigPath: string; minimal: boolean }) => Promise<{ headers: { forRegExp: RegExp; values: Record<string, string> }[]; errors: Error[] }>;
  };
  const { headers, errors } = await parser.parseAllHeaders({ netlifyConfigPath: netlifyToml, minimal: false });
  if (errors.length > 0) throw new Error(`Netlify's header parser refuses ${netlifyToml}: ${errors.map((e) => e.message).join('; ')}`);
  return (path) => {
    const merged: Record<string, string> = {};
    for (const rule of headers) if (rule.forRegExp.test(path)) for (const [name, value] of Object.entries(rule.values)) merged[name.toLowerCase()] = value;
    return merged;
  };
}

/** The build's own names a probe needs: a record, a listing page, a dataset shard, a gallery asset. */
interface Targets {
  id: string;
  image: string;
  phash: string;
  listingPage: string;
  shard: string;
  shardSums: string;
  asset: string;
  manifestTree: string;
}

async function targetsOf(site: FixtureSite): Promise<Targets> {
  const files = join(site.distDir, 'site');
  const record = site.records[0]!;
  const head = JSON.parse(await readFile(join(files, 'api/listing/head'), 'utf8')) as { data: { oldest: string } };
  const index = JSON.parse(await readFile(join(files, 'dataset/index.json'), 'utf8')) as { shards: { url: string; image_sha256: { url: string } }[] };
  const asset = (await readdir(join(files, 'assets'))).find((name) => name.endsWith('.css'));
  const tree = (await readdir(join(site.distDir, 'manifest')))[0];
  if (!asset || !tree) throw new Error(`no gallery style sheet in ${join(files, 'assets')} or no manifest tree in ${join(site.distDir, 'manifest')}: the build changed, update this script`);
  return {
    id: record.id,
    image: `${record.id}${record.file_ext}`,
    phash: record.phash,
    listingPage: new URL(head.data.oldest).pathname,
    shard: `/dataset/${index.shards[0]!.url}`,
    shardSums: `/dataset/${index.shards[0]!.image_sha256.url}`,
    asset: `/assets/${asset}`,
    manifestTree: `/manifest/${tree}`,
  };
}

function probes({ id, image, phash, listingPage, shard, shardSums, asset, manifestTree }: Targets): Probe[] {
  const gets = [
    '/api/pepe',
    '/api/pepe?limit=3&page=2',
    '/api/pepe?tags=smug&sort=created_at&order=desc',
    '/api/pepe?search=frog&limit=5',
    '/v1/pepe?search=sad',
    `/api/pepe/${id}`,
    `/v1/pepe/${id}`,
    `/api/pepe/${UNKNOWN_ID}`,
    `/v1/pepe/${UNKNOWN_ID}`,
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
    `/images/${UNKNOWN_ID}.png`,
    '/nope',
    '/',
    // The static listing and the deprecated sorted pages the function answers in its place.
    '/api/listing/head',
    listingPage,
    `/api/listing/${UNKNOWN_ID}`,
    '/api/pages/created_at_desc/1',
    '/api/pages/created_at_asc/1',
    '/api/pages/created_at_desc/2',
    '/api/pages/nope/1',
    // The dataset; the manifest (root and trees) is the build's, outside the published folder.
    '/dataset/index.json',
    shard,
    shardSums,
    '/manifest.json',
    manifestTree,
    // Discovery, share pages, feeds and the gallery's files.
    '/api/tags',
    `/api/similar/${id}`,
    `/api/similar/${UNKNOWN_ID}`,
    `/api/similar?phash=${phash}`,
    `/p/${id}`,
    `/p/${UNKNOWN_ID}`,
    `/oembed/${id}.json`,
    '/feed.xml',
    '/feed.json',
    '/sitemap.xml',
    '/sitemaps/gallery.xml',
    '/robots.txt',
    asset,
    // A trailing slash is accepted on every API path; a file's name has none.
    `/api/pepe/${id}/`,
    '/api/listing/head/',
    `/p/${id}/`,
    '/index.html',
  ];
  return [
    ...gets.map((path) => ({ method: 'GET', path })),
    ...gets.slice(0, 8).map((path) => ({ method: 'GET', path, headers: { origin: 'https://elsewhere.example', 'if-none-match': '"nope"' } })),
    ...[`/api/pepe/${id}`, '/api/pepe?limit=3&page=2', '/api/listing/head', listingPage, '/api/pages/created_at_desc/1', shard, `/p/${id}`, '/feed.xml'].map((path) => ({
      method: 'GET',
      path,
      conditional: true,
    })),
    { method: 'GET', path: '/api/pepe?random=true&limit=3', random: true },
    { method: 'GET', path: '/v1/pepe?limit=2', random: true },
    { method: 'GET', path: '/v1/pepe?unknown=1', random: true },
    { method: 'GET', path: '/api/pepe?search=zzzz-nothing', random: true },
    { method: 'GET', path: '/api/daily' },
    ...['/api/pepe?limit=1', `/api/pepe/${id}`, `/images/${image}`, '/api/listing/head', '/api/pages/created_at_asc/1', '/dataset/index.json', `/p/${id}`].map((path) => ({ method: 'HEAD', path })),
    { method: 'OPTIONS', path: '/api/pepe', headers: { origin: 'https://a.example', 'access-control-request-method': 'GET' } },
    { method: 'OPTIONS', path: `/v1/pepe/${id}`, headers: { origin: 'https://a.example', 'access-control-request-method': 'GET' } },
    { method: 'OPTIONS', path: '/api/listing/head', headers: { origin: 'https://a.example', 'access-control-request-method': 'GET' } },
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
    const list = probes(await targetsOf(site));
    const siteFolder = join(site.distDir, 'site');
    const siteFiles = new Set((await readdir(siteFolder, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => `/${join(e.parentPath, e.name).slice(siteFolder.length + 1)}`));
    const rulesFor = await netlifyHeaderRules(netlifyBin, join(site.root, 'netlify.toml'));
    const differences: Difference[] = [];
    let same = 0;
    for (const probe of list) {
      const ours = await send(pepe.port, probe);
      const theirs = await send(port, probe);
      const sent = [...Object.keys(probe.headers ?? {}), ...(probe.conditional ? ['if-none-match'] : [])];
      const request = `${probe.method} ${probe.path}${sent.length > 0 ? ` [${sent.join(', ')}]` : ''}`;
      const source = sourceOf(siteFiles, probe.path);
      const found: Difference[] = [];
      const differ = (field: string, o: string, t: string) => found.push({ request, source, field, ours: o, theirs: t, theirsBody: theirs.body });
      if (ours.status !== theirs.status) differ('status', String(ours.status), String(theirs.status));
      for (const name of COMPARED) if (ours.headers[name] !== theirs.headers[name]) differ(name, ours.headers[name] ?? '—', theirs.headers[name] ?? '—');
      if (!probe.random && ours.bodySha !== theirs.bodySha) differ('body', `${ours.bytes} B`, `${theirs.bytes} B`);
      // What netlify dev's static server hides: a file's headers as Netlify's own parser reads netlify.toml.
      if (source === 'file' && ours.status === 200 && (probe.method === 'GET' || probe.method === 'HEAD')) {
        const rules = { 'cache-control': STATIC_DEFAULT_CACHE_CONTROL, ...rulesFor(new URL(probe.path, 'http://x').pathname) };
        for (const [name, value] of Object.entries(rules)) if (COMPARED.includes(name) && ours.headers[name] !== value) differ(`[[headers]] ${name}`, ours.headers[name] ?? '—', value);
      }
      if (found.some((d) => d.field === 'body') && process.env.SHOW_BODIES) console.log(`${request}\n  ours: ${ours.body.slice(0, 400)}\n  theirs: ${theirs.body.slice(0, 400)}`);
      if (found.length === 0) same++;
      differences.push(...found);
    }
    const cell = (text: string) => text.replaceAll('|', '\\|');
    console.log('| request | field | pepe serve | netlify dev (`[[headers]]` rows: Netlify\'s header parser) | explained? |\n|---|---|---|---|---|');
    let unexplained = 0;
    for (const difference of differences) {
      const reason = explanationOf(difference);
      if (reason === null) unexplained++;
      console.log(`| ${cell(difference.request)} | ${difference.field} | ${cell(difference.ours)} | ${cell(difference.theirs)} | ${reason === null ? '**NEW**' : `yes: ${cell(reason)}`} |`);
    }
    const unused = EXPLAINED.filter((entry) => !differences.some((d) => explanationOf(d) === entry.reason));
    for (const entry of unused) console.log(`\nnote: no difference needed the explanation "${entry.reason}" (netlify dev may have changed)`);
    const cli = JSON.parse(await readFile(join(dirname(dirname(await realpath(netlifyBin))), 'package.json'), 'utf8')) as { version: string };
    console.log(`\nnetlify-cli ${cli.version}, Node ${process.version}: ${list.length} requests: ${same} the same, ${list.length - same} with differences; ${differences.length} differences, ${differences.length - unexplained} explained, ${unexplained} new`);
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
