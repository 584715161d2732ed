import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtureImage, fixtureContentFolder } from '../../testing/fixture-catalogue.js';
import { snapshotDir } from '../../testing/snapshot-dir.js';
import type { TempDir } from '../../testing/temp-dir.js';
import { captureIo } from '../../testing/capture-io.js';
import { runMain } from '../main.js';

// Real image analysis on a machine shared with other jobs.
vi.setConfig({ testTimeout: 60_000 });

let temp: TempDir;
let content: string;

beforeAll(async () => {
  ({ temp, content } = await fixtureContentFolder('pepe-add-test-', 3));
}, 60_000);
afterAll(() => temp.cleanup());

describe('pepe add, when a write fails', () => {
  it('writes none of the images (not the ones before the failure), names only the file, and prints no stack trace', async () => {
    const dir = join(temp.path, 'write-fails');
    await cp(content, dir, { recursive: true });
    // One image copied --into a new folder, then an image already in the content folder whose
    // sidecar cannot be written: its name leaves room for ".png" but not ".json" in 255 bytes
    // (a read-only folder does the same to a user who is not root).
    // A near-duplicate of frog-000, imported with --force: its "imported anyway" warning must not be printed either.
    await writeFile(join(temp.path, 'fine.png'), (await fixtureImage(0)).bytes);
    await mkdir(join(dir, 'long'));
    const longName = `${'x'.repeat(251)}.png`;
    await writeFile(join(dir, 'long', longName), (await fixtureImage(41)).bytes);
    const before = await snapshotDir(dir);
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['add', 'fine.png', join('write-fails', 'long', longName), '--content', 'write-fails', '--into', 'new', '--force'], io)).toBe(1);
    expect(io.err()).toMatch(/^error: could not write "long\/x+\.json" \(ENAMETOOLONG\): .* \[write-failed\]\nnothing was added\n$/);
    expect(io.out()).toBe('');
    expect(await snapshotDir(dir)).toEqual(before);
    // The --into folder made for this import is gone too.
    expect(existsSync(join(dir, 'new'))).toBe(false);
  });
});

describe('pepe add with text a sidecar could not hold', () => {
  it('refuses a description with a vertical tab and an overlong tag by the sidecar rules, naming the flag, and writes nothing', async () => {
    const dir = join(temp.path, 'bad-text');
    await cp(content, dir, { recursive: true });
    await writeFile(join(temp.path, 'text.png'), (await fixtureImage(43)).bytes);
    const before = await snapshotDir(dir);
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['add', 'text.png', '--content', 'bad-text', '--description', 'soft\u000bbreak', '--tags', 'ok,x'.padEnd(60, 'y')], io)).toBe(1);
    expect(io.err()).toContain('error: --description holds U+000B (a vertical tab');
    expect(io.err()).toContain('error: --tags (tag 2) is 57 characters long, over the limit of 50: shorten it [sidecar-too-long]');
    expect(await snapshotDir(dir)).toEqual(before);
  });
});

describe('pepe add on a symlink inside the content folder', () => {
  it('refuses it (builds never follow one) instead of writing a sidecar the build still rejects', async () => {
    const dir = join(temp.path, 'links');
    await cp(content, dir, { recursive: true });
    const outside = join(temp.path, 'outside');
    await mkdir(outside);
    await writeFile(join(outside, 'real.png'), (await fixtureImage(43)).bytes);
    await symlink(join(outside, 'real.png'), join(dir, 'linked.png'));
    await symlink(outside, join(dir, 'linked-folder'));
    const before = await snapshotDir(dir);
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['add', 'links/linked.png', 'links/linked-folder/real.png', '--content', 'links'], io)).toBe(1);
    expect(io.err()).toMatch(/^error: ".*\/links\/linked\.png" is a symlink in the content folder, which builds never follow: replace the link with the real file, then run the command again \[symlink\]$/m);
    expect(io.err()).toMatch(/^error: ".*\/links\/linked-folder\/real\.png" is inside "linked-folder", a symlinked folder in the content folder, .*\[symlink\]$/m);
    expect(await snapshotDir(dir)).toEqual(before);
    expect(existsSync(join(dir, 'linked.json'))).toBe(false);
  });

  it('refuses --into a symlinked folder, which would put the images outside the catalogue', async () => {
    const dir = join(temp.path, 'into-link');
    await cp(content, dir, { recursive: true });
    const outside = join(temp.path, 'outside-into');
    await mkdir(outside);
    await symlink(outside, join(dir, 'elsewhere'));
    await writeFile(join(temp.path, 'via-link.png'), (await fixtureImage(48)).bytes);
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['add', 'via-link.png', '--content', 'into-link', '--into', 'elsewhere/new'], io)).toBe(1);
    expect(io.err()).toBe('error: --into "elsewhere/new": "elsewhere" is a symlink in the content folder, which builds never follow: choose a real folder [bad-into]\nnothing was added\n');
    expect(await readdir(outside)).toEqual([]);
  });
});

describe('pepe add beside a name in another letter case', () => {
  it('numbers the new name instead of writing frog.* beside Frog.* (one file on macOS and Windows)', async () => {
    const dir = join(temp.path, 'cased');
    await cp(content, dir, { recursive: true });
    await mkdir(join(dir, 'moods'));
    const existing = await fixtureImage(44);
    await writeFile(join(dir, 'moods', `Frog${existing.ext}`), existing.bytes);
    await writeFile(join(dir, 'moods', 'Frog.json'), `${JSON.stringify({ id: '0b5f4f0e-3c41-4c8a-9d3b-6f1a2b3c4d5e', description: null, tags: null, created_at: '2024-01-01T00:00:00Z' })}\n`);
    await writeFile(join(temp.path, 'frog.png'), (await fixtureImage(45)).bytes);
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['add', 'frog.png', '--content', 'cased', '--into', 'moods'], io), io.err()).toBe(0);
    expect(io.out()).toMatch(/^added moods\/frog-2\.\w+ /);
    const check = captureIo({ cwd: temp.path });
    expect(await runMain(['check', '--content', 'cased'], check), check.err()).toBe(0);
  });

  it('refuses --into Moods beside an existing moods/ (one folder on macOS and Windows), naming the folder to use', async () => {
    const dir = join(temp.path, 'cased-into');
    await cp(content, dir, { recursive: true });
    await mkdir(join(dir, 'moods', 'Café'), { recursive: true });
    const existing = await fixtureImage(49);
    await writeFile(join(dir, 'moods', 'Café', `frog${existing.ext}`), existing.bytes);
    await writeFile(join(dir, 'moods', 'Café', 'frog.json'), `${JSON.stringify({ id: '6a0e2b8c-1d4f-4e7a-9b3c-5d6e7f8a9b0c', description: null, tags: null, created_at: '2024-01-01T00:00:00Z' })}\n`);
    await writeFile(join(temp.path, 'frog.png'), (await fixtureImage(50)).bytes);
    const before = await snapshotDir(dir);
    for (const [into, existingFolder, corrected] of [
      ['Moods', 'moods', 'moods'],
      ['Moods/new', 'moods', 'moods/new'],
      // The same folder typed in the other Unicode form (as macOS tools write it) and letter case.
      ['moods/CAFE\u0301', 'moods/Café', 'moods/Café'],
    ] as const) {
      const io = captureIo({ cwd: temp.path });
      expect(await runMain(['add', 'frog.png', '--content', 'cased-into', '--into', into], io), io.err()).toBe(1);
      expect(io.err()).toBe(
        `error: --into "${into}": the content folder already has "${existingFolder}", which differs only in letter case (one folder on macOS and Windows checkouts, and a case-collision error in every build): use --into "${corrected}" [bad-into]\nnothing was added\n`,
      );
      expect(await snapshotDir(dir)).toEqual(before);
    }
    // A file in another letter case: no folder to suggest.
    const file = captureIo({ cwd: temp.path });
    expect(await runMain(['add', 'frog.png', '--content', 'cased-into', '--into', `moods/Café/FROG${existing.ext}`], file)).toBe(1);
    expect(file.err()).toMatch(/the content folder already has the file "moods\/Café\/frog\.\w+", which differs only in letter case .*: choose another --into \[bad-into\]\n/);
    expect(await snapshotDir(dir)).toEqual(before);
    // The folder's own spelling is fine.
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['add', 'frog.png', '--content', 'cased-into', '--into', 'moods/Café'], io), io.err()).toBe(0);
    const check = captureIo({ cwd: temp.path });
    expect(await runMain(['check', '--content', 'cased-into'], check), check.err()).toBe(0);
  });
});

describe('pepe add --into the content folder itself', () => {
  it.each(['.', './'])('takes --into %j as the content folder, as no --into and --into moods/. do (it named a Windows fault in ".")', async (into) => {
    const dir = join(temp.path, `into-dot-${into.length}`);
    await cp(content, dir, { recursive: true });
    await writeFile(join(temp.path, 'dot-frog.png'), (await fixtureImage(51)).bytes);
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['add', 'dot-frog.png', '--content', dir, '--into', into], io), io.err()).toBe(0);
    expect(io.out()).toMatch(/^added dot-frog\.png \(id [0-9a-f-]{36}\)$/m);
    expect(existsSync(join(dir, 'dot-frog.json'))).toBe(true);
  });
});

describe('pepe add on an image in the content folder whose sidecar has an upper-case extension', () => {
  it('refuses it as already in the catalogue (builds read frog.JSON as its sidecar) instead of writing frog.json beside it', async () => {
    const dir = join(temp.path, 'upper-json');
    await cp(content, dir, { recursive: true });
    const image = await fixtureImage(52);
    await writeFile(join(dir, `Shouty${image.ext}`), image.bytes);
    await writeFile(join(dir, 'Shouty.JSON'), `${JSON.stringify({ id: '7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f', description: null, tags: null, created_at: '2024-01-01T00:00:00Z' })}\n`);
    const check = captureIo({ cwd: temp.path });
    expect(await runMain(['check', '--content', 'upper-json'], check), check.err()).toBe(0);
    const before = await snapshotDir(dir);
    for (const force of [[], ['--force']]) {
      const io = captureIo({ cwd: temp.path });
      expect(await runMain(['add', join('upper-json', `Shouty${image.ext}`), '--content', 'upper-json', ...force], io)).toBe(1);
      expect(io.err()).toMatch(/^error: ".*Shouty\.\w+" already has a sidecar \(Shouty\.JSON\): edit that one instead \[already-in-catalogue\]\nnothing was added\n$/);
      expect(await snapshotDir(dir)).toEqual(before);
    }
  });
});

describe('pepe add on an image in the content folder with a same-named twin', () => {
  it('refuses it: a.png beside a.jpg would share a.json, a name-collision in every build', async () => {
    const dir = join(temp.path, 'twins');
    await cp(content, dir, { recursive: true });
    await writeFile(join(dir, 'twin.png'), await sharp((await fixtureImage(46)).bytes).png().toBuffer());
    await writeFile(join(dir, 'twin.jpg'), await sharp((await fixtureImage(47)).bytes).jpeg().toBuffer());
    const before = await snapshotDir(dir);
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['add', 'twins/twin.png', '--content', 'twins'], io)).toBe(1);
    expect(io.err()).toMatch(/^error: ".*\/twins\/twin\.png" and "twin\.jpg" beside it would share the sidecar "twin\.json": rename one of them first \[name-collision\]$/m);
    expect(await snapshotDir(dir)).toEqual(before);
  });
});

describe('pepe add in a git checkout', () => {
  it('prints the git add that stages every image and sidecar it wrote, runnable as printed from the current folder', async () => {
    const repo = join(temp.path, 'checkout');
    await cp(content, join(repo, 'content'), { recursive: true });
    // The project's own ignore rules: the build cache that pepe add updates is never staged.
    await cp(fileURLToPath(new URL('../../../.gitignore', import.meta.url)), join(repo, '.gitignore'));
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, encoding: 'utf8' });
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'catalogue');
    // From a maintainer's downloads: odd names, and one image already in the content folder, under its own name.
    await writeFile(join(temp.path, 'Smug FROG.JPG'), await sharp((await fixtureImage(49)).bytes).jpeg().toBuffer());
    await writeFile(join(repo, 'content', "Pepe's café.png"), await sharp((await fixtureImage(50)).bytes).png().toBuffer());
    const io = captureIo({ cwd: repo });
    expect(await runMain(['add', '../Smug FROG.JPG', "content/Pepe's café.png", '--into', 'new'], io), io.err()).toBe(0);
    const printed = io.out().split('\n').find((line) => line.startsWith('to commit: '));
    expect(printed).toBe(`to commit: git add -- content/new/smug-frog.jpg content/new/smug-frog.json 'content/Pepe'\\''s café.png' 'content/Pepe'\\''s café.json'`);
    execFileSync('sh', ['-c', printed!.slice('to commit: '.length)], { cwd: repo });
    // Everything pepe add wrote is staged, nothing is left untracked.
    expect(git('status', '--porcelain', '-z').split('\0').filter(Boolean).sort()).toEqual([
      "A  content/Pepe's café.json",
      "A  content/Pepe's café.png",
      'A  content/new/smug-frog.jpg',
      'A  content/new/smug-frog.json',
    ]);
  });
});
