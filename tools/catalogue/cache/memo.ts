/**
 * The one shape of every JSON file in the cache folder: a name, a guard of its shape, a key
 * that must equal the current build's for it to be used, and a save that replaces it whole.
 */
import { join } from 'node:path';
import { makeFolders } from '../../shared/make-folders.js';
import { readRegularFile } from '../../shared/read-regular-file.js';
import { replaceFile } from '../../shared/replace-file.js';

export interface CacheMemo<T> {
  /** The file's name in the cache folder (listed in CACHE_FILE_NAMES). */
  readonly file: string;
  /** The saved value; null when missing, torn, not a regular file, of another shape, or saved under another `key`. */
  load(cacheDir: string, key?: string): Promise<T | null>;
  /** Written to a temporary file and renamed into place: a reader sees the old file or the new one. */
  save(cacheDir: string, value: T): Promise<void>;
}

/** The memo `file`: trusted when `isShape` accepts it and, if `load` is given a key, `keyOf` of it is that key. */
export function cacheMemo<T>(file: string, isShape: (value: unknown) => value is T, keyOf?: (saved: T) => string): CacheMemo<T> {
  return {
    file,
    async load(cacheDir, key) {
      const saved = await readCacheJson(join(cacheDir, file));
      if (!isShape(saved)) return null;
      return key === undefined || keyOf?.(saved) === key ? saved : null;
    },
    async save(cacheDir, value) {
      await makeFolders(cacheDir);
      await replaceFile(join(cacheDir, file), JSON.stringify(value));
    },
  };
}

/** A shape guard: an object whose named members are of the given `typeof`, and not null. */
export const hasMembers =
  <T>(members: Record<string, 'string' | 'number' | 'object'>) =>
  (value: unknown): value is T =>
    typeof value === 'object' &&
    value !== null &&
    Object.entries(members).every(([name, type]) => {
      const member = (value as Record<string, unknown>)[name];
      return typeof member === type && member !== null;
    });

/**
 * Anything that is not a regular file holding JSON reads as null: the caller rebuilds what it
 * held. Opened without blocking, since a named pipe would wait for a writer for ever and a
 * symlink to /dev/zero would never end.
 */
async function readCacheJson(file: string): Promise<unknown> {
  try {
    return JSON.parse((await readRegularFile(file)).toString('utf8'));
  } catch {
    return null;
  }
}
