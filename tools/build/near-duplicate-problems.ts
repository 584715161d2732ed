/**
 * Near-duplicate pairs as problems: warnings in `pepe build`, errors in `pepe check`.
 * A pair acknowledged by either sidecar's `distinct_from` is never reported.
 *
 * The pairs are cached (`near-duplicates.json` in the build cache) under a key made of every
 * input of the detection — each item's id, file, phash, image sha256 (which fixes its
 * thumbnail), size and distinct_from, plus the detection code itself — so a rebuild with
 * nothing changed neither searches nor reads thumbnails.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import { type DupePair, findNearDuplicates } from '../dupes/near-duplicates.js';
import type { AnalysedItem } from './analyse-content.js';
import type { Problem } from './problems.js';

const DUPES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'dupes');
const CACHE_FILE = 'near-duplicates.json';

export function dupeItems(items: AnalysedItem[]) {
  return items.map((item) => ({
    id: item.record.id,
    file: item.file,
    phash: item.record.phash,
    // A getter: cached thumbnails are read from disk only if the detector needs them.
    get thumb() {
      return item.thumb;
    },
    width: item.record.width,
    height: item.record.height,
    distinctFrom: item.distinctFrom,
  }));
}

async function inputsKey(items: AnalysedItem[]): Promise<string> {
  const hash = createHash('sha256');
  for (const path of (await fg('*.ts', { cwd: DUPES_DIR, ignore: ['*.test.ts'] })).sort()) hash.update(path).update(await readFile(join(DUPES_DIR, path)));
  for (const item of [...items].sort((a, b) => (a.file < b.file ? -1 : 1))) {
    hash.update(`\n${item.record.id} ${item.file} ${item.record.phash} ${item.sha256} ${item.record.width}x${item.record.height} ${item.distinctFrom.join(',')}`);
  }
  return hash.digest('hex');
}

/** The detector's pairs, from the cache when its inputs are unchanged. `writeCache: false` only reads (`pepe check`). */
export async function nearDuplicatePairs(items: AnalysedItem[], cache?: { dir: string; write: boolean }): Promise<DupePair[]> {
  if (!cache) return findNearDuplicates(dupeItems(items));
  const key = await inputsKey(items);
  const file = join(cache.dir, CACHE_FILE);
  const cached = await readFile(file, 'utf8').then((text) => JSON.parse(text) as { key: string; pairs: DupePair[] }, () => null);
  if (cached?.key === key) return cached.pairs;
  const pairs = findNearDuplicates(dupeItems(items));
  if (cache.write) {
    await mkdir(cache.dir, { recursive: true });
    await writeFile(file, JSON.stringify({ key, pairs }));
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
