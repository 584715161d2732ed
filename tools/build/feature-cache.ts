/**
 * The build cache: what was measured from each image, keyed by the image's sha256 plus the
 * feature code's version, and a stat cache (path → size, mtime, inode → sha256 / parsed
 * sidecar) so that a rebuild with nothing changed reads no image and no sidecar at all.
 *
 * On disk: `build-cache.bin` (a full JSON document followed by appended deltas, loaded in
 * one read; framing in cache-log.ts) and `thumbs-<generation>.bin` (the 32×32 RGB thumbnails, fixed-size slots). Thumbnails are
 * only needed to confirm near-duplicate candidates, so they are read lazily, slot by slot:
 * loading a 10k-image cache reads ~5 MB, not ~35 MB. New thumbnails are appended; the file
 * is rewritten under a new generation name only when more than half of it is dead, and the
 * JSON (which names its generation) is renamed into place last, so a crash never pairs a
 * JSON with the wrong thumbnails. A save that keeps the thumbnail generation appends a delta
 * (what changed, what was pruned) to `build-cache.bin` instead of rewriting it: the thumbnails
 * are appended first, so a crash in between leaves a thumbnail file longer than the JSON says,
 * which invalidates the features (re-analysis), never mismatches them. The deltas are folded
 * into a fresh full document once they outweigh half of it.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { appendFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImageExt } from '../../functions/core/record.js';
import type { ImageAnalysis } from '../image/analyse-image.js';
import type { ImageFormat } from '../image/format.js';
import { frameDocument, readCacheDocuments } from './cache-log.js';
import type { NormalisedSidecar } from './sidecar.js';

export const CACHE_FILE = 'build-cache.bin';
/** 32 × 32 pixels × RGB. */
export const THUMB_BYTES = 32 * 32 * 3;

/** What the cache keeps of an image's analysis (the measured features, not the timings). */
export type CachedFeatures = Pick<ImageAnalysis, 'format' | 'ext' | 'mime' | 'width' | 'height' | 'phash' | 'blurhash' | 'animated'> & {
  /** May be a lazy getter (read from the thumbnail file on first access). */
  readonly thumb: Uint8Array;
};

export interface StatKey {
  size: number;
  mtimeMs: number;
  ino: number;
}

interface StatEntry<T> extends StatKey {
  value: T;
}

type ImageRow = [path: string, size: number, mtimeMs: number, ino: number, sha256: string];
type SidecarRow = [path: string, size: number, mtimeMs: number, ino: number, sidecar: NormalisedSidecar];
type FeatureRow = [sha256: string, format: ImageFormat, ext: ImageExt, mime: string, width: number, height: number, phash: string, blurhash: string, animated: 0 | 1, slot: number];

interface CacheJson {
  featureVersion: string;
  /** Thumbnail file generation and its number of slots (live or dead). */
  thumbs: { generation: string; slots: number };
  images: ImageRow[];
  sidecars: SidecarRow[];
  features: FeatureRow[];
}

/** Appended after a CacheJson: rows added or replaced, keys pruned, and the thumbnail file's new state. */
interface CacheDelta {
  thumbs: { generation: string; slots: number };
  images: ImageRow[];
  sidecars: SidecarRow[];
  features: FeatureRow[];
  drop: { images: string[]; sidecars: string[]; features: string[] };
}

/** Deltas may grow to this many bytes (or half the full document, if larger) before a full rewrite. */
const LOG_FLOOR_BYTES = 256 * 1024;

const sameStat = (a: StatKey, b: StatKey): boolean => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
const thumbFile = (dir: string, generation: string) => join(dir, `thumbs-${generation}.bin`);

export class FeatureCache {
  private readonly images = new Map<string, StatEntry<string>>();
  private readonly sidecars = new Map<string, StatEntry<NormalisedSidecar>>();
  private readonly features = new Map<string, CachedFeatures>();
  /** Slot in the current thumbnail file of each feature loaded from disk. */
  private readonly slots = new Map<string, number>();
  private thumbs = { generation: '', slots: 0 };
  /** Keys used by this run: saving keeps only these, so the cache never grows without bound. */
  private readonly used = { images: new Set<string>(), sidecars: new Set<string>(), features: new Set<string>() };
  /** Keys set by this run since the last save: what a delta must carry. */
  private readonly changed = { images: new Set<string>(), sidecars: new Set<string>() };
  /** State of build-cache.bin as loaded or last saved: may a delta be appended, and how big is it so far. */
  private log = { appendable: false, baseBytes: 0, logBytes: 0 };
  private dirty = false;

  private constructor(readonly dir: string, readonly featureVersion: string) {}

  get file(): string {
    return join(this.dir, CACHE_FILE);
  }

  static async load(cacheDir: string, featureVersion: string): Promise<FeatureCache> {
    const cache = new FeatureCache(cacheDir, featureVersion);
    const bytes = await readFile(cache.file).catch(() => null);
    if (bytes) cache.decode(bytes);
    return cache;
  }

  /** A corrupt or foreign cache is ignored (and rewritten): it is only ever an optimisation. */
  private decode(bytes: Buffer): void {
    const read = readCacheDocuments(bytes);
    if (!read) return;
    const [base, ...deltas] = read.documents as [CacheJson, ...CacheDelta[]];
    const featureRows = new Map<string, FeatureRow>();
    let thumbs: { generation: string; slots: number };
    try {
      thumbs = base.thumbs;
      if (typeof thumbs?.generation !== 'string' || typeof thumbs.slots !== 'number') throw new Error('no thumbnail state');
      for (const row of base.images) this.setImageRow(row);
      for (const row of base.sidecars) this.setSidecarRow(row);
      for (const row of base.features) featureRows.set(row[0], row);
      for (const delta of deltas) {
        for (const path of delta.drop.images) this.images.delete(path);
        for (const path of delta.drop.sidecars) this.sidecars.delete(path);
        for (const sha of delta.drop.features) featureRows.delete(sha);
        for (const row of delta.images) this.setImageRow(row);
        for (const row of delta.sidecars) this.setSidecarRow(row);
        for (const row of delta.features) featureRows.set(row[0], row);
        thumbs = delta.thumbs;
      }
    } catch {
      // Valid JSON of the wrong shape: as corrupt as invalid JSON.
      this.images.clear();
      this.sidecars.clear();
      return;
    }
    // A torn tail must not be appended after: the next save rewrites the file.
    this.log = { appendable: read.validBytes === bytes.length, baseBytes: read.baseBytes, logBytes: read.validBytes - read.baseBytes };
    if (base.featureVersion !== this.featureVersion) return;
    // A thumbnail file of the wrong length (deleted, truncated) invalidates every feature.
    const thumbBytes = (() => {
      try {
        return statSync(thumbFile(this.dir, thumbs.generation)).size;
      } catch {
        return -1;
      }
    })();
    if (thumbBytes !== thumbs.slots * THUMB_BYTES) return;
    this.thumbs = thumbs;
    for (const [sha, format, ext, mime, width, height, phash, blurhash, animated, slot] of featureRows.values()) {
      this.slots.set(sha, slot);
      // Looked up at access time: a save may have moved the thumbnail to another slot or file.
      const readThumb = () => this.readSlot(this.slots.get(sha)!);
      let thumb: Uint8Array | undefined;
      this.features.set(sha, {
        format, ext, mime, width, height, phash, blurhash, animated: animated === 1,
        get thumb() {
          thumb ??= readThumb();
          return thumb;
        },
      });
    }
  }

  private setImageRow([path, size, mtimeMs, ino, value]: ImageRow): void {
    this.images.set(path, { size, mtimeMs, ino, value });
  }

  private setSidecarRow([path, size, mtimeMs, ino, value]: SidecarRow): void {
    this.sidecars.set(path, { size, mtimeMs, ino, value });
  }

  /** Opens the file per read: thumbnails are read only for near-duplicate candidates, and no handle can leak. */
  private readSlot(slot: number): Uint8Array {
    const fd = openSync(thumbFile(this.dir, this.thumbs.generation), 'r');
    try {
      const out = new Uint8Array(THUMB_BYTES);
      const read = readSync(fd, out, 0, THUMB_BYTES, slot * THUMB_BYTES);
      // A short read means the thumbnail file does not match the JSON: a bug or a tampered cache.
      if (read !== THUMB_BYTES) throw new Error(`build cache thumbnail slot ${slot} is incomplete; delete ${this.dir} and rebuild`);
      return out;
    } finally {
      closeSync(fd);
    }
  }

  /** The sha256 of an image whose size, mtime and inode are unchanged since it was last hashed. */
  imageHash(path: string, stat: StatKey): string | undefined {
    const entry = this.images.get(path);
    if (!entry || !sameStat(entry, stat)) return undefined;
    this.used.images.add(path);
    return entry.value;
  }

  setImageHash(path: string, stat: StatKey, sha256: string): void {
    this.images.set(path, { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, value: sha256 });
    this.used.images.add(path);
    this.changed.images.add(path);
    this.dirty = true;
  }

  sidecar(path: string, stat: StatKey): NormalisedSidecar | undefined {
    const entry = this.sidecars.get(path);
    if (!entry || !sameStat(entry, stat)) return undefined;
    this.used.sidecars.add(path);
    return entry.value;
  }

  setSidecar(path: string, stat: StatKey, sidecar: NormalisedSidecar): void {
    this.sidecars.set(path, { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, value: sidecar });
    this.used.sidecars.add(path);
    this.changed.sidecars.add(path);
    this.dirty = true;
  }

  featuresOf(sha256: string): CachedFeatures | undefined {
    const found = this.features.get(sha256);
    if (found) this.used.features.add(sha256);
    return found;
  }

  setFeatures(sha256: string, features: CachedFeatures): void {
    if (features.thumb.length !== THUMB_BYTES) throw new Error(`a cached thumbnail must be ${THUMB_BYTES} bytes, got ${features.thumb.length}`);
    this.features.set(sha256, features);
    this.slots.delete(sha256);
    this.used.features.add(sha256);
    this.dirty = true;
  }

  /**
   * Writes the cache if this run changed it or (when pruning) left entries unused.
   * `prune: false` keeps entries this run did not touch (`pepe add` only adds to a cache
   * that the last full scan pruned).
   */
  async save({ prune = true }: { prune?: boolean } = {}): Promise<boolean> {
    const unusedOf = <T>(map: Map<string, T>, used: Set<string>) => (prune ? [...map.keys()].filter((key) => !used.has(key)) : []);
    const drop = { images: unusedOf(this.images, this.used.images), sidecars: unusedOf(this.sidecars, this.used.sidecars), features: unusedOf(this.features, this.used.features) };
    if (!this.dirty && drop.images.length + drop.sidecars.length + drop.features.length === 0) return false;
    for (const path of drop.images) this.images.delete(path);
    for (const path of drop.sidecars) this.sidecars.delete(path);
    for (const sha of drop.features) this.features.delete(sha);
    const sorted = <T>(map: Map<string, T>) => [...map].sort(([a], [b]) => (a < b ? -1 : 1));
    const features = sorted(this.features);
    await mkdir(this.dir, { recursive: true });

    const liveOld = features.filter(([sha]) => this.slots.has(sha)).length;
    const compact = this.thumbs.generation === '' || liveOld * 2 < this.thumbs.slots;
    const previousGeneration = this.thumbs.generation;
    let thumbs = this.thumbs;
    const slotOf = new Map<string, number>();
    const fresh = features.filter(([sha]) => !this.slots.has(sha));
    if (compact) {
      thumbs = { generation: `${Date.now().toString(36)}${process.pid.toString(36)}`, slots: features.length };
      features.forEach(([sha], i) => slotOf.set(sha, i));
      await writeFile(thumbFile(this.dir, thumbs.generation), Buffer.concat(features.map(([, f]) => f.thumb)));
    } else {
      for (const [sha] of features) if (this.slots.has(sha)) slotOf.set(sha, this.slots.get(sha)!);
      fresh.forEach(([sha], i) => slotOf.set(sha, this.thumbs.slots + i));
      if (fresh.length > 0) await appendFile(thumbFile(this.dir, thumbs.generation), Buffer.concat(fresh.map(([, f]) => f.thumb)));
      thumbs = { generation: thumbs.generation, slots: this.thumbs.slots + fresh.length };
    }
    const featureRow = ([sha, f]: [string, CachedFeatures]): FeatureRow => [sha, f.format, f.ext, f.mime, f.width, f.height, f.phash, f.blurhash, f.animated ? 1 : 0, slotOf.get(sha)!];
    const imageRow = ([p, e]: [string, StatEntry<string>]): ImageRow => [p, e.size, e.mtimeMs, e.ino, e.value];
    const sidecarRow = ([p, e]: [string, StatEntry<NormalisedSidecar>]): SidecarRow => [p, e.size, e.mtimeMs, e.ino, e.value];

    const logLimit = Math.max(LOG_FLOOR_BYTES, this.log.baseBytes / 2);
    if (!compact && this.log.appendable && this.log.logBytes < logLimit) {
      const changedRows = <T>(map: Map<string, T>, keys: Set<string>) => [...keys].filter((key) => map.has(key)).sort().map((key): [string, T] => [key, map.get(key)!]);
      const delta: CacheDelta = {
        thumbs,
        images: changedRows(this.images, this.changed.images).map(imageRow),
        sidecars: changedRows(this.sidecars, this.changed.sidecars).map(sidecarRow),
        features: fresh.map(featureRow),
        drop,
      };
      const frame = frameDocument(delta, false);
      await appendFile(this.file, frame);
      this.log.logBytes += frame.length;
    } else {
      const json: CacheJson = {
        featureVersion: this.featureVersion,
        thumbs,
        images: sorted(this.images).map(imageRow),
        sidecars: sorted(this.sidecars).map(sidecarRow),
        features: features.map(featureRow),
      };
      const frame = frameDocument(json, true);
      const tmp = `${this.file}.${process.pid}.tmp`;
      await writeFile(tmp, frame);
      await rename(tmp, this.file);
      this.log = { appendable: true, baseBytes: frame.length, logBytes: 0 };
    }
    if (compact && previousGeneration !== '') await rm(thumbFile(this.dir, previousGeneration), { force: true });
    this.thumbs = thumbs;
    this.slots.clear();
    for (const [sha, slot] of slotOf) this.slots.set(sha, slot);
    this.changed.images.clear();
    this.changed.sidecars.clear();
    this.dirty = false;
    return true;
  }
}
