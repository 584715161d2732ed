import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { catalogueDataFiles } from '../../functions/core/catalogue.js';
import { precomputedFiles } from '../testing/test-catalogue.js';
import { testCatalogue } from '../testing/test-catalogue.js';
import { bundleFunction, fillBundle, loadEsbuild } from './bundle-function.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function bundleInto(count: number): Promise<{ distDir: string; file: string; bytes: number; template: string }> {
  const distDir = await mkdtemp(join(tmpdir(), 'pepe-bundle-'));
  dirs.push(distDir);
  await mkdir(join(distDir, 'data'));
  for (const { path, body } of catalogueDataFiles(testCatalogue(count))) await writeFile(join(distDir, path), body);
  return { distDir, ...(await bundleFunction({ distDir })) };
}

describe('bundleFunction', () => {
  it('writes an ESM bundle, the data module inlined, whose default export answers like the core from the pieces file beside it', async () => {
    const { file, bytes, distDir } = await bundleInto(15);
    expect(file).toBe(join(distDir, 'functions/pepe.mjs'));
    expect(bytes).toBe((await readFile(file)).length);
    const source = await readFile(file, 'utf8');
    expect(source).not.toMatch(/from\s*["'](#catalogue|\.\/|\.\.\/|zod)/); // data inlined, nothing relative left
    const mod = await import(pathToFileURL(file).href);
    expect(mod.config).toMatchObject({ path: ['/api', '/api/*', '/v1', '/v1/*'], preferStatic: true });
    for (const { path, body } of precomputedFiles(testCatalogue(15))) {
      const response: Response = await mod.default(new Request(`https://pepe.example/${path}`), { params: {} });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(body);
    }
    const search: Response = await mod.default(new Request('https://pepe.example/api/pepe?search=smug&limit=3'));
    expect((await search.json()).meta.search.found).toBe(true);
  });

  it('is deterministic: same data, same bytes', async () => {
    const a = await bundleInto(5);
    const b = await bundleInto(5);
    expect(await readFile(a.file)).toEqual(await readFile(b.file));
  });

  it('fills one build\'s template with another build\'s data module: the bundle esbuild makes of that data, byte for byte', async () => {
    const small = await bundleInto(2);
    const large = await bundleInto(15);
    const dataModule = await readFile(join(large.distDir, 'data/catalogue.mjs'), 'utf8');
    expect(fillBundle(small.template, dataModule)).toBe(await readFile(large.file, 'utf8'));
    // Non-ASCII in the data (a URL) is escaped, as esbuild writes it; a template without its slot is refused.
    expect(fillBundle(small.template, dataModule.replace('https://pepe.example', 'https://pépé.example'))).toContain('https://p\\u00e9p\\u00e9.example');
    expect(() => fillBundle('export default 1;', dataModule)).toThrow(/one data slot/);
  });

  it('keeps zod (used only at build time) out of the bundle', async () => {
    const { file } = await bundleInto(2);
    expect(await readFile(file, 'utf8')).not.toContain('toJSONSchema');
  });

  it('bundles while the caller\'s thread is busy, once esbuild is loaded (the build overlaps it with its write loop)', async () => {
    const distDir = await mkdtemp(join(tmpdir(), 'pepe-bundle-'));
    dirs.push(distDir);
    await mkdir(join(distDir, 'data'));
    for (const { path, body } of catalogueDataFiles(testCatalogue(3))) await writeFile(join(distDir, path), body);
    await loadEsbuild();
    const bundling = bundleFunction({ distDir });
    // Synchronous from here: nothing on this thread can answer esbuild until the loop ends.
    const deadline = Date.now() + 20_000;
    while (!existsSync(join(distDir, 'functions/pepe.mjs')) && Date.now() < deadline);
    expect(existsSync(join(distDir, 'functions/pepe.mjs'))).toBe(true);
    expect((await bundling).bytes).toBeGreaterThan(1000);
  });
});
