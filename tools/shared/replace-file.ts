/**
 * Replaces a file whole: the bytes go to a temporary file beside it (named per process, so two
 * builds sharing a cache folder never write the same one), which is then renamed over it. A
 * reader sees the old file or the new one, never a torn one. The rename also replaces what
 * is not a file (a named pipe, a socket, a symlink to a device): written to in place, a pipe
 * blocked the build for ever waiting for a reader, a socket stopped it (ENXIO), and a
 * symlink to /dev/null swallowed every save. A failed write or rename removes the temporary
 * file: one left by a full disk would keep the disk full.
 */
import { closeSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
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

/** `replaceFile` for synchronous callers; `TextParts` are written by `writeTextsSync`. */
export function replaceFileSync(file: string, data: string | Uint8Array | TextParts): void {
  const temporary = temporaryFor(file);
  try {
    if (Array.isArray(data)) writeTextsSync(temporary, data);
    else writeFileSync(temporary, data as string | Uint8Array);
    renameSync(temporary, file);
  } catch (failure) {
    rmSync(temporary, { force: true });
    throw failure;
  }
}

/** A file's bytes as parts end to end: texts of Latin-1 characters (a byte a character), and bytes. */
export type TextParts = readonly (string | Uint8Array)[];

/** The buffer `writeTextsSync` fills, made once. */
let scratch: Buffer | undefined;

/**
 * Writes `parts` end to end to `target` through one reused buffer of 1 MB: joined into one
 * buffer first, a file of megabytes is as much fresh memory, which the kernel hands out a
 * page fault at a time.
 */
export function writeTextsSync(target: string, parts: TextParts): void {
  const buffer = (scratch ??= Buffer.allocUnsafeSlow(1 << 20));
  const fd = openSync(target, 'w');
  try {
    let filled = 0;
    const flush = () => {
      for (let at = 0; at < filled; ) at += writeSync(fd, buffer, at, filled - at);
      filled = 0;
    };
    for (const part of parts) {
      if (filled + part.length > buffer.length) flush();
      if (part.length > buffer.length) {
        for (let at = 0; at < part.length; ) at += typeof part === 'string' ? writeSync(fd, part.slice(at), null, 'latin1') : writeSync(fd, part, at);
      } else if (typeof part === 'string') filled += buffer.write(part, filled, 'latin1');
      else {
        buffer.set(part, filled);
        filled += part.length;
      }
    }
    flush();
  } finally {
    closeSync(fd);
  }
}
