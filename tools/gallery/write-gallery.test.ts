import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { writeGallery } from './write-gallery.js';

/** The budget for the page's script, compressed. */
const SCRIPT_BUDGET_GZIP_BYTES = 50 * 1024;

const temps: TempDir[] = [];
afterAll(async () => {
  await Promise.all(temps.map((t) => t.cleanup()));
});

async function writeInto(): Promise<{ dir: string; files: string[] }> {
  const temp = await makeTempDir('pepe-gallery-');
  temps.push(temp);
  const { files } = await writeGallery(temp.path);
  return { dir: temp.path, files };
}

describe('writeGallery', () => {
  it('writes index.html and content-hashed assets that index.html references', async () => {
    const { dir, files } = await writeInto();
    expect(files).toEqual([...files].sort());
    expect(files).toContain('index.html');
    const assets = files.filter((f) => f.startsWith('assets/'));
    expect(assets.map((a) => a.replace(/-[0-9a-f]{10}\./, '-HASH.')).sort()).toEqual(['assets/gallery-HASH.css', 'assets/gallery-HASH.js']);
    expect((await readdir(join(dir, 'assets'))).sort()).toEqual(assets.map((a) => a.slice('assets/'.length)));
    const html = await readFile(join(dir, 'index.html'), 'utf8');
    for (const asset of assets) expect(html).toContain(`"/${asset}"`);
  });

  it('gives byte-identical output on a second run', async () => {
    const first = await writeInto();
    const second = await writeInto();
    expect(second.files).toEqual(first.files);
    for (const file of first.files) {
      expect(await readFile(join(second.dir, file), 'utf8'), file).toBe(await readFile(join(first.dir, file), 'utf8'));
    }
  });

  it('keeps the script under 50 KB gzip and minified', async () => {
    const { dir, files } = await writeInto();
    const script = await readFile(join(dir, files.find((f) => f.endsWith('.js'))!));
    expect(gzipSync(script, { level: 9 }).length).toBeLessThan(SCRIPT_BUDGET_GZIP_BYTES);
    // Minified: no indentation left, few lines.
    expect(script.toString().split('\n').length).toBeLessThan(10);
  });
});
