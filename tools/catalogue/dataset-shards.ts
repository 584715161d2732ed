/**
 * The dataset as immutable shards plus a small index, so a change writes what it changes:
 *
 * - the records, oldest first (created_at, ties by id: the catalogue's order), are cut into
 *   content-defined chunks keyed by record id (`contentChunks`, tools/shared): an edit rewrites
 *   the one shard its record is in, an add of the newest record the last shard;
 * - each shard is `dataset/shards/<sha256>.jsonl` (variant A records, one a line) and its
 *   images' checksums `dataset/shards/<sha256>.sha256` (`sha256sum -c` form), each named by its
 *   own bytes, so a URL never serves other bytes and untouched shards are byte-identical;
 * - `dataset/index.json` lists the shards in order with size, sha256, record count, first and
 *   last id, plus the totals: the one file every change rewrites (about 400 bytes a shard).
 */
import { DATASET, type DatasetFile, type DatasetIndex, type DatasetShard } from '../../functions/core/api-limits.js';
import { type ChunkShape, contentChunks } from '../shared/content-chunks.js';
import { sha256Of } from '../shared/manifest.js';

/**
 * Records per shard: about 1,000 on average (~0.55 MB at ~550 bytes a record), never more
 * than 2,000 (~1.1 MB), so an edit rewrites about a megabyte and a million records make an
 * index of a few hundred KB.
 */
export const DATASET_SHARD_SHAPE: ChunkShape = { mean: 1000, max: 2000 };

/** Where the shards live, relative to the site root and to the index. */
const SHARDS = 'shards/';
const DATASET_DIR = DATASET.index.slice(1, DATASET.index.lastIndexOf('/') + 1);

export interface DatasetRecord {
  id: string;
  fileName: string;
  /** The record as variant A serves it, one line of JSON (no newline). */
  line: string;
}

export interface DatasetOptions {
  catalogueVersion: string;
  /** The sha256 of each published image, by file name (`<id><ext>`). */
  imageSha256: (fileName: string) => string;
  /** Records per shard (default DATASET_SHARD_SHAPE); tests make it small. */
  shape?: ChunkShape;
}

/** The shards, their checksum files and the index, site-relative (no leading slash); `records` in the catalogue's order. */
export function datasetFiles(records: readonly DatasetRecord[], options: DatasetOptions): { path: string; body: string }[] {
  const files: { path: string; body: string }[] = [];
  const named = (body: string, ext: string): DatasetFile => {
    const sha256 = sha256Of(body);
    const url = `${SHARDS}${sha256}${ext}`;
    files.push({ path: `${DATASET_DIR}${url}`, body });
    return { url, size: Buffer.byteLength(body), sha256 };
  };
  const shards: DatasetShard[] = contentChunks(records, (record) => record.id, options.shape ?? DATASET_SHARD_SHAPE).map((chunk) => {
    const jsonl = named(chunk.map((record) => `${record.line}\n`).join(''), '.jsonl');
    const sums = named(chunk.map((record) => `${options.imageSha256(record.fileName)}  images/${record.fileName}\n`).join(''), '.sha256');
    return { ...jsonl, count: chunk.length, first_id: chunk[0]!.id, last_id: chunk.at(-1)!.id, image_sha256: sums };
  });
  const index: DatasetIndex = { count: records.length, catalogue_version: options.catalogueVersion, size: shards.reduce((sum, shard) => sum + shard.size, 0), shards };
  files.push({ path: DATASET.index.slice(1), body: `${JSON.stringify(index, null, 1)}\n` });
  return files;
}
