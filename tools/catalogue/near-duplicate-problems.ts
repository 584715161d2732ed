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
import { appendFile, lstat, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { type Hash64, hammingDistance, parseHash, popcount32 } from '../../functions/core/multi-index.js';
import { DEFAULT_PHASH_THRESHOLD, type DupePair, findNearDuplicates } from '../dupes/near-duplicates.js';
import { THUMB_KEY_RADIUS, thumbKey } from '../dupes/compare/key.js';
import type { AnalysedItem, ContentChanges } from './analyse-content.js';
import type { Problem } from '../shared/problems.js';
import { cacheFrames, frameDocument } from './cache/cache-log.js';
import { cacheMemo, hasMembers, matchedIndexes } from './cache/memo.js';
import { makeFolders } from '../shared/make-folders.js';
import { replaceFile } from '../shared/replace-file.js';

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
  format: 4;
  key: string;
  /** The detection code, and the content stat fingerprint of the build that saved it: a change build from that build compares only what changed. */
  code: string;
  fingerprint: string | null;
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

const PAIRS = cacheMemo<PairCache>('near-duplicates.json', (value): value is PairCache => hasMembers<PairCache>({ key: 'string', code: 'string', pairs: 'object' })(value) && value.format === 4);
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

/**
 * `near-duplicates-keys.bin`: each item's file, phash and thumbnail key, packed (cache-log.ts
 * framing). A change build reads it instead of the items file: one frame per change (the files
 * it drops, the entries it adds), no object per item. Each frame holds the pairs' key it was made with.
 */
const KEYS_FILE = 'near-duplicates-keys.bin';
interface KeysFrame {
  key: string;
  /** Files whose earlier entries are dropped (gone, or replaced by an entry of this frame). */
  gone: string[];
  /** The entries' files, joined by newlines, and their halves [phash hi, lo, key hi, lo] as base64 of a Uint32Array. */
  files: string;
  hashes: string;
  /** Indexes (in this frame) of the entries without a phash. */
  bare: number[];
}
/** Appends past this share of the first frame (and past the floor) rewrite the file whole. */
const KEYS_FLOOR_BYTES = 256 * 1024;

interface KeysFile {
  key: string;
  files: string[];
  hashes: Uint32Array;
  bare: Set<number>;
  /** File → the entry count when a later frame dropped it: its entries before that are gone. */
  dropped: Map<string, number>;
  stat: string;
  bytes: number;
  baseBytes: number;
}

const statOf = async (file: string): Promise<string | null> => {
  const info = await lstat(file, { bigint: true }).catch(() => null);
  return info?.isFile() ? `${info.size} ${info.mtimeNs} ${info.ctimeNs} ${info.ino}` : null;
};

function packFrame(key: string, gone: string[], entries: { file: string; phash: Hash64 | null; thumb: Hash64 }[]): KeysFrame {
  const halves = new Uint32Array(entries.length * 4);
  const bare: number[] = [];
  entries.forEach((entry, i) => {
    if (entry.phash === null) bare.push(i);
    halves.set([entry.phash?.hi ?? 0, entry.phash?.lo ?? 0, entry.thumb.hi, entry.thumb.lo], 4 * i);
  });
  return { key, gone, files: entries.map((entry) => entry.file).join('\n'), hashes: Buffer.from(halves.buffer).toString('base64'), bare };
}

/** The keys file with every frame applied; null when missing, torn or of another shape (then the next save rewrites it). */
async function loadKeys(dir: string): Promise<KeysFile | null> {
  const path = join(dir, KEYS_FILE);
  const stat = await statOf(path);
  if (stat === null) return null;
  const bytes = await readFile(path).catch(() => null);
  const framed = bytes && cacheFrames(bytes);
  if (!framed || framed.frames.length === 0 || framed.validBytes !== bytes!.length) return null;
  const files: string[] = [];
  const parts: Uint32Array[] = [];
  const bare = new Set<number>();
  const dropped = new Map<string, number>();
  let key = '';
  try {
    for (const [from, to] of framed.frames) {
      const frame = JSON.parse(bytes!.toString('utf8', from, to)) as KeysFrame;
      for (const file of frame.gone) dropped.set(file, files.length);
      const names = frame.files === '' ? [] : frame.files.split('\n');
      const packed = Buffer.from(frame.hashes, 'base64');
      if (packed.length !== names.length * 16) return null;
      for (const i of frame.bare) bare.add(files.length + i);
      parts.push(new Uint32Array(packed.buffer.slice(packed.byteOffset, packed.byteOffset + packed.length)));
      for (const name of names) files.push(name);
      key = frame.key;
    }
  } catch {
    return null;
  }
  const hashes = parts.length === 1 ? parts[0]! : new Uint32Array(files.length * 4);
  if (parts.length > 1) parts.reduce((at, part) => (hashes.set(part, at), at + part.length), 0);
  return { key, files, hashes, bare, dropped, stat, bytes: bytes!.length, baseBytes: framed.frames[0]![1] };
}

/** Whether entry `j` is live: no later frame dropped its file. */
const live = (keys: KeysFile, j: number): boolean => !((keys.dropped.get(keys.files[j]!) ?? -1) > j);

/**
 * A change build's pairs, from the last build's (`change.from` names it: the memo must be the
 * one that build saved): pairs between two items it did not read are kept; the items it read
 * are compared, with the detector, to every other item within the phash threshold or the
 * thumbnail key radius of one of them, found in the packed keys. null when that cannot be
 * trusted (another build's memo, an item set that is not the last one's, too many changes).
 */
function changedPairs(items: AnalysedItem[], change: Change, cached: PairCache, keys: KeysFile): { pairs: DupePair[]; frame: KeysFrame['gone']; entries: { file: string; phash: Hash64 | null; thumb: Hash64 }[] } | null {
  const read = change.items;
  if (read.length > MAX_INCREMENTAL) return null;
  const readHashes = read.map((item) => parseHash(item.record.phash));
  // An item without a phash may pair by thumbnail alone: every item is a partner then.
  if (readHashes.some((hash) => hash === null)) return null;
  const readKeys = read.map((item) => thumbKey(item.thumb));
  const gone = new Set([...change.removed, ...read.map((item) => item.file)]);
  const partners = new Map<string, Hash64>();
  const { files, hashes } = keys;
  let others = 0;
  for (let j = 0; j < files.length; j++) {
    if (!live(keys, j)) continue;
    const file = files[j]!;
    if (gone.has(file)) continue;
    others++;
    const ph = 4 * j;
    let near = keys.bare.has(j);
    for (let c = 0; !near && c < read.length; c++) {
      const hash = readHashes[c]!;
      const thumb = readKeys[c]!;
      near = popcount32((hash.hi ^ hashes[ph]!) >>> 0) + popcount32((hash.lo ^ hashes[ph + 1]!) >>> 0) <= DEFAULT_PHASH_THRESHOLD || popcount32((thumb.hi ^ hashes[ph + 2]!) >>> 0) + popcount32((thumb.lo ^ hashes[ph + 3]!) >>> 0) <= THUMB_KEY_RADIUS;
    }
    if (near) partners.set(file, { hi: hashes[ph + 2]!, lo: hashes[ph + 3]! });
  }
  // Every item the analysis did not read is one the last build had: else this is not its memo.
  if (others + read.length !== items.length) return null;
  const readAt = new Map(read.map((item, c) => [item, c]));
  const subset: AnalysedItem[] = [];
  const subsetKeys: Hash64[] = [];
  for (const item of items) {
    const c = readAt.get(item);
    const key = c === undefined ? partners.get(item.file) : readKeys[c];
    if (key !== undefined) subset.push(item), subsetKeys.push(key);
  }
  const readIds = new Set(read.map((item) => itemKey({ id: item.record.id, file: item.file })));
  const fresh = findNearDuplicates(dupeItems(subset, subsetKeys)).filter((pair) => readIds.has(itemKey(pair.a)) || readIds.has(itemKey(pair.b)));
  const kept = cached.pairs.filter((pair) => !gone.has(pair.a.file) && !gone.has(pair.b.file));
  return { pairs: [...kept, ...fresh].sort(byFiles), frame: [...gone], entries: read.map((item, c) => ({ file: item.file, phash: readHashes[c]!, thumb: readKeys[c]! })) };
}

/** What a change build read (analyse-content.ts), and the stat fingerprint of the last build it started from. */
export type Change = ContentChanges & { from: string };

/** Saves the keys: the change's frame appended while the file is the one read and its appends stay small, else the file whole. */
async function saveKeys(dir: string, key: string, loaded: KeysFile | null, change: { gone: string[]; entries: { file: string; phash: Hash64 | null; thumb: Hash64 }[] } | null, all: () => { file: string; phash: Hash64 | null; thumb: Hash64 }[]): Promise<void> {
  await makeFolders(dir);
  const path = join(dir, KEYS_FILE);
  if (loaded !== null && change !== null && (await statOf(path)) === loaded.stat) {
    const frame = frameDocument(packFrame(key, change.gone, change.entries), false);
    if (loaded.bytes - loaded.baseBytes + frame.length <= Math.max(KEYS_FLOOR_BYTES, loaded.baseBytes / 4)) return appendFile(path, frame);
  }
  await replaceFile(path, frameDocument(packFrame(key, [], all()), true));
}

/** The detector's pairs, incrementally from the cached ones when there are any. `write: false` only reads (`pepe check`). */
export async function nearDuplicatePairs(items: AnalysedItem[], cache?: { dir: string; write: boolean; fingerprint?: string | null; change?: Change }): Promise<DupePair[]> {
  // No items, no pairs; the cache is left as it is (a missing content folder must not clear it).
  if (!cache || items.length === 0) return items.length === 0 ? [] : findNearDuplicates(dupeItems(items));
  const code = codeKey();
  const sigs = items.map(signature);
  const key = createHash('sha256').update(code).update('\n').update(sigs.join('\n')).digest('hex');
  const cached = await PAIRS.load(cache.dir);
  const fingerprint = cache.fingerprint ?? null;
  const save = async (pairs: DupePair[]) => cache.write && PAIRS.save(cache.dir, { format: 4, key, code, fingerprint, pairs });
  if (cached?.key === key) {
    // The same items (a tag edit): the memo must still name this build, which the next change build checks.
    if (cached.fingerprint !== fingerprint) await save(cached.pairs);
    return cached.pairs;
  }
  // A change build from the build that saved the memo: only the changed items are compared.
  const change = cache.change;
  if (change && cached?.code === code && cached.fingerprint === change.from) {
    const keys = await loadKeys(cache.dir);
    const found = keys?.key === cached.key ? changedPairs(items, change, cached, keys) : null;
    if (found) {
      if (cache.write) {
        // Keys first: a pairs file is only ever trusted together with keys under the same key.
        const entries = () => {
          const fresh = new Map(found.entries.map((entry) => [entry.file, entry]));
          const dropped = new Set(found.frame);
          const kept = keys!.files.flatMap((file, j) => (live(keys!, j) && !dropped.has(file) ? [{ file, phash: keys!.bare.has(j) ? null : { hi: keys!.hashes[4 * j]!, lo: keys!.hashes[4 * j + 1]! }, thumb: { hi: keys!.hashes[4 * j + 2]!, lo: keys!.hashes[4 * j + 3]! } }] : []));
          return [...kept, ...fresh.values()];
        };
        await saveKeys(cache.dir, key, keys, { gone: found.frame, entries: found.entries }, entries);
        await save(found.pairs);
      }
      return found.pairs;
    }
  }
  const itemsCache = cached === null ? null : await ITEMS.load(cache.dir, cached.key);
  const valid = itemsCache?.code === code ? itemsCache : null;
  const cachedAt = cachedIndexes(sigs, valid);
  const keys = thumbKeysOf(items, cachedAt, valid);
  const pairs = (valid && incrementalPairs(items, cachedAt, keys, cached!.pairs)) ?? findNearDuplicates(dupeItems(items, keys));
  if (cache.write) {
    // Items and keys first: a pairs file is only ever trusted together with items under the same key.
    const halves = new Array<number>(keys.length * 2);
    keys.forEach((k, i) => ((halves[2 * i] = k.hi), (halves[2 * i + 1] = k.lo)));
    await ITEMS.save(cache.dir, { key, code, signatures: sigs, thumbKeys: halves }, itemsCache);
    await saveKeys(cache.dir, key, null, null, () => items.map((item, k) => ({ file: item.file, phash: parseHash(item.record.phash), thumb: keys[k]! })));
    await save(pairs);
  }
  return pairs;
}

export async function nearDuplicateProblems(items: AnalysedItem[], severity: Problem['severity'], cache?: Parameters<typeof nearDuplicatePairs>[1]): Promise<Problem[]> {
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
