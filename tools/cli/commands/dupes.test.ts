import { cp, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SAMPLE_ENTRIES } from '../../sample/sample-catalogue.js';
import { writeSampleContent } from '../../sample/sample-files.js';
import { plantedCopy } from '../../sample/planted-copies.js';
import { type FaceParams, renderFlat, type ShapeParams } from '../../sample/flat-pictures.js';
import { makeTempDir, type TempDir } from '../../testing/temp-dir.js';
import { captureIo } from '../../testing/capture-io.js';
import { runMain } from '../main.js';
import { CONFIRM_DEFAULTS, DEFAULT_PHASH_THRESHOLD } from '../../dupes/near-duplicates.js';

vi.setConfig({ testTimeout: 60_000 });

let temp: TempDir;
let content: string;
const COPY_ID = '0d6f2b7e-3c1a-4f0e-9a55-1b2c3d4e5f60';

beforeAll(async () => {
  temp = await makeTempDir('pepe-dupes-cli-');
  content = join(temp.path, 'content');
  // Three different sample frogs, plus a JPEG re-encode of the first one.
  const entries = SAMPLE_ENTRIES.filter((e) => ['classics/smug-original', 'classics/feels-bad', 'classics/angry-frog'].includes(e.name));
  await writeSampleContent(content, entries);
  const original = await readFile(join(content, 'classics/smug-original.png'));
  await writeFile(join(content, 'smug-copy.jpg'), await plantedCopy(original, 'jpeg-q60'));
  await writeFile(join(content, 'smug-copy.json'), JSON.stringify({ id: COPY_ID, description: 'a re-upload', tags: null, created_at: '2024-01-01T00:00:00+00:00' }));
}, 60_000);
afterAll(() => temp.cleanup());

describe('pepe dupes', () => {
  it('--json prints exactly [{a: {id, file}, b: {id, file}, distance}] for the planted copy', async () => {
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['dupes', '--content', 'content', '--json'], io)).toBe(0);
    const pairs = JSON.parse(io.out()) as unknown[];
    expect(pairs).toHaveLength(1);
    const sidecar = JSON.parse(await readFile(join(content, 'classics/smug-original.json'), 'utf8')) as { id: string };
    expect(pairs[0]).toEqual({ a: { id: sidecar.id, file: 'classics/smug-original.png' }, b: { id: COPY_ID, file: 'smug-copy.jpg' }, distance: expect.any(Number) });
    expect(Object.keys(pairs[0] as object)).toEqual(['a', 'b', 'distance']);
  });

  it('lists both files, both ids and the distance for people', async () => {
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['dupes', '--content', 'content'], io)).toBe(0);
    expect(io.out()).toMatch(/^1 near-duplicate pair \(phash threshold \d+\):/);
    expect(io.out()).toContain('classics/smug-original.png  ~  smug-copy.jpg  (distance ');
    expect(io.out()).toContain(COPY_ID);
  });

  it('prints a file name holding control characters escaped (no terminal escapes from content)', async () => {
    const named = join(temp.path, 'control-names');
    await cp(content, named, { recursive: true });
    for (const ext of ['.jpg', '.json']) await rename(join(named, `smug-copy${ext}`), join(named, `\u001b[2Ksmug\u0007copy${ext}`));
    const io = captureIo({ cwd: temp.path });
    // Control characters are refused in names (no Windows checkout can hold them): exit 1, the pair still listed.
    expect(await runMain(['dupes', '--content', 'control-names'], io)).toBe(1);
    expect(io.err()).toContain('error: \\u001b[2Ksmug\\u0007copy.jpg: a control character is not allowed in a Windows file name');
    expect(io.out()).toContain('\\u001b[2Ksmug\\u0007copy.jpg  ~  classics/smug-original.png  (distance ');
    expect(io.out() + io.err()).not.toContain('\u001b');
  });

  it('prints [] when a sidecar acknowledges the pair with distinct_from', async () => {
    const sidecarPath = join(content, 'smug-copy.json');
    const before = await readFile(sidecarPath, 'utf8');
    const original = JSON.parse(await readFile(join(content, 'classics/smug-original.json'), 'utf8')) as { id: string };
    await writeFile(sidecarPath, JSON.stringify({ ...JSON.parse(before), distinct_from: [original.id] }));
    try {
      const io = captureIo({ cwd: temp.path });
      expect(await runMain(['dupes', '--content', 'content', '--json'], io)).toBe(0);
      expect(JSON.parse(io.out())).toEqual([]);
    } finally {
      await writeFile(sidecarPath, before);
    }
  });

  it('lists nothing (not "No near-duplicates") when no image is valid, e.g. a missing content folder', async () => {
    for (const json of [[], ['--json']]) {
      const io = captureIo({ cwd: temp.path });
      expect(await runMain(['dupes', '--content', 'no-such-folder', ...json], io)).toBe(1);
      expect(io.err()).toContain('[content-missing]');
      expect(io.out()).toBe('');
    }
  });

  it('refuses a threshold out of range with exit 2 and the usage', async () => {
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['dupes', '--threshold', '99'], io)).toBe(2);
    expect(io.err()).toContain('--threshold must be a whole number from 0 to 16 (got "99")');
    expect(io.err()).toContain('Usage: pepe dupes');
  });

  describe('--explain A B', () => {
    it('prints the distances and the rule for a planted copy, given by ids', async () => {
      const original = JSON.parse(await readFile(join(content, 'classics/smug-original.json'), 'utf8')) as { id: string };
      const io = captureIo({ cwd: temp.path });
      expect(await runMain(['dupes', '--content', 'content', '--explain', original.id, COPY_ID.toUpperCase()], io)).toBe(0);
      const out = io.out();
      expect(out).toContain(`A: classics/smug-original.png (id ${original.id})`);
      expect(out).toContain(`B: smug-copy.jpg (id ${COPY_ID})`);
      expect(out).toMatch(new RegExp(`^phash distance: \\d+ bits \\(a candidate at most ${DEFAULT_PHASH_THRESHOLD}\\)$`, 'm'));
      expect(out).toMatch(/^thumbnail key distance: \d+ bits \(a candidate at most 2\)$/m);
      expect(out).toMatch(/^grey layouts differ by 0\.\d{3} \(at most 0\.2\)$/m);
      expect(out).toContain(`(colour off by more than ΔE ${CONFIRM_DEFAULTS.tolerance}; at most ${CONFIRM_DEFAULTS.maxChangedPixels})`);
      expect(out).toMatch(new RegExp(`^cells patterned in one picture where the other is plain \\(.*\\): \\d+ \\(at most ${CONFIRM_DEFAULTS.maxTextureCells}\\)$`, 'm'));
      expect(out).toMatch(/^verdict: a near-duplicate: the same picture/m);
    });

    it('explains why a different picture is not one, given by content files', async () => {
      const io = captureIo({ cwd: temp.path });
      expect(await runMain(['dupes', '--content', 'content', '--explain', 'classics/smug-original.png', 'classics/angry-frog.webp'], io)).toBe(0);
      expect(io.out()).toMatch(/^verdict: not a near-duplicate: /m);
    });

    it('takes an image file outside the catalogue, to check one before adding it', async () => {
      const outside = join(temp.path, 'candidate.webp');
      await writeFile(outside, await plantedCopy(await readFile(join(content, 'classics/smug-original.png')), 'gamma-1.2'));
      const io = captureIo({ cwd: temp.path });
      expect(await runMain(['dupes', '--content', 'content', '--explain', 'candidate.webp', 'classics/smug-original.png'], io)).toBe(0);
      expect(io.out()).toContain('A: candidate.webp (id (not in the catalogue))');
      expect(io.out()).toMatch(/^verdict: a near-duplicate: /m);
    });

    it('names the local recolour rule for a face whose mouth alone changed colour', async () => {
      const face = (mouth: string): FaceParams => ({ kind: 'face', skin: '#f1c27d', mouth, mouthShape: 'flat', eyes: 'dots', radius: 0.42, mouthScale: 0.7, dx: 0, dy: 0 });
      await writeFile(join(temp.path, 'red-mouth.png'), await renderFlat(face('#c0392b'), 256).png().toBuffer());
      await writeFile(join(temp.path, 'brown-mouth.png'), await renderFlat(face('#b0422e'), 256).png().toBuffer());
      const io = captureIo({ cwd: temp.path });
      expect(await runMain(['dupes', '--content', 'content', '--explain', 'red-mouth.png', 'brown-mouth.png'], io)).toBe(0);
      expect(io.out()).toMatch(new RegExp(`^local recolour: \\d+ thumbnail pixels off by more than ΔE ${CONFIRM_DEFAULTS.fineTolerance}, every difference within a box of \\d+ pixels`, 'm'));
      expect(io.out()).toMatch(/^verdict: not a near-duplicate: a small area differs where the rest matches exactly .*a local recolour/m);
    });

    it('names the one-colour decision for a flat square in two colours', async () => {
      const square = (colour: string): ShapeParams => ({ kind: 'shape', shape: 'square', colour, size: 0.6, dx: 0, dy: 0 });
      await writeFile(join(temp.path, 'square-a.png'), await renderFlat(square('#3b6fd1'), 256).png().toBuffer());
      await writeFile(join(temp.path, 'square-b.png'), await renderFlat(square('#2f5cc0'), 256).png().toBuffer());
      const io = captureIo({ cwd: temp.path });
      expect(await runMain(['dupes', '--content', 'content', '--explain', 'square-a.png', 'square-b.png'], io)).toBe(0);
      expect(io.out()).toMatch(/^colours besides white and black: one, so no edit was undone/m);
      expect(io.out()).toMatch(/^verdict: not a near-duplicate: one colour besides white and black, compared as it is .*recolour/m);
    });

    it('names a side it cannot find and exits 1', async () => {
      const io = captureIo({ cwd: temp.path });
      expect(await runMain(['dupes', '--content', 'content', '--explain', 'no-such-id', 'smug-copy.jpg'], io)).toBe(1);
      expect(io.err()).toContain('error: "no-such-id" is neither an id nor an image of the content folder, nor a readable file');
      expect(io.out()).toBe('');
      // An argument that retitles the terminal and reverses the rest is shown escaped.
      const hostile = captureIo({ cwd: temp.path });
      expect(await runMain(['dupes', '--content', 'content', '--explain', '\u001b]0;pwned\u0007\u009b2J\u202egpj.exe', 'smug-copy.jpg'], hostile)).toBe(1);
      expect(hostile.err()).toContain('error: "\\u001b]0;pwned\\u0007\\u009b2J\\u202egpj.exe" is neither an id');
      expect(hostile.err()).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    });

    it('refuses one image, three, or a stray argument without --explain, with exit 2', async () => {
      for (const argv of [['--explain', 'a'], ['--explain', 'a', 'b', 'c'], ['a', 'b']]) {
        const io = captureIo({ cwd: temp.path });
        expect(await runMain(['dupes', '--content', 'content', ...argv], io)).toBe(2);
        expect(io.err()).toContain('Usage: pepe dupes');
      }
    });
  });
});
