/**
 * Reading the build cache's JSON files. The cache is only an optimisation: a file that is
 * missing, unreadable, torn by a crash or not JSON reads as null, and the caller rebuilds
 * what it held (and writes it again).
 */
import { readFile } from 'node:fs/promises';

export async function readCacheJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return null;
  }
}
