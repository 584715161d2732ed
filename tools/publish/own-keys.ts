/**
 * Which of the keys a build no longer lists are this publication's to delete. A bucket (or a
 * prefix of it) may hold things `pepe publish` never wrote: a `robots.txt`, logs, another
 * site, another publication under a deeper prefix. `--delete-stale` removes only:
 *
 * - keys the bucket's previous manifest listed, or whose deletion clock already runs
 *   (publish-state.json): known to be ours;
 * - other keys that carry the `x-amz-meta-sha256` every object of ours gets (checked with
 *   one HeadObject each): left by an interrupted run, whose manifest was never written;
 *
 * and never a key under a deeper prefix that holds its own `_build/manifest.json` (another
 * publication). Everything else is reported and left alone.
 */
import { keyForPath, MANIFEST_PATH } from './object-keys.js';
import { runPool } from './run-pool.js';

/** `_build/manifest.json`: where a publication's manifest sits under its prefix. */
const MANIFEST_KEY_NAME = keyForPath('', MANIFEST_PATH);

export interface OwnedStale {
  owned: string[];
  foreign: { key: string; reason: string }[];
}

export async function ownStaleKeys(options: {
  staleKeys: readonly string[];
  prefix: string;
  /** Keys the previous manifest listed, and keys with a running deletion clock. */
  known: ReadonlySet<string>;
  /** Every key under the prefix (the listing), to find other publications. */
  listed: Iterable<string>;
  /** The object's metadata, or null when it is gone. */
  head: (key: string) => Promise<Record<string, string> | null>;
  concurrency: number;
}): Promise<OwnedStale> {
  const { prefix } = options;
  const ownManifest = `${prefix}${MANIFEST_KEY_NAME}`;
  const otherPublications: string[] = [];
  for (const key of options.listed) {
    if (key !== ownManifest && key.endsWith(`/${MANIFEST_KEY_NAME}`)) otherPublications.push(key.slice(0, key.length - MANIFEST_KEY_NAME.length));
  }
  const owned: string[] = [];
  const foreign: OwnedStale['foreign'] = [];
  const unknown: string[] = [];
  for (const key of options.staleKeys) {
    const other = otherPublications.find((p) => key.startsWith(p));
    if (other !== undefined) foreign.push({ key, reason: `under "${other}", another publication (it has its own ${MANIFEST_KEY_NAME}): left alone` });
    else if (options.known.has(key)) owned.push(key);
    else unknown.push(key);
  }
  const failure = await runPool(unknown, options.concurrency, async (key) => {
    const metadata = await options.head(key);
    if (metadata === null) return; // gone meanwhile: nothing to delete
    if (metadata.sha256 !== undefined) owned.push(key);
    else foreign.push({ key, reason: 'not written by pepe publish (no x-amz-meta-sha256): left alone' });
  });
  if (failure) throw failure;
  return { owned: owned.sort(), foreign: foreign.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)) };
}
