/**
 * The files a build keeps in its cache folder, and what a build does when one of them is not
 * a regular file. Each reader already reads such a thing as no cache (memo.ts), and each
 * writer renames its file into place (replace-file.ts), which replaces a pipe, a socket or a
 * symlink to a device, so the cache heals; the build says so in one warning line. A folder
 * cannot be renamed over, and is not the build's to delete: the build refuses it, before any
 * work, naming it.
 */
import { type Stats, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { oddKind } from '../../shared/read-regular-file.js';
import { error, type Problem, warning } from '../../shared/problems.js';

/**
 * Every file name a build writes into the cache folder, but the thumbnail file
 * (`thumbs-<generation>.bin`), whose reader checks that it is a file of the recorded length
 * (thumb-store.ts). A test holds this list to what a build writes.
 */
export const CACHE_FILE_NAMES = [
  'build-cache.bin',
  'last-build.json',
  'records.bin',
  'pairs.bin',
  'answers.json',
  'encoded-records.json',
  'search-index.json',
  'similar-lists.json',
  'near-duplicates.json',
  'near-duplicates-keys.bin',
  'renditions.bin',
  'generated.json',
] as const;

/** The folders a build keeps in its cache folder (renditions.ts). */
export const CACHE_FOLDER_NAMES = ['renditions'] as const;

/**
 * A cache entry's stat: undefined when missing, null when it cannot be stat-ed (EACCES, a
 * symlink loop): its reader then finds no cache and its writer renames over it.
 */
function statEntry(path: string): Stats | undefined | null {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return null;
  }
}

/**
 * One stat per cache file: a warning for each that is neither a file nor missing, an error for
 * a folder; and an error for each cache folder that is something else.
 */
export function cacheFileProblems(cacheDir: string): Problem[] {
  const problems: Problem[] = [];
  for (const name of CACHE_FOLDER_NAMES) {
    const folder = join(resolve(cacheDir), name);
    const info = statEntry(folder);
    if (info && !info.isDirectory()) {
      problems.push(error('bad-cache-dir', `is ${info.isFile() ? 'a file' : oddKind(info)} where the build keeps its ${name} folder: delete it (the cache is only an optimisation), or pass --cache with another folder`, folder));
    }
  }
  for (const name of CACHE_FILE_NAMES) {
    const file = join(resolve(cacheDir), name);
    const info = statEntry(file);
    if (!info || info.isFile()) continue;
    if (info.isDirectory()) {
      problems.push(error('bad-cache-dir', `is a folder where the build keeps its cache file ${name}: delete it (the cache is only an optimisation), or pass --cache with another folder`, file));
    } else {
      problems.push(warning('unusable-cache-file', `is ${oddKind(info)}, not a file: read as no cache, and replaced by this build's ${name}`, file));
    }
  }
  return problems;
}
