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
import { THUMB_KEY_RADIUS, thumbKey } from '../dupes/thumb-compare.js';
import type { AnalysedItem } from './analyse-content.js';
import type { Problem } from '../shared/problems.js';
import { readCacheJson } from './cache/cache-files.js';
import { makeFolders } from '../shared/make-folders.js';
import { replaceFile } from '../shared/replace-file.js';

const DUPES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'dupes');
const CACHE_FILE = 'near-duplicates.json';
const ITEMS_FILE = 'near-duplicates-items.json';

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
  for (const path of fg.sync('*.ts', { cwd: DUPES_DIR, ignore: ['*.test.ts'] }).sort()) hash.update(path).update(readFileSync(join(DUPES_DIR, path)));
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
  /** thumbKey of each item (16 hex digits), so that an incremental run reads only the changed items' thumbnails. */
  thumbKeys: string[];
}

const keyHex = (key: Hash64) => key.hi.toString(16).padStart(8, '0') + key.lo.toString(16).padStart(8, '0');

/** Each item's thumbnail key: from the cache for an unchanged item (same signature), else from its thumbnail. */
function thumbKeysOf(items: AnalysedItem[], sigs: string[], cached: ItemsCache | null): Hash64[] {
  const known = new Map<string, string>();
  if (cached) cached.signatures.forEach((sig, k) => known.set(sig, cached.thumbKeys[k]!));
  return items.map((item, k) => {
    const hex = known.get(sigs[k]!);
    return (hex && parseHash(hex)) || thumbKey(item.thumb);
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
function incrementalPairs(items: AnalysedItem[], sigs: string[], keys: Hash64[], cached: { signatures: string[]; pairs: DupePair[] }): DupePair[] | null {
  const known = new Set(cached.signatures);
  const changed = items.filter((_, k) => !known.has(sigs[k]!));
  if (changed.length > MAX_INCREMENTAL) return null;
  const unchanged = new Set(items.filter((_, k) => known.has(sigs[k]!)).map((item) => itemKey({ id: item.record.id, file: item.file })));
  const kept = cached.pairs.filter((pair) => unchanged.has(itemKey(pair.a)) && unchanged.has(itemKey(pair.b)));
  if (changed.length === 0) return kept;
  const hashes = items.map((item) => parseHash(item.record.phash));
  const changedHashes = changed.map((item) => parseHash(item.record.phash));
  const changedThumbKeys = items.flatMap((_, k) => (known.has(sigs[k]!) ? [] : [keys[k]!]));
  const subsetMask = items.map((_, k) => {
    const h = hashes[k];
    return (
      !h ||
      changedHashes.some((c) => !c || hammingDistance(c, h) <= DEFAULT_PHASH_THRESHOLD) ||
      changedThumbKeys.some((c) => hammingDistance(c, keys[k]!) <= THUMB_KEY_RADIUS)
    );
  });
  const subset = items.filter((_, k) => subsetMask[k]);
  const changedKeys = new Set(changed.map((item) => itemKey({ id: item.record.id, file: item.file })));
  const subsetKeys = keys.filter((_, k) => subsetMask[k]);
  const fresh = findNearDuplicates(dupeItems(subset, subsetKeys)).filter((pair) => changedKeys.has(itemKey(pair.a)) || changedKeys.has(itemKey(pair.b)));
  return [...kept, ...fresh].sort(byFiles);
}

/** A cache file as T, or null when missing or damaged (readCacheJson): the shape is checked by the caller (format, key). */
const readJson = async <T>(file: string): Promise<T | null> => (await readCacheJson(file)) as T | null;

/** The detector's pairs, incrementally from the cached ones when there are any. `write: false` only reads (`pepe check`). */
export async function nearDuplicatePairs(items: AnalysedItem[], cache?: { dir: string; write: boolean }): Promise<DupePair[]> {
  // No items, no pairs; the cache is left as it is (a missing content folder must not clear it).
  if (!cache || items.length === 0) return items.length === 0 ? [] : findNearDuplicates(dupeItems(items));
  const code = codeKey();
  const sigs = items.map(signature);
  const key = createHash('sha256').update(code).update('\n').update(sigs.join('\n')).digest('hex');
  const pairsFile = join(cache.dir, CACHE_FILE);
  const itemsFile = join(cache.dir, ITEMS_FILE);
  const cached = await readJson<PairCache>(pairsFile);
  if (cached?.format === 3 && cached.key === key) return cached.pairs;
  const itemsCache = cached?.format === 3 ? await readJson<ItemsCache>(itemsFile) : null;
  const valid = itemsCache && itemsCache.key === cached?.key && itemsCache.code === code && itemsCache.thumbKeys?.length === itemsCache.signatures.length ? itemsCache : null;
  const keys = thumbKeysOf(items, sigs, valid);
  const pairs = (valid && incrementalPairs(items, sigs, keys, { signatures: valid.signatures, pairs: cached!.pairs })) ?? findNearDuplicates(dupeItems(items, keys));
  if (cache.write) {
    await makeFolders(cache.dir);
    const itemsNext: ItemsCache = { key, code, signatures: sigs, thumbKeys: keys.map(keyHex) };
    const pairsNext: PairCache = { format: 3, key, pairs };
    // Items first: a pairs file is only ever trusted together with items under the same key.
    await replaceFile(itemsFile, JSON.stringify(itemsNext));
    await replaceFile(pairsFile, JSON.stringify(pairsNext));
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
