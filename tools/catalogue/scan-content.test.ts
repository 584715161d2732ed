import { rmSync, symlinkSync } from 'node:fs';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { FIELDS, KINDS, listEntries } from './list-entries.mjs';
import { scanContent } from './scan-content.js';

let temp: TempDir | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

/** A folder holding `names` (empty files; a trailing slash makes a folder). */
async function folderOf(names: string[]): Promise<string> {
  temp = await makeTempDir('pepe-scan-');
  for (const name of names) {
    if (name.endsWith('/')) await mkdir(join(temp.path, name), { recursive: true });
    else {
      await mkdir(dirname(join(temp.path, name)), { recursive: true });
      await writeFile(join(temp.path, name), '');
    }
  }
  return temp.path;
}

/** The scan of a folder holding `names`, as paths and problem codes. */
async function scanOf(names: string[]) {
  const scan = await scanContent(await folderOf(names));
  return {
    pairs: scan.pairs.map((pair) => `${pair.image.rel} + ${pair.sidecar.rel}`),
    lone: scan.loneSidecars.map((file) => file.rel),
    problems: scan.problems.map((problem) => `${problem.file} ${problem.code}`).sort(),
  };
}

// The sorted listing puts an image and its sidecar side by side, and the scan pairs such
// neighbours without a map by stem: these are the groups where neighbours are not the whole story.
describe('pairing an image with its sidecar', () => {
  it('pairs neighbours in any order of their extensions, and keeps the pairs in path order', async () => {
    expect(await scanOf(['b.png', 'b.json', 'a.json', 'a.jpg', 'c/d.gif', 'c/d.json', 'c-e.webp', 'c-e.JSON'])).toEqual({
      pairs: ['a.jpg + a.json', 'b.png + b.json', 'c-e.webp + c-e.JSON', 'c/d.gif + c/d.json'],
      lone: [],
      problems: [],
    });
  });

  it('sees a third file of the same name between other names', async () => {
    expect(await scanOf(['a.gif', 'a.json', 'a.kk.png', 'a.png', 'f.json', 'f.png', 'f.png.json'])).toEqual({
      pairs: ['f.png + f.json'],
      lone: ['a.json', 'f.png.json'],
      problems: ['a.gif name-collision', 'a.kk.png missing-sidecar', 'f.png.json orphan-sidecar'],
    });
  });

  it('sees a sidecar spelled in other letter case, and a folder named like the image', async () => {
    expect(await scanOf(['b.JSON', 'b.json', 'b.png', 'c.json', 'c.png/'])).toEqual({
      pairs: ['b.png + b.JSON'],
      lone: ['b.json', 'c.json'],
      problems: ['c.png not-a-file'],
    });
  });

  it('sees a name that Unicode NFC folds onto its neighbours, far from them in the listing', async () => {
    // U+212A KELVIN SIGN is canonically "K": its sidecar names the record "K" too.
    expect(await scanOf(['K.json', 'K.png', '\u212a.json'])).toEqual({ pairs: ['K.png + K.json'], lone: ['\u212a.json'], problems: [] });
  });
});

describe('the listing', () => {
  it('holds every entry but hidden ones in path order, folders only when named with a line break (not walked into) or like an image', async () => {
    const root = await folderOf(['a.png', 'a-b.png', 'a.b/c.png', 'a/x.png', 'a0.png', '.hidden.png', '.hid/x.png', 'sub/.h.json', 'sub/deep/f.gif', 'frog.png/inner.png', 'frog.png.json', 'line\nbreak/in.png', 'empty/', 'Z.png']);
    await symlink(join(root, 'sub'), join(root, 'linked'));
    const { paths, stats } = listEntries(root, undefined, () => undefined);
    expect(paths).toEqual(['Z.png', 'a-b.png', 'a.b/c.png', 'a.png', 'a/x.png', 'a0.png', 'frog.png', 'frog.png.json', 'frog.png/inner.png', 'line\nbreak', 'linked', 'sub/deep/f.gif']);
    expect(paths.map((_, at) => KINDS[stats[at * FIELDS]!])).toEqual(['file', 'file', 'file', 'file', 'file', 'file', 'directory', 'file', 'file', 'directory', 'symlink', 'file']);
  });

  it('hints at a removal at the top of a content folder named through a symlink, in this thread and from a worker', async () => {
    const root = await folderOf(['content/a.png', 'content/a.json', 'content/gone.png', 'content/gone.json']);
    const content = join(root, 'content');
    const linked = join(root, 'linked');
    await symlink(content, linked);
    const pause = () => new Promise((resolve) => setTimeout(resolve, 30));
    await pause();
    const since = Date.now();
    await pause();
    // Only the folder's ctime moves: no entry left in it is newer than `since`.
    await rm(join(content, 'gone.png'));
    await rm(join(content, 'gone.json'));
    for (const inWorker of [false, true]) {
      let hints = 0;
      const scan = await scanContent(linked, { since, onChange: () => hints++, inWorker });
      expect(scan.pairs.map((pair) => pair.image.rel)).toEqual(['a.png']);
      expect(hints).toBe(1);
    }
  });
});

describe('pairing while a worker lists', () => {
  it('hands the walked paths over before any lstat, and says whether they and their kinds are the listing', async () => {
    const root = await folderOf(['a.png', 'a.json', 'b.png', 'b.json', 'sub/c.gif', 'sub/c.json']);
    let walked: { text: string; stats: Float64Array } | undefined;
    const listing = listEntries(root, undefined, () => undefined, (text, stats) => (walked = { text, stats: stats.slice() }));
    expect([walked!.text.split('\0'), listing.walked]).toEqual([listing.paths, true]);
    expect(Array.from(walked!.stats)).toEqual(Array.from(listing.stats).map((value, at) => (at % FIELDS === 0 ? value : 0)));
    // An entry that is another kind by the time it is lstat'ed: the walked listing is not the listing.
    const swapped = listEntries(root, undefined, () => undefined, () => {
      rmSync(join(root, 'b.png'));
      symlinkSync(join(root, 'a.png'), join(root, 'b.png'));
    });
    expect([KINDS[swapped.stats[swapped.paths.indexOf('b.png') * FIELDS]!], swapped.walked]).toEqual(['symlink', false]);
    // A folder named like an image is listed out of the walk's order: sorted, so not the walked listing either.
    expect(listEntries(await folderOf(['frog.png/inner.png', 'frog.png.json', 'frog.json']), undefined, () => undefined, () => undefined).walked).toBe(false);
  });

  it('gives the scan a scan in this thread gives, paired early or not', async () => {
    const shown = (scan: Awaited<ReturnType<typeof scanContent>>) => ({
      pairs: scan.pairs.map((pair) => [pair.image.rel, pair.image.size, pair.image.ino, pair.sidecar.rel, pair.sidecar.mtimeMs]),
      lone: scan.loneSidecars.map((file) => file.rel),
      problems: scan.problems.map((problem) => `${problem.file} ${problem.code}`).sort(),
    });
    for (const names of [
      ['a.png', 'a.json', 'b.webp', 'b.json', 'sub/c.gif', 'sub/c.json', 'orphan.json'],
      // Reordered by the folder named like an image: paired again from the sorted listing.
      ['a.png', 'a.json', 'frog.png/inner.png', 'frog.png/inner.json', 'frog.json', 'frog.png.json'],
    ]) {
      const root = await folderOf(names);
      await symlink(join(root, 'a.png'), join(root, 'linked.png'));
      const inThread = shown(await scanContent(root));
      for (const since of [0, Date.now() + 60_000]) {
        let hints = 0;
        // Hinted (every entry is newer than 0): paired while the worker lists; not hinted: after.
        expect(shown(await scanContent(root, { since, onChange: () => hints++, inWorker: true }))).toEqual(inThread);
        expect(hints).toBe(since === 0 ? 1 : 0);
      }
    }
  });
});
