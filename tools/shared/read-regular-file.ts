/**
 * Reads a file the tools are told to trust (netlify.toml, a build's manifest.json and the
 * files it lists) only when it is a regular file. It is opened without blocking and checked
 * before a byte is read: a named pipe in its place blocked `pepe serve`, `pepe publish` and
 * `pepe build` for ever in open(), waiting for a writer that never came, and a device such
 * as /dev/null read as an empty file.
 */
import { close, closeSync, constants, fstatSync, openSync, read, readFileSync, readSync, type Stats, statSync } from 'node:fs';
import { open } from 'node:fs/promises';

/** Thrown for a path that exists but is neither a regular file nor a folder; `kind` says what it is, in words. */
export class NotAFileError extends Error {
  readonly code = 'ENOTREG';
  constructor(
    readonly file: string,
    readonly kind: string,
  ) {
    super(`${file}: it is ${kind}, not a file`);
  }
}

/** What a path that is neither a file nor a folder is, in the words of a message. */
export function oddKind(info: Stats): string {
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** EISDIR for a folder (as readFile says), NotAFileError for anything else but a regular file. */
export function refuseUnlessFile(file: string, info: Stats): void {
  if (info.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${file}'`), { code: 'EISDIR' });
  if (!info.isFile()) throw new NotAFileError(file, oddKind(info));
}

/** O_NONBLOCK makes open() of a pipe return at once (a read then finds no data: an empty file); on a regular file it changes nothing. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
/**
 * OPEN_FLAGS as the `flags` of createReadStream or readFileSync (Node takes the number there
 * too, though its types say string), for a caller that checks the opened file itself. A caller
 * reading thousands of files that knows each one's size uses `readAtMostSync` instead: the
 * stat of `readRegularFileSync` is a visible share of `pepe publish` reading a large build,
 * and a device read whole never ends.
 */
export const NONBLOCKING_READ = OPEN_FLAGS as unknown as string;

/** What `path` is when it exists but is neither a regular file nor a folder ('a named pipe (FIFO)'…), else null. */
export function oddKindAt(path: string): string | null {
  try {
    const info = statSync(path);
    return info.isFile() || info.isDirectory() ? null : oddKind(info);
  } catch {
    return null;
  }
}

/** The files being read ahead (`readAhead`): each one's read, done or not. */
const readsAhead = new Map<string, Promise<void>>();
/** What a read ahead reads into, a megabyte at a time: one buffer for every file, its bytes dropped. */
const AHEAD_CHUNK = 1 << 20;
let aheadSink: Buffer | undefined;

/**
 * Starts reading the regular files among `files` on libuv's threads, so that the page cache
 * holds them (from a disk, if they were not) while this thread runs synchronous code (the
 * content scan), and a later read of each copies them from memory. The bytes go a megabyte at a
 * time through one buffer and are dropped: a buffer of each file's size would cost every page of
 * it as fresh memory, paid again by the reader's own buffer (`withFileBytes`).
 */
export function readAhead(files: readonly string[]): void {
  for (const file of files) {
    let fd: number;
    try {
      fd = openSync(file, OPEN_FLAGS);
    } catch {
      continue;
    }
    const info = statOrNull(fd);
    if (info === null || !info.isFile() || info.size === 0) {
      closeSync(fd);
      continue;
    }
    aheadSink ??= Buffer.allocUnsafeSlow(AHEAD_CHUNK);
    const sink = aheadSink;
    readsAhead.set(
      file,
      new Promise((resolve) => {
        const readFrom = (at: number): void =>
          read(fd, sink, 0, Math.min(AHEAD_CHUNK, info.size - at), at, (failure, bytesRead) => {
            if (failure === null && bytesRead > 0 && at + bytesRead < info.size) return readFrom(at + bytesRead);
            close(fd, () => undefined);
            resolve();
          });
        readFrom(0);
      }),
    );
  }
}

/** Drops the reads ahead not waited for (a build that did not need them). */
export function forgetReadsAhead(): void {
  readsAhead.clear();
}

/** Once the read ahead of `file` (if any) is done: a synchronous reader then finds it in memory. */
export async function readAheadDone(file: string): Promise<void> {
  await readsAhead.get(file);
}

/** The bytes of `file`; rejects with the open error (ENOENT, EACCES…), EISDIR, or NotAFileError. */
export async function readRegularFile(file: string): Promise<Buffer> {
  const handle = await open(file, OPEN_FLAGS);
  try {
    refuseUnlessFile(file, await handle.stat());
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** The buffer `withFileBytes` reads into, while nothing else holds it (a long-lived process does not keep it). */
let reused: WeakRef<Buffer> | undefined;

/**
 * `use(bytes)` for the bytes of `file` (thrown as `readRegularFileSync`), read into one buffer
 * that every call reuses: for a large file that is decoded at once (a change build's last state,
 * ~100 MB at 100k records), so that only the largest costs fresh memory. `use` must not keep
 * `bytes`, nor a view of them, past its return (decoding them into strings or numbers copies).
 */
export function withFileBytes<T>(file: string, use: (bytes: Buffer) => T): T {
  const { fd, info } = openRegularFileSync(file);
  try {
    let buffer = reused?.deref();
    if (buffer === undefined || buffer.length < info.size) {
      buffer = Buffer.allocUnsafeSlow(Math.max(info.size, Math.ceil((buffer?.length ?? 0) * 1.25)));
      reused = new WeakRef(buffer);
    }
    let filled = 0;
    while (filled < info.size) {
      const got = readSync(fd, buffer, filled, info.size - filled, filled);
      if (got === 0) break;
      filled += got;
    }
    return use(buffer.subarray(0, filled));
  } finally {
    closeSync(fd);
  }
}

/**
 * At most `limit` bytes of `file`, opened without blocking, for a caller that knows how many
 * bytes the file must have (a build's manifest lists each file's size) and compares: a device
 * such as /dev/zero or /dev/urandom in the file's place never ends, so reading it whole (as
 * readFileSync does for anything that is not a regular file) filled memory for ever. Ask for
 * one byte more than expected to see a file that grew. Costs what readFileSync costs (open,
 * read, a read that finds the end, close, where readFileSync does open, fstat, read, close),
 * so a caller reading thousands of files pays nothing for the bound; one that gets other
 * than the expected bytes asks `oddKindAt` what is there.
 */
export function readAtMostSync(file: string, limit: number): Buffer {
  const fd = openSync(file, OPEN_FLAGS);
  try {
    const bytes = Buffer.allocUnsafe(limit);
    let filled = 0;
    while (filled < limit) {
      const read = readSync(fd, bytes, filled, limit - filled, null);
      if (read === 0) break;
      filled += read;
    }
    return filled === limit ? bytes : bytes.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** A regular file opened for reading without blocking, with its stat; the caller closes `fd`. Throws as `readRegularFileSync`. */
export function openRegularFileSync(file: string): { fd: number; info: Stats } {
  const fd = openSync(file, OPEN_FLAGS);
  try {
    const info = fstatSync(fd);
    refuseUnlessFile(file, info);
    return { fd, info };
  } catch (failure) {
    closeSync(fd);
    throw failure;
  }
}

/** The bytes of `fd` in [start, start + length), fewer at its end: a few rows of a large file, without reading the rest. */
export function readRangeSync(fd: number, start: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const read = readSync(fd, bytes, filled, length - filled, start + filled);
    if (read === 0) break;
    filled += read;
  }
  return filled === length ? bytes : bytes.subarray(0, filled);
}

const statOrNull = (fd: number): Stats | null => {
  try {
    return fstatSync(fd);
  } catch {
    return null;
  }
};

/** `readRegularFile` for synchronous callers. */
export function readRegularFileSync(file: string): Buffer {
  const fd = openSync(file, OPEN_FLAGS);
  try {
    refuseUnlessFile(file, fstatSync(fd));
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
