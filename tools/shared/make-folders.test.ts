/** makeFolders / makeFoldersSync: `mkdir -p` that ends, where Node's recursive mkdir spins for ever (procfs). */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../testing/temp-dir.js';
import { makeFolders, makeFoldersSync } from './make-folders.js';

describe('makeFolders', () => {
  it('makes the missing levels and returns the first one made, as recursive mkdir does', async () => {
    const temp = await makeTempDir('pepe-make-folders-');
    try {
      expect(makeFoldersSync(join(temp.path, 'a', 'b'))).toBe(join(temp.path, 'a'));
      expect(statSync(join(temp.path, 'a', 'b')).isDirectory()).toBe(true);
      expect(await makeFolders(join(temp.path, 'a', 'b', 'c'))).toBe(join(temp.path, 'a', 'b', 'c'));
      expect(makeFoldersSync(join(temp.path, 'a'))).toBeUndefined();
      writeFileSync(join(temp.path, 'file'), '');
      expect(() => makeFoldersSync(join(temp.path, 'file'))).toThrow(expect.objectContaining({ code: 'EEXIST' }));
      // A file on the way: an error, never a folder made in its place.
      await expect(makeFolders(join(temp.path, 'file', 'x'))).rejects.toMatchObject({ code: expect.stringMatching(/^(EEXIST|ENOTDIR)$/) });
    } finally {
      await temp.cleanup();
    }
  });

  it.skipIf(!existsSync('/proc/self'))('fails at once under /proc, where recursive mkdir spins for ever', async () => {
    const started = Date.now();
    expect(() => makeFoldersSync('/proc/pepe-make-folders/a')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    await expect(makeFolders('/proc/pepe-make-folders')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
