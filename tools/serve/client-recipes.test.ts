/**
 * The README's client recipes ("Calling the API from TypeScript or Python") as a new project
 * meets them: its shell lines run as written in an empty folder, with the versions it pins
 * installed from the npm registry, against a real `pepe serve` of the generated sample.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../catalogue/build-catalogue.js';
import { SAMPLE_ENTRIES } from '../sample/sample-catalogue.js';
import { sidecarFor, writeSampleContent } from '../sample/sample-files.js';
import { FIXTURE_URLS } from '../testing/fixture-catalogue.js';
import { spawnServe } from '../testing/serve-process.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const README_URL = 'http://localhost:8888';

/** The fenced blocks of one language in the README's recipe section, in order. */
function recipeBlocks(readme: string, language: string): string[] {
  const start = readme.indexOf('### Calling the API from TypeScript');
  const section = readme.slice(start, readme.indexOf('\n## ', start));
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((match) => match[1]!);
}

let temp: TempDir;
let server: Awaited<ReturnType<typeof spawnServe>>;
let readme: string;
/** An id the README asks for: it must be in the sample. */
let readmeId: string;

beforeAll(async () => {
  temp = await makeTempDir('pepe-recipes-');
  readme = await readFile(join(REPO, 'README.md'), 'utf8');
  readmeId = /path: \{ id: '([0-9a-f-]{36})' \}/.exec(recipeBlocks(readme, 'ts')[0]!)![1]!;
  // The sample's smug frogs and the one the README asks for: enough for every call of the recipes.
  const entries = SAMPLE_ENTRIES.filter((entry) => entry.tags?.includes('smug') || sidecarFor(entry, 0).id === readmeId);
  await writeSampleContent(join(temp.path, 'content'), entries);
  const built = await buildCatalogue({ contentDir: join(temp.path, 'content'), outDir: join(temp.path, 'dist'), cacheDir: join(temp.path, 'cache'), urls: FIXTURE_URLS });
  expect(built.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
  server = await spawnServe(join(temp.path, 'dist'), ['--workers', '1']);
}, 180_000);
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  await temp?.cleanup();
});

describe('the README client recipes', () => {
  it('ask for an id of the sample', async () => {
    const answer = await fetch(`${server.url}/api/pepe/${readmeId}`);
    expect(answer.status).toBe(200);
  });

  it('TypeScript: installs the pinned versions, generates the types from the served document, compiles with --strict and runs', async () => {
    const [shell] = recipeBlocks(readme, 'sh');
    const lines = shell!.trim().split('\n');
    const install = lines.find((line) => line.startsWith('npm install '))!;
    expect(install).toMatch(/^npm install( [a-z-]+@\d[\w.]*)+$/);
    const project = join(temp.path, 'project');
    await mkdir(project);
    await symlink(await installed(install), join(project, 'node_modules'), 'dir');
    await writeFile(join(project, 'bot.mts'), recipeBlocks(readme, 'ts')[0]!.replaceAll(README_URL, server.url));
    let printed = '';
    for (const line of lines.filter((line) => line !== install)) {
      const result = await run('sh', ['-c', line.replaceAll(README_URL, server.url)], { cwd: project, env: { ...process.env, npm_config_update_notifier: 'false' } }).catch((failure: { stdout: string; stderr: string }) => {
        throw new Error(`${line}\n${failure.stdout}${failure.stderr}`);
      });
      printed = result.stdout;
    }
    const seen = printed.trim().split('\n');
    expect(seen[0]).toMatch(new RegExp(`^random: ${FIXTURE_URLS.baseUrl}/images/`));
    expect(seen.filter((line) => line.startsWith('smug: ')).length).toBeGreaterThan(3);
    expect(seen).toContain(`by id: ${JSON.parse(await readFile(join(temp.path, 'dist/site/api/pepe', readmeId), 'utf8')).data.description}`);
    expect(seen).toContainEqual(expect.stringMatching(/^most used tag: [a-z-]+ \(\d+\)$/));
    expect(seen).toContainEqual(expect.stringMatching(/^pepe of \d{4}-\d\d-\d\d: /));
  }, 300_000);

  it('Python: the standard-library lines print a pepe', async () => {
    const [python] = recipeBlocks(readme, 'python');
    const { stdout } = await run('python3', ['-c', python!.replaceAll(README_URL, server.url)]);
    expect(stdout).toMatch(new RegExp(`^[0-9a-f-]{36} ${FIXTURE_URLS.baseUrl}/images/[0-9a-f-]{36}\\.\\w+ .+\\n$`));
  }, 60_000);
});

/**
 * node_modules of an empty project after the README's install line, installed from the
 * registry once per line (the versions are in it) under node_modules/.cache, as CI runs the
 * suite twice.
 */
async function installed(install: string): Promise<string> {
  const cache = join(REPO, 'node_modules/.cache/pepe-client-recipe', createHash('sha256').update(install).digest('hex').slice(0, 16));
  const modules = join(cache, 'node_modules');
  if (existsSync(join(cache, 'done'))) return modules;
  const staging = `${cache}.${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await writeFile(join(staging, 'package.json'), '{ "private": true }\n');
  await run('sh', ['-c', `${install} --no-audit --no-fund --loglevel=error`], { cwd: staging });
  await writeFile(join(staging, 'done'), `${install}\n`);
  await rm(cache, { recursive: true, force: true });
  await rename(staging, cache);
  return modules;
}
