/**
 * Replaces a file whole: the bytes go to a temporary file beside it (named per process, so two
 * builds sharing a cache folder never write the same one), which is then renamed over it. A
 * reader sees the old file or the new one, never a torn one.
 */
import { rename, writeFile } from 'node:fs/promises';

export async function replaceFile(file: string, data: string | Uint8Array): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, data);
  await rename(temporary, file);
}
