import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { writeNewFiles } from './add-images.js';

let temp: TempDir;
beforeEach(async () => {
  temp = await makeTempDir('pepe-write-new-');
});
afterEach(() => temp.cleanup());

describe('writeNewFiles', () => {
  it('writes every file', async () => {
    const files = [
      { path: join(temp.path, 'a.png'), data: new Uint8Array([1, 2, 3]) },
      { path: join(temp.path, 'a.json'), data: '{}\n' },
    ];
    expect(await writeNewFiles(files)).toEqual({ ok: true });
    expect((await readdir(temp.path)).sort()).toEqual(['a.json', 'a.png']);
    expect(await readFile(join(temp.path, 'a.json'), 'utf8')).toBe('{}\n');
  });

  it('writes nothing when one file cannot be written, and names it', async () => {
    // A name over the filesystem's 255-byte limit fails even for root (unlike a read-only folder).
    const tooLong = join(temp.path, `${'x'.repeat(251)}.json`);
    const outcome = await writeNewFiles([
      { path: join(temp.path, 'first.png'), data: 'image' },
      { path: tooLong, data: '{}' },
    ]);
    expect(outcome).toMatchObject({ ok: false, reason: 'failed', path: tooLong, cause: { code: 'ENAMETOOLONG' } });
    expect(await readdir(temp.path)).toEqual([]);
  });

  it('writes nothing when a file cannot even be staged', async () => {
    const outcome = await writeNewFiles([
      { path: join(temp.path, 'first.png'), data: 'image' },
      { path: join(temp.path, 'no-such-folder', 'a.json'), data: '{}' },
    ]);
    expect(outcome).toMatchObject({ ok: false, reason: 'failed', cause: { code: 'ENOENT' } });
    expect(await readdir(temp.path)).toEqual([]);
  });

  it('never replaces an existing file, and then writes none of the others', async () => {
    await writeFile(join(temp.path, 'taken.json'), 'mine');
    const outcome = await writeNewFiles([
      { path: join(temp.path, 'new.png'), data: 'image' },
      { path: join(temp.path, 'taken.json'), data: 'theirs' },
    ]);
    expect(outcome).toMatchObject({ ok: false, reason: 'failed', cause: { code: 'EEXIST' } });
    expect(await readdir(temp.path)).toEqual(['taken.json']);
    expect(await readFile(join(temp.path, 'taken.json'), 'utf8')).toBe('mine');
  });

  it('writes nothing when Ctrl-C arrives while the files are written, and the process lives on', async () => {
    await mkdir(join(temp.path, 'sub'));
    const files = Array.from({ length: 40 }, (_, i) => ({ path: join(temp.path, 'sub', `f${i}.json`), data: 'x'.repeat(100_000) }));
    const pending = writeNewFiles(files);
    // The real signal: without the hold it would end this test process.
    process.kill(process.pid, 'SIGINT');
    expect(await pending).toEqual({ ok: false, reason: 'interrupted', signal: 'SIGINT' });
    expect(await readdir(join(temp.path, 'sub'))).toEqual([]);
    expect(process.listenerCount('SIGINT')).toBe(0);
  });
});
