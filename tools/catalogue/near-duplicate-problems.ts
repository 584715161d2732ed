/**
 * Near-duplicate pairs as problems: warnings in `pepe build`, errors in `pepe check`.
 * A pair acknowledged by either sidecar's `distinct_from` is never reported.
 *
 * The pairs are cached (`near-duplicates.json` in the build cache) with every input of the
 * detection — each item's id, file, phash, image sha256 (which fixes its thumbnail), size
 * and distinct_from, plus the detection code itself — under an order-free key (keyOf), so a
 * rebuild with nothing changed neither searches nor reads thumbnails, and one with a few
 * changed images only compares those (changedPairs in a change build, else incrementalPairs).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { appendFile, lstat, readFile, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { type Hash64, hammingDistance, parseHash, popcount32 } from '../../functions/core/multi-index.js';
import { DEFAULT_PHASH_THRESHOLD, type DupePair, findNearDuplicates } from '../dupes/near-duplicates.js';
import { THUMB_KEY_RADIUS, thumbKey } from '../dupes/compare/key.js';
import type { AnalysedItem, ContentChanges } from './analyse-content.js';
import type { Problem } from '../shared/problems.js';
import { cacheFrames, frameBytes } from './cache/cache-log.js';
import { cacheMemo, hasMembers } from './cache/memo.js';
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

/**
 * Every input of the detection for one item (id, file, phash, image sha256 — which fixes its
 * thumbnail — size, distinct_from) hashed to 128 bits at out[at..at+4): four multiply-xor
 * lanes over each field's code units and a 0 after it, mixed across lanes at the end.
 */
function digestInto(item: AnalysedItem, out: Uint32Array, at: number): void {
  lanes.set(LANE_SEEDS);
  feed(item.record.id);
  feed(item.file);
  feed(item.record.phash);
  feed(item.sha256);
  feed(`${item.record.width}x${item.record.height}`);
  feed(item.distinctFrom.join(','));
  let a = lanes[0]!;
  let b = lanes[1]!;
  let c = lanes[2]!;
  let d = lanes[3]!;
  a = Math.imul(a ^ (a >>> 16), 2246822507) ^ Math.imul(b ^ (b >>> 13), 3266489909);
  b = Math.imul(b ^ (b >>> 16), 2246822507) ^ Math.imul(c ^ (c >>> 13), 3266489909);
  c = Math.imul(c ^ (c >>> 16), 2246822507) ^ Math.imul(d ^ (d >>> 13), 3266489909);
  d = Math.imul(d ^ (d >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909);
  out[at] = a;
  out[at + 1] = b;
  out[at + 2] = c;
  out[at + 3] = d;
}
const LANE_SEEDS = [0xdeadbeef, 0x41c6ce57, 0x9e3779b9, 0x85ebca6b];
const lanes = new Int32Array(4);
function feed(text: string): void {
  let a = lanes[0]!;
  let b = lanes[1]!;
  let c = lanes[2]!;
  let d = lanes[3]!;
  for (let i = 0; i <= text.length; i++) {
    const x = i < text.length ? text.charCodeAt(i) : 0;
    a = Math.imul(a ^ x, 2654435761);
    b = Math.imul(b ^ x, 1597334677);
    c = Math.imul(c ^ x, 2246822519);
    d = Math.imul(d ^ x, 3266489917);
  }
  lanes[0] = a;
  lanes[1] = b;
  lanes[2] = c;
  lanes[3] = d;
}

/** `sum` plus (or less) the digest at words[at..at+4), lane by lane modulo 2³²: an order-free hash of a set of items. */
function addDigest(sum: Uint32Array, words: Uint32Array, at: number, sign: 1 | -1): void {
  for (let i = 0; i < 4; i++) sum[i] = sum[i]! + sign * words[at + i]!;
}

/**
 * The pairs' key: the detection code and the set of items' inputs. Order-free (the sum of the
 * items' digests), so a change build updates it from the items it read and the entries gone,
 * without visiting the others; `pepe check` computes it from every item.
 */
const keyOf = (code: string, count: number, sum: Uint32Array): string => createHash('sha256').update(`${code}\n${count}\n${sum.join(' ')}`).digest('hex');

const itemKey = (side: { id: string; file: string }) => `${side.id} ${side.file}`;
const byFiles = (x: DupePair, y: DupePair) => (x.a.file < y.a.file ? -1 : x.a.file > y.a.file ? 1 : x.b.file < y.b.file ? -1 : x.b.file > y.b.file ? 1 : 0);

/** `near-duplicates.json`: the pairs under a key of every input; read on every build. */
interface PairCache {
  format: 5;
  key: string;
  /** The detection code, and the content stat fingerprint of the build that saved it: a change build from that build compares only what changed. */
  code: string;
  fingerprint: string | null;
  pairs: DupePair[];
}

const PAIRS = cacheMemo<PairCache>('near-duplicates.json', (value): value is PairCache => hasMembers<PairCache>({ key: 'string', code: 'string', pairs: 'object' })(value) && value.format === 5);

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
 * `near-duplicates-keys.bin`: each item's file, phash, thumbnail key and digest, packed
 * (cache-log.ts framing), no object per item. The first frame holds every item, sorted by file;
 * each change build appends a frame (the files it drops, the entries it adds). A frame is a
 * small JSON header (the pairs' key it was made with, the item count and digest sum behind it),
 * then ENTRY_WORDS words an entry as raw Uint32s, then the entries' files joined by newlines:
 * a change build reads 5 MB at 100k items without parsing it as text.
 */
const KEYS_FILE = 'near-duplicates-keys.bin';
interface KeysHeader {
  key: string;
  count: number;
  /** The digest sum (addDigest) of the live entries once this frame is applied. */
  sum: number[];
  /** Files whose earlier entries are dropped (gone, or replaced by an entry of this frame). */
  gone: string[];
  /** Indexes (in this frame) of the entries without a phash. */
  bare: number[];
  entries: number;
}
/** An entry's words: phash hi, lo, thumbnail key hi, lo, the item's digest (4). */
const ENTRY_WORDS = 8;
/** Appended frames past this size rewrite the file whole: every change build reads each frame. */
const KEYS_APPEND_BYTES = 256 * 1024;

/** Entries to pack: their files, ENTRY_WORDS words each, and which have no phash. */
interface KeysTable {
  files: string[];
  words: Uint32Array;
  bare: number[];
}

interface KeysFile {
  key: string;
  count: number;
  sum: Uint32Array;
  /** Every entry's file: the first frame's (`sorted` of them, in file order), then the later frames'. */
  files: string[];
  sorted: number;
  /** The later frames' files: the live entry of each. */
  laterAt: Map<string, number>;
  words: Uint32Array;
  bare: Set<number>;
  /** 1 for an entry a later frame dropped. */
  dead: Uint8Array;
  stat: string;
  bytes: number;
  baseBytes: number;
}

const statOf = async (file: string): Promise<string | null> => {
  const info = await lstat(file, { bigint: true }).catch(() => null);
  return info?.isFile() ? `${info.size} ${info.mtimeNs} ${info.ctimeNs} ${info.ino}` : null;
};

const isHeader = (header: KeysHeader): boolean =>
  typeof header?.key === 'string' && Number.isSafeInteger(header.count) && Array.isArray(header.sum) && header.sum.length === 4 && Array.isArray(header.gone) && Array.isArray(header.bare) && Number.isSafeInteger(header.entries) && header.entries >= 0;

/** A frame's bytes: the header's length (u32), the header, the entries' words, their files. */
function packFrame(header: Omit<KeysHeader, 'entries'>, table: KeysTable, withMagic: boolean): Buffer {
  const head = Buffer.from(JSON.stringify({ ...header, entries: table.files.length } satisfies KeysHeader));
  const size = Buffer.alloc(4);
  size.writeUInt32LE(head.length);
  return frameBytes(Buffer.concat([size, head, new Uint8Array(table.words.buffer, table.words.byteOffset, table.words.byteLength), Buffer.from(table.files.join('\n'))]), withMagic);
}

/** `table` ordered by file (the first frame's order, which lookups bisect). */
function sortedTable(table: KeysTable): KeysTable {
  const { files } = table;
  let sorted = true;
  for (let i = 1; sorted && i < files.length; i++) sorted = files[i - 1]! < files[i]!;
  if (sorted) return table;
  const order = files.map((_, i) => i).sort((x, y) => (files[x]! < files[y]! ? -1 : 1));
  const words = new Uint32Array(table.words.length);
  order.forEach((from, to) => words.set(table.words.subarray(ENTRY_WORDS * from, ENTRY_WORDS * (from + 1)), ENTRY_WORDS * to));
  const bare = new Set(table.bare);
  return { files: order.map((i) => files[i]!), words, bare: order.flatMap((from, to) => (bare.has(from) ? [to] : [])) };
}

/** The latest entry of `file` (dead or not), or -1: the later frames' by their map, the first frame's by bisection. */
function entryOf(keys: KeysFile, file: string): number {
  const later = keys.laterAt.get(file);
  if (later !== undefined) return later;
  let lo = 0;
  let hi = keys.sorted;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const name = keys.files[mid]!;
    if (name === file) return mid;
    if (name < file) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

/** The keys file with every frame applied; null when missing, torn or of another shape (then the next save rewrites it). */
async function loadKeys(dir: string): Promise<KeysFile | null> {
  const path = join(dir, KEYS_FILE);
  const stat = await statOf(path);
  if (stat === null) return null;
  const bytes = await readFile(path).catch(() => null);
  const framed = bytes && cacheFrames(bytes);
  if (!framed || framed.frames.length === 0 || framed.validBytes !== bytes!.length) return null;
  let keys: KeysFile | null = null;
  const parts: Uint32Array[] = [];
  const dropped = new Set<number>();
  let entries = 0;
  try {
    for (const [from, to] of framed.frames) {
      const headEnd: number = from + 4 + bytes!.readUInt32LE(from);
      if (headEnd > to) return null;
      const header = JSON.parse(bytes!.toString('utf8', from + 4, headEnd)) as KeysHeader;
      if (!isHeader(header)) return null;
      const count = header.entries;
      const wordsEnd: number = headEnd + 4 * ENTRY_WORDS * count;
      if (wordsEnd > to) return null;
      // One split, not a scan per name: this runs once per process, before V8 has optimised any loop.
      const names: string[] = wordsEnd === to ? [] : bytes!.toString('utf8', wordsEnd, to).split('\n');
      if (names.length !== count) return null;
      if (keys === null) {
        keys = { key: '', count: 0, sum: new Uint32Array(4), files: names, sorted: count, laterAt: new Map(), words: new Uint32Array(0), bare: new Set(), dead: new Uint8Array(0), stat, bytes: bytes!.length, baseBytes: framed.frames[0]![1] };
      } else {
        for (const file of header.gone) {
          const j = entryOf(keys, file);
          if (j !== -1) dropped.add(j), keys.laterAt.delete(file);
        }
        for (let i = 0; i < count; i++) keys.files.push(names[i]!), keys.laterAt.set(names[i]!, entries + i);
      }
      for (const i of header.bare) keys.bare.add(entries + i);
      // A copy: the words may start at an offset no Uint32Array can start at.
      parts.push(new Uint32Array(bytes!.buffer.slice(bytes!.byteOffset + headEnd, bytes!.byteOffset + wordsEnd)));
      entries += count;
      keys.key = header.key;
      keys.count = header.count;
      keys.sum = Uint32Array.from(header.sum);
    }
  } catch {
    return null;
  }
  if (keys === null) return null;
  keys.words = parts.length === 1 ? parts[0]! : new Uint32Array(entries * ENTRY_WORDS);
  if (parts.length > 1) parts.reduce((at, part) => (keys!.words.set(part, at), at + part.length), 0);
  keys.dead = new Uint8Array(entries);
  for (const j of dropped) keys.dead[j] = 1;
  return entries - dropped.size === keys.count ? keys : null;
}

/** The item at `file`: items are in file order (the scan's), so bisected; looked for in full should they not be. */
function itemAt(items: readonly AnalysedItem[], file: string): AnalysedItem | undefined {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const name = items[mid]!.file;
    if (name === file) return items[mid];
    if (name < file) lo = mid + 1;
    else hi = mid;
  }
  return items.find((item) => item.file === file);
}

/** The items' entries: phash, thumbnail key and digest words, in the items' order. */
function tableOf(items: readonly AnalysedItem[], phashes: readonly (Hash64 | null)[], thumbs: readonly Hash64[], digests: Uint32Array): KeysTable {
  const words = new Uint32Array(items.length * ENTRY_WORDS);
  const bare: number[] = [];
  for (let k = 0; k < items.length; k++) {
    const phash = phashes[k];
    if (!phash) bare.push(k);
    const at = ENTRY_WORDS * k;
    words[at] = phash?.hi ?? 0;
    words[at + 1] = phash?.lo ?? 0;
    words[at + 2] = thumbs[k]!.hi;
    words[at + 3] = thumbs[k]!.lo;
    words.set(digests.subarray(4 * k, 4 * k + 4), at + 4);
  }
  return { files: items.map((item) => item.file), words, bare };
}

/** What a change build saves: the new key, and the frame to append to the packed keys (null when the items are the same). */
interface ChangedPairs {
  key: string;
  pairs: DupePair[];
  frame: { count: number; sum: Uint32Array; gone: string[]; table: KeysTable; dead: Uint8Array } | null;
}

/**
 * A change build's pairs, from the last build's (`change.from` names it: the memo must be the
 * one that build saved). The key is the last one's sum less the digests of the entries gone
 * (the removed files' and the read files' earlier ones) plus the read items'; when it is the
 * same (a tag edit) so are the pairs. Otherwise pairs between two items it did not read are
 * kept, and the items read are compared, with the detector, to every other item within the
 * phash threshold or the thumbnail key radius of one of them, found in the packed keys. null
 * when that cannot be trusted (an item count that is not the last build's less the gone plus
 * the read, too many changes, a read item without a phash).
 */
function changedPairs(items: AnalysedItem[], change: Change, code: string, cached: PairCache, keys: KeysFile): ChangedPairs | null {
  const read = change.items;
  if (read.length > MAX_INCREMENTAL) return null;
  const readHashes = read.map((item) => parseHash(item.record.phash));
  // An item without a phash may pair by thumbnail alone: every item is a partner then.
  if (readHashes.some((hash) => hash === null)) return null;
  const dead = keys.dead.slice();
  const sum = keys.sum.slice();
  let count = keys.count;
  const gone = [...change.removed, ...read.map((item) => item.file)];
  for (const file of gone) {
    const j = entryOf(keys, file);
    if (j === -1 || dead[j]) continue;
    dead[j] = 1;
    addDigest(sum, keys.words, ENTRY_WORDS * j + 4, -1);
    count--;
  }
  const digests = new Uint32Array(4 * read.length);
  for (let c = 0; c < read.length; c++) digestInto(read[c]!, digests, 4 * c), addDigest(sum, digests, 4 * c, 1);
  count += read.length;
  // Every item the analysis did not read is one the last build had: else this is not its memo.
  if (count !== items.length) return null;
  const key = keyOf(code, count, sum);
  if (key === cached.key) return { key, pairs: cached.pairs, frame: null };

  const readKeys = read.map((item) => thumbKey(item.thumb));
  const { words } = keys;
  const subset: AnalysedItem[] = [...read];
  const subsetKeys: Hash64[] = [...readKeys];
  for (let j = 0; j < dead.length; j++) {
    if (dead[j]) continue;
    const at = ENTRY_WORDS * j;
    let near = keys.bare.size > 0 && keys.bare.has(j);
    for (let c = 0; !near && c < read.length; c++) {
      const hash = readHashes[c]!;
      const thumb = readKeys[c]!;
      near = popcount32((hash.hi ^ words[at]!) >>> 0) + popcount32((hash.lo ^ words[at + 1]!) >>> 0) <= DEFAULT_PHASH_THRESHOLD || popcount32((thumb.hi ^ words[at + 2]!) >>> 0) + popcount32((thumb.lo ^ words[at + 3]!) >>> 0) <= THUMB_KEY_RADIUS;
    }
    if (!near) continue;
    const partner = itemAt(items, keys.files[j]!);
    if (partner === undefined) return null;
    subset.push(partner);
    subsetKeys.push({ hi: words[at + 2]!, lo: words[at + 3]! });
  }
  const readIds = new Set(read.map((item) => itemKey({ id: item.record.id, file: item.file })));
  const fresh = findNearDuplicates(dupeItems(subset, subsetKeys)).filter((pair) => readIds.has(itemKey(pair.a)) || readIds.has(itemKey(pair.b)));
  const goneFiles = new Set(gone);
  const kept = cached.pairs.filter((pair) => !goneFiles.has(pair.a.file) && !goneFiles.has(pair.b.file));
  return { key, pairs: [...kept, ...fresh].sort(byFiles), frame: { count, sum, gone, table: tableOf(read, readHashes, readKeys, digests), dead } };
}

/** What a change build read (analyse-content.ts), and the stat fingerprint of the last build it started from. */
export type Change = ContentChanges & { from: string };

/** Every live entry of `keys` (`dead` marks the others) and `added`, in file order: the file written whole again. */
function mergedTable(keys: KeysFile, dead: Uint8Array, added: KeysTable): KeysTable {
  const files: string[] = [];
  const live: number[] = [];
  for (let j = 0; j < dead.length; j++) if (!dead[j]) live.push(j), files.push(keys.files[j]!);
  const words = new Uint32Array((live.length + added.files.length) * ENTRY_WORDS);
  live.forEach((j, i) => words.set(keys.words.subarray(ENTRY_WORDS * j, ENTRY_WORDS * (j + 1)), ENTRY_WORDS * i));
  words.set(added.words, live.length * ENTRY_WORDS);
  const bare = [...live.flatMap((j, i) => (keys.bare.has(j) ? [i] : [])), ...added.bare.map((i) => live.length + i)];
  return sortedTable({ files: [...files, ...added.files], words, bare });
}

/** Saves the keys: a change's frame appended while the file is the one read and its appends stay small, else the file whole. */
async function saveKeys(dir: string, key: string, whole: { count: number; sum: Uint32Array; table: () => KeysTable }, append?: { loaded: KeysFile; gone: string[]; table: KeysTable }): Promise<void> {
  await makeFolders(dir);
  const path = join(dir, KEYS_FILE);
  if (append && (await statOf(path)) === append.loaded.stat) {
    const frame = packFrame({ key, count: whole.count, sum: [...whole.sum], gone: append.gone, bare: append.table.bare }, append.table, false);
    if (append.loaded.bytes - append.loaded.baseBytes + frame.length <= KEYS_APPEND_BYTES) return appendFile(path, frame);
  }
  const table = sortedTable(whole.table());
  await replaceFile(path, packFrame({ key, count: whole.count, sum: [...whole.sum], gone: [], bare: table.bare }, table, true));
}

/** What a build's detection starts from: the detection code, the pairs memo, and the packed keys saved under the memo's key (read on first ask). */
export interface DupesMemo {
  code: string;
  cached: Promise<PairCache | null>;
  keys: () => Promise<KeysFile | null>;
}

/** The memo in `dir` as it is now, read once for one build: a change build reads it while the scan goes on (build-catalogue.ts). */
export function readDupesMemo(dir: string): DupesMemo {
  const code = codeKey();
  const cached = PAIRS.load(dir);
  let keys: Promise<KeysFile | null> | undefined;
  // Keys and pairs under the same key, of this detection code: what an incremental run builds on.
  const trusted = async () => {
    const pairs = await cached;
    const loaded = pairs?.code === code ? await loadKeys(dir) : null;
    return loaded !== null && loaded.key === pairs!.key ? loaded : null;
  };
  return { code, cached, keys: () => (keys ??= trusted()) };
}

/**
 * The detector's pairs, incrementally from the cached ones when there are any. `write: false`
 * only reads (`pepe check`). `memo`, when given, is `readDupesMemo(dir)` of this build.
 */
export async function nearDuplicatePairs(items: AnalysedItem[], cache?: { dir: string; write: boolean; fingerprint?: string | null; change?: Change; memo?: DupesMemo }): Promise<DupePair[]> {
  // No items, no pairs; the cache is left as it is (a missing content folder must not clear it).
  if (!cache || items.length === 0) return items.length === 0 ? [] : findNearDuplicates(dupeItems(items));
  const memo = cache.memo ?? readDupesMemo(cache.dir);
  const { code } = memo;
  const cached = await memo.cached;
  const fingerprint = cache.fingerprint ?? null;
  const save = async (key: string, pairs: DupePair[]) => cache.write && PAIRS.save(cache.dir, { format: 5, key, code, fingerprint, pairs });
  // A change build from the build that saved the memo: only the changed items are compared.
  const change = cache.change;
  const fromLast = change !== undefined && cached?.code === code && cached.fingerprint === change.from;
  let trusted = fromLast ? await memo.keys() : null;
  const found = fromLast && trusted ? changedPairs(items, change!, code, cached!, trusted) : null;
  if (found) {
    if (found.frame && cache.write) {
      const { frame } = found;
      // Keys first: a pairs file is only ever trusted together with keys under the same key.
      await saveKeys(cache.dir, found.key, { ...frame, table: () => mergedTable(trusted!, frame.dead, frame.table) }, { loaded: trusted!, gone: frame.gone, table: frame.table });
    }
    // The same items (a tag edit) keep their pairs, but the memo must name this build, which the next change build checks.
    if (found.frame || cached!.fingerprint !== fingerprint) await save(found.key, found.pairs);
    return found.pairs;
  }

  const digests = new Uint32Array(4 * items.length);
  const sum = new Uint32Array(4);
  for (let k = 0; k < items.length; k++) digestInto(items[k]!, digests, 4 * k), addDigest(sum, digests, 4 * k, 1);
  const key = keyOf(code, items.length, sum);
  if (cached?.key === key) {
    if (cached.fingerprint !== fingerprint) await save(key, cached.pairs);
    return cached.pairs;
  }
  if (!fromLast) trusted = await memo.keys();
  // Each item's entry in the memo's keys when its inputs are the same (its file's entry has its digest), else -1.
  const cachedAt = new Int32Array(items.length).fill(-1);
  if (trusted) {
    const byFile = new Map<string, number>();
    for (let j = 0; j < trusted.dead.length; j++) if (!trusted.dead[j]) byFile.set(trusted.files[j]!, j);
    items.forEach((item, k) => {
      const j = byFile.get(item.file);
      const at = ENTRY_WORDS * (j ?? 0) + 4;
      if (j !== undefined && trusted.words[at] === digests[4 * k] && trusted.words[at + 1] === digests[4 * k + 1] && trusted.words[at + 2] === digests[4 * k + 2] && trusted.words[at + 3] === digests[4 * k + 3]) cachedAt[k] = j;
    });
  }
  const thumbKeys = items.map((item, k) => {
    const at = ENTRY_WORDS * cachedAt[k]!;
    return cachedAt[k] === -1 ? thumbKey(item.thumb) : { hi: trusted!.words[at + 2]!, lo: trusted!.words[at + 3]! };
  });
  const pairs = (trusted && incrementalPairs(items, cachedAt, thumbKeys, cached!.pairs)) ?? findNearDuplicates(dupeItems(items, thumbKeys));
  if (cache.write) {
    // Keys first: a pairs file is only ever trusted together with keys under the same key.
    await saveKeys(cache.dir, key, { count: items.length, sum, table: () => tableOf(items, items.map((item) => parseHash(item.record.phash)), thumbKeys, digests) });
    await save(key, pairs);
    // A file no build reads any more: the keys file holds each item's inputs as a digest.
    await rm(join(cache.dir, 'near-duplicates-items.json'), { force: true });
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
