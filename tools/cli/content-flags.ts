import { resolve } from 'node:path';
import { UsageError } from './io.js';

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
  for (const name of names) {
    if (values[name] === '') throw new UsageError(`--${name} is empty: name a folder (is a shell variable unset?)`);
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
