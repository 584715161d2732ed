/**
 * The CLI's bundle (compiled-cli.mjs): made once, reused while its inputs are unchanged, made
 * again when one changes; and the real `pepe` command run from it (as every user runs it)
 * does what the TypeScript does, command by command.
 */
import { loadManifestSync } from '../shared/manifest.js';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3rver, type S3rverProcess } from '../publish/testing/s3rver-process.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { writeSampleContent } from '../sample/sample-files.js';
import { SAMPLE_ENTRIES } from '../sample/sample-catalogue.js';
import { INLINED, loadCompiledCli } from './compiled-cli.mjs';
import { runMain } from './main.js';

const REPO = join(import.meta.dirname, '../..');

let temp: TempDir;
beforeAll(async () => {
  temp = await makeTempDir('pepe-compiled-cli-');
});
afterAll(() => temp.cleanup());

describe('loadCompiledCli on a small project', () => {
  const project = () => join(temp.path, 'project');
  const cacheDir = () => join(temp.path, 'cache');
  // Each write gets its own mtime: two writes within one tick of the kernel's file clock (a few
  // ms) would otherwise share one, and a same-size edit would go unnoticed by this test and make.
  let tick = 1_600_000_000;
  const write = (path: string, text: string) => {
    mkdirSync(join(project(), path, '..'), { recursive: true });
    writeFileSync(join(project(), path), text);
    tick += 1;
    utimesSync(join(project(), path), tick, tick);
  };
  const load = () => loadCompiledCli({ root: project(), entry: 'tools/cli/main.ts', cacheDir: cacheDir() });

  beforeAll(() => {
    write('tools/cli/main.ts', "import { version } from './version.js';\nexport const here: string = import.meta.url;\nexport const runMain = async (): Promise<string> => version;\n");
    write('tools/cli/version.ts', "export const version = 'one';\n");
  });

  it('makes the bundle once, then reuses it while no input changed', async () => {
    const first = await load();
    expect(first.compiled).toBe(true);
    expect(await (first.module.runMain as () => Promise<string>)()).toBe('one');
    const again = await load();
    expect(again.compiled).toBe(false);
    expect(again.dir).toBe(first.dir);
  });

  it('gives each source its own import.meta.url, as under tsx', async () => {
    const { module } = await load();
    expect(module.here).toBe(pathToFileURL(join(project(), 'tools/cli/main.ts')).href);
  });

  it('makes a new bundle when an input changes, and runs the new code', async () => {
    const before = await load();
    write('tools/cli/version.ts', "export const version = 'two';\n");
    const after = await load();
    expect(after.compiled).toBe(true);
    expect(after.dir).not.toBe(before.dir);
    expect(await (after.module.runMain as () => Promise<string>)()).toBe('two');
    // The replaced bundle stays for now: another process may still load a lazy chunk of it.
    expect(existsSync(before.dir)).toBe(true);
  });

  it('notices an edit that keeps the size (by mtime)', async () => {
    const before = await load();
    write('tools/cli/version.ts', "export const version = 'six';\n");
    const after = await load();
    expect(after.compiled).toBe(true);
    expect(await (after.module.runMain as () => Promise<string>)()).toBe('six');
    expect(after.dir).not.toBe(before.dir);
  });

  it('removes bundles replaced over an hour ago and abandoned pointer files', async () => {
    const old = join(cacheDir(), 'b-old');
    const young = join(cacheDir(), 'b-young');
    const abandoned = join(cacheDir(), 'current.123.abc.tmp');
    mkdirSync(old);
    mkdirSync(young);
    writeFileSync(abandoned, '{');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    utimesSync(abandoned, twoHoursAgo, twoHoursAgo);
    write('tools/cli/version.ts', "export const version = 'seven';\n");
    const { dir } = await load();
    const left = readdirSync(cacheDir());
    expect(left).not.toContain('b-old');
    expect(left).not.toContain('current.123.abc.tmp');
    expect(left).toContain('b-young');
    expect(left).toContain(dir.split('/').pop());
  });

  it('does not run the bundle of another project folder, even one with identical files (worktrees sharing node_modules)', async () => {
    const twin = join(temp.path, 'twin');
    cpSync(project(), twin, { recursive: true });
    // Same sizes and the same whole-second mtimes in both folders: the inputs look identical.
    for (const root of [project(), twin]) for (const file of ['tools/cli/main.ts', 'tools/cli/version.ts']) utimesSync(join(root, file), 1_700_000_000, 1_700_000_000);
    const { module: original } = await load();
    const { module, compiled } = await loadCompiledCli({ root: twin, entry: 'tools/cli/main.ts', cacheDir: cacheDir() });
    expect(compiled).toBe(true);
    expect(module.here).toBe(pathToFileURL(join(twin, 'tools/cli/main.ts')).href);
    expect(module.here).not.toBe(original.here);
  });

  it('rejects when the sources do not compile, and the last good bundle stays the current one', async () => {
    const good = await load();
    write('tools/cli/version.ts', 'export const version = ;\n');
    await expect(load()).rejects.toThrow();
    write('tools/cli/version.ts', "export const version = 'eight';\n");
    const mended = await load();
    expect(await (mended.module.runMain as () => Promise<string>)()).toBe('eight');
    expect(existsSync(good.dir)).toBe(true);
  });
});

/** Runs `node tools/pepe.mjs …` as a user would, saying on stderr which path it took. */
function pepe(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(REPO, 'tools/pepe.mjs'), ...args], {
      cwd: options.cwd,
      env: { ...process.env, PEPE_CLI_DEBUG: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', fail);
    child.once('exit', (code) => done({ code, stdout, stderr }));
  });
}

describe('the pepe command, run from its bundle', () => {
  let s3: S3rverProcess;
  const work = () => join(temp.path, 'work');
  const credentials = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

  beforeAll(async () => {
    s3 = await startS3rver(['pepe-bundle']);
    // Four frogs of the generated sample with their sidecars as the content (never content/,
    // which maintainers change); a fifth, beside it, to add.
    const frogs = SAMPLE_ENTRIES.filter((entry) => !entry.name.includes('/')).slice(0, 5);
    await writeSampleContent(join(work(), 'content'), frogs.slice(0, 4));
    await writeSampleContent(work(), frogs.slice(4));
  }, 60_000);
  afterAll(() => s3?.stop());

  it('builds exactly what the TypeScript builds (data, answers, function bundle, gallery, phashes)', async () => {
    const bundled = await pepe(['build', '--out', 'dist-bundled', '--cache', 'cache-bundled'], { cwd: work() });
    expect(bundled.stderr).toMatch(/pepe: running from the bundle /);
    expect(bundled.code).toBe(0);
    expect(bundled.stderr, bundled.stderr).toMatch(/^built dist-bundled: 4 images, 0 warnings, 0 errors/m);
    let out = '';
    const io = { stdout: (t: string) => void (out += t), stderr: (t: string) => void (out += t), isTTY: false, env: { ...process.env }, cwd: work() };
    expect(await runMain(['build', '--out', 'dist-ts', '--cache', 'cache-ts'], io)).toBe(0);
    const manifest = (dir: string) => readFileSync(join(work(), dir, 'manifest.json'), 'utf8');
    expect(manifest('dist-bundled')).toBe(manifest('dist-ts'));
    expect(Object.keys(loadManifestSync(join(work(), 'dist-bundled'))!.files)).toEqual(expect.arrayContaining(['functions/pepe.mjs', 'site/index.html']));
  }, 120_000);

  it('checks, lists near-duplicates and adds an image', async () => {
    const check = await pepe(['check'], { cwd: work() });
    expect(check.code).toBe(0);
    expect(check.stderr).toMatch(/content ok: 4 images/);
    const dupes = await pepe(['dupes', '--json'], { cwd: work() });
    expect(dupes.code).toBe(0);
    expect(JSON.parse(dupes.stdout)).toEqual([]);
    const image = readdirSync(work()).find((name) => /\.(png|jpe?g|gif|webp|avif)$/.test(name))!;
    const added = await pepe(['add', image, '--into', 'new', '--tags', 'smug'], { cwd: work() });
    expect(added.code).toBe(0);
    const sidecars = readdirSync(join(work(), 'content/new')).filter((name) => name.endsWith('.json'));
    expect(sidecars).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(work(), 'content/new', sidecars[0]!), 'utf8')).tags).toEqual(['smug']);
    // The same picture again: refused as a near-duplicate, naming the one already there.
    const again = await pepe(['add', image, '--into', 'again'], { cwd: work() });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/looks like the same picture as new\//);
  }, 120_000);

  it('publishes to a real S3-compatible server', async () => {
    const args = ['publish', '--dir', 'dist-bundled', '--bucket', 'pepe-bundle', '--endpoint', s3.endpoint, '--netlify-toml', join(REPO, 'netlify.toml')];
    const published = await pepe(args, { cwd: work(), env: credentials });
    expect(published.stderr).toMatch(/pepe: running from the bundle /);
    expect(published.code).toBe(0);
    expect(published.stdout).toMatch(/^published to s3:\/\/pepe-bundle\/: \d+ uploaded/m);
  }, 120_000);

  it('runs through tsx when told to (the fallback when no bundle can be made)', async () => {
    const listed = await pepe(['check', '--help'], { cwd: work(), env: { PEPE_CLI_TSX: '1' } });
    expect(listed.code).toBe(0);
    expect(listed.stderr).toContain('pepe: PEPE_CLI_TSX=1: running through tsx');
    expect(listed.stdout).toMatch(/^Usage: pepe check/);
    // tsx compiles every module on the way: seconds on a machine shared with other jobs.
  }, 60_000);

  it('bundles the dependencies it lists (with what they import) and leaves the native and binary ones to node_modules', () => {
    const current = JSON.parse(readFileSync(join(REPO, 'node_modules/.cache/pepe-cli/current.json'), 'utf8')) as { inputs: [string][] };
    const packages = new Set(current.inputs.map(([path]) => /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1]).filter((name) => name !== undefined));
    for (const name of ['zod', 'minisearch', 'smol-toml', 'fast-glob']) expect(INLINED).toContain(name);
    for (const name of ['zod', 'minisearch', 'smol-toml', 'fast-glob']) expect(packages).toContain(name);
    // fast-glob's own CommonJS dependencies come with it; nothing native or binary is bundled.
    expect(packages).toContain('micromatch');
    expect([...packages].filter((name) => /^(sharp|@img\/|esbuild|@esbuild\/|@aws-sdk\/|@smithy\/|tsx)/.test(name))).toEqual([]);
  });

  it('is what `npx pepe` runs: linked into node_modules/.bin by npm ci, so npx installs nothing first', () => {
    // A bin of the root package would send npx through installing the project into its cache.
    const root = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { bin?: unknown };
    expect(root.bin).toBeUndefined();
    expect(realpathSync(join(REPO, 'node_modules/.bin/pepe'))).toBe(realpathSync(join(REPO, 'tools/bin/pepe.mjs')));
    const run = spawnSync(join(REPO, 'node_modules/.bin/pepe'), ['help'], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Usage: pepe <command>/);
  });

  it("leaves zod's 63 other locales out of the bundle (260 kB compiled at every start), and keeps English", () => {
    const current = JSON.parse(readFileSync(join(REPO, 'node_modules/.cache/pepe-cli/current.json'), 'utf8')) as { inputs: [string][] };
    const locales = current.inputs.map(([path]) => path).filter((path) => path.startsWith('node_modules/zod/v4/locales/'));
    expect(locales).toEqual(['node_modules/zod/v4/locales/en.js']);
  });
});
