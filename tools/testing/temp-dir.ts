/** Temporary folders for tests: created under the OS temp dir, removed by `cleanup`. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  path: string;
  cleanup: () => Promise<void>;
}

export async function makeTempDir(prefix = 'pepe-test-'): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}
