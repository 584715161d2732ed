/**
 * Near-duplicate detection: accuracy on look-alike cartoons and speed on 100k hashes.
 *
 * Accuracy: N distinct frog variants (drawn by tools/sample, many differing in one detail)
 * plus a planted copy of every 5th one (JPEG q40/60/85, WebP q75, brightness +15%, resized
 * to 50%, 62.5%, 75%, 90% or 150%), all analysed by the real analyseImage. Recall = planted
 * pairs found; false pairs = any other reported pair, per 1,000 images. Besides, every 5th
 * variant is resized at every scale and each copy checked against its original alone, for
 * recall per scale on more copies than the cycle plants. Speed: findNearDuplicates on 100k synthetic
 * hashes vs the all-pairs loop on the same smaller n, in the same run.
 */
import { analyseImage } from '../image/analyse-image.js';
import { CONFIRM_DEFAULTS, DEFAULT_PHASH_THRESHOLD, findNearDuplicates, type DupeItem } from '../dupes/near-duplicates.js';
import { type Hash64, pairsWithinDistance, pairsWithinDistanceBruteForce, parseHash } from '../dupes/multi-index.js';
import { thumbDifference } from '../dupes/thumb-compare.js';
import { renderFrog } from '../sample/draw-frog.js';
import { frogVariations } from '../sample/frog-variations.js';
import type { FrogParams } from '../sample/frog-params.js';
import { COPY_TRANSFORMS, RESIZE_SCALES, plantedCopy, resizedCopy, type CopyTransform } from '../sample/planted-copies.js';
import { seededRandom } from '../shared/seeded-random.js';
import { type Bench, type BenchContext, round } from './context.js';

const VARIANT_SIZE = 320;
const COPY_EVERY = 5;

interface Corpus {
  items: DupeItem[];
  /** The drawing parameters of variant k (item id `v<k>`). */
  variants: FrogParams[];
  /** "idA|idB" (sorted) of every planted original/copy pair, with the edit used. */
  planted: Map<string, CopyTransform>;
  /** Every 5th variant resized at every scale, each copy compared with its original alone. */
  resized: ResizeCheck[];
}

interface ResizeCheck {
  scale: number;
  confirmed: boolean;
  phashBits: number;
  changedPixels: number;
}

async function resizeChecks(original: DupeItem, png: Buffer): Promise<ResizeCheck[]> {
  return Promise.all(
    Object.values(RESIZE_SCALES).map(async (scale) => {
      const copy = await analysedItem(`r${original.id}`, `resized/${original.id}-${scale}`, await resizedCopy(png, scale));
      return {
        scale,
        confirmed: findNearDuplicates([original, copy]).length === 1,
        phashBits: hamming(parseHash(original.phash)!, parseHash(copy.phash)!),
        changedPixels: thumbDifference(original.thumb, copy.thumb, CONFIRM_DEFAULTS.tolerance, CONFIRM_DEFAULTS.brightenedTolerance).changedPixels,
      };
    }),
  );
}

const pairKey = (a: string, b: string) => (a < b ? `${a}|${b}` : `${b}|${a}`);

async function analysedItem(id: string, file: string, bytes: Buffer): Promise<DupeItem> {
  const result = await analyseImage(bytes);
  if (!result.ok) throw new Error(`benchmark image ${file} failed analysis: ${result.message}`);
  return { id, file, phash: result.phash, thumb: result.thumb.rgb, width: result.width, height: result.height };
}

async function makeCorpus(count: number, ctx: BenchContext): Promise<Corpus> {
  const variants = frogVariations(count, 2024);
  const items: DupeItem[] = [];
  const planted = new Map<string, CopyTransform>();
  const resized: ResizeCheck[] = [];
  const batch = 4;
  for (let start = 0; start < variants.length; start += batch) {
    const made = await Promise.all(
      variants.slice(start, start + batch).map(async (params, offset) => {
        const k = start + offset;
        const png = await renderFrog(params, VARIANT_SIZE).png().toBuffer();
        const out = [await analysedItem(`v${k}`, `variants/${k}.png`, png)];
        if (k % COPY_EVERY === 0) {
          const transform = COPY_TRANSFORMS[(k / COPY_EVERY) % COPY_TRANSFORMS.length]!;
          out.push(await analysedItem(`c${k}`, `copies/${k}-${transform}`, await plantedCopy(png, transform)));
          planted.set(pairKey(`v${k}`, `c${k}`), transform);
          resized.push(...(await resizeChecks(out[0]!, png)));
        }
        return out;
      }),
    );
    items.push(...made.flat());
    if (start % 100 === 0) ctx.log(`corpus ${start}/${count}`);
  }
  return { items, variants, planted, resized };
}

/** What differs between the two pictures of each false pair at the defaults (to see what the detector cannot tell apart). */
function falsePairRows(corpus: Corpus): Record<string, string | number>[] {
  const paramsOf = (id: string) => corpus.variants[Number(id.slice(1))]!;
  return findNearDuplicates(corpus.items)
    .filter((p) => !corpus.planted.has(pairKey(p.a.id, p.b.id)))
    .map((p) => {
      const x: Record<string, unknown> = { ...paramsOf(p.a.id) };
      const y: Record<string, unknown> = { ...paramsOf(p.b.id) };
      const differs = Object.keys(x).filter((k) => JSON.stringify(x[k]) !== JSON.stringify(y[k]));
      return { a: p.a.file, b: p.b.file, distance: p.distance, differs: differs.map((k) => `${k}: ${JSON.stringify(x[k])} vs ${JSON.stringify(y[k])}`).join('; ').replaceAll('|', '/') };
    });
}

function accuracyRows(corpus: Corpus, thresholds: number[]): Record<string, string | number>[] {
  const hashes = corpus.items.map((item) => parseHash(item.phash)!);
  const per1000 = 1000 / corpus.items.length;
  return thresholds.map((threshold) => {
    const candidates = pairsWithinDistance(hashes, threshold);
    const plantedCandidates = candidates.filter((p) => corpus.planted.has(pairKey(corpus.items[p.i]!.id, corpus.items[p.j]!.id))).length;
    const pairs = findNearDuplicates(corpus.items, { threshold });
    const found = pairs.filter((p) => corpus.planted.has(pairKey(p.a.id, p.b.id))).length;
    return {
      'phash threshold': threshold + (threshold === DEFAULT_PHASH_THRESHOLD ? ' (default)' : ''),
      images: corpus.items.length,
      planted: corpus.planted.size,
      'recall, phash only %': round((100 * plantedCandidates) / corpus.planted.size, 1),
      'false pairs /1000, phash only': round((candidates.length - plantedCandidates) * per1000, 1),
      'recall %': round((100 * found) / corpus.planted.size, 1),
      'false pairs /1000': round((pairs.length - found) * per1000, 2),
    };
  });
}

function perTransformRows(corpus: Corpus): Record<string, string | number>[] {
  const byId = new Map(corpus.items.map((item) => [item.id, item]));
  const found = new Set(findNearDuplicates(corpus.items).map((p) => pairKey(p.a.id, p.b.id)));
  return COPY_TRANSFORMS.map((transform) => {
    const keys = [...corpus.planted].filter(([, t]) => t === transform).map(([key]) => key);
    const distances = keys.map((key) => {
      const [a, b] = key.split('|') as [string, string];
      return { d: parseHash(byId.get(a)!.phash)!, e: parseHash(byId.get(b)!.phash)! };
    }).map(({ d, e }) => hamming(d, e));
    const changed = keys.map((key) => {
      const [a, b] = key.split('|') as [string, string];
      return thumbDifference(byId.get(a)!.thumb, byId.get(b)!.thumb, CONFIRM_DEFAULTS.tolerance, CONFIRM_DEFAULTS.brightenedTolerance).changedPixels;
    });
    return {
      edit: transform,
      copies: keys.length,
      'recall %': round((100 * keys.filter((k) => found.has(k)).length) / Math.max(1, keys.length), 1),
      'max phash bits': Math.max(...distances),
      'max changed thumb px': Math.max(...changed),
    };
  });
}

function perScaleRows(corpus: Corpus): Record<string, string | number>[] {
  return Object.values(RESIZE_SCALES).map((scale) => {
    const checks = corpus.resized.filter((c) => c.scale === scale);
    const changed = checks.map((c) => c.changedPixels).sort((a, b) => a - b);
    return {
      'scale %': scale * 100,
      copies: checks.length,
      'recall %': round((100 * checks.filter((c) => c.confirmed).length) / Math.max(1, checks.length), 1),
      'phash ≤ threshold %': round((100 * checks.filter((c) => c.phashBits <= DEFAULT_PHASH_THRESHOLD).length) / Math.max(1, checks.length), 1),
      'median changed thumb px': changed[Math.floor(changed.length / 2)] ?? 0,
      'max changed thumb px': changed.at(-1) ?? 0,
    };
  });
}

const hamming = (a: Hash64, b: Hash64) => pairsWithinDistanceBruteForce([a, b], 64)[0]!.distance;

/** Sweeps the confirmation settings on the phash candidates at the default threshold. */
function confirmationRows(corpus: Corpus): Record<string, string | number>[] {
  const hashes = corpus.items.map((item) => parseHash(item.phash)!);
  const candidates = pairsWithinDistance(hashes, DEFAULT_PHASH_THRESHOLD);
  const per1000 = 1000 / corpus.items.length;
  const rows: Record<string, string | number>[] = [];
  for (const tolerance of [2, 3, 5]) {
    const diffs = candidates.map((p) => ({
      planted: corpus.planted.has(pairKey(corpus.items[p.i]!.id, corpus.items[p.j]!.id)),
      diff: thumbDifference(corpus.items[p.i]!.thumb, corpus.items[p.j]!.thumb, tolerance, CONFIRM_DEFAULTS.brightenedTolerance),
    }));
    for (const maxChangedPixels of [4, 8, 16, 32, 64]) {
      const accepted = diffs.filter((d) => d.diff.changedPixels <= maxChangedPixels && d.diff.meanDifference <= CONFIRM_DEFAULTS.maxMeanDifference);
      const found = accepted.filter((d) => d.planted).length;
      const isDefault = tolerance === CONFIRM_DEFAULTS.tolerance && maxChangedPixels === CONFIRM_DEFAULTS.maxChangedPixels;
      rows.push({
        'tolerance ΔE': tolerance,
        'max changed px': maxChangedPixels + (isDefault ? ' (default)' : ''),
        'recall %': round((100 * found) / corpus.planted.size, 1),
        'false pairs /1000': round((accepted.length - found) * per1000, 2),
      });
    }
  }
  return rows;
}

/** 100k items: uniform random hashes, or clustered ones (like a catalogue of similar cartoons). */
function syntheticItems(n: number, clustered: boolean, seed: number): DupeItem[] {
  const rand = seededRandom(seed);
  const u32 = () => Math.floor(rand() * 2 ** 32) >>> 0;
  const thumbs = Array.from({ length: 256 }, () => Uint8Array.from({ length: 3072 }, () => Math.floor(rand() * 256)));
  const centres = Array.from({ length: Math.ceil(n / 50) }, () => ({ hi: u32(), lo: u32() }));
  const hex = (h: Hash64) => h.hi.toString(16).padStart(8, '0') + h.lo.toString(16).padStart(8, '0');
  return Array.from({ length: n }, (_, k) => {
    let hash = { hi: u32(), lo: u32() };
    if (clustered) {
      // 12 random bits flipped from one of n/50 centres: look-alikes share long runs of bits.
      hash = { ...centres[Math.floor(rand() * centres.length)]! };
      for (let f = 0; f < 12; f++) {
        const bit = Math.floor(rand() * 64);
        if (bit < 32) hash.hi = (hash.hi ^ (1 << bit)) >>> 0;
        else hash.lo = (hash.lo ^ (1 << (bit - 32))) >>> 0;
      }
    }
    return { id: `s${k}`, file: `synthetic/${String(k).padStart(6, '0')}.png`, phash: hex(hash), thumb: thumbs[k % thumbs.length]!, width: 512, height: 512 };
  });
}

function timeMs(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

function speedRows(quick: boolean): Record<string, string | number>[] {
  const big = quick ? 20_000 : 100_000;
  const small = quick ? 4_000 : 10_000;
  const rows: Record<string, string | number>[] = [];
  for (const clustered of [false, true]) {
    const items = syntheticItems(big, clustered, clustered ? 7 : 3);
    const cpuBefore = process.cpuUsage();
    const fullMs = timeMs(() => findNearDuplicates(items));
    const cpu = process.cpuUsage(cpuBefore);
    const smallHashes = items.slice(0, small).map((item) => parseHash(item.phash)!);
    const indexedSmallMs = timeMs(() => pairsWithinDistance(smallHashes, DEFAULT_PHASH_THRESHOLD));
    const bruteSmallMs = timeMs(() => pairsWithinDistanceBruteForce(smallHashes, DEFAULT_PHASH_THRESHOLD));
    rows.push({
      hashes: clustered ? 'clustered' : 'uniform',
      n: big,
      'findNearDuplicates ms': round(fullMs, 0),
      // CPU time of this process: on a machine shared with other jobs, wall time overstates the work.
      'findNearDuplicates CPU ms': round((cpu.user + cpu.system) / 1000, 0),
      'small n': small,
      'indexed ms (small n)': round(indexedSmallMs, 1),
      'all-pairs ms (small n)': round(bruteSmallMs, 1),
      'speed-up (small n)': round(bruteSmallMs / indexedSmallMs, 1),
      'all-pairs ms at n, extrapolated': round(bruteSmallMs * (big / small) ** 2, 0),
    });
  }
  return rows;
}

export default {
  name: 'dupes',
  async run(ctx) {
    const count = ctx.quick ? 200 : 1000;
    ctx.log(`drawing and analysing ${count} frog variants + planted copies`);
    const corpus = await makeCorpus(count, ctx);
    ctx.table(`accuracy by phash threshold (${count} variants + ${corpus.planted.size} copies, confirmation at defaults)`, accuracyRows(corpus, [4, 5, 6, 8, 10]));
    ctx.table('planted copies by edit (defaults)', perTransformRows(corpus));
    ctx.table(`every ${COPY_EVERY}th variant resized at every scale, each copy against its original (defaults)`, perScaleRows(corpus));
    ctx.table('false pairs at the defaults', falsePairRows(corpus));
    ctx.table(`confirmation settings (phash threshold ${DEFAULT_PHASH_THRESHOLD})`, confirmationRows(corpus));
    ctx.log('timing the candidate search');
    ctx.table('speed (one run, same process)', speedRows(ctx.quick));
  },
} satisfies Bench;
