/**
 * Replaces a file whole: the bytes go to a temporary file beside it (named per process, so two
 * builds sharing a cache folder never write the same one), which is then renamed over it. A
 * reader sees the old file or the new one, never a torn one. The rename also replaces what
 * is not a file (a named pipe, a socket, a symlink to a device): written to in place, a pipe
 * blocked the build for ever waiting for a reader, a socket stopped it (ENXIO), and a
 * symlink to /dev/null swallowed every save. A failed write or rename removes the temporary
 * file: one left by a full disk would keep the disk full.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';

const temporaryFor = (file: string) => `${file}.${process.pid}.tmp`;

export async function replaceFile(file: string, data: string | Uint8Array): Promise<void> {
  const temporary = temporaryFor(file);
  try {
    await writeFile(temporary, data);
    await rename(temporary, file);
  } catch (failure) {
    await rm(temporary, { force: true });
    throw failure;
  }
}

/** `replaceFile` for synchronous callers. */
export function replaceFileSync(file: string, data: string | Uint8Array): void {
  const temporary = temporaryFor(file);
  try {
    writeFileSync(temporary, data);
    renameSync(temporary, file);
  } catch (failure) {
    rmSync(temporary, { force: true });
    throw failure;
  }
}
