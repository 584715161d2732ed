/**
 * The build cache: what was measured from each image, keyed by the image's sha256 plus the
 * feature code's version, and a stat cache (path → size, mtime, ctime, inode → sha256 / parsed
 * sidecar; stat-keyed-map.ts) so that a rebuild with nothing changed reads no image and no
 * sidecar at all.
 *
 * On disk: `build-cache.bin` (a full JSON document followed by appended deltas, loaded in
 * one read; framing in cache-log.ts) and the thumbnail file (thumb-store.ts), read lazily.
 * The JSON names the thumbnail generation and is renamed into place after the thumbnails are
 * written, so a crash never pairs a JSON with the wrong thumbnails. A save that keeps the
 * thumbnail generation appends a delta (what changed, what was pruned) to `build-cache.bin`
 * instead of rewriting it: the thumbnails are appended first, so a crash in between leaves a
 * thumbnail file longer than the JSON says, which invalidates the features (re-analysis),
 * never mismatches them. The deltas are folded into a fresh full document once they outweigh
 * half of it.
 */
import { closeSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImageExt } from '../../../functions/core/record.js';
import type { ImageAnalysis } from '../../image/analyse-image.js';
import type { ImageFormat } from '../../image/format.js';
import { CacheLog, cacheFrames, firstFrame, frameBytes, frameDocument, framesFrom, readCacheDocuments } from './cache-log.js';
import { openRegularFileSync, readRangeSync, readRegularFile, readRegularFileSync } from '../../shared/read-regular-file.js';
import { replaceFile } from '../../shared/replace-file.js';
import { type NormalisedSidecar, sidecarRulesVersion } from '../sidecar.js';
import { type StatKey, StatKeyedMap, type StatRow } from './stat-keyed-map.js';
import { TEXTURE_BYTES, THUMB_BYTES, type ThumbState, ThumbStore } from './thumb-store.js';
import { makeFolders } from '../../shared/make-folders.js';
import { sha256Of } from '../../shared/manifest.js';

export { TEXTURE_BYTES, THUMB_BYTES };
export const CACHE_FILE = 'build-cache.bin';
/** The stat fields of an image or sidecar row (stat-keyed-map.ts): rows of another shape are dropped. */
const STAT_ROWS = 'size,mtime,ctime,ino';

/** What the cache keeps of an image's analysis (the measured features, not the timings). */
export type CachedFeatures = Pick<ImageAnalysis, 'format' | 'ext' | 'mime' | 'width' | 'height' | 'phash' | 'blurhash' | 'animated'> & {
  /** May be a lazy getter (read from the thumbnail file on first access). */
  readonly thumb: Uint8Array;
  /** The same, read with the thumbnail. */
  readonly texture: Uint8Array;
};

/**
 * Features read from the cache file; the thumbnail is read from the thumbnail file on first
 * access. A class rather than a literal with a getter: one is made per image per load.
 */
class LoadedFeatures implements CachedFeatures {
  private loaded: Uint8Array | undefined;
  constructor(
    readonly format: ImageFormat,
    readonly ext: ImageExt,
    readonly mime: string,
    readonly width: number,
    readonly height: number,
    readonly phash: string,
    readonly blurhash: string,
    readonly animated: boolean,
    private readonly readThumb: () => Uint8Array,
  ) {}

  /** The slot: the thumbnail, then the texture map (thumb-store.ts). */
  private slot(): Uint8Array {
    return (this.loaded ??= this.readThumb());
  }

  get thumb(): Uint8Array {
    return this.slot().subarray(0, THUMB_BYTES);
  }

  get texture(): Uint8Array {
    return this.slot().subarray(THUMB_BYTES);
  }
}

type ImageRow = StatRow<string>;
type SidecarRow = StatRow<NormalisedSidecar>;
type FeatureRow = [sha256: string, format: ImageFormat, ext: ImageExt, mime: string, width: number, height: number, phash: string, blurhash: string, animated: 0 | 1, slot: number, check: string];

/**
 * A checksum of what a feature row publishes, bound to the image's sha256: a row edited by
 * hand or damaged on disk no longer matches and is analysed again rather than published. Not
 * a signature: whoever recomputes it can forge a row (README.md, cache trust).
 */
function featureCheck(sha: string, format: string, ext: string, mime: string, width: number, height: number, phash: string, blurhash: string, animated: number): string {
  return sha256Of(`${FEATURE_CHECK_DOMAIN}\n${sha}\n${format}\n${ext}\n${mime}\n${width}\n${height}\n${phash}\n${blurhash}\n${animated}`).slice(0, 16);
}
const FEATURE_CHECK_DOMAIN = 'pepe feature row v1';

interface CacheJson {
  featureVersion: string;
  /** sidecarRulesVersion() when the sidecar rows were parsed: rows of other rules are dropped. */
  sidecarRules?: string;
  /** STAT_ROWS when the image and sidecar rows were written (a cache without it keyed them without the ctime). */
  statRows?: string;
  /** Thumbnail file generation and its number of slots (live or dead). */
  thumbs: ThumbState;
  /** Where `features` lies: its offset in bytes from the end of these members (`,"images":`), and its length; a change build searches it in place. */
  featureRows?: [offset: number, bytes: number];
  images: ImageRow[];
  sidecars: SidecarRow[];
  features: FeatureRow[];
  /** Features no build used since the time given (ms): kept for a while, see RETIRED_KEEP_MS. Older caches have none. */
  retired?: RetiredRow[];
}

type RetiredRow = [sha256: string, sinceMs: number];

/** Appended after a CacheJson: rows added or replaced, keys pruned, and the thumbnail file's new state. */
interface CacheDelta {
  thumbs: ThumbState;
  images: ImageRow[];
  sidecars: SidecarRow[];
  features: FeatureRow[];
  drop: { images: string[]; sidecars: string[]; features: string[] };
  /** Features this save found unused, and retired features a build used again. */
  retired?: RetiredRow[];
  revived?: string[];
}

/** Deltas may grow to this many bytes (or half the full document, if larger) before a full rewrite. */
const LOG_FLOOR_BYTES = 256 * 1024;

/**
 * How long the features of an image no build uses any more are kept. In a git checkout an
 * image leaves the content folder and comes back all the time: a branch switched away from
 * and back to, a deleted image reverted, an older commit checked out and built; pruned at
 * once, each return would decode the image again. Kept a month, and at most RETIRED_MAX of
 * them, oldest dropped first.
 */
const RETIRED_KEEP_MS = 30 * 24 * 60 * 60 * 1000;
/** Unused features kept at most: each costs a 4 KB thumbnail slot and ~150 bytes of JSON. */
const RETIRED_MAX = 2000;

/** Lookups a cache in lookup mode answers by searching the file's bytes before it parses the file whole (each search reads all of it). */
const LOOKUPS_UNPARSED = 16;
/** The same for a file searched by its index: each lookup reads a few KB. */
const LOOKUPS_INDEXED = 1024;

/**
 * The file searched in place (its first document has `featureRows`): its deltas read whole, the
 * first document's feature rows, sorted by sha256, searched by positioned reads.
 */
interface Indexed {
  /** The file's size, mtime and inode when read: a lookup that finds another file parses it. */
  stat: string;
  /** The feature rows' bytes in the file. */
  rows: [start: number, end: number];
  /** The bytes after the first document, and the deltas' ranges in them. */
  tail: Buffer;
  deltas: [start: number, end: number][];
}

/** Bytes read per probe of the sorted rows (a row is ~250), and the span below which the rest is read at once. */
const PROBE_BYTES = 4096;
const PROBED_SPAN = 16 * 1024;

/** A cache in lookup mode: the file's bytes, unparsed (null: read them again, a save appended since); the features found in them and the hashes they lack. */
interface Unparsed {
  bytes: Buffer | null;
  /** The file searched by its index instead of `bytes` (null: it has none, or a save appended since). */
  indexed: Indexed | null;
  /** A save appended this run's entries: a parse reads them back from the file. */
  appended: boolean;
  /** The documents' byte ranges once the file is known usable without a parse (null: it is not), and whether a delta may go after them. */
  frames?: { ranges: [start: number, end: number][]; appends: boolean } | null;
  found: Map<string, CachedFeatures>;
  absent: Set<string>;
  lookups: number;
}

/** The members a cache document (full or delta) starts with, read without parsing the rest. */
type CacheHead = Partial<Pick<CacheJson, 'featureVersion' | 'sidecarRules' | 'statRows' | 'thumbs' | 'featureRows'>>;

/** The end of the JSON array that starts at `start` (a feature row: no nesting, but strings may hold brackets), within `limit`. */
function rowEnd(bytes: Buffer, start: number, limit: number): number {
  let inString = false;
  for (let at = start + 1; at < limit; at++) {
    const c = bytes[at];
    if (inString) {
      if (c === 0x5c) at++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5d) return at + 1;
  }
  return limit;
}

/**
 * A delta's `drop.features`, read alone: `save` writes `drop` after the rows, its `features`
 * last, and a string cannot hold a bare `"` (nor a hash a `]`). Null when it is not there.
 */
function droppedFeatures(delta: Buffer): string[] | null {
  const drop = delta.lastIndexOf(',"drop":{');
  const list = drop < 0 ? -1 : delta.indexOf('"features":[', drop);
  const end = list < 0 ? -1 : delta.indexOf(']', list);
  try {
    const features: unknown = end < 0 ? null : JSON.parse(delta.toString('utf8', list + '"features":'.length, end + 1));
    return Array.isArray(features) ? (features as string[]) : null;
  } catch {
    return null;
  }
}

/** The head of the document in `bytes[start, end)`: its members before "images" (`save` writes them first), and where they end; or null. */
function cacheHead(bytes: Buffer, start: number, end: number): (CacheHead & { end: number }) | null {
  const at = bytes.subarray(start, Math.min(end, start + 4096)).indexOf(',"images":');
  try {
    return at < 0 ? null : { ...(JSON.parse(`${bytes.toString('utf8', start, start + at)}}`) as CacheHead), end: start + at };
  } catch {
    return null;
  }
}

/** The first feature row that starts in `bytes` (`["<sha256>","`: only a row starts so), as its offset and sha256. */
function firstRow(bytes: Buffer): [at: number, sha256: string] | null {
  const match = /\["([0-9a-f]{64})","/.exec(bytes.toString('latin1'));
  return match === null ? null : [match.index, match[1]!];
}

const fileStat = (info: { size: number; mtimeMs: number; ino: number }) => `${info.size} ${info.mtimeMs} ${info.ino}`;

/** What the analysis of one image or sidecar asks of the cache (analyse-image-file.ts). */
export type FeatureSource = Pick<FeatureCache, 'imageHash' | 'setImageHash' | 'featuresOf' | 'setFeatures' | 'sidecar' | 'setSidecar'>;

export class FeatureCache {
  private readonly images = new StatKeyedMap<string>();
  private readonly sidecars = new StatKeyedMap<NormalisedSidecar>();
  private readonly features = new Map<string, CachedFeatures>();
  private readonly thumbs: ThumbStore;
  /** Features used by this run: the others are retired on save, and dropped once retired too long. */
  private readonly usedFeatures = new Set<string>();
  /** sha256 → when a save first found its features unused (ms); see RETIRED_KEEP_MS. */
  private readonly retired = new Map<string, number>();
  /** Retired features this run used again: the next delta says so. */
  private readonly revived = new Set<string>();
  /** State of build-cache.bin as loaded or last saved: may a delta be appended, and how big is it so far. */
  private readonly log = new CacheLog(LOG_FLOOR_BYTES);
  private dirty = false;
  /** Lookup mode (`lookingUp`): the file is not parsed yet. */
  private unparsed: Unparsed | undefined;
  /** The thumbnail file and the log were taken over without parsing: a save appends the fresh entries, never compacts. */
  private appendOnly = false;

  private constructor(readonly dir: string, readonly featureVersion: string, readonly sidecarRules: string) {
    this.thumbs = new ThumbStore(dir);
  }

  get file(): string {
    return join(this.dir, CACHE_FILE);
  }

  static async load(cacheDir: string, featureVersion: string, sidecarRules = sidecarRulesVersion()): Promise<FeatureCache> {
    const cache = new FeatureCache(cacheDir, featureVersion, sidecarRules);
    // Only a regular file, opened without blocking (a named pipe would block for ever, /dev/zero never end); anything else reads as no cache.
    const bytes = await readRegularFile(cache.file).catch(() => null);
    if (bytes) cache.decode(bytes);
    return cache;
  }

  /**
   * A cache for a change build, which asks it only about the few images it reads
   * (analyse-content.ts): the file is read but not parsed. The features of bytes are found by
   * searching the file for their row (none: absent); a prune, a file of other settings, or a
   * save that cannot append parses it whole, as `load`. Stat rows answer only what this run set
   * (the pairs a change build reads have new stats). A save appends this run's entries.
   */
  static lookingUp(cacheDir: string, featureVersion: string, sidecarRules = sidecarRulesVersion()): FeatureCache {
    const cache = new FeatureCache(cacheDir, featureVersion, sidecarRules);
    const indexed = cache.openIndexed();
    cache.unparsed = { bytes: indexed ? null : cache.readSync(), indexed, appended: false, found: new Map(), absent: new Set(), lookups: 0 };
    return cache;
  }

  /**
   * The file's head and deltas, when its first document indexes its feature rows, is of this
   * feature version, and every frame is whole, with the thumbnail file it names (taken over);
   * null otherwise (read whole, as before the index).
   */
  private openIndexed(): Indexed | null {
    let opened: ReturnType<typeof openRegularFileSync>;
    try {
      opened = openRegularFileSync(this.file);
    } catch {
      return null;
    }
    const { fd, info } = opened;
    try {
      const first = readRangeSync(fd, 0, Math.min(info.size, 4096 + 64));
      const frame = firstFrame(first);
      const base = frame === null || frame[1] > info.size ? null : cacheHead(first, ...frame);
      const index = base?.featureRows;
      if (!base || base.featureVersion !== this.featureVersion || !Array.isArray(index) || index.length !== 2 || !index.every((n) => Number.isSafeInteger(n) && n >= 0)) return null;
      const baseEnd = frame![1];
      const rows: [number, number] = [base.end + index[0], base.end + index[0] + index[1]];
      if (rows[1] > baseEnd) return null;
      const tail = readRangeSync(fd, baseEnd, info.size - baseEnd);
      const walked = framesFrom(tail, 0);
      if (tail.length !== info.size - baseEnd || walked.validBytes !== tail.length) return null;
      let thumbs = base.thumbs;
      for (const [start, end] of walked.frames) thumbs = cacheHead(tail, start, end)?.thumbs;
      if (typeof thumbs?.generation !== 'string' || typeof thumbs.slots !== 'number' || !this.thumbs.adopt(thumbs)) return null;
      this.log.loaded({ documents: [], validBytes: info.size, baseBytes: baseEnd }, info.size, base.sidecarRules === this.sidecarRules && base.statRows === STAT_ROWS);
      return { stat: fileStat(info), rows, tail, deltas: walked.frames };
    } finally {
      closeSync(fd);
    }
  }

  /** The file's bytes, or null when it is not a readable regular file (no cache, as in `load`). */
  private readSync(): Buffer | null {
    try {
      return readRegularFileSync(this.file);
    } catch {
      return null;
    }
  }

  /** Lookup mode ends: the file is parsed, and what this run set since it was read is set again over it. */
  private parse(): void {
    const unparsed = this.unparsed;
    if (unparsed === undefined) return;
    this.unparsed = undefined;
    this.appendOnly = false;
    // Bytes read before this run set anything: its entries go over them, unless a save appended them to the file.
    const set = unparsed.appended ? null : { images: this.images.changedRows(), sidecars: this.sidecars.changedRows(), features: [...this.features] };
    const bytes = unparsed.bytes ?? this.readSync();
    if (bytes) this.decode(bytes);
    for (const sha of unparsed.found.keys()) this.featuresOf(sha);
    if (set === null) return;
    for (const [path, size, mtimeMs, ctimeMs, ino, value] of set.images) this.images.set(path, { size, mtimeMs, ctimeMs, ino }, value);
    for (const [path, size, mtimeMs, ctimeMs, ino, value] of set.sidecars) this.sidecars.set(path, { size, mtimeMs, ctimeMs, ino }, value);
    for (const [sha, features] of set.features) this.setFeatures(sha, features);
  }

  /**
   * The file's documents when it can be used unparsed: whole frames, made under this feature
   * version, with the thumbnail file its last document names (taken over). `appends`: under
   * these sidecar rules and stat fields too, with room for a delta. Null otherwise.
   */
  private unparsedFrames(unparsed: Unparsed & { bytes: Buffer }): Unparsed['frames'] {
    if (unparsed.frames !== undefined) return unparsed.frames;
    // Checked when opened: the deltas are its frames.
    if (unparsed.indexed) return (unparsed.frames = { ranges: unparsed.indexed.deltas, appends: this.log.appends });
    const { bytes } = unparsed;
    const walked = cacheFrames(bytes);
    const [first, ...deltas] = walked?.frames ?? [];
    const base = first && cacheHead(bytes, ...first);
    let thumbs = base?.thumbs;
    for (const [start, end] of deltas) thumbs = cacheHead(bytes, start, end)?.thumbs;
    if (!walked || walked.validBytes !== bytes.length || !base || base.featureVersion !== this.featureVersion || typeof thumbs?.generation !== 'string' || typeof thumbs.slots !== 'number' || !this.thumbs.adopt(thumbs)) return (unparsed.frames = null);
    this.log.loaded({ documents: [], validBytes: walked.validBytes, baseBytes: first![1] }, bytes.length, base.sidecarRules === this.sidecarRules && base.statRows === STAT_ROWS);
    return (unparsed.frames = { ranges: walked.frames, appends: this.log.appends });
  }

  /**
   * In lookup mode, the features of `sha256` from its last row in the file (rows are
   * `["<sha256>","<format>",…]`, and only they start so), unless a later delta drops them;
   * undefined when the file has none; 'parse' when it cannot tell without parsing.
   */
  private lookUp(unparsed: Unparsed, sha256: string): CachedFeatures | undefined | 'parse' {
    const found = unparsed.found.get(sha256);
    if (found !== undefined) return found;
    if (unparsed.absent.has(sha256)) return undefined;
    if (unparsed.indexed) return this.lookUpIndexed(unparsed, unparsed.indexed, sha256);
    const { bytes } = unparsed;
    if (bytes === null || unparsed.lookups++ >= LOOKUPS_UNPARSED) return 'parse';
    const at = bytes.lastIndexOf(`["${sha256}","`);
    const frames = at < 0 ? undefined : this.unparsedFrames(unparsed as Unparsed & { bytes: Buffer });
    if (at < 0 || !frames) {
      if (at >= 0 || bytes.includes(sha256)) return 'parse';
      unparsed.absent.add(sha256);
      return undefined;
    }
    const ranges = frames.ranges.filter(([, end]) => end > at);
    // A later delta that names the bytes (retired, used again, a stat row) may also drop their features: its drop list is read.
    for (const [start, end] of ranges.slice(1)) {
      const delta = bytes.subarray(start, end);
      if (!delta.includes(sha256)) continue;
      const dropped = droppedFeatures(delta);
      if (dropped === null) return 'parse';
      if (dropped.includes(sha256)) {
        unparsed.absent.add(sha256);
        return undefined;
      }
    }
    return this.foundRow(unparsed, sha256, bytes, at, ranges[0]![1]);
  }

  /**
   * `lookUp` in a file searched by its index: the deltas as a whole file's bytes are (the last
   * row, later drops), then the first document's rows, sorted by sha256, by binary search.
   */
  private lookUpIndexed(unparsed: Unparsed, indexed: Indexed, sha256: string): CachedFeatures | undefined | 'parse' {
    if (unparsed.lookups++ >= LOOKUPS_INDEXED) return 'parse';
    const { tail, deltas } = indexed;
    const at = tail.lastIndexOf(`["${sha256}","`);
    for (const [start, end] of deltas) {
      if (end <= at) continue;
      const delta = tail.subarray(start, end);
      if (!delta.includes(sha256) || (start <= at && at < end)) continue;
      const dropped = droppedFeatures(delta);
      if (dropped === null) return 'parse';
      if (dropped.includes(sha256)) {
        unparsed.absent.add(sha256);
        return undefined;
      }
    }
    if (at >= 0) return this.foundRow(unparsed, sha256, tail, at, deltas.find(([, end]) => end > at)![1]);
    let opened: ReturnType<typeof openRegularFileSync>;
    try {
      opened = openRegularFileSync(this.file);
    } catch {
      return 'parse';
    }
    const { fd, info } = opened;
    try {
      if (fileStat(info) !== indexed.stat) return 'parse';
      let [lo, hi] = indexed.rows;
      const end = hi;
      // The row, if there, starts in [lo, hi).
      while (hi - lo > PROBED_SPAN) {
        const mid = lo + Math.floor((hi - lo) / 2);
        const row = firstRow(readRangeSync(fd, mid, Math.min(PROBE_BYTES, hi - mid)));
        if (row === null || row[1] > sha256) hi = mid;
        else if (row[1] < sha256) lo = mid + row[0] + 1;
        else [lo, hi] = [mid + row[0], mid + row[0] + 1];
      }
      const window = readRangeSync(fd, lo, Math.min(end, hi + PROBE_BYTES) - lo);
      const found = window.indexOf(`["${sha256}","`);
      if (found < 0) {
        unparsed.absent.add(sha256);
        return undefined;
      }
      return this.foundRow(unparsed, sha256, window, found, window.length);
    } finally {
      closeSync(fd);
    }
  }

  /** The features of the row at `at` in `bytes` (ending before `limit`), checked by its checksum; 'parse' when it is not one. */
  private foundRow(unparsed: Unparsed, sha256: string, bytes: Buffer, at: number, limit: number): CachedFeatures | 'parse' {
    let row: FeatureRow;
    try {
      row = JSON.parse(bytes.toString('utf8', at, rowEnd(bytes, at, limit))) as FeatureRow;
    } catch {
      return 'parse';
    }
    const [sha, format, ext, mime, width, height, phash, blurhash, animated, slot, check] = row;
    if (row.length !== 11 || sha !== sha256 || typeof slot !== 'number' || check !== featureCheck(sha, format, ext, mime, width, height, phash, blurhash, animated)) return 'parse';
    const features = new LoadedFeatures(format, ext, mime, width, height, phash, blurhash, animated === 1, this.thumbs.reader(sha, slot));
    unparsed.found.set(sha256, features);
    // Used again: no longer retired, if it was (the delta says so).
    this.revived.add(sha256);
    this.dirty = true;
    return features;
  }

  /** A corrupt or foreign cache is ignored (and rewritten): it is only ever an optimisation. */
  private decode(bytes: Buffer): void {
    const read = readCacheDocuments(bytes);
    if (!read) return;
    const [base, ...deltas] = read.documents as [CacheJson, ...CacheDelta[]];
    const featureRows = new Map<string, FeatureRow>();
    const retired = new Map<string, number>();
    let thumbs: ThumbState;
    try {
      for (const [sha, since] of base.retired ?? []) retired.set(sha, since);
      thumbs = base.thumbs;
      if (typeof thumbs?.generation !== 'string' || typeof thumbs.slots !== 'number') throw new Error('no thumbnail state');
      for (const row of base.images) this.images.loadRow(row);
      for (const row of base.sidecars) this.sidecars.loadRow(row);
      for (const row of base.features) featureRows.set(row[0], row);
      for (const delta of deltas) {
        for (const path of delta.drop.images) this.images.delete(path);
        for (const path of delta.drop.sidecars) this.sidecars.delete(path);
        for (const sha of delta.drop.features) featureRows.delete(sha);
        for (const row of delta.images) this.images.loadRow(row);
        for (const row of delta.sidecars) this.sidecars.loadRow(row);
        for (const row of delta.features) featureRows.set(row[0], row);
        for (const [sha, since] of delta.retired ?? []) retired.set(sha, since);
        for (const sha of delta.revived ?? []) retired.delete(sha);
        thumbs = delta.thumbs;
      }
    } catch {
      // Valid JSON of the wrong shape: as corrupt as invalid JSON.
      this.images.clear();
      this.sidecars.clear();
      return;
    }
    // Parsed under other sidecar rules: read and checked again. The next save rewrites the
    // file with these rules (appended rows would sit behind the old rules' base).
    const sameRules = base.sidecarRules === this.sidecarRules;
    if (!sameRules) this.sidecars.clear();
    // Rows keyed by other stat fields: every file is read (and hashed) again, nothing decoded.
    const sameRows = base.statRows === STAT_ROWS;
    if (!sameRows) {
      this.images.clear();
      this.sidecars.clear();
    }
    // A torn tail must not be appended after: the next save rewrites the file.
    // A first document without the rows' index is rewritten too, so that change builds search it in place.
    this.log.loaded(read, bytes.length, sameRules && sameRows && Array.isArray(base.featureRows));
    if (base.featureVersion !== this.featureVersion) return;
    if (!this.thumbs.adopt(thumbs)) return;
    for (const [sha, format, ext, mime, width, height, phash, blurhash, animated, slot, check] of featureRows.values()) {
      // A row that does not match its checksum (edited, damaged, or from before checksums) is no row: the image is analysed again.
      if (check !== featureCheck(sha, format, ext, mime, width, height, phash, blurhash, animated)) continue;
      this.features.set(sha, new LoadedFeatures(format, ext, mime, width, height, phash, blurhash, animated === 1, this.thumbs.reader(sha, slot)));
    }
    for (const [sha, since] of retired) if (this.features.has(sha) && typeof since === 'number') this.retired.set(sha, since);
  }

  /** The sha256 of an image whose size, mtime, ctime and inode are unchanged since it was last hashed. */
  imageHash(path: string, stat: StatKey): string | undefined {
    return this.images.get(path, stat);
  }

  setImageHash(path: string, stat: StatKey, sha256: string): void {
    this.images.set(path, stat, sha256);
    this.dirty = true;
  }

  sidecar(path: string, stat: StatKey): NormalisedSidecar | undefined {
    return this.sidecars.get(path, stat);
  }

  setSidecar(path: string, stat: StatKey, sidecar: NormalisedSidecar): void {
    this.sidecars.set(path, stat, sidecar);
    this.dirty = true;
  }

  featuresOf(sha256: string): CachedFeatures | undefined {
    if (this.unparsed !== undefined && !this.features.has(sha256)) {
      const found = this.lookUp(this.unparsed, sha256);
      if (found !== 'parse') return found;
      this.parse();
    }
    const found = this.features.get(sha256);
    if (found) {
      this.usedFeatures.add(sha256);
      this.revive(sha256);
    }
    return found;
  }

  setFeatures(sha256: string, features: CachedFeatures): void {
    if (features.thumb.length !== THUMB_BYTES) throw new Error(`a cached thumbnail must be ${THUMB_BYTES} bytes, got ${features.thumb.length}`);
    if (features.texture.length !== TEXTURE_BYTES) throw new Error(`a cached texture map must be ${TEXTURE_BYTES} bytes, got ${features.texture.length}`);
    this.features.set(sha256, features);
    this.thumbs.forget(sha256);
    this.usedFeatures.add(sha256);
    this.revive(sha256);
    this.dirty = true;
  }

  private revive(sha256: string): void {
    if (!this.retired.delete(sha256)) return;
    this.revived.add(sha256);
    this.dirty = true;
  }

  /**
   * Features this run did not use: newly retired ones (dated `now`), and the retired ones to
   * drop: retired longer than RETIRED_KEEP_MS, or the oldest beyond RETIRED_MAX.
   */
  private retire(now: number): { retired: RetiredRow[]; drop: string[] } {
    const retired: RetiredRow[] = [];
    for (const sha of this.features.keys()) {
      if (this.usedFeatures.has(sha) || this.retired.has(sha)) continue;
      this.retired.set(sha, now);
      retired.push([sha, now]);
    }
    const oldestFirst = [...this.retired].sort((a, b) => a[1] - b[1]);
    const overCap = oldestFirst.length - RETIRED_MAX;
    const drop = oldestFirst.filter(([, since], index) => index < overCap || now - since > RETIRED_KEEP_MS).map(([sha]) => sha);
    const dropped = new Set(drop);
    return { retired: retired.filter(([sha]) => !dropped.has(sha)), drop };
  }

  /**
   * Writes the cache if this run changed it or (when pruning) left entries unused.
   * Pruning drops the image and sidecar rows of paths this run did not see (a file seen again
   * is only hashed, never decoded) and retires the features it did not use (kept for a while:
   * RETIRED_KEEP_MS). `prune: false` keeps entries this run did not touch (`pepe add` only
   * adds to a cache that the last full scan pruned). `now` is for tests.
   */
  async save({ prune = true, now = Date.now() }: { prune?: boolean; now?: number } = {}): Promise<boolean> {
    if (this.unparsed !== undefined) {
      if (!prune && !this.dirty) return false;
      const readable = this.unparsed.bytes !== null || this.unparsed.indexed !== null;
      if (prune || !readable || !this.unparsedFrames(this.unparsed as Unparsed & { bytes: Buffer })?.appends) this.parse();
      else {
        this.appendOnly = true;
        // Appended from here on: a parse reads the file again.
        Object.assign(this.unparsed, { bytes: null, indexed: null, appended: true });
      }
    }
    const retirement = prune ? this.retire(now) : { retired: [], drop: [] };
    const drop = prune ? { images: this.images.unused(), sidecars: this.sidecars.unused(), features: retirement.drop } : { images: [], sidecars: [], features: [] };
    if (!this.dirty && retirement.retired.length + drop.images.length + drop.sidecars.length + drop.features.length === 0) return false;
    for (const path of drop.images) this.images.delete(path);
    for (const path of drop.sidecars) this.sidecars.delete(path);
    for (const sha of drop.features) {
      this.features.delete(sha);
      this.retired.delete(sha);
      // Its slot is dead space now: the thumbnail store counts only live slots.
      this.thumbs.forget(sha);
    }
    await makeFolders(this.dir);

    const thumbs = await this.thumbs.write([...this.features], { appendOnly: this.appendOnly });
    const featureRow = (sha: string, f: CachedFeatures): FeatureRow => {
      const animated = f.animated ? 1 : 0;
      return [sha, f.format, f.ext, f.mime, f.width, f.height, f.phash, f.blurhash, animated, thumbs.slotOf(sha)!, featureCheck(sha, f.format, f.ext, f.mime, f.width, f.height, f.phash, f.blurhash, animated)];
    };

    if (!thumbs.compacted && this.log.appends) {
      const delta: CacheDelta = {
        thumbs: thumbs.state,
        images: this.images.changedRows(),
        sidecars: this.sidecars.changedRows(),
        features: thumbs.fresh.map((sha) => featureRow(sha, this.features.get(sha)!)),
        drop,
        retired: retirement.retired,
        revived: [...this.revived],
      };
      const frame = frameDocument(delta, false);
      await appendFile(this.file, frame);
      this.log.appended(frame.length);
    } else {
      // Written as text to place `featureRows`, the index of the rows sorted by sha256 that a change build searches in place.
      const head = { featureVersion: this.featureVersion, sidecarRules: this.sidecarRules, statRows: STAT_ROWS, thumbs: thumbs.state } satisfies Partial<CacheJson>;
      const before = `,"images":${JSON.stringify(this.images.rows())},"sidecars":${JSON.stringify(this.sidecars.rows())},"features":`;
      const rows = JSON.stringify([...this.features].sort(([a], [b]) => (a < b ? -1 : 1)).map(([sha, f]) => featureRow(sha, f)));
      const headText = JSON.stringify({ ...head, featureRows: [Buffer.byteLength(before), Buffer.byteLength(rows)] });
      const retired = JSON.stringify([...this.retired].sort(([a], [b]) => (a < b ? -1 : 1)));
      const frame = frameBytes(Buffer.from(`${headText.slice(0, -1)}${before}${rows},"retired":${retired}}`), true);
      await replaceFile(this.file, frame);
      this.log.rewritten(frame.length);
    }
    await thumbs.finish();
    this.images.clearChanged();
    this.sidecars.clearChanged();
    this.revived.clear();
    this.dirty = false;
    return true;
  }
}
