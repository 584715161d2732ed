import { cp, mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtureId, fixtureImage, fixtureContentFolder } from '../testing/fixture-catalogue.js';
import type { TempDir } from '../testing/temp-dir.js';
import { captureIo } from '../testing/capture-io.js';
import { runMain } from '../cli/main.js';

vi.setConfig({ testTimeout: 60_000 });

let temp: TempDir;
let content: string;

beforeAll(async () => {
  ({ temp, content } = await fixtureContentFolder('pepe-case-test-', 3));
}, 60_000);
afterAll(() => temp.cleanup());

describe('names that differ only in letter case', () => {
  it('fail pepe check, naming both files (one file on macOS and Windows checkouts)', async () => {
    const dir = join(temp.path, 'mixed-case');
    await cp(content, dir, { recursive: true });
    // frog-000 becomes Frog.*, frog-001 becomes frog.*: two valid records, sidecars Frog.json and frog.json.
    for (const [from, to] of [['frog-000', 'Frog'], ['frog-001', 'frog']]) {
      const ext = (await fixtureImage(from === 'frog-000' ? 0 : 1)).ext;
      await rename(join(dir, `${from}${ext}`), join(dir, `${to}${ext}`));
      await rename(join(dir, `${from}.json`), join(dir, `${to}.json`));
    }
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['check', '--content', 'mixed-case'], io)).toBe(1);
    expect(io.err()).toContain('error: Frog.json: Frog.json and frog.json differ only in letter case: macOS and Windows checkouts keep one file for them');
    expect(io.err()).toContain('[case-collision]');
  });

  it('also across folders whose names differ only in case, and accented names in either Unicode form', async () => {
    const dir = join(temp.path, 'mixed-folders');
    await cp(content, dir, { recursive: true });
    const record = async (path: string, index: number) => {
      const { bytes, ext } = await fixtureImage(index);
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, `${path}${ext}`), bytes);
      await writeFile(join(dir, `${path}.json`), `${JSON.stringify({ id: fixtureId(`case-${index}`), description: null, tags: null, created_at: '2024-01-01T00:00:00Z' })}\n`);
    };
    // The same name for macOS: a composed "é" in one folder, a decomposed one in the other.
    await record('moods/d\u00e9j\u00e0-vu', 7);
    await record('Moods/De\u0301ja\u0300-vu', 8);
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['check', '--content', 'mixed-folders'], io)).toBe(1);
    expect(io.err().normalize('NFC')).toContain('error: Moods/Déjà-vu.json: Moods/Déjà-vu.json and moods/déjà-vu.json differ only in letter case');
    expect(io.err()).not.toMatch(/frog-00\d.*case-collision/);
  });

  it('also for two sidecars of one image, frog.json and frog.JSON (one of them was passed over without a word)', async () => {
    const dir = join(temp.path, 'twin-sidecars');
    await cp(content, dir, { recursive: true });
    // frog-000 keeps its sidecar; a second one, with another id, sits beside it as frog-000.JSON.
    await writeFile(join(dir, 'frog-000.JSON'), `${JSON.stringify({ id: fixtureId('twin-sidecar'), description: 'the other one', tags: null, created_at: '2024-01-01T00:00:00Z' })}\n`);
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['check', '--content', 'twin-sidecars'], io)).toBe(1);
    expect(io.err()).toContain('error: frog-000.JSON: frog-000.JSON and frog-000.json differ only in letter case: macOS and Windows checkouts keep one file for them');
    // That one error only: no orphan-sidecar, duplicate-id or other noise.
    expect(io.err()).toMatch(/^content has errors: 3 images, 0 warnings, 1 error,/m);
  });

  it('also when a change build adds the name: the build reads only what changed and still finds it', async () => {
    const dir = join(temp.path, 'added-case');
    await cp(content, dir, { recursive: true });
    const out = join(temp.path, 'added-case-out');
    expect(await runMain(['build', '--content', 'added-case', '--out', out], captureIo({ cwd: temp.path }))).toBe(0);
    const { bytes, ext } = await fixtureImage(9);
    await writeFile(join(dir, `Frog-000${ext}`), bytes);
    await writeFile(join(dir, 'Frog-000.json'), `${JSON.stringify({ id: fixtureId('added-case'), description: null, tags: null, created_at: '2024-01-01T00:00:00Z' })}\n`);
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['build', '--content', 'added-case', '--out', out], io)).toBe(1);
    expect(io.err()).toContain('error: Frog-000.json: Frog-000.json and frog-000.json differ only in letter case');
  });
});

describe('an image and its sidecar whose names spell an accent in different Unicode forms', () => {
  it('are one record (the same name on macOS), not a missing sidecar plus an orphan one', async () => {
    const dir = join(temp.path, 'unicode-forms');
    await cp(content, dir, { recursive: true });
    // The image named with a composed "é" (U+00E9), its sidecar with "e" + U+0301, as macOS tools may write it.
    const { bytes, ext } = await fixtureImage(34);
    await writeFile(join(dir, `caf\u00e9${ext}`), bytes);
    await writeFile(join(dir, 'cafe\u0301.json'), `${JSON.stringify({ id: fixtureId('unicode-forms'), description: null, tags: null, created_at: '2024-01-01T00:00:00Z' })}\n`);
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['check', '--content', 'unicode-forms'], io), io.err()).toBe(0);
    expect(io.err()).toMatch(/^content ok: 4 images, /m);
    // pepe add finds that sidecar too, instead of writing a second one (a case-collision).
    const add = captureIo({ cwd: temp.path });
    expect(await runMain(['add', join('unicode-forms', `caf\u00e9${ext}`), '--content', 'unicode-forms'], add)).toBe(1);
    expect(add.err().normalize('NFC')).toMatch(/already has a sidecar \(café\.json\): edit that one instead \[already-in-catalogue\]/);
  });
});
