/**
 * Bundles the Netlify function (functions/pepe.ts) with its data module inlined (the texts
 * it points into stay in `<distDir>/data/<piecesFile>`, read at run time), so that
 * `pepe serve` runs what Netlify runs. (Netlify bundles functions/pepe.ts
 * with its own bundler; tools/catalogue/netlify-bundle.test.ts holds its output answering
 * byte for byte like this bundle.) Output:
 * `<distDir>/functions/pepe.mjs`; `#catalogue` resolves to `<distDir>/data/catalogue.mjs`.
 */
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FUNCTION_ENTRY = join(ROOT, 'functions/pepe.ts');

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

export async function bundleFunction(options: { distDir: string }): Promise<{ bytes: number; file: string }> {
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
    // The package.json subpath import resolves to this build's data module (not the repo's dist/).
    alias: { '#catalogue': join(distDir, 'data/catalogue.mjs') },
  });
  if (result.errors.length > 0) throw new Error(`bundleFunction: esbuild failed: ${result.errors.map((e) => e.text).join('; ')}`);
  return { bytes: (await stat(file)).size, file };
}
