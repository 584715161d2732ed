/** A byte-level snapshot of a folder (path → sha256, inode, mtime) to prove a build left it alone. */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import fg from 'fast-glob';

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
