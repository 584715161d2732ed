import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeNamedPipe } from '../testing/named-pipe.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { replaceFile, replaceFileSync, writeTextsSync } from './replace-file.js';

let temp: TempDir;
beforeAll(async () => {
  temp = await makeTempDir('pepe-replace-file-');
});
afterAll(async () => temp?.cleanup());

describe.each([
  ['replaceFile', (file: string, data: string) => replaceFile(file, data)],
  ['replaceFileSync', async (file: string, data: string) => replaceFileSync(file, data)],
])('%s', (name, replace) => {
  // Written to in place, a pipe blocked the writer for ever, waiting for a reader.
  it.skipIf(process.platform === 'win32')('replaces a named pipe with the file, at once', async () => {
    const file = join(temp.path, `${name}-pipe.json`);
    const pipe = makeNamedPipe(file);
    try {
      await replace(file, '{"ok":true}');
      expect(await readFile(file, 'utf8')).toBe('{"ok":true}');
    } finally {
      pipe.remove();
    }
  });

  // Left behind, each failed save kept its bytes on the disk (a `pepe add` with a folder at build-cache.bin left one per run).
  it('removes its temporary file when the rename fails (a folder in the way)', async () => {
    const dir = join(temp.path, `${name}-folder`);
    await mkdir(join(dir, 'cache.json'), { recursive: true });
    await expect(replace(join(dir, 'cache.json'), '{}')).rejects.toMatchObject({ code: 'EISDIR' });
    expect(await readdir(dir)).toEqual(['cache.json']);
  });
});

describe('writeTextsSync', () => {
  it('writes texts (as Latin-1) and bytes end to end, parts larger than its buffer too', async () => {
    const big = 'ab'.repeat(700_000);
    const bytes = Uint8Array.from({ length: 1_500_000 }, (_, i) => i % 251);
    const parts = ['head\u00e9', bytes, 'x', big, new Uint8Array([1, 2, 3]), ''];
    const file = join(temp.path, 'parts.bin');
    writeTextsSync(file, parts);
    const expected = Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : part)));
    expect((await readFile(file)).equals(expected)).toBe(true);
  });
});
