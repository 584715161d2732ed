/**
 * Content folder → validated, analysed records (+ every problem, all at once). Shared by
 * `pepe build`, `pepe check`, `pepe add` and `pepe dupes`. Unchanged files are answered
 * from the cache without being read; an image is decoded only when its bytes are new
 * (analyse-image-file.ts).
 */
import { extname, resolve } from 'node:path';
import { lowerBound } from '../../functions/core/lower-bound.js';
import { compareRecords, type PepeRecord } from '../../functions/core/record.js';
import { FEATURE_VERSION, analyseImage } from '../image/analyse-image.js';
import { configureSharpForBatch } from '../image/decode.js';
import { releasePixelPass } from '../image/pixel-pass.js';
import { type ImageBytes, type ImageFileContext, type ImageOutcome, analyseImageFile, readImageBytes } from './analyse-image-file.js';
import { type CachedFeatures, FeatureCache, type FeatureSource } from './cache/feature-cache.js';
import { type PairRows, parsePairRow } from './cache/stat-keyed-map.js';
import type { ImageFormat } from '../image/format.js';
import { error, warning, type Problem } from '../shared/problems.js';
import { caseCollisions, folderProblem, type ContentFile, type ContentPair, type ContentScan, scanContent, readContentFileSync, unreadableProblem } from './scan-content.js';
import type { StatKey } from './cache/stat-keyed-map.js';
import { cachePlacementProblem } from './cache/cache-placement.js';
import { MAX_SIDECAR_BYTES, type NormalisedSidecar, parseSidecar, sidecarDateProblems, sidecarText } from './sidecar.js';
import { windowsNameProblems } from './windows-names.js';

/** The image analysis function (injectable so tests can count decodes). Same contract as `analyseImage`. */
export type AnalyseFn = typeof analyseImage;

/** Defaults: generous for real pepes, small enough that one bad file cannot take the machine down. */
export const LIMITS = {
  /** Bytes of one image file. */
  maxFileBytes: 32 * 1024 * 1024,
  /** Decoded pixels (width × height) of one image's canvas: a 1 KB PNG can claim 100k × 100k. */
  maxPixels: 50_000_000,
  /** Frames of one animation (GIF, WebP, APNG). */
  maxFrames: 1_000,
  /** Pixels a viewer decodes to show every frame (canvas × frames): a 1 MB GIF can claim 50,000 frames on a 7000×7000 canvas. */
  maxTotalPixels: 200_000_000,
  /** Decoding one image. */
  timeoutMs: 30_000,
};

/** The limits a run applies: the defaults, overridden by the caller's. */
export const effectiveLimits = (limits?: Partial<typeof LIMITS>): typeof LIMITS => ({ ...LIMITS, ...limits });

export interface AnalyseContentOptions {
  contentDir: string;
  /** Default `<contentDir>/../.pepe-cache`. */
  cacheDir?: string;
  /** false: read the cache but never write it (`pepe check`). Default true. */
  writeCache?: boolean;
  analyse?: AnalyseFn;
  /** Images analysed at once; sharp decodes on libuv's threads. */
  concurrency?: number;
  limits?: Partial<typeof LIMITS>;
  onProgress?: (progress: AnalyseProgress) => void;
  /** The content folder's listing, when the caller has already made it (`scanContent`). */
  scan?: ContentScan;
  /**
   * Called once the images that are not in the cache are known, before any is decoded, with
   * their number; returning false stops the analysis there, with `declined` set in the result
   * (the CLI then decodes them in a process whose malloc is tuned for it: tools/cli/tuned-decoding.ts).
   */
  beforeDecoding?: (uncached: number) => boolean;
  /** Given each image decoded, with its pixels (analyse-image-file.ts); awaited before the next. */
  onDecoded?: ImageFileContext['onDecoded'];
  /**
   * The last build's pairs, records and problems (`pepe build`: cache/last-build.ts): then only
   * the pairs whose paths or stat keys changed are read and checked (a change build); the
   * listing must have no problem, else everything is analysed.
   */
  previous?: PreviousBuild;
  /** The take-over of `previous` begun while `scan` was listed (`takeOverFrom`), finished here. */
  takeOver?: TakeOver;
}

/** What a change build starts from: the last build's pairs (`pairs.bin`) with their records, and its problems. */
export interface PreviousBuild {
  /** Image path → the pair's row (cache/stat-keyed-map.ts `pairRow`) and its record. */
  rows: PairRows<PepeRecord>;
  /** What it reported about its content. */
  problems: readonly Problem[];
  /** Its content listing's stat fingerprint: names the item set its near-duplicate memo was made for. */
  statFingerprint: string;
  /** The sum of its rows' digests (build-extras.ts `buildInputs`), when it saved one. */
  digestSum?: string;
}

/** What a change build read (`previous` given), for the stages after it. */
export interface ContentChanges {
  /** The valid items of the pairs read (new or changed); every other item is the last build's. */
  items: AnalysedItem[];
  /** Image paths of the last build's pairs that are gone. */
  removed: string[];
}

/** What a change build read, and the ids of the last build's records not taken over (their pair read again, or gone): with the items taken over, all its ids. */
export interface ReadChanges extends ContentChanges {
  freed: ReadonlySet<string>;
  /** The digests the last build's rows not taken over had (one per id freed). */
  freedDigests: readonly string[];
}

export interface AnalyseProgress {
  done: number;
  total: number;
  decoded: number;
  elapsedMs: number;
}

/** One valid image with its record and what duplicate detection needs. */
export interface AnalysedItem {
  record: PepeRecord;
  /** Content-relative image path. */
  file: string;
  abs: string;
  sha256: string;
  thumb: Uint8Array;
  texture: Uint8Array;
  animated: boolean;
  distinctFrom: string[];
  /** An item a change build took from the last build: its record's digest then, and the thumbnails it had (build-extras.ts `buildInputs`). */
  previous?: { digest: string; thumbnails: PepeRecord['thumbnails'] };
}

export interface AnalyseStats {
  images: number;
  /** Images whose features came from the cache (no decode). */
  cacheHits: number;
  decoded: number;
  /** Images whose bytes were read and hashed (not answered by the stat cache). */
  hashed: number;
  /** A change build's pairs read (their stat changed, or new) and gone; null when every pair was looked at. */
  changed: { read: number; removed: number } | null;
  timings: {
    cacheLoadMs: number;
    scanMs: number;
    decodeMs: number;
    pixelsMs: number;
    blurhashMs: number;
    readHashMs: number;
    totalMs: number;
    /** CPU of the whole process (every thread) while the analysis ran: decodes, pixel pass, and in a build the renditions encoded beside them. */
    cpuMs: number;
  };
}

export interface ContentAnalysis {
  items: AnalysedItem[];
  problems: Problem[];
  stats: AnalyseStats;
  /** Set when `beforeDecoding` declined: the images that wait to be decoded (nothing analysed or written). */
  declined?: number;
  /** Set when the analysis started from the last build (`previous`). */
  changes?: ReadChanges;
}

export const defaultCacheDir = (contentDir: string): string => resolve(contentDir, '..', '.pepe-cache');

const publishedExtOf = (file: string): string => {
  const ext = extname(file).toLowerCase();
  return ext === '.jpeg' ? '.jpg' : ext;
};

/**
 * A sidecar's text, or the problem that keeps it from being read. Synchronous, as every
 * content read (`readContentFileSync`): the thread pool is busy decoding; never follows a symlink.
 */
function readSidecar(file: ContentFile): { text: string } | { problem: Problem } {
  let read;
  try {
    read = readContentFileSync(file.abs, MAX_SIDECAR_BYTES);
  } catch (cause) {
    return { problem: unreadableProblem(cause, file.rel) };
  }
  if (read.ok) {
    const decoded = sidecarText(read.bytes);
    return decoded.ok ? { text: decoded.text } : { problem: error('sidecar-not-utf8', decoded.message, file.rel) };
  }
  if (read.reason === 'not-a-file') return { problem: error('not-a-file', 'is not a regular file: replace it with the sidecar itself', file.rel) };
  return { problem: error('file-too-large', `is ${(read.size / 1048576).toFixed(1)} MB, over the ${MAX_SIDECAR_BYTES / 1048576} MB limit for a sidecar: it holds a few fields, shorten its description or tags`, file.rel) };
}

async function loadSidecar(pair: ContentPair, cache: FeatureSource): Promise<{ sidecar?: NormalisedSidecar; problems: Problem[] }> {
  const cached = cache.sidecar(pair.sidecar.rel, pair.sidecar);
  if (cached) return { sidecar: cached, problems: [] };
  const read = readSidecar(pair.sidecar);
  if ('problem' in read) return { problems: [read.problem] };
  const result = parseSidecar(pair.sidecar.rel, read.text);
  if (!result.ok) return { problems: result.problems };
  cache.setSidecar(pair.sidecar.rel, pair.sidecar, result.sidecar);
  return { sidecar: result.sidecar, problems: [] };
}

/** The analysis of a content folder that could not be read at all: its problems only. */
function nothingAnalysed(problems: Problem[], started: number): ContentAnalysis {
  const elapsed = performance.now() - started;
  const timings = { cacheLoadMs: 0, scanMs: elapsed, decodeMs: 0, pixelsMs: 0, blurhashMs: 0, readHashMs: 0, totalMs: elapsed, cpuMs: 0 };
  return { items: [], problems: [...problems], stats: { images: 0, cacheHits: 0, decoded: 0, hashed: 0, changed: null, timings } };
}

/**
 * Problems of sidecars whose image was refused (unsupported, a symlink, two images for one
 * sidecar) or that have no image: reported in the same run, so that fixing the image does
 * not reveal a broken sidecar only on the next one. The ids of the valid ones go to `unpublished`
 * (a duplicate id is reported in the same run too).
 */
function loneSidecarProblems(sidecars: readonly ContentFile[], unpublished: UnpublishedSidecar[]): Problem[] {
  const problems: Problem[] = [];
  for (const sidecar of sidecars) {
    const read = readSidecar(sidecar);
    // Only a too-large sidecar is reported here; one that cannot be read (gone since the scan,
    // no permission, not a file) is passed over: the scan's problem already names each lone
    // sidecar or its refused image. (readSidecar returns a read failure, it never throws.)
    if ('problem' in read) {
      if (read.problem.code === 'file-too-large') problems.push(read.problem);
      continue;
    }
    const result = parseSidecar(sidecar.rel, read.text);
    if (!result.ok) problems.push(...result.problems);
    else unpublished.push({ id: result.sidecar.id, sidecar: sidecar.rel });
  }
  return problems;
}

/**
 * Bytes of uncached images that uncachedImages keeps for their decode, at most, in all. The
 * first process decodes at most 16 images (tools/cli/tuned-decoding.ts), which this holds
 * whole at up to 1 MB each; above that the run is usually handed to a tuned process, and the
 * bytes kept until then are garbage the first process carries while it waits for it.
 */
const KEPT_BYTES = 16 * 1024 * 1024;

/**
 * How many of the `misses` (pairs not answered by the stat cache) hold bytes the cache has no
 * features for: what `beforeDecoding` is asked about. An image whose stat is new is read and
 * hashed first (analyseImageFile then finds its hash by stat and does not read it again when
 * its features are known): in a fresh clone every stat is new and nearly every hash known, and
 * without this the CLI would move to a second process to decode nothing. A file that cannot be
 * read counts as uncached; analyseImageFile reports it.
 *
 * The bytes of uncached images are kept (`read`, by pair index) for analyseImageFile, so that
 * each is read and hashed once; but only up to KEPT_BYTES in all, not every uncached image's:
 * a first build of a large catalogue has every image uncached, and keeping them all would hold
 * the whole content folder in memory. The images past the budget are read again at their turn.
 */
function uncachedImages(pairs: readonly ContentPair[], misses: readonly number[], ctx: ImageFileContext): { count: number; read: Map<number, ImageBytes> } {
  let count = 0;
  let keptBytes = 0;
  const read = new Map<number, ImageBytes>();
  for (const index of misses) {
    const { image } = pairs[index]!;
    let hash = ctx.cache.imageHash(image.rel, image);
    let fresh: ImageBytes | undefined;
    if (hash === undefined && image.size <= ctx.limits.maxFileBytes) {
      // A problem counts as uncached; analyseImageFile reports it.
      const result = readImageBytes(image, ctx);
      if (result.ok) {
        fresh = result;
        hash = result.hash;
      }
    }
    if (hash !== undefined && ctx.cache.featuresOf(hash) !== undefined) continue;
    count++;
    if (fresh !== undefined && keptBytes + fresh.bytes.length <= KEPT_BYTES) {
      read.set(index, fresh);
      keptBytes += fresh.bytes.length;
    }
  }
  return { count, read };
}

export async function analyseContent(options: AnalyseContentOptions): Promise<ContentAnalysis> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const limits = effectiveLimits(options.limits);
  const analyse = options.analyse ?? analyseImage;
  const cacheDir = options.cacheDir ?? defaultCacheDir(options.contentDir);
  const badCache = folderProblem('bad-cache-dir', 'the cache folder', cacheDir, 'pass --cache with a folder (or leave --cache out)') ?? cachePlacementProblem(cacheDir, options.contentDir);
  if (badCache) return nothingAnalysed([badCache], started);
  const scan = options.scan ?? (await scanContent(options.contentDir));
  // No content folder: nothing to analyse, and the cache is left alone (saving it now would
  // prune every entry, e.g. after a typo in --content).
  // (The same when a folder in it could not be listed: the scan's `unreadable`.)
  if (scan.problems.some((problem) => problem.code === 'content-missing' || problem.code === 'unreadable')) return nothingAnalysed(scan.problems, started);
  const scanMs = performance.now() - started;
  const { previous } = options;
  const changeBuild = previous !== undefined && scan.problems.length === 0 && scan.loneSidecars.length === 0;
  // A take-over started during the listing is taken when it is of this very scan and last build.
  const early = changeBuild && options.takeOver?.scan === scan && options.takeOver.listed.previous === previous ? options.takeOver : undefined;
  const takeOver = changeBuild ? (early ?? takeOverFrom(scan, previous, cacheDir)) : null;
  const listed = takeOver?.listed ?? null;
  const cache: FeatureSource = listed ?? (await FeatureCache.load(cacheDir, FEATURE_VERSION));
  const cacheLoadMs = performance.now() - started - scanMs;
  // Valid sidecars whose image is not published (refused, or none): their ids still count.
  const unpublished: UnpublishedSidecar[] = [];
  const timings = { cacheLoadMs, scanMs, decodeMs: 0, pixelsMs: 0, blurhashMs: 0, readHashMs: 0, totalMs: 0, cpuMs: 0 };
  const stats: AnalyseStats = { images: 0, cacheHits: 0, decoded: 0, hashed: 0, changed: null, timings };
  const items: (AnalysedItem | undefined)[] = takeOver?.items ?? new Array(scan.pairs.length);
  const diff = takeOver ? takeOver.finish(stats) : null;
  const problems = diff ? diff.problems : [...scan.problems, ...loneSidecarProblems(scan.loneSidecars, unpublished), ...caseCollisions(scan), ...windowsNameProblems(scan)];

  // One libvips thread per image while several decode at once (tools/image/README.md), set before the first decode: a build that decodes nothing never loads sharp.
  let restoreSharp: (() => void) | undefined;
  let sharpSet: Promise<void> | undefined;
  const analyseInBatch: typeof analyse = async (...args) => {
    await (sharpSet ??= configureSharpForBatch().then((restore) => void (restoreSharp = restore)));
    return analyse(...args);
  };
  const imageContext: ImageFileContext = { cache, analyse: analyseInBatch, limits, counters: stats, onDecoded: options.onDecoded };

  let done = scan.pairs.length - (diff?.misses.length ?? scan.pairs.length);
  const later: number[] = [];
  function finish(index: number, side: { sidecar?: NormalisedSidecar; problems: Problem[] }, img: ImageOutcome): void {
    const pair = scan.pairs[index]!;
    problems.push(...side.problems);
    if (!img.ok || img.features.width * img.features.height > limits.maxPixels) {
      if (side.sidecar) unpublished.push({ id: side.sidecar.id, sidecar: pair.sidecar.rel });
    }
    if (!img.ok) problems.push(img.problem);
    else if (img.features.width * img.features.height > limits.maxPixels) {
      // Also for cached features: a lowered limit applies to images analysed under the old one.
      problems.push(error('too-many-pixels', `the image has ${img.features.width}×${img.features.height} pixels, more than the ${limits.maxPixels.toLocaleString('en')} limit; scale it down`, pair.image.rel));
    } else {
      stats.images++;
      if (img.decoded) stats.decoded++;
      else stats.cacheHits++;
      if (publishedExtOf(pair.image.rel) !== img.features.ext) {
        problems.push(warning('extension-mismatch', `is a ${img.features.format.toUpperCase()} image despite its "${extname(pair.image.rel)}" extension; it publishes as "${img.features.ext}": rename it to silence this`, pair.image.rel));
      }
      if (side.sidecar) items[index] = toItem(pair, side.sidecar, img.sha256, img.features);
    }
    done++;
    options.onProgress?.({ done, total: scan.pairs.length, decoded: stats.decoded, elapsedMs: performance.now() - started });
  }
  // Bytes uncachedImages already read, each handed on once (a retry reads its image again).
  let alreadyRead = new Map<number, ImageBytes>();
  async function handle(index: number, alone: boolean): Promise<void> {
    const pair = scan.pairs[index]!;
    const read = alreadyRead.get(index);
    alreadyRead.delete(index);
    const [side, img] = await Promise.all([loadSidecar(pair, cache), analyseImageFile(pair, alone, imageContext, read)]);
    if (!img.ok && img.retryAlone) later.push(index);
    else finish(index, side, img);
  }
  // Fast path without a promise per file: pairs whose sidecar and image are both unchanged
  // (stat cache) and already analysed. On a rebuild that is nearly every pair.
  const misses: number[] = diff?.misses ?? [];
  if (!diff) scan.pairs.forEach((pair, index) => {
    const sidecar = pair.image.size <= limits.maxFileBytes ? cache.sidecar(pair.sidecar.rel, pair.sidecar) : undefined;
    const hash = sidecar ? cache.imageHash(pair.image.rel, pair.image) : undefined;
    const features = hash ? cache.featuresOf(hash) : undefined;
    if (sidecar && hash && features) finish(index, { sidecar, problems: [] }, { ok: true, sha256: hash, features, decoded: false });
    else misses.push(index);
  });
  if (misses.length > 0 && options.beforeDecoding) {
    const uncached = uncachedImages(scan.pairs, misses, imageContext);
    if (uncached.count > 0 && !options.beforeDecoding(uncached.count)) return { ...nothingAnalysed([], started), declined: uncached.count };
    alreadyRead = uncached.read;
  }
  let nextMiss = 0;
  const worker = async () => {
    while (nextMiss < misses.length) await handle(misses[nextMiss++]!, false);
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, worker));
    for (const index of later) await handle(index, true);
  } finally {
    await sharpSet?.catch(() => undefined);
    restoreSharp?.();
    // The batch is done: the compile and write phases should not carry the pass's memory.
    releasePixelPass();
  }

  const analysed = items.filter((item): item is AnalysedItem => item !== undefined);
  const valid = diff ? changedDuplicateIds(analysed, diff.misses.map((index) => items[index]), problems, unpublished, diff.taken) : rejectDuplicateIds(analysed, problems, unpublished);
  // Every id a sidecar holds is a record, also when its image was refused or its id clashes.
  // A generator: read only when some sidecar lists distinct_from.
  const otherIds = function* () {
    for (const other of unpublished) yield other.id;
    for (const item of analysed) yield item.record.id;
  };
  problems.push(...unknownDistinctFrom(valid, otherIds()));
  // A change build saw only the pairs it read: the entries of the others are kept, not pruned.
  if (options.writeCache !== false) await (listed ? listed.real?.save({ prune: false }) : (cache as FeatureCache).save());
  stats.timings.totalMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  stats.timings.cpuMs = (used.user + used.system) / 1000;
  const analysis: ContentAnalysis = { items: valid, problems: sortProblems(problems), stats };
  if (diff) {
    const read = diff.misses.map((index) => items[index]).filter((item): item is AnalysedItem => item !== undefined);
    const rejected = new Set(valid === analysed ? [] : analysed.filter((item) => !valid.includes(item)));
    const changed = read.filter((item) => !rejected.has(item));
    analysis.changes = { items: changed, removed: diff.removed, freed: diff.freed, freedDigests: diff.freedDigests };
    stats.changed = { read: diff.misses.length, removed: diff.removed.length };
  }
  return analysis;
}

/** Format and MIME type of a published extension: what a feature row holds besides a record's fields. */
const FORMAT_OF_EXT: Record<string, [ImageFormat, string]> = { '.png': ['png', 'image/png'], '.jpg': ['jpeg', 'image/jpeg'], '.gif': ['gif', 'image/gif'], '.webp': ['webp', 'image/webp'], '.avif': ['avif', 'image/avif'] };

/** The build cache no longer holds the thumbnail of bytes the last build's rows name: the build analyses everything again (build-catalogue.ts). */
export class LostFeatures extends Error {
  constructor(readonly sha256: string) {
    super(`the build cache has lost the features of image ${sha256}`);
  }
}

/**
 * The features a change build knows without the build cache: those of the last build's records
 * (by image sha256: a moved or reverted image, an edited sidecar), their thumbnails read from the
 * build cache on first access only; anything else from the build cache, loaded (once) when an
 * image of other bytes shows up. Parsed sidecars are not looked up: the few read are parsed.
 */
class ListedFeatures implements FeatureSource {
  /** The build cache, once loaded. */
  real: FeatureCache | undefined;
  private readonly hashes = new Map<string, string>();
  private byHash: Map<string, PepeRecord> | undefined;
  private searched = 0;

  constructor(readonly previous: PreviousBuild, private readonly load: () => FeatureCache) {}

  private cache(): FeatureCache {
    return (this.real ??= this.load());
  }

  /** The image at `path` holds these bytes (its stat is the last build's). */
  knowHash(path: string, sha256: string): void {
    this.hashes.set(path, sha256);
  }

  imageHash(path: string, stat: StatKey): string | undefined {
    return this.hashes.get(path) ?? this.real?.imageHash(path, stat);
  }

  setImageHash(path: string, stat: StatKey, sha256: string): void {
    this.hashes.set(path, sha256);
    this.real?.setImageHash(path, stat, sha256);
  }

  featuresOf(sha256: string): CachedFeatures | undefined {
    const record = this.recordOf(sha256);
    return record ? new RecordFeatures(record, sha256, this) : this.cache().featuresOf(sha256);
  }

  setFeatures(sha256: string, features: CachedFeatures): void {
    this.cache().setFeatures(sha256, features);
  }

  sidecar(path: string, stat: StatKey): NormalisedSidecar | undefined {
    return this.real?.sidecar(path, stat);
  }

  setSidecar(path: string, stat: StatKey, sidecar: NormalisedSidecar): void {
    this.real?.setSidecar(path, stat, sidecar);
  }

  /** The thumbnail and texture map of known bytes, from the build cache. */
  cached(sha256: string): CachedFeatures {
    const features = this.cache().featuresOf(sha256);
    if (!features) throw new LostFeatures(sha256);
    return features;
  }

  /** The last build's record of an image with these bytes (removed pairs included). */
  private recordOf(sha256: string): PepeRecord | undefined {
    // The first few new bytes (an add) are searched for in the rows: no map of every row for them.
    if (this.byHash === undefined && this.searched++ < 16) return this.previous.rows.find(`\0${sha256}\t`)?.[1];
    if (this.byHash === undefined) {
      this.byHash = new Map();
      // A row ends in `\0sha256\tid\t…` (stat-keyed-map.ts `pairRow`).
      for (const [, row, record] of this.previous.rows.entries()) {
        const at = row.lastIndexOf('\0') + 1;
        this.byHash.set(row.slice(at, at + 64), record);
      }
    }
    return this.byHash.get(sha256);
  }
}

/** The features of a last build's record; its thumbnail is read from the build cache on first access only. */
class RecordFeatures implements CachedFeatures {
  readonly format: ImageFormat;
  readonly mime: string;
  constructor(
    private readonly record: PepeRecord,
    private readonly sha256: string,
    private readonly listed: ListedFeatures,
  ) {
    [this.format, this.mime] = FORMAT_OF_EXT[record.file_ext]!;
  }

  get ext() {
    return this.record.file_ext;
  }
  get width() {
    return this.record.width;
  }
  get height() {
    return this.record.height;
  }
  get phash() {
    return this.record.phash;
  }
  get blurhash() {
    return this.record.blurhash;
  }
  get animated() {
    return this.record.animated;
  }
  get thumb() {
    return this.listed.cached(this.sha256).thumb;
  }
  get texture() {
    return this.listed.cached(this.sha256).texture;
  }
}

/** No distinct_from: one frozen list shared by every item taken over without one. */
const NONE: string[] = Object.freeze([]) as unknown as string[];

/**
 * An item a change build took from the last build: its thumbnail is read from the build cache
 * on first access only. It is its own `previous` (the digest and thumbnails it was taken with):
 * one object per record, not two.
 */
class ListedItem implements AnalysedItem {
  readonly thumbnails: PepeRecord['thumbnails'];
  readonly file: string;
  /** A field, not a getter: three stages ask every item for it. */
  readonly previous: { digest: string; thumbnails: PepeRecord['thumbnails'] };
  constructor(
    readonly record: PepeRecord,
    private readonly image: ContentFile,
    readonly sha256: string,
    readonly distinctFrom: string[],
    readonly digest: string,
    private readonly listed: ListedFeatures,
    /** The record's rank in the order of the build that wrote the pairs' full list (-1: from a delta). */
    readonly rank: number,
  ) {
    this.thumbnails = record.thumbnails;
    this.previous = this;
    this.file = image.rel;
  }

  /** Made on access: only the items a later stage reads from disk need it. */
  get abs() {
    return this.image.abs;
  }
  get animated() {
    return this.record.animated;
  }
  get thumb() {
    return this.listed.cached(this.sha256).thumb;
  }
  get texture() {
    return this.listed.cached(this.sha256).texture;
  }
}

/**
 * A change build's diff of the scan against the last build's pairs (one pass over the scan, a
 * lookup per pair): each pair whose paths and stat keys are unchanged gets its item from the last build's
 * record; the others are the `misses` to read. Its problems: the last build's that concern no
 * pair read or gone (near-duplicates and unknown distinct_from are checked again over all),
 * and the listing's checks on the pairs read: Windows names, and letter case when a path is new.
 * The last build had no error, so no other pair can have one of those. The pass may start while
 * the content is still listed (`advance`: the pairs whose stat keys are in), and ends with `finish`.
 */
export class TakeOver {
  readonly items: (AnalysedItem | undefined)[];
  private next = 0;
  private taken = 0;
  private seen = 0;
  private newPaths = false;
  private readonly misses: number[] = [];
  private readonly touched = new Set<string>();
  // The ids of the last build's rows not taken over (read again, or gone): every other id of its records is an item's.
  private readonly freed = new Set<string>();
  private readonly freedDigests: string[] = [];

  constructor(
    readonly scan: ContentScan,
    readonly listed: ListedFeatures,
  ) {
    this.items = new Array(scan.pairs.length);
    listed.previous.rows.walk();
  }

  /** Takes the pairs in scan order while `filled(pair)` says their stat keys are in; whether every pair is taken. */
  advance(filled: (pair: number) => boolean = () => true): boolean {
    const { scan, listed, items } = this;
    const { rows } = listed.previous;
    for (; this.next < scan.pairs.length && filled(this.next); this.next++) {
      const index = this.next;
      const pair = scan.pairs[index]!;
      const { image, sidecar } = pair;
      // Compared in the rows' text and numbers: the id is the record's, as the file was read.
      const match = rows.match(pair);
      if (match !== undefined) this.seen++;
      if (match === 'same') {
        const distinctFrom = rows.distinct === '' ? NONE : (JSON.parse(rows.distinct) as string[]);
        items[index] = new ListedItem(rows.record!, image, rows.sha256, distinctFrom, rows.digest, listed, rows.rank);
        this.taken++;
        continue;
      }
      const row = match === undefined ? undefined : rows.current();
      this.misses.push(index);
      this.touched.add(image.rel).add(sidecar.rel);
      const old = row === undefined ? undefined : parsePairRow(row);
      if (old === undefined || old.sidecar !== sidecar.rel) this.newPaths = true;
      if (old === undefined) continue;
      this.touched.add(old.sidecar);
      this.freed.add(old.id);
      this.freedDigests.push(old.digest);
      // An image whose stat is the last build's holds the same bytes: not read again.
      if (match === 'image') listed.knowHash(image.rel, old.sha256);
    }
    return this.next === scan.pairs.length;
  }

  /** Takes the pairs left, and what the pass found; the items taken over count as cache hits in `stats`. */
  finish(stats: AnalyseStats) {
    this.advance();
    const { scan, listed, misses, touched, freed, freedDigests } = this;
    const { rows } = listed.previous;
    stats.images += this.taken;
    stats.cacheHits += this.taken;
    const removed: string[] = [];
    if (this.seen < rows.size) {
      for (const [image, row] of rows.unvisited()) {
        removed.push(image);
        const old = parsePairRow(row);
        touched.add(image).add(old.sidecar);
        freed.add(old.id);
        freedDigests.push(old.digest);
      }
    }
    const missed = misses.map((index) => scan.pairs[index]!);
    const kept = listed.previous.problems.filter((problem) => problem.code !== 'near-duplicate' && problem.code !== 'unknown-distinct-from' && !(problem.file !== undefined && touched.has(problem.file)));
    const names = missed.flatMap((pair) => [pair.image.rel, pair.sidecar.rel]);
    const problems = [...kept, ...(this.newPaths ? caseCollisions(scan, names) : []), ...windowsNameProblems({ pairs: missed, loneSidecars: [] })];
    // An id the last build had and gave an item taken over (ids were distinct then, so no freed
    // row holds it): the rows' text is searched for the first few ids asked (an add asks one),
    // not the records; then a set of the rows' ids is made.
    let asked = 0;
    let rowIds: Set<string> | undefined;
    const taken = (id: string): boolean => {
      if (freed.has(id)) return false;
      if (rowIds === undefined && asked++ < 8) return rows.holdsId(id);
      rowIds ??= rows.ids();
      return rowIds.has(id);
    };
    return { misses, removed, problems, freed, freedDigests, taken };
  }
}

/** A change build's take-over started before the analysis (`TakeOver`), from the last build's pairs (`previous`) and the build cache in `cacheDir`. */
export const takeOverFrom = (scan: ContentScan, previous: PreviousBuild, cacheDir: string): TakeOver => new TakeOver(scan, new ListedFeatures(previous, () => FeatureCache.lookingUp(cacheDir, FEATURE_VERSION)));

/**
 * An analysed item whose thumbnail is read from its features only on access (a cached
 * thumbnail comes from disk, and only duplicate detection needs it). A class, not an object
 * literal with a getter: a rebuild makes one per image, and a literal's getter costs an
 * accessor definition and a closure each.
 */
class Item implements AnalysedItem {
  readonly animated: boolean;
  /** Read analysed, not taken over: an own field, so the items' two classes answer `previous` alike. */
  readonly previous = undefined;
  constructor(
    readonly record: PepeRecord,
    readonly file: string,
    readonly abs: string,
    readonly sha256: string,
    readonly distinctFrom: string[],
    private readonly features: CachedFeatures,
  ) {
    this.animated = features.animated;
  }

  get thumb(): Uint8Array {
    return this.features.thumb;
  }

  get texture(): Uint8Array {
    return this.features.texture;
  }
}

function toItem(pair: ContentPair, sidecar: NormalisedSidecar, hash: string, f: CachedFeatures): AnalysedItem {
  const record: PepeRecord = {
    id: sidecar.id,
    file_ext: f.ext,
    file_size: pair.image.size,
    tags: sidecar.tags,
    description: sidecar.description,
    phash: f.phash,
    created_at: sidecar.created_at,
    updated_at: sidecar.updated_at,
    width: f.width,
    height: f.height,
    blurhash: f.blurhash,
    // Made by the build's renditions stage (renditions.ts), which needs the valid images first.
    thumbnails: [],
    artist: sidecar.artist,
    source_url: sidecar.source_url,
    license: sidecar.license,
    animated: f.animated,
  };
  return new Item(record, pair.image.rel, pair.image.abs, hash, sidecar.distinct_from, f);
}

// Whole-catalogue checks on analysed items (each problem names the file and what to do), and problem order.

/** A valid sidecar whose image is not in the catalogue (refused, or none): its id is still taken. */
export interface UnpublishedSidecar {
  id: string;
  /** Content-relative path of the sidecar. */
  sidecar: string;
}

const sidecarOf = (item: AnalysedItem) => `${item.file.slice(0, item.file.length - extname(item.file).length)}.json`;

/**
 * Two sidecars with one id would publish two images under one URL: both are reported and both
 * left out. Sidecars whose image was refused (truncated, unsupported…) or that have none count
 * too, so the clash is reported in the same run as the image's problem, not after it is fixed.
 */
export function rejectDuplicateIds(items: AnalysedItem[], problems: Problem[], unpublished: readonly UnpublishedSidecar[] = []): AnalysedItem[] {
  // Ids counted first, sidecar names made for clashing ids only: a rebuild checks 10k ids.
  const counts = new Map<string, number>();
  const count = (id: string) => counts.set(id, (counts.get(id) ?? 0) + 1);
  for (const item of items) count(item.record.id);
  for (const other of unpublished) count(other.id);
  const clashing = new Map<string, string[]>();
  for (const [id, n] of counts) if (n > 1) clashing.set(id, []);
  if (clashing.size === 0) return items.slice().sort((a, b) => (a.file < b.file ? -1 : 1));
  for (const item of items) clashing.get(item.record.id)?.push(sidecarOf(item));
  for (const other of unpublished) clashing.get(other.id)?.push(other.sidecar);
  for (const [id, sidecars] of clashing) {
    sidecars.sort();
    problems.push(error('duplicate-id', `id ${id} is used by ${sidecars.join(' and ')}: give all but one of them a new id (e.g. from crypto.randomUUID())`, sidecars[0]));
  }
  return items.filter((item) => !clashing.has(item.record.id)).sort((a, b) => (a.file < b.file ? -1 : 1));
}

/**
 * `rejectDuplicateIds` for a change build: the last build's ids were distinct, so only an id of
 * an item `read` again or of an `unpublished` sidecar can clash, with another of those or with
 * an id `taken` over; only then is every id counted. Otherwise `items` (in scan order) are all valid.
 */
function changedDuplicateIds(items: AnalysedItem[], read: (AnalysedItem | undefined)[], problems: Problem[], unpublished: readonly UnpublishedSidecar[], taken: (id: string) => boolean): AnalysedItem[] {
  const ids = new Set<string>();
  for (const id of [...read.map((item) => item?.record.id), ...unpublished.map((other) => other.id)]) {
    if (id === undefined) continue;
    if (ids.has(id) || taken(id)) return rejectDuplicateIds(items, problems, unpublished);
    ids.add(id);
  }
  return items;
}

/**
 * A `distinct_from` naming no record is probably a typo or a deleted image: worth a warning, not
 * a failure. An id whose image was refused is a record (its own error says what to fix).
 */
export function unknownDistinctFrom(items: AnalysedItem[], otherIds: Iterable<string> = []): Problem[] {
  // Most catalogues list few or no distinct_from: no 10k-id set for them.
  if (!items.some((item) => item.distinctFrom.length > 0)) return [];
  const ids = new Set([...items.map((item) => item.record.id), ...otherIds]);
  return items.flatMap((item) =>
    item.distinctFrom
      .filter((id) => !ids.has(id))
      .map((id) => warning('unknown-distinct-from', `distinct_from lists ${id}, which is no record in the catalogue: remove it or fix the id`, sidecarOf(item))),
  );
}

/** Each record's dates checked (`sidecarDateProblems`): errors for `pepe check`, warnings for build, as near-duplicates are. */
export function dateProblems(items: AnalysedItem[], severity: Problem['severity'], now = Date.now()): Problem[] {
  return items.flatMap((item) => sidecarDateProblems(item.record, sidecarOf(item), severity, now));
}

/**
 * The items' records in `compareRecords` order. A change build's items taken over from the pairs'
 * full list keep their order then (a record's created_at and id are its sort key): they are
 * laid out by their saved rank, and only the others are sorted and merged in by binary search.
 */
export function recordsInOrder(items: readonly AnalysedItem[]): PepeRecord[] {
  let top = -1;
  for (const item of items) if (item instanceof ListedItem && item.rank > top) top = item.rank;
  // Laid out whole first: stores at scattered indexes of an empty array would make it a dictionary.
  const ranked: PepeRecord[] = new Array(top + 1);
  const others: PepeRecord[] = [];
  for (const item of items) {
    if (item instanceof ListedItem && item.rank >= 0) ranked[item.rank] = item.record;
    else others.push(item.record);
  }
  // Past a few, sorting them all is as cheap as merging them in.
  if (others.length * 16 > items.length) return sortedRecords(items.map((item) => item.record));
  // `filter` skips the holes the ranks of the pairs read again or gone left.
  const kept = ranked.filter(() => true);
  const merged: PepeRecord[] = [];
  let from = 0;
  for (const record of sortedRecords(others)) {
    const at = lowerBound(kept.length, (index) => compareRecords(kept[index]!, record) < 0);
    for (; from < at; from++) merged.push(kept[from]!);
    merged.push(record);
  }
  for (; from < kept.length; from++) merged.push(kept[from]!);
  return merged;
}

/** `compareRecords` order, with each timestamp parsed once instead of once per comparison. */
export function sortedRecords(records: PepeRecord[]): PepeRecord[] {
  const keyed = records.map((record) => ({ record, t: Date.parse(record.created_at) }));
  keyed.sort((a, b) => a.t - b.t || compareRecords(a.record, b.record));
  return keyed.map((k) => k.record);
}

export function sortProblems(problems: Problem[]): Problem[] {
  const key = (p: Problem) => `${p.file ?? ''}\u0000${p.code}\u0000${p.message}`;
  return problems.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

