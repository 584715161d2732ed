/**
 * Near-duplicate pairs as problems: warnings in `pepe build`, errors in `pepe check`.
 * A pair acknowledged by either sidecar's `distinct_from` is never reported.
 *
 * The pairs are cached (`near-duplicates.json` in the build cache) with every input of the
 * detection — each item's id, file, phash, image sha256 (which fixes its thumbnail), size
 * and distinct_from, plus the detection code itself — so a rebuild with nothing changed
 * neither searches nor reads thumbnails, and one with a few changed images only compares
 * those (see incrementalPairs).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { type Hash64, hammingDistance, parseHash } from '../../functions/core/multi-index.js';
import { DEFAULT_PHASH_THRESHOLD, type DupePair, findNearDuplicates } from '../dupes/near-duplicates.js';
import { THUMB_KEY_RADIUS, thumbKey } from '../dupes/compare/key.js';
import type { AnalysedItem } from './analyse-content.js';
import type { Problem } from '../shared/problems.js';
import { cacheMemo, hasMembers, matchedIndexes } from './cache/memo.js';

const DUPES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'dupes');

export function dupeItems(items: AnalysedItem[], thumbKeys?: readonly Hash64[]) {
  return items.map((item, k) => ({
    id: item.record.id,
    file: item.file,
    phash: item.record.phash,
    // A getter: cached thumbnails are read from disk only if the detector needs them.
    get thumb() {
      return item.thumb;
    },
    get texture() {
      return item.texture;
    },
    width: item.record.width,
    height: item.record.height,
    distinctFrom: item.distinctFrom,
    thumbKey: thumbKeys?.[k],
  }));
}

/** The detection code itself: a change to tools/dupes/ invalidates every cached pair. Read synchronously, as build-extras.ts explains. */
function codeKey(): string {
  const hash = createHash('sha256');
  for (const path of fg.sync('**/*.ts', { cwd: DUPES_DIR, ignore: ['**/*.test.ts'] }).sort()) hash.update(path).update(readFileSync(join(DUPES_DIR, path)));
  return hash.digest('hex');
}

/** Every input of the detection for one item: the image sha256 fixes its thumbnail. */
const signature = (item: AnalysedItem): string =>
  `${item.record.id} ${item.file} ${item.record.phash} ${item.sha256} ${item.record.width}x${item.record.height} ${item.distinctFrom.join(',')}`;
const itemKey = (side: { id: string; file: string }) => `${side.id} ${side.file}`;
const byFiles = (x: DupePair, y: DupePair) => (x.a.file < y.a.file ? -1 : x.a.file > y.a.file ? 1 : x.b.file < y.b.file ? -1 : x.b.file > y.b.file ? 1 : 0);

/** `near-duplicates.json`: the pairs under a key of every input; read on every build. */
interface PairCache {
  format: 3;
  key: string;
  pairs: DupePair[];
}

/** `near-duplicates-items.json`: the per-item inputs behind `key`; read only when the key differs (some item changed). */
interface ItemsCache {
  key: string;
  code: string;
  signatures: string[];
  /** thumbKey of each item as its halves (hi, lo, hi, lo…), so that an incremental run reads only the changed items' thumbnails. */
  thumbKeys: number[];
}

const PAIRS = cacheMemo<PairCache>('near-duplicates.json', (value): value is PairCache => hasMembers<PairCache>({ key: 'string', pairs: 'object' })(value) && value.format === 3);
const isItems = (value: unknown): value is ItemsCache => {
  const items = value as ItemsCache;
  return hasMembers<ItemsCache>({ key: 'string', code: 'string', signatures: 'object', thumbKeys: 'object' })(value) && Array.isArray(items.signatures) && Array.isArray(items.thumbKeys) && items.thumbKeys.length === 2 * items.signatures.length;
};
/** Keyed by the pairs' key: items are trusted only together with pairs made from them. Saved by deltas: a change appends its items. */
const ITEMS = cacheMemo<ItemsCache>('near-duplicates-items.json', isItems, (saved) => saved.key, { deltas: true });

const isUint32 = (n: unknown): n is number => typeof n === 'number' && n >>> 0 === n;

/** Each item's index among the cached items when its signature (every input of its detection) is there, else -1. */
function cachedIndexes(sigs: string[], cached: ItemsCache | null): Int32Array {
  return cached === null ? new Int32Array(sigs.length).fill(-1) : matchedIndexes(cached.signatures, sigs);
}

/** Each item's thumbnail key: the cached one for an unchanged item, else made from its thumbnail. */
function thumbKeysOf(items: AnalysedItem[], cachedAt: Int32Array, cached: ItemsCache | null): Hash64[] {
  return items.map((item, k) => {
    const at = cachedAt[k]!;
    const hi = at === -1 ? undefined : cached!.thumbKeys[2 * at];
    const lo = at === -1 ? undefined : cached!.thumbKeys[2 * at + 1];
    return isUint32(hi) && isUint32(lo) ? { hi, lo } : thumbKey(item.thumb);
  });
}

/** Above this many new or changed items a full detection is as cheap as the incremental one. */
const MAX_INCREMENTAL = 500;

/**
 * Pairs for a catalogue whose previous pairs are known: pairs between two unchanged items are
 * kept (the detection is pairwise, so their verdict cannot change); pairs involving a new or
 * changed item are found by running the detector on those items plus every item within the
 * phash threshold or the thumbnail key radius of one of them (the only possible partners). Equal to a full detection
 * (tested), at a cost proportional to the number of changed items.
 */
function incrementalPairs(items: AnalysedItem[], cachedAt: Int32Array, keys: Hash64[], pairs: DupePair[]): DupePair[] | null {
  const changed: number[] = [];
  for (let k = 0; k < items.length; k++) if (cachedAt[k] === -1) changed.push(k);
  if (changed.length > MAX_INCREMENTAL) return null;
  // Content paths are unique: a pair's side is an unchanged item when the item at its file has its id and a cached signature.
  const byFile = new Map<string, number>();
  if (pairs.length > 0) items.forEach((item, k) => byFile.set(item.file, k));
  const unchanged = (side: { id: string; file: string }) => {
    const k = byFile.get(side.file);
    return k !== undefined && cachedAt[k] !== -1 && items[k]!.record.id === side.id;
  };
  const kept = pairs.filter((pair) => unchanged(pair.a) && unchanged(pair.b));
  if (changed.length === 0) return kept;
  const changedHashes = changed.map((k) => parseHash(items[k]!.record.phash));
  const changedThumbKeys = changed.map((k) => keys[k]!);
  // An item without a phash, or with a changed one without, may pair by thumbnail alone: every item is a partner then.
  const everyPartner = changedHashes.some((hash) => hash === null);
  const subset: number[] = [];
  for (let k = 0; k < items.length; k++) {
    const hash = parseHash(items[k]!.record.phash);
    const key = keys[k]!;
    if (everyPartner || hash === null || changedHashes.some((c) => hammingDistance(c!, hash) <= DEFAULT_PHASH_THRESHOLD) || changedThumbKeys.some((c) => hammingDistance(c, key) <= THUMB_KEY_RADIUS)) subset.push(k);
  }
  const changedKeys = new Set(changed.map((k) => itemKey({ id: items[k]!.record.id, file: items[k]!.file })));
  const fresh = findNearDuplicates(dupeItems(subset.map((k) => items[k]!), subset.map((k) => keys[k]!))).filter((pair) => changedKeys.has(itemKey(pair.a)) || changedKeys.has(itemKey(pair.b)));
  return [...kept, ...fresh].sort(byFiles);
}

/** The detector's pairs, incrementally from the cached ones when there are any. `write: false` only reads (`pepe check`). */
export async function nearDuplicatePairs(items: AnalysedItem[], cache?: { dir: string; write: boolean }): Promise<DupePair[]> {
  // No items, no pairs; the cache is left as it is (a missing content folder must not clear it).
  if (!cache || items.length === 0) return items.length === 0 ? [] : findNearDuplicates(dupeItems(items));
  const code = codeKey();
  const sigs = items.map(signature);
  const key = createHash('sha256').update(code).update('\n').update(sigs.join('\n')).digest('hex');
  const cached = await PAIRS.load(cache.dir);
  if (cached?.key === key) return cached.pairs;
  const itemsCache = cached === null ? null : await ITEMS.load(cache.dir, cached.key);
  const valid = itemsCache?.code === code ? itemsCache : null;
  const cachedAt = cachedIndexes(sigs, valid);
  const keys = thumbKeysOf(items, cachedAt, valid);
  const pairs = (valid && incrementalPairs(items, cachedAt, keys, cached!.pairs)) ?? findNearDuplicates(dupeItems(items, keys));
  if (cache.write) {
    // Items first: a pairs file is only ever trusted together with items under the same key.
    const halves = new Array<number>(keys.length * 2);
    keys.forEach((k, i) => ((halves[2 * i] = k.hi), (halves[2 * i + 1] = k.lo)));
    await ITEMS.save(cache.dir, { key, code, signatures: sigs, thumbKeys: halves }, itemsCache);
    await PAIRS.save(cache.dir, { format: 3, key, pairs });
  }
  return pairs;
}

export async function nearDuplicateProblems(items: AnalysedItem[], severity: Problem['severity'], cache?: { dir: string; write: boolean }): Promise<Problem[]> {
  const pairs = await nearDuplicatePairs(items, cache);
  return pairs.map((pair) => ({
    severity,
    code: 'near-duplicate',
    file: pair.a.file,
    message:
      `looks like the same picture as ${pair.b.file} (id ${pair.b.id}, distance ${pair.distance}): remove one of them, ` +
      `or if they are knowingly different pictures add "distinct_from": ["${pair.b.id}"] to ${pair.a.file.replace(/\.[^./]+$/, '.json')}`,
  }));
}
