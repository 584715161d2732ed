import { resolve } from 'node:path';

/**
 * `--content DIR` and `--cache DIR`, the flags of every command that reads the content folder
 * (build, check, dupes; add takes --content only). Spread into a command's parseFlags options.
 */
export const CONTENT_FLAGS = { content: { type: 'string' }, cache: { type: 'string' } } as const;

/** The folders those flags name, resolved against the working folder. */
export function contentPaths(values: { content?: string; cache?: string }, cwd: string): { contentDir: string; cacheDir?: string } {
  return {
    contentDir: resolve(cwd, values.content ?? 'content'),
    // Left out rather than undefined when not given: the library then picks `.pepe-cache` beside the content.
    ...(values.cache ? { cacheDir: resolve(cwd, values.cache) } : {}),
  };
}
