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

/** A file read ahead (`readAhead`): its stat when opened, and once read its bytes (null: into the page cache only, or the read failed or fell short). */
interface ReadAhead {
  stat: string;
  bytes: Promise<Buffer | null>;
  done?: Buffer | null;
}
const readsAhead = new Map<string, ReadAhead>();
const statText = (info: Stats) => `${info.size} ${info.mtimeMs} ${info.ctimeMs} ${info.ino}`;
/** What a read ahead into the page cache reads into, a megabyte at a time: one buffer for every file, its bytes dropped. */
const AHEAD_CHUNK = 1 << 20;
let aheadSink: Buffer | undefined;

/**
 * Starts reading the regular files among `files` on libuv's threads, so that the reads go on
 * while this thread runs synchronous code (the content scan). Into `buffers`: each file whole
 * in one request, its bytes taken once by the next `readRegularFile` or `readRegularFileSync`
 * of the path if the file still has the stat it had when opened (else read again). Into the
 * `page cache`, for a file decoded at once through `withFileBytes`: a megabyte at a time through
 * one buffer, the bytes dropped, since a buffer of the file's size would cost every page of it
 * as fresh memory on top of the reader's own.
 */
export function readAhead(files: readonly string[], into: 'buffers' | 'page cache' = 'buffers'): void {
  for (const file of files) {
    let fd: number;
    let info: Stats;
    try {
      fd = openSync(file, OPEN_FLAGS);
    } catch {
      continue;
    }
    try {
      info = fstatSync(fd);
    } catch {
      closeSync(fd);
      continue;
    }
    // One read request takes at most 2 GiB; a cache file that large is read when asked for.
    if (!info.isFile() || info.size === 0 || info.size > 2 ** 30) {
      closeSync(fd);
      continue;
    }
    const ahead: ReadAhead = { stat: statText(info), bytes: Promise.resolve(null) };
    if (into === 'buffers') {
      const buffer = Buffer.allocUnsafeSlow(info.size);
      ahead.bytes = new Promise((resolve) => {
        read(fd, buffer, 0, info.size, 0, (failure, bytesRead) => {
          close(fd, () => undefined);
          resolve((ahead.done = failure === null && bytesRead === info.size ? buffer : null));
        });
      });
    } else {
      aheadSink ??= Buffer.allocUnsafeSlow(AHEAD_CHUNK);
      const sink = aheadSink;
      ahead.bytes = new Promise((resolve) => {
        const readFrom = (at: number): void =>
          read(fd, sink, 0, Math.min(AHEAD_CHUNK, info.size - at), at, (failure, bytesRead) => {
            if (failure === null && bytesRead > 0 && at + bytesRead < info.size) return readFrom(at + bytesRead);
            close(fd, () => undefined);
            resolve((ahead.done = null));
          });
        readFrom(0);
      });
    }
    readsAhead.set(file, ahead);
  }
}

/** Drops the reads ahead not taken (a build that did not need them). */
export function forgetReadsAhead(): void {
  readsAhead.clear();
}

/** Once the read ahead of `file` (if any) is done: a synchronous reader then takes its bytes, or finds them in memory. */
export async function readAheadDone(file: string): Promise<void> {
  await readsAhead.get(file)?.bytes;
}

/** The bytes read ahead for `file`, taken once: null when not done, failed, not kept, or the file's stat is no longer the one read. */
function takeAhead(file: string, bytes: Buffer | null | undefined, ahead: ReadAhead): Buffer | null {
  readsAhead.delete(file);
  if (!bytes) return null;
  const now = statSync(file, { throwIfNoEntry: false });
  return now !== undefined && statText(now) === ahead.stat ? bytes : null;
}

/** The bytes of `file`; rejects with the open error (ENOENT, EACCES…), EISDIR, or NotAFileError. */
export async function readRegularFile(file: string): Promise<Buffer> {
  const ahead = readsAhead.get(file);
  const taken = ahead && takeAhead(file, await ahead.bytes, ahead);
  if (taken) return taken;
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
    return withRangeBytes(fd, 0, info.size, use);
  } finally {
    closeSync(fd);
  }
}

/** Makes the buffer `withFileBytes` reuses hold at least `bytes` at once, for a caller about to read files of several sizes: one buffer of the largest, not a new one each time a larger file comes. */
export function reserveFileBytes(bytes: number): void {
  const buffer = reused?.deref();
  if (buffer === undefined || buffer.length < bytes) reused = new WeakRef(Buffer.allocUnsafeSlow(bytes));
}

/** `withFileBytes` for the bytes of `fd` in [start, start + length) (fewer at its end): one part of a large file decoded at a time, in the same buffer. */
export function withRangeBytes<T>(fd: number, start: number, length: number, use: (bytes: Buffer) => T): T {
  let buffer = reused?.deref();
  if (buffer === undefined || buffer.length < length) {
    buffer = Buffer.allocUnsafeSlow(Math.max(length, Math.ceil((buffer?.length ?? 0) * 1.25)));
    reused = new WeakRef(buffer);
  }
  return use(buffer.subarray(0, readFully(fd, buffer, start, length)));
}

/** Reads the bytes of `fd` from `start` into `into`, filling it but at the file's end; returns how many it read. */
export function readIntoSync(fd: number, into: Uint8Array, start: number): number {
  return readFully(fd, into, start, into.length);
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
    const filled = readFully(fd, bytes, 0, limit);
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
  const filled = readFully(fd, bytes, start, length);
  return filled === length ? bytes : bytes.subarray(0, filled);
}

/** Reads the bytes of `fd` in [start, start + length) into `bytes` from its start, until the end of the file; returns how many it read. */
function readFully(fd: number, bytes: Uint8Array, start: number, length: number): number {
  let filled = 0;
  while (filled < length) {
    const read = readSync(fd, bytes, filled, length - filled, start + filled);
    if (read === 0) break;
    filled += read;
  }
  return filled;
}

/** `readRegularFile` for synchronous callers (bytes read ahead are taken only once their read is done). */
export function readRegularFileSync(file: string): Buffer {
  const ahead = readsAhead.get(file);
  const taken = ahead && takeAhead(file, ahead.done, ahead);
  if (taken) return taken;
  const fd = openSync(file, OPEN_FLAGS);
  try {
    refuseUnlessFile(file, fstatSync(fd));
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
