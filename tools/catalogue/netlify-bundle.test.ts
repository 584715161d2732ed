/**
 * What Netlify deploys, checked with Netlify's own bundler. On a deploy Netlify does not
 * upload our bundle (dist/functions/pepe.mjs): @netlify/zip-it-and-ship-it ("zisi") bundles
 * functions/pepe.ts itself. This runs the real zisi (the version pinned in package.json)
 * over a copy of the repository as a deploy sees it after `npm run build` (package.json,
 * functions/, node_modules, and dist/ from a real build of the fixture catalogue), then
 * checks that the function it produces is complete (data inlined, no file or package
 * missing), is routed as functions/pepe.ts's `config` intends, and answers every request
 * byte for byte like our own bundle.
 */
import { execFile } from 'node:child_process';
import { cp, readdir, readFile, symlink } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { listFunctions, zipFunctions, type FunctionResult } from '@netlify/zip-it-and-ship-it';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogueData } from '../../functions/core/catalogue-data.js';
import { loadNetlifyConfig } from '../shared/netlify-config.js';
import { buildFixtureSite, type FixtureSite } from '../testing/fixture-catalogue.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';

const execFileAsync = promisify(execFile);
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const ROUTES = ['/api', '/api/*', '/v1', '/v1/*'];
// What a deploy hands to zisi: `[functions] node_bundler = "esbuild"` from netlify.toml, and
// as `nodeVersion` AWS_LAMBDA_JS_RUNTIME (@netlify/build's getZisiParameters), which Netlify's
// build sets from the build's Node (netlify.toml NODE_VERSION) unless the site overrides it
// (docs.netlify.com, functions, "Node.js version for runtime"). zisi records that runtime in
// the manifest; given none, it would fall back to its own default for v2 functions.
const NODE_VERSION = (await loadNetlifyConfig(join(REPO, 'netlify.toml'))).build.environment.NODE_VERSION;
const LAMBDA_RUNTIME = `nodejs${NODE_VERSION}.x`;
const NETLIFY_CONFIG = { '*': { nodeBundler: 'esbuild' as const, nodeVersion: LAMBDA_RUNTIME } };

/**
 * Loads the module in a plain Node process, from the Lambda folder, and returns its config
 * and one answer's status. Inside vitest a bare import would still be resolved from the
 * project root, which would hide a package missing from the Lambda folder.
 */
async function loadInPlainNode(file: string): Promise<{ config: unknown; status: number }> {
  const script = `const m = await import(${JSON.stringify(pathToFileURL(file).href)});
const r = await m.default(new Request('https://pepe.example/api/pepe?limit=1'), { params: {} });
process.stdout.write(JSON.stringify({ config: m.config, status: r.status }));`;
  const { NODE_OPTIONS: _, ...env } = process.env;
  const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', script], { cwd: dirname(file), env });
  return JSON.parse(stdout);
}

type Handler = (request: Request, context?: { params?: Record<string, string> }) => Promise<Response>;

let site: FixtureSite;
let result: FunctionResult;
let netlifyHandler: Handler;
let ownHandler: Handler;
let netlifyModule: string;
let deployed: string;
let lambda: TempDir | undefined;

/** Every file and symbolic link below `dir` (nft ships a linked folder as a link), relative and sorted. */
async function filesBelow(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => !e.isDirectory())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** The same pseudo-random sequence for each request, so random answers compare too. */
let randomState = 1;
const sequence = () => ((randomState = (randomState * 48271) % 2147483647) - 1) / 2147483646;

beforeAll(async () => {
  site = await buildFixtureSite({ count: 12 });
  // The deploy's view of the repository: the build wrote dist/ beside package.json and functions/.
  await cp(join(REPO, 'package.json'), join(site.root, 'package.json'));
  await cp(join(REPO, 'functions'), join(site.root, 'functions'), { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
  // The repository's packages, linked: nft would ship the link itself (Netlify ships the
  // files), so a package import shows up as `node_modules` in the Lambda folder below.
  await symlink(join(REPO, 'node_modules'), join(site.root, 'node_modules'), 'dir');
  const results = await zipFunctions(join(site.root, 'functions'), join(site.root, 'zisi-out'), {
    archiveFormat: 'none',
    basePath: site.root,
    repositoryRoot: site.root,
    config: NETLIFY_CONFIG,
    manifest: join(site.root, 'zisi-out/manifest.json'),
  });
  expect(results.map((r) => r.name)).toEqual(['pepe']);
  result = results[0]!;
  // Run the function from a folder of its own, as Lambda does: in place (or anywhere below the
  // fixture), Node would find a package the bundle lacks in the fixture's node_modules.
  lambda = await makeTempDir('pepe-lambda-');
  deployed = join(lambda.path, 'task');
  await cp(result.path, deployed, { recursive: true });
  // The Lambda entry (it needs the `awslambda` global of AWS's runtime, so it is read, not run)
  // names the module whose default export Netlify's bootstrap calls with (Request, context).
  const entry = await readFile(join(deployed, result.entryFilename), 'utf8');
  const wrapped = /getLambdaHandler\('(\.\/[^']+)'\)/.exec(entry)?.[1];
  expect(wrapped).toBe('./functions/pepe.mjs');
  netlifyModule = resolve(deployed, wrapped!);
  // Both handlers capture Math.random when created (handler.ts): give them a resettable sequence.
  const realRandom = Math.random;
  Math.random = () => sequence();
  try {
    netlifyHandler = (await import(pathToFileURL(netlifyModule).href)).default;
    ownHandler = (await import(pathToFileURL(join(site.distDir, 'functions/pepe.mjs')).href)).default;
  } finally {
    Math.random = realRandom;
  }
});

afterAll(async () => Promise.all([site?.cleanup(), lambda?.cleanup()]));

describe("Netlify's bundler (zip-it-and-ship-it) on functions/", () => {
  it('finds one function, pepe, routed by the in-source config with preferStatic', async () => {
    const listed = await listFunctions(join(site.root, 'functions'), { config: NETLIFY_CONFIG, parseISC: true });
    // functions/core holds no index.ts or core.ts, so it is not a function.
    expect(listed.map((f) => f.name)).toEqual(['pepe']);
    const expected = ROUTES.map((pattern) => expect.objectContaining({ pattern, methods: [], prefer_static: true }));
    expect(listed[0]!.runtimeAPIVersion).toBe(2);
    expect(listed[0]!.routes).toEqual(expected);
    expect(result.runtimeAPIVersion).toBe(2);
    expect(result.routes).toEqual(expected);
    expect(result.excludedRoutes).toEqual([]);
    expect(result.config).toMatchObject({ path: ROUTES, preferStatic: true });
    expect(result.outputModuleFormat).toBe('esm');
    // The manifest is what the deploy hands to Netlify's router.
    const manifest = JSON.parse(await readFile(join(site.root, 'zisi-out/manifest.json'), 'utf8'));
    expect(manifest.functions.map((f: { name: string }) => f.name)).toEqual(['pepe']);
    expect(manifest.functions[0].routes).toEqual(expected);
    expect(manifest.functions[0].buildData).toEqual({ runtimeAPIVersion: 2 });
    // The Lambda runtime the deploy asks AWS for: one zisi knows (Node 24 today, as the build).
    expect(manifest.functions[0].runtimeVersion).toBe(LAMBDA_RUNTIME);
    expect(result.runtimeVersion).toBe(LAMBDA_RUNTIME);
  });

  it('bundles v2 functions with its own esbuild + nft, whatever node_bundler says; the data module is inlined', async () => {
    // zisi forces "nft" for v2 functions: netlify.toml's node_bundler is not what runs.
    expect(result.bundler).toBe('nft');
    // `#catalogue` resolved through package.json "imports" to this build's data module...
    expect(result.inputs).toContain(join(site.distDir, 'data/catalogue.mjs'));
    const source = await readFile(netlifyModule, 'utf8');
    const data: CatalogueData = (await import(pathToFileURL(join(site.distDir, 'data/catalogue.mjs')).href)).default;
    expect(source).toContain(`version: ${JSON.stringify(data.version)}`);
    expect(source).toContain(JSON.stringify(data.piecesFile));
    // ...and inlined: the module imports nothing but Node built-ins (its CJS shim).
    const imports = [...source.matchAll(/^\s*import\s[^'"]*?from\s*["']([^"']+)["']/gm)].map((m) => m[1]);
    expect(imports.sort()).toEqual(['module', 'path', 'url']);
    expect(source).not.toMatch(/import\(|#catalogue/);
  });

  it('ships the function and its pieces file (includedFiles), at the place the function looks for it, and no package from node_modules', async () => {
    const data: CatalogueData = (await import(pathToFileURL(join(site.distDir, 'data/catalogue.mjs')).href)).default;
    expect(await filesBelow(deployed)).toEqual([
      '___netlify-bootstrap.mjs',
      '___netlify-entry-point.mjs',
      '___netlify-telemetry.mjs',
      `dist/data/${data.piecesFile}`,
      'functions/pepe.mjs',
      'package.json',
    ]);
    expect(result.includedFiles).toEqual([join(site.distDir, 'data', data.piecesFile)]);
    expect(await readFile(join(deployed, 'dist/data', data.piecesFile))).toEqual(await readFile(join(site.distDir, 'data', data.piecesFile)));
    // Loaded by plain Node from the Lambda folder alone, it answers from the file it ships.
    expect(await loadInPlainNode(netlifyModule)).toEqual({ config: { path: ROUTES, preferStatic: true, includedFiles: ['../dist/data/pieces-*.txt', '!../dist/data/catalogue.mjs'] }, status: 200 });
  });

  it('answers like our own bundle (dist/functions/pepe.mjs): status, headers and body bytes', async () => {
    const record = site.records[0]!;
    const urls = [
      '/api/pepe',
      '/api/pepe?limit=3&page=2',
      '/api/pepe?tags=smug&sort=created_at&order=desc',
      '/api/pepe?search=frog&limit=5',
      '/v1/pepe?search=sad',
      '/v1/pepe?limit=2',
      '/api/pepe?random=true&limit=3',
      `/api/pepe/${record.id}`,
      `/v1/pepe/${record.id}`,
      '/api/pepe/00000000-0000-4000-8000-000000000000',
      '/api/pepe/not-a-uuid',
      '/api',
      '/api/nope',
      '/v1/nope/deeper',
      '/api/pepe?page=abc',
      '/api/pepe?limit=0',
      '/v1/pepe?unknown=1',
      `/api/similar?phash=${record.phash}`,
      '/api/similar?phash=nope',
    ];
    const requests = urls.flatMap((url) => [
      () => new Request(`https://pepe.example${url}`),
      () => new Request(`https://pepe.example${url}`, { headers: { 'if-none-match': '"nope"', origin: 'https://elsewhere.example' } }),
    ]);
    requests.push(
      () => new Request('https://pepe.example/api/pepe?limit=1', { method: 'HEAD' }),
      () => new Request('https://pepe.example/api/pepe', { method: 'OPTIONS', headers: { origin: 'https://a.example', 'access-control-request-method': 'GET' } }),
      () => new Request('https://pepe.example/api/pepe', { method: 'POST', body: '{}' }),
    );
    const statuses = new Set<number>();
    for (const make of requests) {
      randomState = 1;
      const ours = await ownHandler(make(), { params: {} });
      randomState = 1;
      const theirs = await netlifyHandler(make(), { params: {} });
      const label = `${make().method} ${make().url}`;
      expect(theirs.status, label).toBe(ours.status);
      expect([...theirs.headers], label).toEqual([...ours.headers]);
      expect(Buffer.from(await theirs.arrayBuffer()), label).toEqual(Buffer.from(await ours.arrayBuffer()));
      statuses.add(ours.status);
    }
    // The set covers answers, errors and preflights, not just 200s.
    expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 204, 400, 404, 405]));
  });
});
