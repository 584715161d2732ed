import { mkdir, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AT_ONCE_MS, makeNamedPipe, timed } from '../../tools/testing/named-pipe.js';
import { makeTempDir, type TempDir } from '../../tools/testing/temp-dir.js';
import { piecesFileReader } from './piece-file.js';

const PIECES = ['first\tpiece', '', 'x'.repeat(70_000), 'last `u00e9'];
const LENGTHS = PIECES.map((piece) => piece.length);
const NAME = 'pieces-0123456789abcdef.txt';
const folderUrl = (path: string) => pathToFileURL(`${path}/`);
/** Not "run `pepe build` again": over an intact build folder whose content did not change, a build writes nothing, so the file stayed as it was. */
const FIX = 'delete the build folder (dist, or the --out of `pepe build`) and build again with `pepe build` (a build whose content did not change writes nothing)';

let temp: TempDir;
beforeAll(async () => {
  temp = await makeTempDir('pepe-pieces-');
});
afterAll(async () => temp?.cleanup());

function readlinkOrNull(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

async function folderWith(name: string, text: string | null): Promise<string> {
  const dir = join(temp.path, `${name}-${Math.random().toString(36).slice(2)}`);
  await mkdir(dir);
  if (text !== null) await writeFile(join(dir, NAME), text);
  return dir;
}

describe('piecesFileReader', () => {
  it('reads each piece at its offset, in any order, and keeps what it read', async () => {
    const dir = await folderWith('ok', PIECES.join(''));
    const read = piecesFileReader(NAME, LENGTHS, [folderUrl(dir)]);
    expect([3, 0, 2, 1].map(read)).toEqual([PIECES[3], PIECES[0], PIECES[2], PIECES[1]]);
    expect(() => read(4)).toThrow(RangeError);
  });

  it('opens the file when made: a build committed into the served folder deletes it, and the previous handler reads on', async () => {
    const dir = await folderWith('deleted', PIECES.join(''));
    const read = piecesFileReader(NAME, LENGTHS, [folderUrl(dir)]);
    await rm(join(dir, NAME));
    expect(read(3)).toBe(PIECES[3]);
    expect(read(2)).toBe(PIECES[2]);
  });

  it('closes the file on release (pepe serve, for a build it replaced), and a later read opens it by its name again', async () => {
    const dir = await folderWith('released', PIECES.join(''));
    const read = piecesFileReader(NAME, LENGTHS, [folderUrl(dir)]);
    expect(read(0)).toBe(PIECES[0]);
    const held = () => (process.platform === 'linux' ? readdirSync('/proc/self/fd').filter((fd) => readlinkOrNull(`/proc/self/fd/${fd}`)?.startsWith(join(dir, NAME))) : []);
    if (process.platform === 'linux') expect(held()).toHaveLength(1);
    read.release();
    if (process.platform === 'linux') expect(held()).toEqual([]);
    read.release(); // twice is harmless
    expect(read(3)).toBe(PIECES[3]);
    read.release();
    await rm(join(dir, NAME));
    expect(() => read(2)).toThrow(`catalogue pieces file ${NAME} not found (looked for ${join(dir, NAME)})`);
  });

  it('looks in each folder in turn: the first that holds the file wins', async () => {
    const empty = await folderWith('empty', null);
    const holder = await folderWith('holder', PIECES.join(''));
    expect(piecesFileReader(NAME, LENGTHS, [folderUrl(empty), folderUrl(holder)])(0)).toBe(PIECES[0]);
  });

  it('names every place it looked when no folder holds the file, and finds it once it is there', async () => {
    const dir = await folderWith('later', null);
    const read = piecesFileReader(NAME, LENGTHS, [folderUrl(dir)]);
    expect(() => read(0)).toThrow(`catalogue pieces file ${NAME} not found (looked for ${join(dir, NAME)}): ${FIX}; a deploy must ship dist/data with the function`);
    await writeFile(join(dir, NAME), PIECES.join(''));
    expect(read(0)).toBe(PIECES[0]);
  });

  it('check() throws what a read would, naming the file and the fix, and passes once the file is usable (pepe serve calls it when it loads the bundle)', async () => {
    const dir = await folderWith('checked', null);
    const read = piecesFileReader(NAME, LENGTHS, [folderUrl(dir)]);
    expect(() => read.check()).toThrow(`catalogue pieces file ${NAME} not found (looked for ${join(dir, NAME)}): ${FIX}`);
    await writeFile(join(dir, NAME), PIECES.join('').slice(2));
    expect(() => read.check()).toThrow(`catalogue pieces file ${join(dir, NAME)} holds ${PIECES.join('').length - 2} bytes`);
    await writeFile(join(dir, NAME), PIECES.join(''));
    expect(() => read.check()).not.toThrow();
    // Opened by the check: deleted now, the file still answers (as after a rebuild while serving).
    await rm(join(dir, NAME));
    expect(read(3)).toBe(PIECES[3]);
    expect(() => read.check()).not.toThrow();
  });

  it('refuses a file whose size is not the sum of the lengths (another build, or torn), naming it', async () => {
    const dir = await folderWith('short', PIECES.join('').slice(1));
    const expected = PIECES.join('').length;
    expect(() => piecesFileReader(NAME, LENGTHS, [folderUrl(dir)])(0)).toThrow(`catalogue pieces file ${join(dir, NAME)} holds ${expected - 1} bytes, not the ${expected} its data module lists: ${FIX}`);
  });

  it('refuses a folder or a named pipe in the file’s place, at once', async () => {
    const dir = await folderWith('folder', null);
    await mkdir(join(dir, NAME));
    expect(() => piecesFileReader(NAME, LENGTHS, [folderUrl(dir)])(0)).toThrow(`catalogue pieces file ${join(dir, NAME)} is not a regular file: ${FIX}`);
    const pipeDir = await folderWith('pipe', null);
    const pipe = makeNamedPipe(join(pipeDir, NAME));
    try {
      // Opening a pipe for reading waits for a writer, for ever, unless opened without blocking (the pipe's helper ends that wait).
      const { ms, error } = await timed(() => piecesFileReader(NAME, LENGTHS, [folderUrl(pipeDir)])(0));
      expect(String(error)).toContain(`catalogue pieces file ${join(pipeDir, NAME)} is not a regular file`);
      expect(ms).toBeLessThan(AT_ONCE_MS);
    } finally {
      pipe.remove();
    }
  });

  it('says so when the file is cut short after it was opened', async () => {
    const dir = await folderWith('cut', PIECES.join(''));
    const read = piecesFileReader(NAME, LENGTHS, [folderUrl(dir)]);
    expect(read(0)).toBe(PIECES[0]);
    await truncate(join(dir, NAME), LENGTHS[0]! + 10);
    expect(() => read(2)).toThrow(`catalogue pieces file ${join(dir, NAME)} ended inside piece 2: ${FIX}`);
  });

  it('names the file and the fix when it cannot be opened for another reason than being missing (a symlink loop here)', async () => {
    const dir = await folderWith('loop', null);
    await symlink(NAME, join(dir, NAME));
    // Node's bare "ELOOP: too many symbolic links encountered, open '…'" said nothing of what the file is or what to do.
    expect(() => piecesFileReader(NAME, LENGTHS, [folderUrl(dir)])(0)).toThrow(`catalogue pieces file ${join(dir, NAME)} cannot be opened (ELOOP): ${FIX}`);
  });
});
