/**
 * The fast path of a rebuild with nothing changed. The build cache already trusts a file whose
 * size, mtime and inode are unchanged (stat-keyed-map.ts). When that holds for every file of
 * the content folder, and the URLs, limits and build code are those of the last build that
 * succeeded into the same, intact output folder, this build's result is that build's result:
 * nothing needs to be read, parsed, hashed or compared. The last build's records are kept in
 * the cache folder for callers that ask for them (read only then).
 *
 * The slower no-change path (build-catalogue.ts: same records and image hashes as the last
 * build) still catches the rest, e.g. a file touched without being changed.
 */
import { join } from 'node:path';
import type { PepeRecord } from '../../../functions/core/record.js';
import type { ContentScan } from '../scan-content.js';
import { makeFoldersSync } from '../../shared/make-folders.js';
import { sha256Of } from '../../shared/manifest.js';
import { readRegularFileSync } from '../../shared/read-regular-file.js';
import { replaceFileSync } from '../../shared/replace-file.js';

const RECORDS_FILE = 'records.json';

export const recordsFile = (cacheDir: string): string => join(cacheDir, RECORDS_FILE);

/**
 * A hash of the content folder's listing (every image and sidecar with its size, mtime, ctime
 * and inode) and of the settings that decide what the build makes of it; null when the listing
 * has problems (such a build is never skipped).
 */
export function contentStatFingerprint(scan: ContentScan, settings: Record<string, unknown>): string | null {
  if (scan.problems.length > 0) return null;
  // One string, one hash call (20k `update` calls cost more than the hashing).
  const lines = [JSON.stringify(settings)];
  for (const { image, sidecar } of scan.pairs) {
    lines.push(`${image.rel}\t${image.size}\t${image.mtimeMs}\t${image.ctimeMs}\t${image.ino}\t${sidecar.rel}\t${sidecar.size}\t${sidecar.mtimeMs}\t${sidecar.ctimeMs}\t${sidecar.ino}`);
  }
  return sha256Of(lines.join('\n'));
}

export function saveRecords(cacheDir: string, records: PepeRecord[]): void {
  makeFoldersSync(cacheDir);
  replaceFileSync(recordsFile(cacheDir), JSON.stringify(records));
}

export function loadRecords(cacheDir: string): PepeRecord[] {
  // Only a regular file, opened without blocking: a named pipe here blocked the caller for ever.
  return JSON.parse(readRegularFileSync(recordsFile(cacheDir)).toString('utf8')) as PepeRecord[];
}
