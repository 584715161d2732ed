/**
 * The repository's own git rules (.gitattributes, .gitignore) on what maintainers commit:
 * sidecars from Windows editors, images of every accepted extension in any letter case, and
 * the build's output and cache. A real git repository with the project's two files copied in.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';

const REPO_FILE = (name: string): string => fileURLToPath(new URL(`../../${name}`, import.meta.url));

let temp: TempDir;
const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: temp.path, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

beforeAll(async () => {
  temp = await makeTempDir('pepe-git-checkout-');
  // core.autocrlf off, as on Linux and macOS and for many Windows users: only the
  // repository's attributes decide what happens to line ends.
  git('init', '-q');
  git('config', 'core.autocrlf', 'false');
  copyFileSync(REPO_FILE('.gitattributes'), join(temp.path, '.gitattributes'));
  copyFileSync(REPO_FILE('.gitignore'), join(temp.path, '.gitignore'));
});
afterAll(() => temp.cleanup());

describe("the repository's git rules", () => {
  it('stores a sidecar saved with CRLF line ends (Windows Notepad) with LF, so an edit diffs as the lines it changed', () => {
    mkdirSync(join(temp.path, 'content'), { recursive: true });
    writeFileSync(join(temp.path, 'content', 'frog.json'), '\ufeff{\r\n\t"id": "481c955c-1b4e-40a9-aff4-2bf9d33f276c",\r\n\t"tags": null\r\n}');
    git('add', 'content/frog.json');
    expect(git('ls-files', '--eol', 'content/frog.json')).toMatch(/^i\/lf\s+w\/crlf\s+attr\/text=auto eol=lf\s/);
  });

  it('treats images of every accepted extension, in any letter case, as binary (never converted as text)', () => {
    const names = ['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif'].flatMap((ext) => [`content/a.${ext}`, `content/Photo.${ext.toUpperCase()}`]);
    const lines = git('check-attr', 'binary', '--', ...names).trim().split('\n');
    expect(lines).toEqual(names.map((name) => `${name}: binary: set`));
  });

  it('ignores the build output and cache, and what a killed build or pepe add leaves, never the content (a folder named dist included)', () => {
    const leftovers = ['.dist.txn-123-ab12/journal.json', '.dist.staging-123-ab12/site/index.html', '.dist.trash-123-ab12/old/x', 'content/new/.pepe-add-ab12-0.tmp'];
    const content = ['content/moods/frog.png', 'content/moods/frog.json', 'content/dist/frog.png', 'content/dist/frog.json'];
    const paths = ['dist/manifest.json', '.pepe-cache/build-cache.bin', ...leftovers, ...content];
    const ignored = execFileSync('git', ['check-ignore', '--no-index', '--', ...paths], { cwd: temp.path, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim().split('\n');
    expect(ignored).toEqual(['dist/manifest.json', '.pepe-cache/build-cache.bin', ...leftovers]);
  });
});
