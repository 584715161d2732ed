/** A byte-level snapshot of a folder (path → sha256, inode, mtime) to prove a build left it alone. */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import fg from 'fast-glob';
import { forEachEntry, type Manifest } from '../shared/manifest.js';

export interface FileSnapshot {
  sha256: string;
  ino: number;
  mtimeMs: number;
}

export async function snapshotDir(dir: string): Promise<Record<string, FileSnapshot>> {
  const paths = (await fg('**/*', { cwd: dir, dot: true, onlyFiles: true })).sort();
  const out: Record<string, FileSnapshot> = {};
  for (const path of paths) {
    const abs = join(dir, path);
    const [bytes, info] = await Promise.all([readFile(abs), stat(abs)]);
    out[path] = { sha256: createHash('sha256').update(bytes).digest('hex'), ino: info.ino, mtimeMs: info.mtimeMs };
  }
  return out;
}

/**
 * What a build's manifest lists (counts, settings, every path's sha256 and size), or
 * 'unreadable' for none: compared where an incremental build's manifest files differ from a build from
 * scratch's while listing the same (id segments' changes kept in the manifest's delta).
 */
export function manifestListing(manifest: Manifest | null): string {
  if (!manifest) return 'unreadable';
  const listed: string[] = [];
  forEachEntry(manifest, (path, entry) => listed.push(`${path} ${entry.sha256} ${entry.size}`));
  return JSON.stringify({ counts: manifest.counts, settings: manifest.settings, listed: listed.sort() });
}
