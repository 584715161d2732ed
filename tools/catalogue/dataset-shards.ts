/**
 * The dataset as immutable shards plus a small index, so a change writes what it changes:
 *
 * - the records, oldest first (created_at, ties by id: the catalogue's order), are cut into
 *   content-defined chunks keyed by record id (`contentChunks`, tools/shared): an edit rewrites
 *   the one shard its record is in, an add or removal the shard it falls in and at most one
 *   neighbour; the newest records, whose chunk no boundary has closed yet, are in small pieces,
 *   so an add dated now rewrites the last piece (or starts one);
 * - each shard is `dataset/shards/<sha256>.jsonl` (variant A records, one a line, exactly as the
 *   API serves them) and its images' checksums `dataset/shards/<sha256>.sha256` (`sha256sum -c`
 *   form, paths relative to an export's folder), each named by its own bytes, so a URL never
 *   serves other bytes and untouched shards are byte-identical across builds. The checksums are
 *   a file of their own, not in the index (100 bytes a record would make it grow with the
 *   catalogue) nor named after the JSONL (an image's bytes can change under the same record:
 *   the `image-changed` warning);
 * - `dataset/index.json` lists the shards in order with size, sha256, record count, first and
 *   last id, plus the totals: the one file every change rewrites (~400 bytes a shard). A new
 *   name, not `manifest.json`'s: its shape is new, and an old `pepe export` stops with a 404
 *   naming the file rather than misreading it. URLs in it are relative to it, so a mirror
 *   serves them under its own address.
 *
 * The shards are cut again from the previous build's cut (answer-digests.ts `chunksOf`): a shard
 * made of the same records is kept without being rendered, its files unlisted, its index entry
 * the one saved with the cut.
 */
import { DATASET, type DatasetFile, type DatasetIndex, type DatasetShard } from '../../functions/core/api-limits.js';
import type { ChunkShape } from '../shared/content-chunks.js';
import { sha256Of } from '../shared/manifest.js';
import { type ChunkReuse, chunksOf, keptChunks, rememberChunks } from './cache/answer-digests.js';

/**
 * Records per shard: a boundary on average every 500, a cut at 1,000 (~0.5 MB and ~0.12 MB of
 * checksums at 100k), so an edit or a back-dated add rewrites at most ~0.6 MB: with the manifest
 * delta at its bound (~0.85 MB) such a change stays within 2 MB, which a cut at 2,000 (~1.2 MB)
 * did not. A change also uploads the index (~550 bytes a shard: ~110 KB at 100k, ~1.1 MB at
 * 1M); shard + index is least at a mean of about √(550·N/600): ~300 at 100k, ~1,000 at 1M.
 * The newest records, after the last boundary, are cut in pieces of ~50 (at most 100), folded
 * into one shard when a boundary closes it (as a transparency log's partial tiles): an add dated
 * now rewrites ~30 KB and its checksums rather than a shard of up to 1,000 records, and the
 * index holds ~10 pieces more (~6 KB) at any size.
 */
export const DATASET_SHARD_SHAPE: ChunkShape = { mean: 500, max: 1000, tail: { mean: 50, max: 100 } };

/** Where the shards live, relative to the site root and to the index. */
const SHARDS = 'shards/';
const DATASET_DIR = DATASET.index.slice(1, DATASET.index.lastIndexOf('/') + 1);

export interface DatasetRecord {
  id: string;
  fileName: string;
  /** The record as variant A serves it, one line of JSON (no newline); read only for the shards rendered. */
  line: string;
}

export interface DatasetOptions {
  catalogueVersion: string;
  /** The sha256 of each published image, by file name (`<id><ext>`) and id. */
  imageSha256: (fileName: string, id: string) => string;
  /** Records per shard (default DATASET_SHARD_SHAPE); tests make it small. */
  shape?: ChunkShape;
  /** Shards of the same records as at the previous build are kept (ranks are the records' indexes; paths site-relative). */
  reuse?: ChunkReuse;
}

/** A planned dataset file, site-relative. */
export interface DatasetOutput {
  path: string;
  body: string;
}

/** The records by rank: their ids, and each record when its shard is rendered. */
export interface DatasetSource {
  ids: readonly string[];
  at(rank: number): DatasetRecord;
}

/** The shards, their checksum files and the index, site-relative (no leading slash); `records` in the catalogue's order. */
export function datasetFiles(records: readonly DatasetRecord[], options: DatasetOptions): DatasetOutput[] {
  return shardFiles({ ids: records.map((record) => record.id), at: (rank) => records[rank]! }, options);
}

/** The shards to write (every one, or with `reuse` those not kept), their checksum files and the index. */
export function shardFiles(records: DatasetSource, options: DatasetOptions): DatasetOutput[] {
  const files: DatasetOutput[] = [];
  const named = (body: string, ext: string): DatasetFile => {
    const sha256 = sha256Of(body);
    const url = `${SHARDS}${sha256}${ext}`;
    files.push({ path: `${DATASET_DIR}${url}`, body });
    return { url, size: Buffer.byteLength(body), sha256 };
  };
  const { reuse } = options;
  const { ids } = records;
  const chunks = chunksOf(ids, options.shape ?? DATASET_SHARD_SHAPE, reuse, 'dataset');
  const { ends, same, before } = chunks;
  const kept = before === null ? null : new Uint8Array(before.firsts.length);
  // A record that did not change has the image it had: its sum is in the checksums of the previous shard it was in, one this build does not keep.
  const dirty = before === null ? null : new Set(reuse!.dirty);
  let sums: Map<string, string> | undefined;
  const previousSums = (): Map<string, string> => {
    if (sums !== undefined) return sums;
    sums = new Map();
    const reused = new Set(same);
    for (let k = 0; k < before!.firsts.length; k++) {
      if (reused.has(k)) continue;
      const text = reuse!.read(`site/${DATASET_DIR}${(JSON.parse(before!.extras[k]!) as DatasetShard).image_sha256.url}`)?.toString('utf8') ?? '';
      for (const line of text.split('\n')) if (line.length > 0) sums.set(line.slice(line.indexOf('  images/') + '  images/'.length), line.slice(0, line.indexOf(' ')));
    }
    return sums;
  };
  const shards: DatasetShard[] = [];
  const extras: string[] = [];
  for (let chunk = 0, start = 0; chunk < ends.length; start = ends[chunk]!, chunk++) {
    const k = same[chunk]!;
    if (k >= 0) {
      kept![k] = 1;
      extras.push(before!.extras[k]!);
      shards.push(JSON.parse(before!.extras[k]!) as DatasetShard);
      continue;
    }
    const rows: DatasetRecord[] = [];
    const sums: string[] = [];
    for (let rank = start; rank < ends[chunk]!; rank++) {
      const record = records.at(rank);
      rows.push(record);
      sums.push(`${(dirty?.has(rank) === false ? previousSums().get(record.fileName) : undefined) ?? options.imageSha256(record.fileName, record.id)}  images/${record.fileName}\n`);
    }
    const jsonl = named(rows.map((record) => `${record.line}\n`).join(''), '.jsonl');
    const checksums = named(sums.join(''), '.sha256');
    const shard: DatasetShard = { ...jsonl, count: rows.length, first_id: rows[0]!.id, last_id: rows.at(-1)!.id, image_sha256: checksums };
    extras.push(JSON.stringify(shard));
    shards.push(shard);
  }
  rememberChunks(reuse, 'dataset', ids, chunks, extras);
  if (kept !== null) {
    const filesOf = (k: number) => {
      const shard = JSON.parse(before!.extras[k]!) as DatasetShard;
      return [`site/${DATASET_DIR}${shard.url}`, `site/${DATASET_DIR}${shard.image_sha256.url}`];
    };
    reuse!.keep(keptChunks(before!, kept, `site/${DATASET_DIR}${SHARDS}`, 2, filesOf));
  }
  const index: DatasetIndex = { count: ids.length, catalogue_version: options.catalogueVersion, size: shards.reduce((sum, shard) => sum + shard.size, 0), shards };
  files.push({ path: DATASET.index.slice(1), body: `${JSON.stringify(index, null, 1)}\n` });
  return files;
}
