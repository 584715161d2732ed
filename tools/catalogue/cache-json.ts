/**
 * Reading the build cache's JSON files. The cache is only an optimisation: a file that is
 * missing, unreadable, torn by a crash, not JSON, or not a file at all reads as null, and the
 * caller rebuilds what it held (and writes it again). Read without blocking, and only when a
 * regular file: a named pipe here blocked the build for ever, and a symlink to /dev/zero was
 * read up to 2 GB (cache-files.ts).
 */
import { readRegularFile } from '../shared/read-regular-file.js';

export async function readCacheJson(file: string): Promise<unknown> {
  try {
    return JSON.parse((await readRegularFile(file)).toString('utf8'));
  } catch {
    return null;
  }
}
