import { execFileSync } from 'node:child_process';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtureImage, fixtureContentFolder } from '../../testing/fixture-catalogue.js';
import { snapshotDir } from '../../testing/snapshot-dir.js';
import type { TempDir } from '../../testing/temp-dir.js';
import { captureIo } from '../../testing/capture-io.js';
import { spawnServe } from '../../testing/serve-process.js';
import { runMain } from '../main.js';

// Real builds (analysis + esbuild bundle) on a machine shared with other jobs.
vi.setConfig({ testTimeout: 60_000 });

/** What a terminal acts on instead of showing: C0 controls but the line feed, DEL, C1 controls, bidi controls. */
const UNSAFE_ON_TERMINAL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

let temp: TempDir;
let content: string;

beforeAll(async () => {
  ({ temp, content } = await fixtureContentFolder('pepe-cli-test-', 5));
}, 60_000);
afterAll(() => temp.cleanup());

describe('pepe build', () => {
  it('exits 0 and prints a one-line summary for good content', async () => {
    const io = captureIo({ cwd: temp.path, env: { PEPE_BASE_URL: 'https://pepe.example.org/' } });
    expect(await runMain(['build'], io)).toBe(0);
    expect(io.err()).toMatch(/^built dist: 5 images, 0 warnings, 0 errors, \d+ cache hits?, [\d.]+ s\n$/);
    const manifest = JSON.parse(await readFile(join(temp.path, 'dist', 'manifest.json'), 'utf8'));
    expect(manifest.settings).toEqual({ baseUrl: 'https://pepe.example.org', apiUrl: 'http://localhost:8888', cdnUrl: 'http://localhost:8888' });
  });

  it('says nothing changed on an identical rebuild', async () => {
    const io = captureIo({ cwd: temp.path, env: { PEPE_BASE_URL: 'https://pepe.example.org' } });
    expect(await runMain(['build'], io)).toBe(0);
    expect(io.err()).toMatch(/^nothing changed: 5 images, .*5 cache hits/);
  });

  it('exits 1 on content errors, names the file, and leaves the output untouched', async () => {
    const bad = join(temp.path, 'bad-content');
    await cp(content, bad, { recursive: true });
    await writeFile(join(bad, 'frog-000.json'), '{');
    const before = await snapshotDir(join(temp.path, 'dist'));
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['build', '--content', 'bad-content'], io)).toBe(1);
    expect(io.err()).toContain('error: frog-000.json: not valid JSON');
    expect(io.err()).toContain('build failed, output left unchanged');
    expect(await snapshotDir(join(temp.path, 'dist'))).toEqual(before);
  });

  it('prints a file name holding control characters escaped, one problem per line (no terminal escapes from content)', async () => {
    const bad = join(temp.path, 'control-names');
    await cp(content, bad, { recursive: true });
    // A name from a pull request: the escapes would erase the line above on a reviewer's terminal.
    await writeFile(join(bad, '\u001b[1A\u001b[2Kall-good.txt'), 'x');
    await writeFile(join(bad, 'two\nlines.txt'), 'x');
    // U+009B is the one-byte (C1) form of ESC [, which terminals that read C1 controls obey too.
    await writeFile(join(bad, '\u009b1Ac1.txt'), 'x');
    // U+202E shows the rest of a name backwards: "frog-\u202egnp.txt" reads as "frog-txt.png".
    await writeFile(join(bad, 'frog-\u202egnp.txt'), 'x');
    // A sidecar whose value holds a bidi override and a vertical tab: the message must not carry them raw.
    const sidecar = JSON.parse(await readFile(join(bad, 'frog-001.json'), 'utf8'));
    await writeFile(join(bad, 'frog-001.json'), JSON.stringify({ ...sidecar, description: 'Word\u000bline', artist: 'evil\u202e' }));
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['check', '--content', 'control-names'], io)).toBe(1);
    const lines = io.err().trimEnd().split('\n');
    expect(lines.filter((line) => line.startsWith('error: ')).sort()).toEqual([
      'error: \\u001b[1A\\u001b[2Kall-good.txt: ".txt" is not a supported image format: convert it to PNG, JPEG, GIF, WebP or AVIF, or remove it [unsupported-format]',
      'error: \\u009b1Ac1.txt: ".txt" is not a supported image format: convert it to PNG, JPEG, GIF, WebP or AVIF, or remove it [unsupported-format]',
      'error: frog-001.json: field "artist" holds U+202E (a bidirectional override or isolate, which shows text in another order than it is stored) at character 5, which XML 1.0 or a terminal cannot carry safely: delete it [sidecar-bad-character]',
      'error: frog-001.json: field "description" holds U+000B (a vertical tab (Word writes one for a soft line break, Shift+Enter)) at character 5, which XML 1.0 or a terminal cannot carry safely: delete it, or write a line break as \\n [sidecar-bad-character]',
      'error: frog-\\u202egnp.txt: ".txt" is not a supported image format: convert it to PNG, JPEG, GIF, WebP or AVIF, or remove it [unsupported-format]',
      'error: two\\nlines.txt: its name holds a line break: rename it [line-break-in-name]',
    ]);
    expect(io.err()).not.toMatch(/[\u001b\u009b\u000b\u202e]/);
    // pepe build prints the same problems, as escaped.
    const built = captureIo({ cwd: temp.path });
    expect(await runMain(['build', '--content', 'control-names', '--out', 'control-dist'], built)).toBe(1);
    expect(built.err()).toContain('error: \\u009b1Ac1.txt: ".txt" is not a supported image format');
    expect(built.out() + built.err()).not.toMatch(UNSAFE_ON_TERMINAL);
  });

  it('pepe serve prints a folder name holding control and bidi characters escaped, from start to stop', async () => {
    const dir = join(temp.path, 'dist\u001b]0;pwned\u0007\u009b2J\u202e');
    await cp(join(temp.path, 'dist'), dir, { recursive: true });
    const served = await spawnServe(dir);
    served.child.kill('SIGINT');
    expect(await served.exited).toBe(0);
    expect(served.output.stdout).toContain('dist\\u001b]0;pwned\\u0007\\u009b2J\\u202e at http://');
    expect(served.output.stdout + served.output.stderr).not.toMatch(UNSAFE_ON_TERMINAL);
    expect(served.output.stderr).toContain('pepe serve: stopped.');
  });

  it('exits 2 on an unknown flag or an invalid URL, with usage', async () => {
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['build', '--bogus'], io)).toBe(2);
    expect(io.err()).toContain('Usage: pepe build');
    const io2 = captureIo({ cwd: temp.path, env: { PEPE_CDN_URL: 'ftp://nope' } });
    expect(await runMain(['build'], io2)).toBe(2);
    expect(io2.err()).toContain('PEPE_CDN_URL must start with http:// or https://');
  });

  it('exits 2 on an empty folder flag (an unset shell variable), instead of taking the current folder for it', async () => {
    const cwd = join(temp.path, 'empty-flags');
    await mkdir(cwd);
    await writeFile(join(cwd, 'frog.png'), (await fixtureImage(33)).bytes);
    const before = await snapshotDir(cwd);
    for (const [argv, flag] of [
      [['build', '--content', ''], '--content'],
      [['build', '--content', content, '--out', ''], '--out'],
      [['check', '--content', content, '--cache', ''], '--cache'],
      [['dupes', '--content='], '--content'],
      [['add', 'frog.png', '--content', ''], '--content'],
    ] as const) {
      const io = captureIo({ cwd });
      expect(await runMain([...argv], io), argv.join(' ')).toBe(2);
      expect(io.err()).toContain(`: ${flag} is empty: name a folder (is a shell variable unset?)\n`);
      expect(await snapshotDir(cwd)).toEqual(before);
    }
  });

  it('prints help with exit 0', async () => {
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['build', '--help'], io)).toBe(0);
    expect(io.out()).toContain('--base-url');
  });
});

describe('pepe check', () => {
  it('exits 0 for good content and writes nothing', async () => {
    const fresh = join(temp.path, 'check-content');
    await cp(content, fresh, { recursive: true });
    const io = captureIo({ cwd: temp.path });
    const cacheDir = join(temp.path, 'check-cache');
    expect(await runMain(['check', '--content', 'check-content', '--cache', 'check-cache'], io)).toBe(0);
    expect(io.err()).toMatch(/^content ok: 5 images/);
    await expect(readdir(cacheDir)).rejects.toThrow();
  });

  it('exits 1 on a near-duplicate that build only warns about, and 0 once acknowledged', async () => {
    const dir = join(temp.path, 'dupe-content');
    await cp(content, dir, { recursive: true });
    const original = await readFile(join(dir, 'frog-000.png'));
    // A lossless re-encode: other bytes, the same pixels — a near-duplicate whatever the detector's tuning.
    await writeFile(join(dir, 'copy.webp'), await sharp(original).webp({ lossless: true }).toBuffer());
    const copyId = '0b5f4f0e-3c41-4c8a-9d3b-6f1a2b3c4d5e';
    await writeFile(join(dir, 'copy.json'), JSON.stringify({ id: copyId, description: null, tags: null, created_at: '2024-01-01T00:00:00Z' }));

    const check = captureIo({ cwd: temp.path });
    expect(await runMain(['check', '--content', 'dupe-content'], check)).toBe(1);
    expect(check.err()).toMatch(/error: .*near-duplicate/);
    expect(check.err()).toContain('copy.webp');

    const build = captureIo({ cwd: temp.path });
    expect(await runMain(['build', '--content', 'dupe-content', '--out', 'dupe-dist'], build)).toBe(0);
    expect(build.err()).toMatch(/warning: .*\[near-duplicate\]/);

    const sidecar = JSON.parse(await readFile(join(dir, 'frog-000.json'), 'utf8'));
    await writeFile(join(dir, 'frog-000.json'), JSON.stringify({ ...sidecar, distinct_from: [copyId] }));
    const again = captureIo({ cwd: temp.path });
    expect(await runMain(['check', '--content', 'dupe-content'], again)).toBe(0);
  });

  it('exits 1 on a created_at in the future and an updated_at before created_at, which build only warns about', async () => {
    const dir = join(temp.path, 'dates-content');
    await cp(content, dir, { recursive: true });
    const edit = async (name: string, dates: Record<string, string>) => {
      const sidecar = JSON.parse(await readFile(join(dir, name), 'utf8'));
      await writeFile(join(dir, name), JSON.stringify({ ...sidecar, ...dates }));
    };
    await edit('frog-001.json', { created_at: '2099-01-01T00:00:00Z' });
    await edit('frog-000.json', { created_at: '2024-05-01T12:00:00+02:00', updated_at: '2024-04-30T00:00:00Z' });

    const check = captureIo({ cwd: temp.path });
    expect(await runMain(['check', '--content', 'dates-content'], check)).toBe(1);
    expect(check.err()).toMatch(/^error: frog-001\.json: field "created_at" is 2099-01-01T00:00:00\.000Z, in the future \(this machine's clock says .*\): .* \[date-in-future\]$/m);
    expect(check.err()).toContain('error: frog-000.json: field "updated_at" (2024-04-30T00:00:00.000Z) is before "created_at" (2024-05-01T10:00:00.000Z): set it to created_at or later, or leave it out (it defaults to created_at) [updated-before-created]');

    const build = captureIo({ cwd: temp.path });
    expect(await runMain(['build', '--content', 'dates-content', '--out', 'dates-dist'], build)).toBe(0);
    expect(build.err()).toMatch(/^warning: frog-001\.json: .*\[date-in-future\]$/m);
    expect(build.err()).toMatch(/^warning: frog-000\.json: .*\[updated-before-created\]$/m);
  });
});

describe('pepe add', () => {
  it('imports an image under a URL-safe name with a valid sidecar, and the build accepts it', async () => {
    const dir = join(temp.path, 'add-content');
    await cp(content, dir, { recursive: true });
    const { bytes } = await fixtureImage(30);
    await writeFile(join(temp.path, 'Très Smug Pepe!.png'), bytes);
    const io = captureIo({ cwd: temp.path });
    const code = await runMain(['add', 'Très Smug Pepe!.png', '--content', 'add-content', '--into', 'new', '--tags', 'Smug, happy,smug', '--description', ' hi '], io);
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    expect(io.out()).toMatch(/^added new\/tres-smug-pepe\.png \(id [0-9a-f-]{36}\)\nto commit: git add -- add-content\/new\/tres-smug-pepe\.png add-content\/new\/tres-smug-pepe\.json\n$/);
    const sidecar = JSON.parse(await readFile(join(dir, 'new', 'tres-smug-pepe.json'), 'utf8'));
    expect(sidecar).toMatchObject({ description: 'hi', tags: ['smug', 'happy'] });
    expect(Date.now() - Date.parse(sidecar.created_at)).toBeLessThan(60_000);
    expect(await readFile(join(dir, 'new', 'tres-smug-pepe.png'))).toEqual(bytes);

    // A second import of another picture with the same name gets a numbered name.
    await writeFile(join(temp.path, 'Très Smug Pepe!.png'), (await fixtureImage(31)).bytes);
    const io2 = captureIo({ cwd: temp.path });
    expect(await runMain(['add', 'Très Smug Pepe!.png', '--content', 'add-content', '--into', 'new'], io2)).toBe(0);
    expect(io2.out()).toMatch(/^added new\/tres-smug-pepe-2\.(png|jpg|webp|gif) /);
    expect(await runMain(['check', '--content', 'add-content'], captureIo({ cwd: temp.path }))).toBe(0);
  });

  it('refuses a near-duplicate of an image already there, naming it, unless --force', async () => {
    const dir = join(temp.path, 'add-dupe');
    await cp(content, dir, { recursive: true });
    const original = await readFile(join(dir, 'frog-000.png'));
    await writeFile(join(temp.path, 'again.webp'), await sharp(original).webp({ lossless: true }).toBuffer());
    const before = await snapshotDir(dir);
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['add', 'again.webp', '--content', 'add-dupe'], io)).toBe(1);
    expect(io.err()).toContain('frog-000.png');
    expect(io.err()).toContain('--force');
    expect(await snapshotDir(dir)).toEqual(before);

    const forced = captureIo({ cwd: temp.path });
    expect(await runMain(['add', 'again.webp', '--content', 'add-dupe', '--force'], forced)).toBe(0);
    expect(forced.out()).toContain('added again.webp');
    expect(forced.err()).toMatch(/warning: .*imported anyway/);
  });

  it('refuses two near-duplicates in the same call', async () => {
    const dir = join(temp.path, 'add-pair');
    await cp(content, dir, { recursive: true });
    const { bytes } = await fixtureImage(33);
    await writeFile(join(temp.path, 'one.png'), bytes);
    await writeFile(join(temp.path, 'two.webp'), await sharp(bytes).webp({ lossless: true }).toBuffer());
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['add', 'one.png', 'two.webp', '--content', 'add-pair'], io)).toBe(1);
    expect(io.err()).toContain('also in this import');
  });

  it('refuses an unsupported or truncated file and writes nothing', async () => {
    const dir = join(temp.path, 'add-bad');
    await cp(content, dir, { recursive: true });
    await writeFile(join(temp.path, 'drawing.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    const jpeg = (await fixtureImage(1)).bytes;
    await writeFile(join(temp.path, 'cut.jpg'), jpeg.subarray(0, jpeg.length >> 1));
    const { bytes } = await fixtureImage(35);
    await writeFile(join(temp.path, 'fine.png'), bytes);
    const before = await snapshotDir(dir);
    const io = captureIo({ cwd: temp.path });
    // A name that retitles the terminal, rings it, moves its cursor (C1 CSI) and reverses the rest.
    const hostile = 'x\u001b]0;pwned\u0007\u009b2A\u202egvs.svg';
    await writeFile(join(temp.path, hostile), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    expect(await runMain(['add', 'fine.png', 'drawing.svg', 'cut.jpg', hostile, '--content', 'add-bad'], io)).toBe(1);
    expect(io.err()).toMatch(/drawing\.svg.*\[unsupported-format\]/);
    expect(io.err()).toMatch(/cut\.jpg.*\[truncated\]/);
    expect(io.err()).toContain('x\\u001b]0;pwned\\u0007\\u009b2A\\u202egvs.svg');
    expect(io.out() + io.err()).not.toMatch(UNSAFE_ON_TERMINAL);
    await rm(join(temp.path, hostile));
    expect(await snapshotDir(dir)).toEqual(before);
    await rm(join(temp.path, 'drawing.svg'));
  });

  it('exits 2 without files or with an --into outside the content folder', async () => {
    expect(await runMain(['add', '--content', 'content'], captureIo({ cwd: temp.path }))).toBe(2);
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['add', 'x.png', '--into', '../elsewhere'], io)).toBe(2);
    expect(io.err()).toContain('--into');
  });
});

/** The words of a command printed for a POSIX shell (bare words and single-quoted ones). */
function shellWords(command: string): string[] {
  return [...command.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replaceAll("'\\''", "'") : m[2]!));
}

describe('an image without a sidecar', () => {
  it('gets a pepe add command that, run as printed, gives it a sidecar where it is', async () => {
    const adopt = join(temp.path, 'adopt content');
    await cp(content, adopt, { recursive: true });
    await mkdir(join(adopt, 'moods'));
    const image = await fixtureImage(31);
    await writeFile(join(adopt, 'moods', `My Frog${image.ext}`), image.bytes);
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['build', '--content', 'adopt content', '--out', 'adopt-dist'], io)).toBe(1);
    const command = /run `([^`]+)` to give it one where it is/.exec(io.err())?.[1];
    expect(command).toMatch(/^npx pepe add '.*\/adopt content\/moods\/My Frog\.\w+' --content '.*\/adopt content'$/);
    const [, , ...args] = shellWords(command!);
    const addIo = captureIo({ cwd: temp.path });
    expect(await runMain(args, addIo), addIo.err()).toBe(0);
    // Adopted in place: no copy, the sidecar beside it.
    expect((await readdir(join(adopt, 'moods'))).sort()).toEqual([`My Frog${image.ext}`, 'My Frog.json']);
    expect(await runMain(['build', '--content', 'adopt content', '--out', 'adopt-dist'], captureIo({ cwd: temp.path }))).toBe(0);
    // Again: it has a sidecar now.
    const again = captureIo({ cwd: temp.path });
    expect(await runMain(args, again)).toBe(1);
    expect(again.err()).toContain('[already-in-catalogue]');
  });

  it('named with a bidi override, gets the name ANSI-C quoted: shown escaped, and bash reads it back as the name', async () => {
    const dir = join(temp.path, 'bidi content');
    await cp(content, dir, { recursive: true });
    const image = await fixtureImage(33);
    const name = `frog-\u202egnp${image.ext}`;
    await writeFile(join(dir, name), image.bytes);
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['check', '--content', 'bidi content'], io)).toBe(1);
    expect(io.err()).not.toContain('\u202e');
    const command = /run `([^`]+)` to give it one where it is/.exec(io.err())?.[1];
    expect(command).toMatch(/^npx pepe add \$'.*\/bidi content\/frog-\\u202egnp\.\w+' --content /);
    const args = execFileSync('bash', ['-c', `printf '%s\\0' ${command!.slice('npx pepe '.length)}`]).toString().split('\0').slice(0, -1);
    expect(args[1]).toBe(join(dir, name));
    const addIo = captureIo({ cwd: temp.path });
    expect(await runMain(args, addIo), addIo.err()).toBe(0);
    expect(await readFile(join(dir, `frog-\u202egnp.json`), 'utf8')).toContain('"id"');
  });

  it('named with a leading "-", gets ./-name in the command, which pepe add would otherwise read as a flag', async () => {
    const dir = join(temp.path, 'dash content');
    await cp(content, dir, { recursive: true });
    const image = await fixtureImage(32);
    await writeFile(join(dir, `-frog${image.ext}`), image.bytes);
    // The maintainer runs the build from inside the content folder, so the image's path is its bare name.
    const cwd = vi.spyOn(process, 'cwd').mockReturnValue(dir);
    try {
      const io = captureIo({ cwd: dir });
      expect(await runMain(['check', '--content', '.'], io)).toBe(1);
      const command = /run `([^`]+)` to give it one where it is/.exec(io.err())?.[1];
      expect(command).toMatch(new RegExp(`^npx pepe add \\./-frog\\${image.ext} --content '.*/dash content'$`));
      const [, , ...args] = shellWords(command!);
      const addIo = captureIo({ cwd: dir });
      expect(await runMain(args, addIo), addIo.err()).toBe(0);
      expect(await readFile(join(dir, '-frog.json'), 'utf8')).toContain('"id"');
    } finally {
      cwd.mockRestore();
    }
  });
});

describe('folder flags that name a file', () => {
  it('get a message naming the flag to fix, never a stack trace, and nothing is written', async () => {
    await writeFile(join(temp.path, 'afile'), 'not a folder');
    const cases: [string[], RegExp][] = [
      [['build', '--content', 'afile'], /error: the content folder ".*afile" is a file, not a folder: pass --content with the folder that holds the images \[content-missing\]/],
      [['check', '--content', 'afile'], /\[content-missing\]/],
      [['dupes', '--content', 'afile'], /\[content-missing\]/],
      [['build', '--out', 'afile'], /error: the output folder ".*afile" is a file, not a folder: choose another --out \[bad-out-dir\]/],
      [['build', '--out', 'afile/dist'], /error: the output folder ".*afile\/dist" cannot be a folder: ".*afile" is a file: choose another --out \[bad-out-dir\]/],
      [['build', '--cache', 'afile'], /error: the cache folder ".*afile" is a file, not a folder: pass --cache with a folder \(or leave --cache out\) \[bad-cache-dir\]/],
      [['check', '--cache', 'afile'], /\[bad-cache-dir\]/],
      [['add', 'content/frog-000.png', '--content', 'afile'], /\[content-missing\]/],
      [['add', 'content/frog-000.png', '--content', 'no-such-folder'], /error: the content folder ".*no-such-folder" does not exist: pass --content with the catalogue's folder, or create it first for a new catalogue \[content-missing\]/],
      [['add', 'content/frog-000.png', '--into', 'frog-001.json'], /error: --into "frog-001.json": the folder ".*frog-001.json" is a file, not a folder: choose another --into \[bad-into\]/],
    ];
    const before = await snapshotDir(temp.path);
    for (const [args, message] of cases) {
      const io = captureIo({ cwd: temp.path });
      expect(await runMain(args, io), args.join(' ')).toBe(1);
      expect(io.err(), args.join(' ')).toMatch(message);
      expect(io.err(), args.join(' ')).not.toMatch(/unexpected failure|\n\s+at /);
    }
    const after = await snapshotDir(temp.path);
    expect(Object.keys(after).filter((path) => JSON.stringify(after[path]) !== JSON.stringify(before[path]))).toEqual([]);
    expect(Object.keys(before).filter((path) => !(path in after))).toEqual([]);
  });
});

describe('a --cache folder where its files do harm', () => {
  it('is refused inside the content folder (read back as broken sidecars) and inside the output folder (replaced, served), before anything is written', async () => {
    const cases: [string[], RegExp][] = [
      [['build', '--cache', 'content/cache'], /^error: the cache folder ".*\/content\/cache" is inside the content folder ".*\/content", where its files would be read as images and sidecars: pass --cache with a folder outside it \(or leave --cache out\) \[bad-cache-dir\]$/m],
      [['check', '--cache', 'content'], /^error: the cache folder ".*\/content" is the content folder, where its files would be read as images and sidecars: .*\[bad-cache-dir\]$/m],
      [['dupes', '--cache', 'content/cache', '--json'], /^error: the cache folder ".*\/content\/cache" is inside the content folder .*\[bad-cache-dir\]$/m],
      [['build', '--out', 'placed-dist', '--cache', 'placed-dist/site'], /^error: the cache folder ".*\/placed-dist\/site" is inside the output folder ".*\/placed-dist", which each build replaces \(the cache would be lost or served with the site\): pass --cache with a folder outside it \(or leave --cache out\) \[bad-cache-dir\]$/m],
      [['build', '--out', 'placed-dist', '--cache', 'placed-dist'], /^error: the cache folder ".*\/placed-dist" is the output folder, which each build replaces .*\[bad-cache-dir\]$/m],
    ];
    const before = await snapshotDir(temp.path);
    for (const [args, message] of cases) {
      const io = captureIo({ cwd: temp.path });
      expect(await runMain(args, io), args.join(' ')).toBe(1);
      expect(io.err(), args.join(' ')).toMatch(message);
      // The only problem: not the dozens of "sidecar" errors a cache inside the content folder used to cause.
      expect(io.err().match(/^error: /gm), args.join(' ')).toHaveLength(1);
      expect(io.out(), args.join(' ')).toBe('');
    }
    const after = await snapshotDir(temp.path);
    expect(Object.keys(after).filter((path) => JSON.stringify(after[path]) !== JSON.stringify(before[path]))).toEqual([]);
    expect(Object.keys(after).filter((path) => !(path in before))).toEqual([]);
  });

  it('is accepted in a hidden folder inside the content folder, which the scan never reads', async () => {
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['check', '--cache', 'content/.cache'], io), io.err()).toBe(0);
  });
});
