/**
 * Reads a file the tools are told to trust (netlify.toml, a build's manifest.json and the
 * files it lists) only when it is a regular file. It is opened without blocking and checked
 * before a byte is read: a named pipe in its place blocked `pepe serve`, `pepe publish` and
 * `pepe build` for ever in open(), waiting for a writer that never came, and a device such
 * as /dev/null read as an empty file.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats, statSync } from 'node:fs';
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
function oddKind(info: Stats): string {
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
 * OPEN_FLAGS as readFileSync's `flag` (Node takes the number there too, though its types say
 * string): for a caller reading thousands of files that knows each one's size, which asks
 * `oddKindAt` only when the bytes are not the expected ones. The stat of `readRegularFileSync`
 * costs ~3 µs a file, ~10% of `pepe publish` reading a 10k build (measured 2026-11-25).
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
