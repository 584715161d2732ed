/**
 * Runs the CLI from an esbuild bundle of its TypeScript instead of through tsx, whose loader
 * compiles every import on a thread Node 20 waits for (why, and the figures: tools/cli/README.md).
 *
 * The bundle is made on first use and whenever a source it was made from changes, into
 * `node_modules/.cache/pepe-cli/`; every run compares the size and mtime of each input esbuild
 * reported, like make does.
 * - Commands stay separate chunks (`splitting`), so `pepe serve` still never loads sharp.
 * - `import.meta.url` in our sources becomes the source file's own URL, so paths next to a
 *   source (the wasm pixel pass, the gallery sources, the function entry) resolve as they do
 *   under tsx.
 * - The dependencies in INLINED are bundled with everything they import (as many small files
 *   they import slowly); native or binary ones (sharp, esbuild; the AWS SDK) load from
 *   node_modules as usual. Bundled CommonJS calls `require` for Node's built-in modules, which
 *   an ES module lacks: every output file starts with one made by `createRequire` (BANNER).
 * - Source maps are on, so a stack trace names TypeScript lines, as under tsx. That lets the
 *   bundle drop whitespace and simplify syntax (names are kept): V8 compiles fewer bytes.
 * - zod's locales besides English are left out (zodWithoutLocales).
 *
 * When no bundle can be made (no esbuild, a read-only node_modules, a compile error) tools/pepe.mjs
 * runs the CLI through tsx: slower, same behaviour. `PEPE_CLI_TSX=1` forces that path, and
 * `PEPE_CLI_DEBUG=1` says on stderr which path a command took.
 *
 * Plain JavaScript, like tuned-allocator.mjs: it runs before any TypeScript loader.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Dependencies bundled into the CLI: no native parts, no files of their own read at run time. */
export const INLINED = new Set(['zod', 'minisearch', 'blurhash', 'smol-toml', 'fast-glob']);
/** The `require` that esbuild's CommonJS wrappers call for built-in modules (`fs`, `path`…), in every output file. */
const BANNER = "import { createRequire as __pepeCreateRequire } from 'node:module';\nconst require = __pepeCreateRequire(import.meta.url);";
/** Bumped when the way the bundle is made changes (options below), so old bundles are not reused. */
const FORMAT = 4;
/** A replaced bundle is removed once no process can still be loading a lazy chunk of it. */
const STALE_BUNDLE_MS = 60 * 60 * 1000;

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The CLI's entry module (`{ runMain }`) from a bundle made from the current sources; throws
 * when none can be made (the caller then runs the CLI through tsx).
 * @param {{ root?: string, entry?: string, cacheDir?: string }} [options] tests only: another project
 * @returns {Promise<{ module: Record<string, unknown>, compiled: boolean, dir: string }>}
 *   `compiled`: made by this call (else reused); `dir`: the bundle's folder
 */
export async function loadCompiledCli(options = {}) {
  const root = options.root ?? REPO_ROOT;
  const entry = options.entry ?? 'tools/cli/main.ts';
  const cacheDir = options.cacheDir ?? join(root, 'node_modules', '.cache', 'pepe-cli');
  // The project folder is part of the key: worktrees may share one node_modules (and so this cache).
  const key = `${FORMAT} ${process.version} ${root} ${entry}`;
  let bundle = freshBundle(root, cacheDir, key);
  const compiled = bundle === null;
  if (bundle === null) bundle = await compile(root, entry, cacheDir, key);
  process.setSourceMapsEnabled(true);
  const dir = join(cacheDir, bundle.dir);
  const module = await import(pathToFileURL(join(dir, bundle.main)).href);
  return { module, compiled, dir };
}

/** The current bundle when every input it was made from is unchanged, else null. */
function freshBundle(root, cacheDir, key) {
  let current;
  try {
    current = JSON.parse(readFileSync(join(cacheDir, 'current.json'), 'utf8'));
  } catch {
    return null;
  }
  if (current.key !== key || !Array.isArray(current.inputs)) return null;
  for (const [path, size, mtimeMs] of current.inputs) {
    const info = statSync(join(root, path), { throwIfNoEntry: false });
    if (!info || info.size !== size || info.mtimeMs !== mtimeMs) return null;
  }
  return current;
}

async function compile(root, entry, cacheDir, key) {
  const { build } = await import('esbuild');
  const dir = `b-${Date.now().toString(36)}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const outdir = join(cacheDir, dir);
  /** Each input's stat, taken just before it was read. */
  const seen = new Map();
  const result = await build({
    entryPoints: [join(root, entry)],
    outdir,
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    // Stack traces point at the source files, which are on disk: maps without them parse faster at every start.
    sourcesContent: false,
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: true,
    banner: { js: BANNER },
    logLevel: 'silent',
    plugins: [sourcesAsRead(seen), dependenciesExceptInlined(), zodWithoutLocales()],
  });
  // Inputs as esbuild saw them (relative to root), plus this file: a change to how bundles are made must rebuild too.
  const files = Object.keys(result.metafile.inputs).filter((path) => !path.startsWith(`${EMPTY_NAMESPACE}:`));
  const inputs = [...files, relative(root, fileURLToPath(import.meta.url)).split(sep).join('/')].map((path) => {
    const info = seen.get(resolve(root, path)) ?? statSync(join(root, path));
    return [path, info.size, info.mtimeMs];
  });
  const main = Object.entries(result.metafile.outputs).find(([, output]) => output.entryPoint === entry)?.[0];
  if (main === undefined) throw new Error(`esbuild reported no output for ${entry}`);
  const current = { key, dir, main: relative(outdir, join(root, main)), inputs };
  // Written whole, then renamed: a process starting meanwhile sees the old pointer or the new one.
  const temp = join(cacheDir, `current.${process.pid}.${randomBytes(3).toString('hex')}.tmp`);
  writeFileSync(temp, JSON.stringify(current));
  renameSync(temp, join(cacheDir, 'current.json'));
  pruneStaleBundles(cacheDir, dir);
  return current;
}

/**
 * Notes each input's stat just before it is read, so that an edit saved while the bundle is
 * being made counts as a change next time (a stat taken afterwards would vouch for the new
 * bytes while the bundle holds the old ones). In TypeScript files, `import.meta.url` becomes
 * the file's own URL (a string literal).
 */
function sourcesAsRead(seen) {
  return {
    name: 'pepe-sources-as-read',
    setup(b) {
      b.onLoad({ filter: /.*/, namespace: 'file' }, (args) => {
        seen.set(args.path, statSync(args.path));
        if (!args.path.endsWith('.ts')) return undefined; // esbuild reads it, after this stat
        return { contents: readFileSync(args.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
      });
    },
  };
}

/**
 * Bare imports stay imports, resolved from node_modules at run time (which is why the bundle
 * lives inside the project's node_modules), except the INLINED packages.
 */
function dependenciesExceptInlined() {
  return {
    name: 'pepe-external-dependencies',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('node:')) return { path: args.path, external: true };
        // What an inlined package imports is inlined with it.
        if (args.importer.includes(`${sep}node_modules${sep}`)) return undefined;
        const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
        return INLINED.has(name) ? undefined : { path: args.path, external: true };
      });
    },
  };
}

/** Modules that the bundle replaces with an empty one (zodWithoutLocales). */
const EMPTY_NAMESPACE = 'pepe-empty';

/**
 * zod's `z` namespace re-exports all its locales (`z.locales`: 64 languages, 260 kB of the
 * 640 kB chunk that every `pepe build` compiled at start-up), which esbuild cannot shake out of
 * a namespace. The CLI speaks English, which zod sets up from `locales/en.js` directly, so the
 * locale index becomes an empty module.
 */
function zodWithoutLocales() {
  return {
    name: 'pepe-zod-without-locales',
    setup(b) {
      b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
        args.importer.includes(`${sep}node_modules${sep}zod${sep}`) ? { path: 'zod-locales', namespace: EMPTY_NAMESPACE } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: EMPTY_NAMESPACE }, () => ({ contents: 'export {};', loader: 'js' }));
    },
  };
}

function pruneStaleBundles(cacheDir, keep) {
  const now = Date.now();
  for (const name of readdirSync(cacheDir)) {
    // Bundles, and pointer files a crashed process left half-written.
    if (name === keep || !(name.startsWith('b-') || name.endsWith('.tmp'))) continue;
    const path = join(cacheDir, name);
    const info = statSync(path, { throwIfNoEntry: false });
    if (info && now - info.mtimeMs > STALE_BUNDLE_MS) rmSync(path, { recursive: true, force: true });
  }
}
