/**
 * The build's renditions stage: every valid image → its WebP renditions (tools/image/renditions.ts),
 * encoded once per image content and encoder settings, kept in the build cache. An image the
 * analysis decodes is encoded from that decode, beside the analysis (`openRenditions`); the
 * others come from the cache or are decoded again after it:
 *
 *   `<cache>/renditions.bin`           encoder key + source sha256 → [{width, height, sha256, size}]
 *   `<cache>/renditions/<sha256>.webp`  the bytes, named by their own hash
 *
 * A rebuild with nothing changed encodes nothing; one that runs reads each reused rendition it
 * links into the output to check its bytes against its hash (`verified`); an added image
 * encodes its own only. A changed encoder or setting (renditionEncoderKey) re-encodes all.
 * In the output each rendition is `images/<id>-<width>w-<hash16>.webp`: the name carries the
 * hash of the bytes, so a URL never serves other bytes (the specification, immutable images).
 * Renditions of images no build used for RETIRED_KEEP_MS are deleted (as cache/feature-cache.ts
 * keeps features: a branch switched away from and back to must not re-encode).
 */
import { lstatSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { PepeRecord } from '../../functions/core/record.js';
import { configureSharpForBatch } from '../image/decode.js';
import { encodeRenditions, type RenditionInput, type RenditionSettings, RENDITION_SETTINGS, renditionEncoderKey, renditionWidths } from '../image/renditions.js';
import { sha256Of } from '../shared/manifest.js';
import { makeFolders } from '../shared/make-folders.js';
import { error, type Problem } from '../shared/problems.js';
import { readRegularFile } from '../shared/read-regular-file.js';
import { replaceFile } from '../shared/replace-file.js';
import { cacheMemo } from './cache/memo.js';
import { cacheFrames, CacheLog, frameDocument } from './cache/cache-log.js';
import { readContentFileSync } from './scan-content.js';
import type { PlannedFile } from './write-output.js';

export const RENDITIONS_INDEX = 'renditions.bin';
/** The index's former file, one JSON document: read when there is no renditions.bin, so that an upgrade encodes nothing again. */
const LEGACY_INDEX = cacheMemo('renditions.json', (value): value is Partial<IndexJson> => typeof value === 'object' && value !== null);
/** Deltas are appended while they weigh less than this or half the base document (as build-cache.bin's: cache/feature-cache.ts). */
const LOG_FLOOR_BYTES = 64 * 1024;
const RENDITIONS_DIR = 'renditions';
const RENDITION_TYPE = 'image/webp';
/** Renditions of an image no build used are kept this long (see cache/feature-cache.ts, RETIRED_KEEP_MS). */
const RETIRED_KEEP_MS = 30 * 24 * 60 * 60 * 1000;

/** One rendition in the cache. */
export interface RenditionEntry {
  width: number;
  height: number;
  sha256: string;
  size: number;
}

interface SourceRow {
  files: RenditionEntry[];
  /** When a build first found this image unused (ms); absent while used. */
  unusedSince?: number;
}

interface IndexJson {
  encoder: string;
  sources: Record<string, SourceRow>;
}

/** The rows one build changed (null: dropped), appended after the base document. */
interface IndexDelta {
  sources: Record<string, SourceRow | null>;
}


/** What the stage needs of an analysed image. */
export interface RenditionSource {
  sha256: string;
  /** Content-relative path, for problems. */
  file: string;
  abs: string;
  width: number;
  animated: boolean;
}

export interface RenditionRun {
  /** Images whose renditions were encoded by this build. */
  encoded: number;
  /** Of those, encoded during the analysis, from the bytes and pixels it had read and decoded. */
  duringAnalysis: number;
  /** Images whose renditions came from the cache. */
  reused: number;
  /** The stage after the analysis (encodes started by the analysis run beside it, and are not in it). */
  ms: number;
}

export interface RenditionsResult {
  /** Source sha256 → its renditions, smallest first. */
  bySource: Map<string, RenditionEntry[]>;
  problems: Problem[];
  run: RenditionRun;
}

export interface RenditionsOptions {
  cacheDir: string;
  limits: { maxFileBytes: number; maxPixels: number; timeoutMs: number };
  /** Images encoded at once (sharp runs each on one libuv thread). */
  concurrency?: number;
  settings?: RenditionSettings;
  /** Clock for the retirement of unused renditions (tests). */
  now?: number;
}

/** The folder of the cached rendition files. */
export const renditionFolder = (cacheDir: string): string => join(cacheDir, RENDITIONS_DIR);
const cacheFileName = (sha256: string) => `${sha256}.webp`;
/** A cached rendition's path in `folder` (renditionFolder's): joined by hand, since a path.join per file adds up over a catalogue. */
const cacheFileIn = (folder: string, sha256: string): string => `${folder}${sep}${cacheFileName(sha256)}`;
export const renditionCacheFile = (cacheDir: string, sha256: string): string => cacheFileIn(renditionFolder(cacheDir), sha256);

/** The output file name of a rendition of record `id`. */
export const renditionFileName = (id: string, entry: RenditionEntry): string => `${id}-${entry.width}w-${entry.sha256.slice(0, 16)}.webp`;

/** A record's `thumbnails` from its image's renditions. */
export function thumbnailsOf(id: string, entries: readonly RenditionEntry[]): PepeRecord['thumbnails'] {
  return entries.map((entry) => ({ file_name: renditionFileName(id, entry), width: entry.width, height: entry.height, type: RENDITION_TYPE }));
}

/** The output files of a record's renditions (linked from the cache: write-output.ts); `folder` is renditionFolder's, worked out once per build. */
export function renditionFiles(folder: string, id: string, entries: readonly RenditionEntry[]): PlannedFile[] {
  return entries.map((entry) => ({ path: `site/images/${renditionFileName(id, entry)}`, sha256: entry.sha256, size: entry.size, linkFrom: cacheFileIn(folder, entry.sha256) }));
}


const sourcesOf = (json: Partial<IndexJson> | null, encoder: string): Map<string, SourceRow> | undefined =>
  json === null || json.encoder !== encoder || typeof json.sources !== 'object' || json.sources === null ? undefined : new Map(Object.entries(json.sources));

/** Rows looked up in the unparsed base document before it is parsed whole instead. */
const BASE_LOOKUPS = 64;

/**
 * The index, read as little as a build needs: a change build looks up the rows of the few
 * images it read, each found by its key's bytes in the base document (`"<sha256>":` occurs once
 * there: a rendition's own sha256 is a value) and parsed alone; the deltas after the base are
 * small and parsed whole. `all()` parses everything, for a save that rewrites the file, for
 * the retirement of unused rows, and past BASE_LOOKUPS lookups (a build that reads every image).
 */
class RenditionIndex {
  /** Rows looked up, set or dropped (null) this build; every row once `all()` has run. */
  private known = new Map<string, SourceRow | null>();
  private complete: boolean;
  /** The base document did not parse: the file is rewritten at the next save. */
  corrupt = false;
  private lookups = 0;

  constructor(
    /** The file's bytes and where its base document lies, when it is read lazily. */
    private readonly lazy: { bytes: Buffer; start: number; end: number; deltaRows: Map<string, SourceRow | null> } | null,
    rows: Map<string, SourceRow> = new Map(),
  ) {
    this.complete = lazy === null;
    if (lazy === null) this.known = rows;
  }

  get(sha: string): SourceRow | undefined {
    // Each lookup scans the base document: past a few, one parse of it is cheaper.
    if (!this.complete && !this.known.has(sha) && ++this.lookups > BASE_LOOKUPS) this.all();
    if (this.complete || this.known.has(sha)) return this.known.get(sha) ?? undefined;
    const { deltaRows } = this.lazy!;
    const row = deltaRows.has(sha) ? deltaRows.get(sha)! : this.fromBase(sha);
    this.known.set(sha, row);
    return row ?? undefined;
  }

  set(sha: string, row: SourceRow): void {
    this.known.set(sha, row);
  }

  /** Every row (parsing the whole file once, when read lazily). */
  all(): Map<string, SourceRow> {
    if (!this.complete) {
      const { bytes, start, end, deltaRows } = this.lazy!;
      let rows: Map<string, SourceRow>;
      try {
        rows = new Map(Object.entries((JSON.parse(bytes.toString('utf8', start, end)) as IndexJson).sources));
      } catch {
        rows = new Map();
        this.corrupt = true;
      }
      for (const changes of [deltaRows, this.known]) for (const [sha, row] of changes) row === null ? rows.delete(sha) : rows.set(sha, row);
      this.known = rows;
      this.complete = true;
    }
    return this.known as Map<string, SourceRow>;
  }

  /** The row of `sha` in the base document, or null. */
  private fromBase(sha: string): SourceRow | null {
    const { bytes, start, end } = this.lazy!;
    const key = Buffer.from(`"${sha}":`);
    const at = bytes.indexOf(key, start);
    if (at < 0 || at + key.length >= end) return null;
    // A row's text holds no braces but its own (keys, hex and numbers).
    const from = at + key.length;
    let depth = 0;
    for (let i = from; i < end; i++) {
      const byte = bytes[i];
      if (byte === 0x7b) depth++;
      else if (byte === 0x7d && --depth === 0) {
        try {
          return JSON.parse(bytes.toString('utf8', from, i + 1)) as SourceRow;
        } catch {
          return null;
        }
      }
    }
    return null;
  }
}

/**
 * The index: a base document, then the deltas later builds appended (cache-log.ts framing, as
 * build-cache.bin): one added image appends a few hundred bytes instead of rewriting the whole
 * index. Another encoder's index, a torn tail or a corrupt file is rewritten whole at the next
 * save; what is unreadable reads as no index. The base is looked into lazily (`RenditionIndex`)
 * when it is this encoder's, as this module writes it.
 */
async function loadIndex(cacheDir: string, encoder: string, log: CacheLog): Promise<RenditionIndex> {
  const bytes = await readRegularFile(join(cacheDir, RENDITIONS_INDEX)).catch(() => null);
  const framed = bytes === null ? null : cacheFrames(bytes);
  if (framed === null || framed.frames.length === 0) {
    return new RenditionIndex(null, sourcesOf(await LEGACY_INDEX.load(cacheDir), encoder));
  }
  const [[start, end], ...later] = framed.frames as [[number, number], ...[number, number][]];
  const head = Buffer.from(`{"encoder":${JSON.stringify(encoder)},"sources":{`);
  const ours = end - start >= head.length + 2 && bytes!.subarray(start, start + head.length).equals(head);
  if (!ours) return new RenditionIndex(null);
  const deltaRows = new Map<string, SourceRow | null>();
  // The deltas up to the first that does not parse (a torn tail): the next save rewrites the file.
  let validBytes = end;
  for (const [from, to] of later) {
    let delta: IndexDelta;
    try {
      delta = JSON.parse(bytes!.toString('utf8', from, to)) as IndexDelta;
    } catch {
      break;
    }
    try {
      for (const [sha, row] of Object.entries(delta.sources)) deltaRows.set(sha, row);
    } catch {
      // Valid JSON of the wrong shape: as corrupt as invalid JSON.
      return new RenditionIndex(null);
    }
    validBytes = to;
  }
  log.loaded({ documents: [], validBytes, baseBytes: end }, bytes!.length);
  return new RenditionIndex({ bytes: bytes!, start, end, deltaRows });
}

/** Cached files looked for one by one before the folder is listed instead (a change build looks for a few). */
const SINGLE_LOOKUPS = 256;

/**
 * Whether a file is in the cache's folder: a stat each for the first SINGLE_LOOKUPS, then the
 * folder listed once (cheaper than a stat per cached file for a whole catalogue). A file's name
 * is its hash and it is only ever written whole (replaceFile), so being there is enough.
 */
function cachedFiles(cacheDir: string): (name: string) => boolean {
  const folder = renditionFolder(cacheDir);
  let lookups = 0;
  let names: Set<string> | undefined;
  return (name) => {
    if (names === undefined && ++lookups <= SINGLE_LOOKUPS) return lstatSync(`${folder}${sep}${name}`, { throwIfNoEntry: false })?.isFile() === true;
    if (names === undefined) {
      try {
        names = new Set(readdirSync(folder, { withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name));
      } catch {
        names = new Set();
      }
    }
    return names.has(name);
  };
}

/** Every cached file of the row is there (a cache folder cleaned by hand re-encodes, never copies a missing file). */
function intact(present: (name: string) => boolean, row: SourceRow, expectedCount: number): boolean {
  if (!Array.isArray(row.files) || row.files.length !== expectedCount) return false;
  return row.files.every((entry) => present(cacheFileName(entry.sha256)));
}

/**
 * Every file of a reused row still holds the bytes its name and row promise (size, sha256):
 * the cache is restored from places a build does not control (CI caches), and a file swapped
 * there would otherwise be linked into the output under a name that claims other bytes.
 */
/** Whether the output already holds a rendition's bytes under every name the build gives it. */
export type InOutput = (sourceSha: string, entry: RenditionEntry) => boolean;

function verified(cacheDir: string, sourceSha: string, row: SourceRow, inOutput: InOutput): boolean {
  return row.files.every((entry) => {
    if (inOutput(sourceSha, entry)) return true;
    try {
      const bytes = readFileSync(renditionCacheFile(cacheDir, entry.sha256));
      return bytes.length === entry.size && sha256Of(bytes) === entry.sha256;
    } catch {
      return false;
    }
  });
}

/** An image the analysis has just decoded (analyse-image-file.ts), with its pixels. */
export interface DecodedSource extends RenditionInput {
  sha256: string;
}

/**
 * One build's renditions: opened before the analysis, which hands over each image it decodes
 * (`fromDecoded`: its renditions are reduced from the pixels already in memory, while the
 * analysis goes on with other images); finished after it (`finish`), which takes the rest from
 * the cache or encodes them from their bytes.
 */
export interface RenditionsRun {
  fromDecoded(source: DecodedSource): Promise<void>;
  /**
   * The renditions of every source: as makeRenditions. `inOutput` says when the output already
   * holds a rendition's bytes under every name the build gives it: it is not linked again, so
   * its cache file need not be read to be trusted. Asked for only when a reused row has files
   * (it may read the previous manifest). `complete`: the sources are every image the catalogue
   * has, so rows none of them uses are retired (a change build gives only the images it read).
   */
  finish(sources: readonly RenditionSource[], inOutput?: () => Promise<InOutput>, complete?: boolean): Promise<RenditionsResult>;
  /** Saves what was encoded, for a build that stops before `finish` (errors in the content). */
  keep(): Promise<void>;
}

export async function openRenditions(options: RenditionsOptions): Promise<RenditionsRun> {
  const settings = options.settings ?? RENDITION_SETTINGS;
  const { cacheDir } = options;
  const encoder = renditionEncoderKey(settings);
  const log = new CacheLog(LOG_FLOOR_BYTES);
  const index = await loadIndex(cacheDir, encoder, log);
  const limits = { maxPixels: options.limits.maxPixels, timeoutMs: options.limits.timeoutMs };
  const inFlight = new Map<string, Promise<RenditionEntry[]>>();
  let folder: Promise<void> | undefined;
  /** Sources whose row this build added, changed or dropped. */
  const dirty = new Set<string>();
  let encoded = 0;
  let duringAnalysis = 0;
  const present = cachedFiles(cacheDir);
  const cachedRow = (sha: string, width: number): SourceRow | undefined => {
    const row = index.get(sha);
    return row && intact(present, row, renditionWidths(width, settings).length) ? row : undefined;
  };
  /** Encodes one image's renditions into the cache (once per sha256, however often asked). */
  const encode = (sha: string, input: RenditionInput): Promise<RenditionEntry[]> => {
    let job = inFlight.get(sha);
    if (!job) {
      job = (async () => {
        const files: RenditionEntry[] = [];
        for (const rendition of await encodeRenditions(input, limits, settings)) {
          await (folder ??= makeFolders(renditionFolder(cacheDir)).then(() => undefined));
          const entry = { width: rendition.width, height: rendition.height, sha256: sha256Of(rendition.bytes), size: rendition.bytes.length };
          await replaceFile(renditionCacheFile(cacheDir, entry.sha256), rendition.bytes);
          files.push(entry);
        }
        index.set(sha, { files });
        dirty.add(sha);
        encoded++;
        return files;
      })();
      inFlight.set(sha, job);
    }
    return job;
  };
  const save = async () => {
    // Also the images the analysis decoded that are no source (no sidecar…): their files are written.
    await Promise.all(inFlight.values());
    if (dirty.size === 0) return;
    const file = join(cacheDir, RENDITIONS_INDEX);
    if (log.appends && !index.corrupt) {
      const delta: IndexDelta = { sources: Object.fromEntries([...dirty].sort().map((sha) => [sha, index.get(sha) ?? null])) };
      const frame = frameDocument(delta, false);
      await appendFile(file, frame);
      log.appended(frame.length);
    } else {
      const sources = Object.fromEntries([...index.all()].sort(([a], [b]) => (a < b ? -1 : 1)));
      const frame = frameDocument({ encoder, sources } satisfies IndexJson, true);
      await replaceFile(file, frame);
      log.rewritten(frame.length);
      rmSync(join(cacheDir, LEGACY_INDEX.file), { force: true });
    }
    dirty.clear();
  };
  return {
    async fromDecoded(source) {
      if (inFlight.has(source.sha256) || cachedRow(source.sha256, source.width)) return;
      duringAnalysis++;
      await encode(source.sha256, source);
    },
    keep: save,
    async finish(sources, outputCheck = async () => () => false, complete = true) {
      const started = performance.now();
      let inOutput: InOutput | undefined;
      const bySource = new Map<string, RenditionEntry[]>();
      const problems: Problem[] = [];
      let reused = 0;
      const missing: RenditionSource[] = [];
      for (const source of sources) {
        if (bySource.has(source.sha256)) continue;
        const made = inFlight.get(source.sha256);
        const row = made ? undefined : cachedRow(source.sha256, source.width);
        if (made) bySource.set(source.sha256, await made);
        else if (row && verified(cacheDir, source.sha256, row, row.files.length === 0 ? () => true : (inOutput ??= await outputCheck()))) {
          bySource.set(source.sha256, row.files);
          reused++;
          if (row.unusedSince !== undefined) {
            delete row.unusedSince;
            dirty.add(source.sha256);
          }
        } else {
          bySource.set(source.sha256, []);
          missing.push(source);
        }
      }
      if (missing.length > 0) {
        const restoreSharp = await configureSharpForBatch();
        let next = 0;
        const encodeNext = async (): Promise<void> => {
          while (next < missing.length) {
            const source = missing[next++]!;
            const read = readSource(source, options.limits.maxFileBytes);
            if ('problem' in read) {
              problems.push(read.problem);
              bySource.delete(source.sha256);
              continue;
            }
            bySource.set(source.sha256, await encode(source.sha256, { bytes: read.bytes, width: source.width, animated: source.animated }));
          }
        };
        try {
          await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, encodeNext));
        } finally {
          restoreSharp();
        }
      }
      if (complete) retireUnused(index.all(), bySource, dirty, cacheDir, options.now ?? Date.now());
      await save();
      return { bySource, problems, run: { encoded, duringAnalysis, reused, ms: performance.now() - started } };
    },
  };
}

/**
 * The renditions of every source, encoding those the cache does not hold. A source that cannot
 * be read again, or whose bytes changed since the analysis, is a problem naming it.
 */
export async function makeRenditions(sources: readonly RenditionSource[], options: RenditionsOptions): Promise<RenditionsResult> {
  return (await openRenditions(options)).finish(sources);
}

/**
 * Marks the rows no source of this build used, and drops those unused for RETIRED_KEEP_MS with
 * their files (unless a kept row names the same bytes). Rows it changes are added to `dirty`.
 */
function retireUnused(index: Map<string, SourceRow>, used: Map<string, RenditionEntry[]>, dirty: Set<string>, cacheDir: string, now: number): void {
  const dropped: RenditionEntry[] = [];
  for (const [key, row] of index) {
    if (used.has(key)) continue;
    if (row.unusedSince === undefined) {
      row.unusedSince = now;
      dirty.add(key);
    } else if (now - row.unusedSince > RETIRED_KEEP_MS) {
      index.delete(key);
      dropped.push(...row.files);
      dirty.add(key);
    }
  }
  if (dropped.length > 0) {
    const kept = new Set([...index.values()].flatMap((row) => row.files.map((entry) => entry.sha256)));
    for (const entry of dropped) if (!kept.has(entry.sha256)) rmSync(renditionCacheFile(cacheDir, entry.sha256), { force: true });
  }
}

/** The source's bytes, read again (the analysis may have answered from its cache without reading them), checked against its hash. */
function readSource(source: RenditionSource, maxBytes: number): { bytes: Buffer } | { problem: Problem } {
  const changed = error('changed-during-build', 'changed while the build ran: run the build again', source.file);
  let read;
  try {
    read = readContentFileSync(source.abs, maxBytes);
  } catch {
    return { problem: changed };
  }
  if (!read.ok || sha256Of(read.bytes) !== source.sha256) return { problem: changed };
  return { bytes: read.bytes };
}
