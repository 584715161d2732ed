/**
 * When a key the new build no longer lists may be deleted.
 *
 * A generic CDN in front of the bucket keeps JSON for up to
 * JSON_OBJECT_STORAGE_MAX_AGE_SECONDS after it changed or disappeared, and no deploy purges
 * it. Deleting an image at the moment the JSON pointing at it is replaced would let a
 * cached JSON point at a missing image. So deletion is two-phase, with the clock kept in
 * the bucket (`_build/publish-state.json`, `retired: { key: ISO time }`):
 *
 * 1. A stale per-record document (`p/<id>`, `oembed/<id>.json`, `api/pepe/<id>`,
 *    `v1/pepe/<id>`, `api/similar/<id>`) is deleted at once: nothing the build keeps points at
 *    it, and a removed record should stop being served. (`pepe publish --takedown` also deletes
 *    the record's images at once.)
 * 2. Any other stale document (pages, assets, build files, other JSON) is recorded as retired
 *    by the first successful `--delete-stale` run that sees it, and deleted by a later one
 *    once the max age has passed since then (pages may still point at old assets).
 * 3. A stale image starts its clock only on a run that finds no stale document left in the
 *    bucket (documents are what point at images; those a run deletes were still there, and
 *    cacheable, until its DeleteObjects), and is deleted a max age after that. Documents no
 *    cache may keep (`no-store`, the build files under `_build/`) do not count.
 *
 * So after a record is removed, its documents go on the first `--delete-stale` run, the next one
 * starts its image's clock, and the image goes on a run ≥ 5 min after that. Without --delete-stale nothing is deleted and no clock runs.
 * Times are the publishing machine's clock.
 */
export interface PublishState {
  format: 1;
  /** Stale key → when its safety clock started (ISO 8601). Sorted for stable bytes. */
  retired: Record<string, string>;
  /**
   * Image key → sha256 of the bytes it had when `--delete-stale` deleted it. Caches may hold
   * those bytes for 30 days, and the bytes behind a published image URL never change: the
   * key may come back only with the same bytes (bucket-plan.ts refuses others).
   */
  gone: Record<string, string>;
}

export interface StaleDecision {
  deleteNow: string[];
  /** `until`: when its clock lets a later `--delete-stale` run delete it (absent: not yet running). */
  keep: { key: string; reason: string; until?: string }[];
  state: PublishState;
}

export function parseState(text: string | null): PublishState {
  if (text === null) return { format: 1, retired: {}, gone: {} };
  try {
    const value = JSON.parse(text) as Partial<PublishState>;
    if (value.format === 1 && value.retired && typeof value.retired === 'object') {
      const retired = Object.fromEntries(Object.entries(value.retired).filter(([, at]) => typeof at === 'string' && !Number.isNaN(Date.parse(at))));
      const gone = Object.fromEntries(Object.entries(value.gone ?? {}).filter(([, sha]) => typeof sha === 'string' && /^[0-9a-f]{64}$/.test(sha)));
      return { format: 1, retired, gone };
    }
  } catch {
    // An unreadable state only restarts the clocks: later deletions, never earlier ones.
  }
  return { format: 1, retired: {}, gone: {} };
}

const sortedRecord = (record: Record<string, string>) => Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export function stateText(state: PublishState): string {
  const gone = Object.keys(state.gone).length > 0 ? { gone: sortedRecord(state.gone) } : {};
  return `${JSON.stringify({ format: 1, retired: sortedRecord(state.retired), ...gone }, null, 2)}\n`;
}

export function decideStale(options: {
  staleKeys: string[];
  isImageKey: (key: string) => boolean;
  /** Documents nothing in the bucket points at (by-id answers): deleted without a clock. */
  isLeafDocument?: (key: string) => boolean;
  /**
   * Documents no cache can hold (stored `no-store`: the build files under `_build/`), which
   * therefore do not hold back an image's clock. Default: every document may be cached.
   */
  isUncacheable?: (key: string) => boolean;
  deleteStale: boolean;
  previous: PublishState;
  now: Date;
  maxAgeSeconds: number;
}): StaleDecision {
  const { staleKeys, isImageKey, previous, now, maxAgeSeconds } = options;
  const sorted = [...staleKeys].sort();
  if (!options.deleteStale) {
    return { deleteNow: [], keep: sorted.map((key) => ({ key, reason: 'not listed by the build; run with --delete-stale to remove' })), state: previous };
  }
  const deleteNow: string[] = [];
  const keep: StaleDecision['keep'] = [];
  const retired: Record<string, string> = {};
  const dueAt = (since: string) => new Date(Date.parse(since) + maxAgeSeconds * 1000);
  const clock = (key: string): void => {
    const since = previous.retired[key] ?? now.toISOString();
    if (dueAt(since) <= now) {
      deleteNow.push(key);
    } else {
      retired[key] = since;
      keep.push({ key, reason: `retired at ${since}; cached copies may still point at it until ${dueAt(since).toISOString()}`, until: dueAt(since).toISOString() });
    }
  };
  const isLeaf = options.isLeafDocument ?? (() => false);
  const documents = sorted.filter((key) => !isImageKey(key));
  for (const key of documents) {
    if (isLeaf(key)) deleteNow.push(key);
    else clock(key);
  }
  // Every stale document this run saw counts, those it deletes now included: they are still in
  // the bucket (and may be fetched into a cache) until its DeleteObjects, which may fail or
  // never happen. An image's clock starts on a later run, which no longer sees them.
  // Documents stored no-store do not count: no cached copy of them outlives their deletion.
  // Every catalogue change leaves old manifest segments (`_build/manifest/<sha256>.json`) stale: were
  // they counted, each run would drop a running image clock, and under CI a removed image would never go.
  const isUncacheable = options.isUncacheable ?? (() => false);
  const documentsLeft = documents.filter((key) => !isUncacheable(key)).length;
  for (const key of sorted.filter(isImageKey)) {
    if (documentsLeft > 0) keep.push({ key, reason: `${documentsLeft} stale document(s) still in the bucket may point at it; deleted on a later run` });
    else clock(key);
  }
  return { deleteNow, keep, state: { format: 1, retired, gone: { ...previous.gone } } };
}
