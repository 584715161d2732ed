import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { scanContent } from './scan-content.js';

let temp: TempDir | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

/** The scan of a folder holding `names` (empty files; a trailing slash makes a folder), as paths and problem codes. */
async function scanOf(names: string[]) {
  temp = await makeTempDir('pepe-scan-');
  for (const name of names) {
    if (name.endsWith('/')) await mkdir(join(temp.path, name), { recursive: true });
    else {
      await mkdir(dirname(join(temp.path, name)), { recursive: true });
      await writeFile(join(temp.path, name), '');
    }
  }
  const scan = await scanContent(temp.path);
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
