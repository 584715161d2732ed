import { cp, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runMain } from '../cli/main.js';
import { captureIo } from '../testing/capture-io.js';
import { fixtureContentFolder, fixtureId, fixtureImage } from '../testing/fixture-catalogue.js';
import type { TempDir } from '../testing/temp-dir.js';
import { windowsNameFault, windowsNameProblems } from './windows-names.js';

vi.setConfig({ testTimeout: 60_000 });

describe('windowsNameProblems', () => {
  it('reports a path exactly when one of its parts has a fault (its quick pre-filter skips none)', () => {
    // Names built from the pieces faults are made of, so that faults are common.
    const piece = fc.constantFrom('aux', 'CON', 'conin$', 'Com1', 'lpt²', 'nul ', 'frog', 'com', 'x', '.', ' ', ':', '?', '\u0007', '-', 'é', 'png');
    const part = fc.array(piece, { minLength: 1, maxLength: 4 }).map((pieces) => pieces.join(''));
    const path = fc.array(part, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));
    fc.assert(
      fc.property(path, (rel) => {
        const faulty = rel.split('/').some((name) => windowsNameFault(name) !== null);
        const reported = windowsNameProblems({ pairs: [], loneSidecars: [{ rel } as never] }).length > 0;
        expect(reported).toBe(faulty);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('windowsNameFault', () => {
  it('names device names whatever the extension or letter case, forbidden characters, and a trailing dot or space', () => {
    expect(windowsNameFault('aux.png')).toBe('"aux" is a device name on Windows, whatever the extension');
    expect(windowsNameFault('NUL.tar.json')).toBe('"NUL" is a device name on Windows, whatever the extension');
    expect(windowsNameFault('Com1.gif')).toMatch(/^"Com1" is a device name/);
    expect(windowsNameFault('wow: what?.jpg')).toBe('":" and "?" are not allowed in a Windows file name');
    expect(windowsNameFault('a|b.png')).toBe('"|" is not allowed in a Windows file name');
    expect(windowsNameFault('\u001b[2Ka\u0007b?.png')).toBe('a control character and "?" are not allowed in a Windows file name');
    expect(windowsNameFault('moods.')).toBe('it ends with a dot, which Windows drops');
    expect(windowsNameFault('moods ')).toBe('it ends with a space, which Windows drops');
  });

  it('accepts what Windows accepts', () => {
    for (const name of ['auxiliary.png', 'console.json', 'com10.png', 'frog-with-a-hat.webp', "Pepe's café.png", 'nul-pepe.png', 'a.b.c.png']) expect(windowsNameFault(name), name).toBeNull();
  });
});

describe('pepe check and pepe add on names a Windows checkout cannot hold', () => {
  let temp: TempDir;
  let content: string;
  beforeAll(async () => {
    ({ temp, content } = await fixtureContentFolder('pepe-windows-names-', 2));
  }, 60_000);
  afterAll(() => temp.cleanup());

  it('check fails once per image and sidecar pair, and once per folder, naming what to rename', async () => {
    const dir = join(temp.path, 'check');
    await cp(content, dir, { recursive: true });
    const sidecar = (name: string) => JSON.stringify({ id: fixtureId(name), description: null, tags: null, created_at: '2026-01-01T00:00:00Z' });
    const images = [await fixtureImage(30), await fixtureImage(31), await fixtureImage(32)];
    await writeFile(join(dir, `aux${images[0]!.ext}`), images[0]!.bytes);
    await writeFile(join(dir, 'aux.json'), sidecar('aux'));
    await mkdir(join(dir, 'what?'));
    for (const [index, name] of ['one', 'two'].entries()) {
      await writeFile(join(dir, 'what?', `${name}${images[index + 1]!.ext}`), images[index + 1]!.bytes);
      await writeFile(join(dir, 'what?', `${name}.json`), sidecar(name));
    }
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['check', '--content', 'check'], io)).toBe(1);
    const lines = io.err().split('\n').filter((line) => line.includes('[windows-invalid-name]'));
    expect(lines).toEqual([
      `error: aux${images[0]!.ext}: "aux" is a device name on Windows, whatever the extension, so a Windows checkout of the repository fails ("invalid path"): rename the image and its sidecar (git mv both) [windows-invalid-name]`,
      'error: what?: the folder "what?": "?" is not allowed in a Windows file name, so a Windows checkout of the repository fails ("invalid path"): rename the folder (git mv) [windows-invalid-name]',
    ]);
  });

  it('add names an imported nul.png "nul-pepe", and refuses --into a device name and an image in place under a bad name', async () => {
    const dir = join(temp.path, 'add');
    await cp(content, dir, { recursive: true });
    const image = await fixtureImage(33);
    await writeFile(join(temp.path, `NUL${image.ext}`), image.bytes);
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['add', `NUL${image.ext}`, '--content', 'add'], io), io.err()).toBe(0);
    expect(io.out()).toMatch(new RegExp(`^added nul-pepe\\${image.ext} `));

    const into = captureIo({ cwd: temp.path });
    expect(await runMain(['add', `NUL${image.ext}`, '--content', 'add', '--into', 'moods/con'], into)).toBe(2);
    expect(into.err()).toMatch(/--into "moods\/con": the folder "con": "con" is a device name on Windows/);

    const other = await fixtureImage(34);
    await writeFile(join(dir, `a: b${other.ext}`), other.bytes);
    const inPlace = captureIo({ cwd: temp.path });
    expect(await runMain(['add', `add/a: b${other.ext}`, '--content', 'add'], inPlace)).toBe(1);
    expect(inPlace.err()).toMatch(/: ":" is not allowed in a Windows file name, so a Windows checkout of the repository would fail: rename it first .*\[windows-invalid-name\]/);
    expect((await readdir(dir)).filter((name) => name.startsWith('a: b'))).toEqual([`a: b${other.ext}`]);
  });
});
