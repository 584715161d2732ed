/**
 * The build's renditions stage: every valid image → its WebP renditions (tools/image/renditions.ts),
 * encoded once per image content and encoder settings, kept in the build cache:
 *
 *   `<cache>/renditions.json`          encoder key + source sha256 → [{width, height, sha256, size}]
 *   `<cache>/renditions/<sha256>.webp`  the bytes, named by their own hash
 *
 * A rebuild with nothing changed encodes nothing and reads no rendition; an added image encodes
 * its own renditions only. A changed encoder or setting (renditionEncoderKey) re-encodes all.
 * In the output each rendition is `images/<id>-<width>w-<hash16>.webp`: the name carries the
 * hash of the bytes, so a URL never serves other bytes (api-behaviour.md, immutable images).
 * Renditions of images no build used for RETIRED_KEEP_MS are deleted (as feature-cache.ts keeps
 * features: a branch switched away from and back to must not re-encode).
 */
import { createHash } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { PepeRecord } from '../../functions/core/record.js';
import { configureSharpForBatch } from '../image/decode.js';
import { encodeRenditions, type RenditionSettings, RENDITION_SETTINGS, renditionEncoderKey, renditionWidths } from '../image/renditions.js';
import { makeFolders } from '../shared/make-folders.js';
import { error, type Problem } from '../shared/problems.js';
import { replaceFile } from '../shared/replace-file.js';
import { readCacheJson } from './cache-files.js';
import { readContentFileSync } from './scan-content.js';
import type { PlannedFile } from './write-output.js';

export const RENDITIONS_INDEX = 'renditions.json';
const RENDITIONS_DIR = 'renditions';
const RENDITION_TYPE = 'image/webp';
/** Renditions of an image no build used are kept this long (see feature-cache.ts, RETIRED_KEEP_MS). */
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
  /** Images whose renditions came from the cache. */
  reused: number;
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
  limits: { maxFileBytes: number; maxPixels: number };
  /** Images encoded at once (sharp runs each on one libuv thread). */
  concurrency?: number;
  settings?: RenditionSettings;
  /** Clock for the retirement of unused renditions (tests). */
  now?: number;
}

export const renditionCacheFile = (cacheDir: string, sha256: string): string => join(cacheDir, RENDITIONS_DIR, `${sha256}.webp`);

/** The output file name of a rendition of record `id`. */
export const renditionFileName = (id: string, entry: RenditionEntry): string => `${id}-${entry.width}w-${entry.sha256.slice(0, 16)}.webp`;

/** A record's `thumbnails` from its image's renditions. */
export function thumbnailsOf(id: string, entries: readonly RenditionEntry[]): PepeRecord['thumbnails'] {
  return entries.map((entry) => ({ file_name: renditionFileName(id, entry), width: entry.width, height: entry.height, type: RENDITION_TYPE }));
}

/** The output files of a record's renditions (linked from the cache: write-output.ts). */
export function renditionFiles(cacheDir: string, id: string, entries: readonly RenditionEntry[]): PlannedFile[] {
  return entries.map((entry) => ({ path: `site/images/${renditionFileName(id, entry)}`, sha256: entry.sha256, size: entry.size, linkFrom: renditionCacheFile(cacheDir, entry.sha256) }));
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

async function loadIndex(cacheDir: string, encoder: string): Promise<Map<string, SourceRow>> {
  const json = (await readCacheJson(join(cacheDir, RENDITIONS_INDEX))) as Partial<IndexJson> | null;
  if (json === null || json.encoder !== encoder || typeof json.sources !== 'object' || json.sources === null) return new Map();
  return new Map(Object.entries(json.sources));
}

/** Every cached file of the row is there with its size (a cache folder cleaned by hand re-encodes, never copies a missing file). */
function intact(cacheDir: string, row: SourceRow, expectedCount: number): boolean {
  if (!Array.isArray(row.files) || row.files.length !== expectedCount) return false;
  return row.files.every((entry) => statSync(renditionCacheFile(cacheDir, entry.sha256), { throwIfNoEntry: false })?.size === entry.size);
}

/**
 * The renditions of every source, encoding those the cache does not hold. A source that cannot
 * be read again, or whose bytes changed since the analysis, is a problem naming it.
 */
export async function makeRenditions(sources: readonly RenditionSource[], options: RenditionsOptions): Promise<RenditionsResult> {
  const started = performance.now();
  const settings = options.settings ?? RENDITION_SETTINGS;
  const { cacheDir } = options;
  const encoder = renditionEncoderKey(settings);
  const index = await loadIndex(cacheDir, encoder);
  const bySource = new Map<string, RenditionEntry[]>();
  const problems: Problem[] = [];
  let changed = false;
  let reused = 0;
  let encoded = 0;
  const missing: RenditionSource[] = [];
  for (const source of sources) {
    if (bySource.has(source.sha256)) continue;
    const row = index.get(source.sha256);
    if (row && intact(cacheDir, row, renditionWidths(source.width, settings).length)) {
      bySource.set(source.sha256, row.files);
      reused++;
      if (row.unusedSince !== undefined) {
        delete row.unusedSince;
        changed = true;
      }
    } else {
      bySource.set(source.sha256, []);
      missing.push(source);
    }
  }
  if (missing.length > 0) {
    await makeFolders(join(cacheDir, RENDITIONS_DIR));
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
        const files: RenditionEntry[] = [];
        for (const rendition of await encodeRenditions(read.bytes, source, options.limits, settings)) {
          const entry = { width: rendition.width, height: rendition.height, sha256: sha256(rendition.bytes), size: rendition.bytes.length };
          await replaceFile(renditionCacheFile(cacheDir, entry.sha256), rendition.bytes);
          files.push(entry);
        }
        bySource.set(source.sha256, files);
        encoded++;
        index.set(source.sha256, { files });
        changed = true;
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, encodeNext));
    } finally {
      restoreSharp();
    }
  }
  changed = retireUnused(index, bySource, cacheDir, options.now ?? Date.now()) || changed;
  if (changed) {
    const sources = Object.fromEntries([...index].sort(([a], [b]) => (a < b ? -1 : 1)));
    await replaceFile(join(cacheDir, RENDITIONS_INDEX), JSON.stringify({ encoder, sources } satisfies IndexJson));
  }
  return { bySource, problems, run: { encoded, reused, ms: performance.now() - started } };
}

/**
 * Marks the rows no source of this build used, and drops those unused for RETIRED_KEEP_MS with
 * their files (unless a kept row names the same bytes). True when the index changed.
 */
function retireUnused(index: Map<string, SourceRow>, used: Map<string, RenditionEntry[]>, cacheDir: string, now: number): boolean {
  let changed = false;
  const dropped: RenditionEntry[] = [];
  for (const [key, row] of index) {
    if (used.has(key)) continue;
    if (row.unusedSince === undefined) {
      row.unusedSince = now;
      changed = true;
    } else if (now - row.unusedSince > RETIRED_KEEP_MS) {
      index.delete(key);
      dropped.push(...row.files);
      changed = true;
    }
  }
  if (dropped.length > 0) {
    const kept = new Set([...index.values()].flatMap((row) => row.files.map((entry) => entry.sha256)));
    for (const entry of dropped) if (!kept.has(entry.sha256)) rmSync(renditionCacheFile(cacheDir, entry.sha256), { force: true });
  }
  return changed;
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
  if (!read.ok || sha256(read.bytes) !== source.sha256) return { problem: changed };
  return { bytes: read.bytes };
}
