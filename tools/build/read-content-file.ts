/**
 * Reads one content file without ever following a symlink (O_NOFOLLOW), so a file swapped
 * for a link between the scan and the read still cannot pull in bytes from elsewhere.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

export type ReadResult = { ok: true; bytes: Buffer } | { ok: false; reason: 'too-large' | 'not-a-file'; size: number };

export async function readContentFile(abs: string, maxBytes: number): Promise<ReadResult> {
  const handle = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { ok: false, reason: 'not-a-file', size: stats.size };
    if (stats.size > maxBytes) return { ok: false, reason: 'too-large', size: stats.size };
    return { ok: true, bytes: await handle.readFile() };
  } finally {
    await handle.close();
  }
}
