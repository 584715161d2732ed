import { resolve } from 'node:path';
import { UsageError } from '../shared/io.js';

/**
 * `--content DIR` and `--cache DIR`, the flags of every command that reads the content folder
 * (build, check, dupes; add takes --content only). Spread into a command's parseFlags options.
 */
export const CONTENT_FLAGS = { content: { type: 'string' }, cache: { type: 'string' } } as const;

/**
 * A folder flag given an empty value (`--content "$DIR"` with DIR unset) is a usage error: it
 * resolved to the current folder, so `pepe add` imported into it and `pepe build` read it as
 * the catalogue.
 */
export function refuseEmptyFolderFlags(values: Readonly<Record<string, unknown>>, names: readonly string[]): void {
  refuseEmptyFlags(values, Object.fromEntries(names.map((name) => [name, 'name a folder'])));
}

/** Any flag given an empty value, refused with what to do instead (`advice`: flag name → what to do), in the order given. */
export function refuseEmptyFlags(values: Readonly<Record<string, unknown>>, advice: Readonly<Record<string, string>>): void {
  for (const [name, what] of Object.entries(advice)) {
    if (values[name] === '') throw new UsageError(`--${name} is empty: ${what} (is a shell variable unset?)`);
  }
}

/** The folders those flags name, resolved against the working folder. */
export function contentPaths(values: { content?: string; cache?: string }, cwd: string): { contentDir: string; cacheDir?: string } {
  refuseEmptyFolderFlags(values, ['content', 'cache']);
  return {
    contentDir: resolve(cwd, values.content ?? 'content'),
    // Left out rather than undefined when not given: the library then picks `.pepe-cache` beside the content.
    ...(values.cache ? { cacheDir: resolve(cwd, values.cache) } : {}),
  };
}
