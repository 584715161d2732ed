/**
 * A build loaded whole (`loadState`), and picked up again like a deploy when `pepe build`
 * commits into the served folder (`watchForRebuilds`). A Netlify deploy is atomic: after it
 * every answer comes from the new build and the CDN cache is empty. A build commits by
 * renaming `manifest.json` last (tools/catalogue/commit-output.ts), so that rename is the signal:
 * the new build is loaded beside the old one and swapped in at once; requests in flight
 * finish with the old build (request-chain.ts); a failing load keeps the old build and is
 * reported.
 */
import { existsSync, type FSWatcher, watch } from 'node:fs';
import { access } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { readManifestRootSync } from '../shared/manifest.js';
import { loadNetlifyConfig } from '../shared/netlify-config.js';
import { CdnCache } from './cdn-cache.js';
import { freshBuild } from './fresh-build.js';
import { type LoadedFunction, loadFunctions } from './functions.js';
import { compileRedirect, unsupportedRedirect } from './redirects.js';
import type { ChainState } from './request-chain.js';
import { StaticRoutes } from './static-fast-path.js';
import { StaticSite } from './static-files.js';

/** What loading a build, and reloading it, needs (`ServeOptions` carries them). */
export interface BuildOptions {
  /** Build output folder (holds site/, functions/, manifest.json). */
  dir: string;
  /** Default: `netlify.toml` in the current folder (the repository root). */
  netlifyToml?: string;
  /** Where unexpected failures are reported (a function that throws); the CLI prints them. */
  onError?: (message: string, error: unknown) => void;
  /**
   * Keep function answers that send `Netlify-CDN-Cache-Control` (as Netlify's CDN does) until
   * the next build. Default true; false runs the function for every request (for measuring it).
   */
  cdnCache?: boolean;
  /** The CDN cache's clock in ms (default Date.now; tests move it to age and expire answers). */
  now?: () => number;
  /** Called after the CDN cache drops answers whose bodies add up to its collection threshold (cdn-cache.ts). */
  collect?: () => void;
  /** How long a replaced build's function keeps its files open after a rebuild (default 5 min; tests shorten it). */
  releaseGraceMs?: number;
  /** Told when a new build in the folder is being served. */
  onReload?: (info: { version: string | null }) => void;
}

/** A setup failure the CLI reports as a message (no stack): missing build, bad netlify.toml… */
export class ServeSetupError extends Error {
  readonly code = 'SERVE_SETUP';
}

/**
 * A replaced build's function closes its pieces file this long after the swap, not at once:
 * a request that began before the swap keeps the old build whole, and may reach its function
 * after a static file it first tried; without it every rebuild's deleted pieces file stayed
 * open, its disk space taken, until `pepe serve` stopped.
 */
const RELEASE_GRACE_MS = 5 * 60_000;
/** The file a build renames last (its commit point). */
const MANIFEST_NAME = 'manifest.json';
/** A burst of renames ends with the manifest's: a load waits this long for it to settle. */
const SETTLE_MS = 100;

/** One build loaded whole (file list, function bundle, netlify.toml, an empty CDN cache): what a reload swaps in. */
export async function loadState(options: BuildOptions, generation = 0): Promise<Omit<ChainState, 'origin'>> {
  const dir = resolve(options.dir);
  const missing = async (path: string) => access(path).then(() => false, () => true);
  if (await missing(join(dir, 'site'))) {
    throw new ServeSetupError(`no build found at ${join(dir, 'site')}: run \`npx pepe build\` first (or pass --dir with a build output folder)`);
  }
  if (await missing(join(dir, 'functions', 'pepe.mjs'))) {
    throw new ServeSetupError(`no function bundle at ${join(dir, 'functions', 'pepe.mjs')}: the build looks incomplete; ${freshBuild(dir)}`);
  }
  let config;
  try {
    config = await loadNetlifyConfig(options.netlifyToml ?? 'netlify.toml');
  } catch (error) {
    throw new ServeSetupError(error instanceof Error ? error.message : String(error));
  }
  for (const rule of config.redirects) {
    const why = unsupportedRedirect(rule);
    if (why) throw new ServeSetupError(`${config.file}: ${why}`);
  }
  let functions, site;
  try {
    functions = await loadFunctions(join(dir, 'functions'), generation);
    site = await StaticSite.load(dir);
  } catch (error) {
    throw new ServeSetupError(error instanceof Error ? error.message : String(error));
  }
  return {
    site,
    config,
    functions,
    redirects: config.redirects.map(compileRedirect),
    onError: options.onError ?? (() => {}),
    cdnCache: options.cdnCache === false ? null : new CdnCache({ now: options.now, collect: options.collect }),
    staticRoutes: new StaticRoutes(site, config),
  };
}

/** Swaps each new build committed into `options.dir` into `state`; returns the function that stops watching. */
export function watchForRebuilds(options: BuildOptions, state: ChainState): () => void {
  const dir = resolve(options.dir);
  const releases = new ReleaseTimers(options.releaseGraceMs ?? RELEASE_GRACE_MS);
  let generation = 0;
  const reload = async (): Promise<void> => {
    // No manifest: the folder is being removed or replaced, not a build committed; the
    // commit (the manifest's rename, or the new folder's) schedules a load of its own.
    if (!existsSync(join(dir, MANIFEST_NAME))) return;
    generation += 1;
    try {
      const next = await loadState(options, generation);
      const replaced = state.functions;
      Object.assign(state, next);
      releases.later(replaced);
      options.onReload?.({ version: manifestVersion(dir) });
    } catch (error) {
      state.onError('a new build in the served folder could not be loaded; still serving the previous one', error);
    }
  };
  const schedule = settledSerially(reload);
  // The folder itself may be replaced rather than written into (`rm -rf dist && pepe build`,
  // a `mv`): a watcher follows the folder it was opened on, so the parent is watched too, and
  // a 'rename' there naming the folder re-opens the folder's watcher (the inode cannot tell
  // the folders apart: a removed folder's number is often reused at once).
  let watcher: FSWatcher | null = null;
  const watchFolder = (): void => {
    watcher?.close();
    watcher = null;
    try {
      watcher = watch(dir, (_event, name) => {
        if (name === MANIFEST_NAME) schedule.run();
      });
    } catch {
      return; // gone (being replaced): the parent's watcher hears it come back
    }
    watcher.on('error', (error) => state.onError(`stopped watching ${dir} for new builds; restart pepe serve after a build`, error));
  };
  let parentWatcher: FSWatcher | null = null;
  watchFolder();
  try {
    parentWatcher = watch(dirname(dir), (event, name) => {
      if (event !== 'rename' || name !== basename(dir)) return;
      watchFolder();
      schedule.run();
    });
    parentWatcher.on('error', () => parentWatcher?.close());
  } catch (error) {
    if (watcher === null) {
      state.onError(`cannot watch ${dir} for new builds; restart pepe serve after a build`, error);
      return () => {};
    }
    // Without the parent's watcher a build into the folder is still picked up; only a replaced folder is not.
  }
  return () => {
    schedule.cancel();
    watcher?.close();
    parentWatcher?.close();
    // The server has closed, every request answered: nothing reads a replaced build's files any more.
    releases.all();
  };
}

/** `task` run SETTLE_MS after the last call to `run`, never twice at once (a call during a run runs it again after). */
function settledSerially(task: () => Promise<void>): { run: () => void; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  const run = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (running) {
        again = true;
        return;
      }
      running = task().finally(() => {
        running = null;
        if (again) {
          again = false;
          run();
        }
      });
    }, SETTLE_MS);
  };
  return { run, cancel: () => clearTimeout(timer) };
}

/** Replaced builds' functions whose files are still open, each closed `graceMs` after its swap. */
class ReleaseTimers {
  private readonly pending = new Map<NodeJS.Timeout, readonly LoadedFunction[]>();

  constructor(private readonly graceMs: number) {}

  later(functions: readonly LoadedFunction[]): void {
    const timer: NodeJS.Timeout = setTimeout(() => this.release(timer), this.graceMs);
    // Never what keeps the process running: its exit closes every file anyway.
    timer.unref();
    this.pending.set(timer, functions);
  }

  all(): void {
    for (const timer of [...this.pending.keys()]) this.release(timer);
  }

  private release(timer: NodeJS.Timeout): void {
    clearTimeout(timer);
    for (const fn of this.pending.get(timer) ?? []) fn.release();
    this.pending.delete(timer);
  }
}

/** The catalogue version of the build in `dir`, for the reload message; null when unreadable. */
function manifestVersion(dir: string): string | null {
  return readManifestRootSync(dir)?.version ?? null;
}
