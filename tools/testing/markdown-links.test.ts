// The documentation is the README for users and one design note per area: every relative link
// and #anchor in the repository's Markdown must resolve, and each file must stay short enough to
// read. The links are checked by remark-validate-links (files exist; anchors match a heading by
// GitHub's slug rules, also in other files), run through remark-cli as a maintainer would.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, type TempDir } from './temp-dir.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const REMARK = resolve(REPO, 'node_modules/.bin/remark');
/** By path, so that remark-cli finds it from any folder (it resolves plugin names from the current one). */
const VALIDATE_LINKS = createRequire(import.meta.url).resolve('remark-validate-links');

/** The README a newcomer reads, and each design note beside its code. */
const README_MAX_LINES = 300;
const AREA_README_MAX_LINES = 250;
/** remark-cli starts in a few seconds, more on a loaded machine. */
const REMARK_TIMEOUT_MS = 60_000;

/** Markdown files of the repository: committed, plus new ones not ignored. */
function markdownFiles(): string[] {
  const out = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: REPO, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`git ls-files failed: ${out.stderr}`);
  return [...new Set(out.stdout.split('\n').filter(Boolean))].sort();
}

/** remark-validate-links over `files` (paths relative to `cwd`): its report, and whether it passed. */
function checkLinks(cwd: string, files: string[]): { ok: boolean; report: string } {
  const run = spawnSync(
    REMARK,
    ['--no-config', '--no-ignore', '--frail', '--quiet', '--no-stdout', '--no-color', '--use', `${VALIDATE_LINKS}=repository:false`, ...files],
    { cwd, encoding: 'utf8' },
  );
  if (run.error) throw run.error;
  return { ok: run.status === 0, report: run.stderr };
}

const lineCount = (path: string): number => readFileSync(resolve(REPO, path), 'utf8').split('\n').length - 1;

describe('Markdown documentation', () => {
  const files = markdownFiles();

  it('every relative link and anchor in the Markdown files resolves', () => {
    expect(files).toContain('README.md');
    const { ok, report } = checkLinks(REPO, files);
    expect(report, 'fix each link or heading named here').toBe('');
    expect(ok).toBe(true);
  }, REMARK_TIMEOUT_MS);

  it(`README.md has at most ${README_MAX_LINES} lines, each area README at most ${AREA_README_MAX_LINES}`, () => {
    const tooLong = files
      .filter((path) => path.endsWith('README.md'))
      .map((path) => ({ path, lines: lineCount(path), max: path === 'README.md' ? README_MAX_LINES : AREA_README_MAX_LINES }))
      .filter(({ lines, max }) => lines > max)
      .map(({ path, lines, max }) => `${path}: ${lines} lines (at most ${max})`);
    expect(tooLong, 'move detail to the area README or trim it').toEqual([]);
  });

  describe('the link check itself', () => {
    let dir: TempDir;
    afterAll(() => dir?.cleanup());

    it('names a missing file, a missing heading in another file and a missing in-page anchor', async () => {
      dir = await makeTempDir('pepe-md-links-');
      mkdirSync(join(dir.path, 'area'));
      writeFileSync(join(dir.path, 'area', 'README.md'), '# Area\n\n## Caching and `dist/`\n');
      writeFileSync(
        join(dir.path, 'README.md'),
        [
          '# Top',
          '',
          '## Quick start',
          '',
          '[ok](#quick-start) [ok](area/README.md#caching-and-dist)',
          '[gone](area/missing.md) [bad](area/README.md#caching) [bad](#quick-stat)',
          '',
        ].join('\n'),
      );
      const { ok, report } = checkLinks(dir.path, ['README.md', 'area/README.md']);
      expect(ok).toBe(false);
      expect(report).toContain('Cannot find file `area/missing.md`');
      expect(report).toContain('Cannot find heading for `#caching` in `area/README.md`');
      expect(report).toContain('Cannot find heading for `#quick-stat`');
      // The links that resolve (GitHub's slug drops the backquotes and the slash) are not reported.
      expect(report).not.toContain('#quick-start');
      expect(report).not.toContain('#caching-and-dist');
    }, REMARK_TIMEOUT_MS);
  });
});
