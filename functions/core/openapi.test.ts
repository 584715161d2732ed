import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import createClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { createHandler } from './handler.js';
import { openApiDocument } from './openapi.js';
import { call, idsNewestFirst, testCatalogue, TEST_URLS } from '../../tools/testing/test-catalogue.js';
import { makeTempDir } from '../../tools/testing/temp-dir.js';

// ajv-formats is CommonJS with a default export; under NodeNext its type is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
type Json = Record<string, any>;

const doc = openApiDocument(TEST_URLS) as Json;
const data = testCatalogue(20);
const handler = createHandler(data);
const id = idsNewestFirst(20)[0]!;

/** The document's operation for a concrete request path (trailing slash accepted). */
function operationFor(path: string): Json | undefined {
  const clean = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
    const pattern = new RegExp(`^${template.replaceAll(/\{[a-z]+\}/g, '[^/]+')}$`);
    if (pattern.test(clean)) return item.get;
  }
  return undefined;
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (third-party validator)', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('is what the handler serves at /api/openapi.json', async () => {
    const r = await call(handler, '/api/openapi.json');
    expect(r.json).toEqual(doc);
  });

  it('lists every path and alias with servers for both variants', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      ['/api/pepe', '/api/pepe_image', '/api/public/pepe', '/api/public/pepes', '/v1/pepe']
        .flatMap((p) => [p, `${p}/{id}`])
        .concat('/api/openapi.json', '/api/listing/head', '/api/listing/{first_id}', '/api/pages/{sort}/{page}', '/api/tags', '/api/similar', '/api/similar/{id}', '/api/daily')
        .sort(),
    );
    expect(doc.servers[0].url).toBe(TEST_URLS.baseUrl);
    expect(doc.paths['/v1/pepe'].servers[0].url).toBe(TEST_URLS.apiUrl);
    const params = doc.paths['/api/pepe'].get.parameters.map((p: Json) => p.name);
    expect(params).toEqual(['limit', 'page', 'search', 'field', 'sort', 'random', 'seed', 'tags', 'exclude_tags', 'animated', 'orientation']);
    expect(doc.paths['/v1/pepe'].get.parameters.map((p: Json) => p.name)).toEqual(['limit', 'search', 'tags', 'exclude_tags']);
    // Booleans for typed clients (the server still accepts 1/0 and any letter case).
    expect(doc.paths['/api/pepe'].get.parameters[5].schema).toEqual({ default: false, type: 'boolean' });
    expect(doc.paths['/api/pepe'].get.parameters[9].schema).toEqual({ type: 'boolean' });
    const limit = doc.paths['/api/pepe'].get.parameters[0];
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 25, default: 1 });
    expect(doc.paths['/v1/pepe'].get.parameters[0].schema).toMatchObject({ minimum: 1, maximum: 100 });
    // Any page of 1 or more is accepted (the specification: "decimal integer ≥ 1"): no maximum promised.
    expect(doc.paths['/api/pepe'].get.parameters[1].schema).toEqual({ default: 1, type: 'integer', minimum: 1 });
    expect(doc.components.schemas.PaginationMeta.properties.page).toEqual({ type: 'integer', minimum: 1 });
    for (const status of ['200', '304', '400', '405', '500']) expect(doc.paths['/api/pepe'].get.responses).toHaveProperty(status);
    expect(doc.paths['/v1/pepe/{id}'].get.responses).toHaveProperty('404');
  });

  it('promises an ETag and a 304 only where an answer can be deterministic (never for the always-random /v1/pepe)', async () => {
    const v1List = doc.paths['/v1/pepe'].get.responses;
    expect(v1List).not.toHaveProperty('304');
    expect(v1List['200'].headers).toBeUndefined();
    const served = await call(handler, '/v1/pepe?limit=3');
    expect(served.headers.get('ETag')).toBeNull();
    for (const path of ['/api/pepe', '/api/pepe/{id}', '/v1/pepe/{id}', '/api/tags', '/api/similar', '/api/similar/{id}', '/api/daily']) {
      expect(doc.paths[path].get.responses).toHaveProperty('304');
      expect(doc.paths[path].get.responses['200'].headers).toHaveProperty('ETag');
    }
  });

  it('documents GET, HEAD and OPTIONS of every path with unique, readable operationIds, and needs no credentials', () => {
    const ids: string[] = [];
    for (const item of Object.values(doc.paths as Record<string, Json>)) {
      expect(Object.keys(item).filter((key) => ['get', 'head', 'options', 'post', 'put', 'delete', 'patch'].includes(key)).sort()).toEqual(['get', 'head', 'options']);
      for (const method of ['get', 'head', 'options']) ids.push(item[method].operationId);
      expect(Object.keys(item.head.responses)).toEqual(Object.keys(item.get.responses));
      for (const response of Object.values(item.head.responses as Record<string, Json>)) expect(response.content).toBeUndefined();
    }
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(doc.paths['/api/public/pepes'].get.operationId).toBe('listPublicPepes');
    expect(doc.paths['/api/pepe_image/{id}'].get.operationId).toBe('getPepeImageById');
    expect(doc.security).toEqual([]);
    expect(doc.info.license).toEqual({ name: 'CC0-1.0', identifier: 'CC0-1.0' });
  });

  describe('describes real answers (ajv, draft 2020-12)', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'https://pepe.test/openapi.json', ...doc });

    it.each([
      '/api/pepe',
      '/api/pepe?limit=5&search=smug',
      '/api/pepe?limit=5&page=9',
      '/api/pepe?page=99',
      // page has no upper bound: the answer echoes digits past 2^53 exactly.
      '/api/pepe?limit=2&page=1234567890123456789012345678901234567890',
      '/api/pepe?search=nothingmatches',
      '/api/pepe?limit=25&random=true&seed=x',
      '/api/public/pepes/?limit=2&sort=relevance&search=pepe',
      `/api/pepe/${id}`,
      `/api/pepe_image/${id.toUpperCase()}`,
      '/api/pepe/00000000-0000-4000-8000-000000000000',
      '/api/pepe/xyz',
      '/api/pepe?limit=30',
      '/v1/pepe?limit=7',
      '/v1/pepe?search=zzz',
      `/v1/pepe/${id}`,
      '/v1/pepe/00000000-0000-4000-8000-000000000000',
      '/v1/pepe?limit=0',
      '/api/pages/created_at_desc/1',
      '/api/pages/created_at_asc/1/',
      '/api/pages/created_at_asc/2',
      '/api/pages/relevance/1',
      '/api/pepe?limit=5&tags=smug&exclude_tags=sad&animated=true&orientation=square',
      '/api/pepe?tags=smug&search=nothingmatches',
      '/api/pepe?tags=a,,b',
      '/v1/pepe?limit=3&tags=smug',
      '/api/tags',
      `/api/similar/${id}`,
      '/api/similar/00000000-0000-4000-8000-000000000000',
      '/api/similar?phash=0000000000001000',
      '/api/similar?phash=000000000000100A&max_distance=0',
      '/api/similar?phash=ffffffffffffffff',
      '/api/similar?phash=123',
      '/api/similar?phash=0000000000001000&max_distance=8',
      '/api/daily',
      '/api/daily?date=2024-01-05',
      '/api/daily?date=1999-01-01',
      '/api/daily?date=2999-01-01',
    ])('GET %s', async (path) => {
      const r = await call(handler, path);
      const operation = operationFor(new URL(path, TEST_URLS.baseUrl).pathname);
      expect(operation, 'documented path').toBeDefined();
      const response = operation!.responses[String(r.status)];
      expect(response, `documented status ${r.status}`).toBeDefined();
      const schema = response.content['application/json'].schema;
      // Local refs of the operation point into the document added above.
      const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"https://pepe.test/openapi.json#/components/')));
      const ok = validate(r.json);
      expect(validate.errors ?? [], r.text.slice(0, 200)).toEqual([]);
      expect(ok).toBe(true);
    });

    it('rejects an answer that breaks the schema (the check can fail)', () => {
      const validate = ajv.getSchema('https://pepe.test/openapi.json#/components/schemas/ByIdEnvelopeA')!;
      expect(validate({ data: { id }, error: null })).toBe(false);
    });
  });
});

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);

/** The served document, written to a temp folder that resolves packages from the repository's node_modules. */
async function servedDocumentFolder(): Promise<{ dir: string; file: string; cleanup: () => Promise<void> }> {
  const temp = await makeTempDir('pepe-openapi-');
  await symlink(join(REPO_ROOT, 'node_modules'), join(temp.path, 'node_modules'));
  const file = join(temp.path, 'openapi.json');
  await writeFile(file, (await call(handler, '/api/openapi.json')).text);
  return { dir: temp.path, file, cleanup: temp.cleanup };
}

/**
 * The bot of the README ("Calling the API from TypeScript"), read from README.md so the two
 * cannot drift: written as openapi-fetch's README suggests, against types generated by openapi-typescript, with no casts and no type guards.
 */
const BOT_SCRIPT = (() => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Calling the API from TypeScript'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('README.md has no ```ts block under "Calling the API from TypeScript"');
  return match[1]!;
})();

const COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
  types: [],
};

/** `tsc --strict` of one file: its diagnostics as text. Each compile reuses the last one's unchanged files (lib.dom, the types). */
let lastProgram: ts.Program | undefined;
function compile(file: string): string[] {
  lastProgram = ts.createProgram([file], COMPILER_OPTIONS, undefined, lastProgram);
  return ts.getPreEmitDiagnostics(lastProgram).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

/** Casts, non-null assertions and hand-written type guards in a script. */
function castsIn(source: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node) || ts.isNonNullExpression(node) || ts.isTypePredicateNode(node) || ts.isSatisfiesExpression(node)) found.push(node.getText());
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile('bot.ts', source, ts.ScriptTarget.ES2022, true));
  return found;
}

describe('client tools accept the served document', () => {
  it('passes Redocly lint with the recommended rules: no errors; warnings only on the CORS preflights, which never fail', async () => {
    const folder = await servedDocumentFolder();
    try {
      const cli = join(dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
      const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
      const run = await promisify(execFile)(process.execPath, [cli, 'lint', '--extends', 'recommended', '--format', 'json', folder.file], { cwd: folder.dir, env, maxBuffer: 1 << 24 }).catch(
        (failure: { stdout?: string; stderr?: string }) => ({ stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' }),
      );
      const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as { problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] };
      expect(report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
      const warnings = report.problems.filter((p) => p.severity === 'warn');
      // Written down: an OPTIONS preflight always answers 204, so it has no 4XX to document.
      expect(warnings.length).toBeGreaterThan(0);
      for (const warning of warnings) {
        expect(warning.ruleId).toBe('operation-4xx-response');
        expect(warning.location[0]?.pointer).toMatch(/\/options\/responses$/);
      }
    } finally {
      await folder.cleanup();
    }
  }, 120_000);

  it('gives openapi-typescript types that a strict openapi-fetch bot compiles against without casts, and the bot runs', async () => {
    const folder = await servedDocumentFolder();
    try {
      const served = (await call(handler, '/api/openapi.json')).text;
      await writeFile(join(folder.dir, 'api.d.ts'), astToString(await openapiTS(Buffer.from(served))));
      const bot = join(folder.dir, 'bot.ts');
      await writeFile(bot, BOT_SCRIPT);
      expect(castsIn(BOT_SCRIPT)).toEqual([]);
      expect(compile(bot)).toEqual([]);
      // The check can fail: a field the document does not have is an error.
      await writeFile(bot, BOT_SCRIPT.replace('pick.url', 'pick.image_url'));
      expect(compile(bot).join('\n')).toMatch(/image_url/);

      // And it runs, against the handler.
      const js = ts.transpileModule(BOT_SCRIPT, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
      // (The type-only import of './api.js' is gone from the JavaScript.)
      await writeFile(join(folder.dir, 'bot.mjs'), js);
      const { bot: run } = (await import(/* @vite-ignore */ pathToFileURL(join(folder.dir, 'bot.mjs')).href)) as { bot: (client: unknown) => Promise<string[]> };
      const lines = await run(createClient({ baseUrl: TEST_URLS.baseUrl, fetch: (request: Request) => handler(request) }));
      expect(lines[0]).toMatch(/^random: https:\/\/pepe\.example\/images\//);
      expect(lines.filter((line) => line.startsWith('smug: ')).length).toBeGreaterThan(5);
      expect(lines).toContain('by id: NOT_FOUND');
      expect(lines).toContain('most used tag: smug (9)');
      expect(lines.some((line) => line.startsWith('pepe of '))).toBe(true);
    } finally {
      await folder.cleanup();
    }
  }, 180_000);
});
