import { resolve } from 'node:path';

/**
 * `--exact-phash`: every command that analyses images (build, check, dupes, add) takes it, since
 * it is part of the feature cache key and of the hashes near-duplicates are found with: a
 * project that builds with it must check, list duplicates and add with it too.
 */
export const ANALYSIS_FLAGS = { 'exact-phash': { type: 'boolean' } } as const;

/** The usage lines of that flag, the same in every command; `column` is where the command's descriptions start. */
export function exactPhashUsage(column = 19): string {
  const indent = ' '.repeat(column);
  return [
    '  --exact-phash'.padEnd(column) + 'hash every image from its full-resolution decode (Pillow-exact for any',
    `${indent}size; slower). By default large images are hashed from a reduced decode,`,
    `${indent}which moves about one in ten of their hashes by 2 bits. Switching it on`,
    `${indent}or off re-analyses every image (the setting is part of the cache key).`,
  ].join('\n');
}

/** The analysis options those flags name. */
export function analysisOptions(values: { 'exact-phash'?: boolean }): { exactPhash: boolean } {
  return { exactPhash: values['exact-phash'] ?? false };
}

/**
 * `--content DIR`, `--cache DIR` and `--exact-phash`, the flags of every command that reads the content folder
 * (build, check, dupes; add takes --content only). Spread into a command's parseFlags options.
 */
export const CONTENT_FLAGS = { content: { type: 'string' }, cache: { type: 'string' }, ...ANALYSIS_FLAGS } as const;

/** The folders those flags name, resolved against the working folder. */
export function contentPaths(values: { content?: string; cache?: string }, cwd: string): { contentDir: string; cacheDir?: string } {
  return {
    contentDir: resolve(cwd, values.content ?? 'content'),
    // Left out rather than undefined when not given: the library then picks `.pepe-cache` beside the content.
    ...(values.cache ? { cacheDir: resolve(cwd, values.cache) } : {}),
  };
}
