/**
 * Reads one content file without ever following a symlink (O_NOFOLLOW), so a file swapped
 * for a link between the scan and the read still cannot pull in bytes from elsewhere.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

export type ReadResult = { ok: true; bytes: Buffer } | { ok: false; reason: 'too-large' | 'not-a-file'; size: number };

/**
 * Synchronous on purpose: sharp decodes on libuv's thread pool, and async file reads queue
 * behind the decodes in that same pool (4 threads), so each image's read waited for a decode
 * to finish and the decoders then sat idle. A content image is read in well under a
 * millisecond from the page cache.
 */
export function readContentFileSync(abs: string, maxBytes: number): ReadResult {
  const fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { ok: false, reason: 'not-a-file', size: stats.size };
    if (stats.size > maxBytes) return { ok: false, reason: 'too-large', size: stats.size };
    return { ok: true, bytes: readFileSync(fd) };
  } finally {
    closeSync(fd);
  }
}
