/**
 * `pepe add --description/--tags` given bytes that are not UTF-8 (a Latin-1 "é" from a shell in
 * another locale), through the real `pepe` process, since only a real command line carries raw bytes.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtureImage } from '../../testing/fixture-catalogue.js';
import { makeTempDir, type TempDir } from '../../testing/temp-dir.js';

// Real `pepe` processes on a machine shared with other jobs.
vi.setConfig({ testTimeout: 60_000 });

const PEPE = fileURLToPath(new URL('../../pepe.mjs', import.meta.url));
let temp: TempDir;

beforeAll(async () => {
  temp = await makeTempDir('pepe-add-encoding-');
  await mkdir(join(temp.path, 'content'));
  await mkdir(join(temp.path, 'content-utf8'));
  await writeFile(join(temp.path, 'frog.png'), (await fixtureImage(3)).bytes);
});
afterAll(() => temp.cleanup());

/** `pepe add frog.png` plus `flags`, each a string or the raw bytes a shell would pass. */
function pepeAdd(content: string, ...flags: (string | Buffer)[]) {
  // spawnSync passes a Buffer argument's bytes as they are, as a shell does.
  const child = spawnSync(process.execPath, [PEPE, 'add', 'frog.png', '--content', content, ...(flags as string[])], { cwd: temp.path, encoding: 'utf8' });
  return { status: child.status, stderr: child.stderr, stdout: child.stdout };
}

const latin1Cafe = Buffer.from([0x63, 0x61, 0x66, 0xe9]); // "café" in Latin-1: 0xE9 alone is not UTF-8

describe('pepe add, text flags that are not UTF-8', () => {
  it.each(['description', 'tags'])('refuses --%s with a Latin-1 byte: exit 2, the flag and what to do named, nothing written', async (flag) => {
    const run = pepeAdd('content', `--${flag}`, latin1Cafe);
    expect(run.stderr).toContain(`--${flag} is not UTF-8 text: character 4 of "caf\uFFFD"`);
    expect(run.stderr).toContain('LANG=C.UTF-8');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.status).toBe(2);
    expect(await readdir(join(temp.path, 'content'))).toEqual([]);
  });

  it('keeps a UTF-8 "café" as it was typed', async () => {
    const run = pepeAdd('content-utf8', '--description', Buffer.from('café frog', 'utf8'));
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const sidecar = (await readdir(join(temp.path, 'content-utf8'))).find((name) => name.endsWith('.json'))!;
    expect(JSON.parse(await readFile(join(temp.path, 'content-utf8', sidecar), 'utf8')).description).toBe('café frog');
  });
});
