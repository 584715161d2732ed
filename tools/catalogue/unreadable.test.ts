import { writeFileSync } from 'node:fs';
import { chmod, cp, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtureContentFolder } from '../testing/fixture-catalogue.js';
import { otherUser, pepeAsOtherUser } from '../testing/as-other-user.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { scanContent } from './scan-content.js';

// Real `pepe` processes on a machine shared with other jobs.
vi.setConfig({ testTimeout: 120_000 });

let temp: TempDir;
let content: string;

beforeAll(async () => {
  if (!otherUser.available) return;
  ({ temp, content } = await fixtureContentFolder('pepe-unreadable-', 5));
  await chmod(temp.path, 0o777);
}, 60_000);
afterAll(async () => {
  if (otherUser.available) await temp.cleanup();
});

describe.skipIf(!otherUser.available)('content files this user cannot read', () => {
  it('are named with what to do by pepe check and build, with no stack trace', async () => {
    const dir = join(temp.path, 'files');
    await cp(content, dir, { recursive: true });
    await chmod(join(dir, 'frog-000.json'), 0o000);
    const image = (await readdir(dir)).find((name) => name.startsWith('frog-001.') && !name.endsWith('.json'))!;
    await chmod(join(dir, image), 0o000);
    for (const args of [['check'], ['build', '--out', 'dist']]) {
      const command = args[0]!;
      const run = pepeAsOtherUser(temp.path, ...args, '--content', 'files', '--cache', 'cache');
      expect(run.stderr, command).toMatch(/^error: frog-000\.json: cannot be read by this user \(EACCES\): fix its permissions .* \[unreadable\]$/m);
      expect(run.stderr, command).toMatch(/^error: frog-001\.\w+: cannot be read by this user \(EACCES\)/m);
      expect(run.stderr, command).not.toMatch(/unexpected failure|\n\s+at /);
      expect(run.status, command).toBe(1);
    }
  });

  it('a folder that cannot be listed is named too', async () => {
    const dir = join(temp.path, 'folder');
    await cp(content, dir, { recursive: true });
    await chmod(join(dir, 'archive'), 0o000);
    const run = pepeAsOtherUser(temp.path, 'check', '--content', 'folder', '--cache', 'cache');
    await chmod(join(dir, 'archive'), 0o755);
    expect(run.stderr).toMatch(/^error: archive: cannot be read by this user \(EACCES\): .* \[unreadable\]$/m);
    expect(run.stderr).not.toMatch(/unexpected failure|\n\s+at /);
    expect(run.status).toBe(1);
  });
});

describe('a content file whose name is not UTF-8', () => {
  it('is named as such, not as one that disappeared while the command ran', async () => {
    const dir = await makeTempDir('pepe-non-utf8-');
    try {
      // Bytes a Linux file name may hold that no UTF-8 decoding gives back: the listing shows U+FFFD.
      writeFileSync(Buffer.concat([Buffer.from(`${dir.path}/frog-`), Buffer.from([0xff]), Buffer.from('.png')]), 'x');
      // Listed in this thread, and in a worker thread as a large catalogue's change build lists.
      for (const scan of [await scanContent(dir.path), await scanContent(dir.path, { since: 0, onChange: () => undefined, inWorker: true })]) {
        expect(scan.problems.map((p) => [p.code, p.file, p.message])).toEqual([
          ['unreadable', 'frog-\ufffd.png', 'its name is not valid UTF-8 (shown with \ufffd), so it cannot be read by name: rename it'],
        ]);
      }
    } finally {
      await dir.cleanup();
    }
  });
});
