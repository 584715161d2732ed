/**
 * `last-build.json` in the cache folder: what the last successful build wrote and from what,
 * so that a rebuild can prove its output still stands (build-catalogue.ts) without reading it.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Problem } from '../../shared/problems.js';
import { readCacheJson } from './cache-files.js';
import { makeFolders } from '../../shared/make-folders.js';
import { replaceFile } from '../../shared/replace-file.js';

export interface LastBuild {
  outDir: string;
  fingerprint: string;
  /** The manifest version that build produced. */
  version: string;
  /** Its number of files, and the stat of the manifest.json it left (proves the output still holds it). */
  files?: number;
  manifestStat?: FileStatKey | null;
  /** unchanged-content.ts: the content listing's stat fingerprint, and what that build reported. */
  unchanged?: UnchangedContent;
  /** The stat of the records file that build left in the cache folder. */
  recordsStat?: FileStatKey | null;
}

/** What a rebuild of unchanged content reports without analysing anything (unchanged-content.ts). */
export interface UnchangedContent {
  statFingerprint: string;
  problems: Problem[];
  images: number;
  records: number;
}

export interface FileStatKey {
  size: number;
  mtimeMs: number;
  ino: number;
}

export function statKey(path: string): FileStatKey | null {
  const info = statSync(path, { throwIfNoEntry: false });
  return info ? { size: info.size, mtimeMs: info.mtimeMs, ino: info.ino } : null;
}

export const sameStatKey = (a: FileStatKey | null | undefined, b: FileStatKey | null): boolean =>
  !!a && !!b && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;

const LAST_BUILD_FILE = 'last-build.json';

export async function loadLastBuild(cacheDir: string): Promise<LastBuild | null> {
  return (await readCacheJson(join(cacheDir, LAST_BUILD_FILE))) as LastBuild | null;
}

export async function saveLastBuild(cacheDir: string, last: LastBuild): Promise<void> {
  await makeFolders(cacheDir);
  await replaceFile(join(cacheDir, LAST_BUILD_FILE), `${JSON.stringify(last)}\n`);
}
