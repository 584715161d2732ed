/**
 * The function half of the chain: the same bundles Netlify would deploy
 * (`dist/functions/*.mjs`, built by `pepe build`), imported and matched by their own
 * `config.path` (see path-pattern.ts for the supported URLPattern subset).
 */
import { readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { oddKindAt } from '../shared/read-regular-file.js';
import { freshBuild } from './fresh-build.js';
import { compilePathPattern, type PathPattern } from './path-pattern.js';
import { CHECK_FILES, type FileHoldingHandler, RELEASE_FILES } from '../../functions/core/bundle-files.js';

/** What a v2 function module receives besides the Request; only the parts a local server can honestly provide. */
export interface FunctionContext {
  params: Record<string, string>;
  ip: string;
  requestId: string;
  /** Netlify keeps the function alive for these; we only await them so errors surface in logs. */
  waitUntil(promise: Promise<unknown>): void;
}

export type FunctionHandler = (request: Request, context: FunctionContext) => Response | Promise<Response>;

export interface LoadedFunction {
  name: string;
  handler: FunctionHandler;
  patterns: PathPattern[];
  preferStatic: boolean;
  /** Closes the files the bundle holds open (its pieces file), once a rebuild has replaced it; a no-op for a bundle that holds none. */
  release: () => void;
}

export interface FunctionMatch {
  fn: LoadedFunction;
  params: Record<string, string>;
}

/** Imports every top-level `.mjs` in `dir`, sorted by name (Netlify: every top-level file is a function). */
/** `generation`: a reload after a rebuild passes a new one, so that the new bundle is imported (ES modules are cached by URL). */
export async function loadFunctions(dir: string, generation = 0): Promise<LoadedFunction[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.mjs')).sort();
  const loaded: LoadedFunction[] = [];
  const fix = freshBuild(dirname(resolve(dir)));
  for (const file of names) {
    const where = join(dir, file);
    // Only a regular file: import() of a named pipe waits for a writer for ever, of a device reads without end.
    const odd = oddKindAt(where);
    if (odd !== null) throw new Error(`${where} is ${odd}, not a file: ${fix}`);
    const url = pathToFileURL(resolve(where)).href + (generation > 0 ? `?generation=${generation}` : '');
    let mod: { default?: unknown; config?: { path?: unknown; preferStatic?: unknown } };
    try {
      mod = await import(url);
    } catch (error) {
      // A damaged or hand-edited bundle: the bare "Unexpected token '{'" names neither the file nor the fix.
      throw new Error(`${where}: the function bundle cannot be loaded (${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}): ${fix}`);
    }
    if (typeof mod.default !== 'function') throw new Error(`${where}: the default export must be the function handler (request, context) => Response; ${fix}`);
    // The files it reads at run time (its pieces file): missing, this build would answer every search with a 500.
    checkFilesOf(mod.default);
    const paths = mod.config?.path;
    const list = typeof paths === 'string' ? [paths] : Array.isArray(paths) ? paths : [];
    if (list.length === 0 || !list.every((p): p is string => typeof p === 'string')) {
      throw new Error(`${where}: config.path must be a path or a list of paths (functions without a path are not served by pepe serve); ${fix}`);
    }
    loaded.push({
      name: file.replace(/\.mjs$/, ''),
      handler: mod.default as FunctionHandler,
      patterns: list.map((p) => compilePathPattern(p)),
      preferStatic: mod.config?.preferStatic === true,
      release: releaseOf(mod.default),
    });
  }
  return loaded;
}

/** The first function (by name) with a pattern matching `pathname`, and the captured params. */
export function matchFunction(functions: LoadedFunction[], pathname: string): FunctionMatch | null {
  for (const fn of functions) {
    for (const pattern of fn.patterns) {
      const params = pattern.match(pathname);
      if (params) return { fn, params };
    }
  }
  return null;
}

/** Throws the bundle's own reason (naming the file and the fix) when a file it reads at run time is unusable; a bundle that reads none has no check. */
function checkFilesOf(handler: unknown): void {
  const check = (handler as FileHoldingHandler)[CHECK_FILES];
  if (typeof check === 'function') check();
}

/** The bundle's own release of its open files (functions/core/bundle-files.ts), or a no-op. */
function releaseOf(handler: unknown): () => void {
  const release = (handler as FileHoldingHandler)[RELEASE_FILES];
  return typeof release === 'function' ? () => release() : () => {};
}
