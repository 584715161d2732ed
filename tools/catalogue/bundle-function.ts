/**
 * Bundles the Netlify function (functions/pepe.ts) with its data module inlined (the texts
 * it points into stay in `<distDir>/data/<piecesFile>`, read at run time), so that
 * `pepe serve` runs what Netlify runs. (Netlify bundles functions/pepe.ts
 * with its own bundler; tools/catalogue/netlify-bundle.test.ts holds its output answering
 * byte for byte like this bundle.) Output:
 * `<distDir>/functions/pepe.mjs`; `#catalogue` resolves to `<distDir>/data/catalogue.mjs`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FUNCTION_ENTRY = join(ROOT, 'functions/pepe.ts');
const DATA_SLOT_MODULE = join(ROOT, 'tools/catalogue/function-data-slot.mjs');

type Esbuild = typeof import('esbuild');
let esbuild: Esbuild | undefined;

/**
 * Imports esbuild (once). A rebuild with nothing changed never bundles and need not load it;
 * a build that will bundle calls this early, so that `bundleFunction` can hand its work to
 * esbuild's process synchronously (see there).
 */
export async function loadEsbuild(): Promise<Esbuild> {
  return (esbuild ??= await import('esbuild'));
}

/** The expression of function-data-slot.mjs as esbuild leaves it: a global's property is never renamed. */
const DATA_SLOT = 'globalThis.__pepeCatalogueData__';

/**
 * Bundles the function with `#catalogue` resolved to the data slot, and fills the slot with
 * the data module (`fillBundle`). The template depends on the code alone, so a build whose
 * data alone changed fills the saved one instead of starting esbuild (build-extras.ts).
 */
export async function bundleFunction(options: { distDir: string }): Promise<{ bytes: number; file: string; template: string }> {
  const distDir = resolve(options.distDir);
  const file = join(distDir, 'functions/pepe.mjs');
  // With esbuild loaded and no plugin, the request is written to esbuild's process before
  // this call returns: it bundles on the other core while the caller's synchronous work (the
  // build's write loop) goes on. A plugin (or an `await import` here) would leave the request
  // waiting for that work to finish: esbuild calls a plugin's hooks on this thread.
  const { build } = esbuild ?? (await loadEsbuild());
  const result = await build({
    entryPoints: [FUNCTION_ENTRY],
    outfile: file,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    // No absolute paths in the output: the bundle is the same on every machine.
    sourcemap: false,
    absWorkingDir: ROOT,
    logLevel: 'silent',
    alias: { '#catalogue': DATA_SLOT_MODULE },
  });
  if (result.errors.length > 0) throw new Error(`bundleFunction: esbuild failed: ${result.errors.map((e) => e.text).join('; ')}`);
  const template = await readFile(file, 'utf8');
  const bundle = fillBundle(template, await readFile(join(distDir, 'data/catalogue.mjs'), 'utf8'));
  await writeFile(file, bundle);
  return { bytes: Buffer.byteLength(bundle), file, template };
}

/**
 * The bundle of this build: `template` (bundleFunction's) with the data module's object in its
 * slot, non-ASCII characters escaped as esbuild escapes them (a bundle of ASCII stays one byte
 * a character in V8). Throws on a template without exactly one slot (a build bug).
 */
export function fillBundle(template: string, dataModule: string): string {
  const parts = template.split(DATA_SLOT);
  const start = dataModule.indexOf('export default {');
  const end = dataModule.lastIndexOf('};');
  if (parts.length !== 2 || start === -1 || end < start) throw new Error('fillBundle: a function bundle template needs one data slot and a data module exporting one object');
  const data = dataModule.slice(start + 'export default '.length, end + 1).replace(/[^\t\n\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `${parts[0]}(${data})${parts[1]}`;
}
