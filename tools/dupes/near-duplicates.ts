/**
 * Near-duplicate images: the same picture again (re-encoded, resized, recompressed,
 * slightly brightened), not a different picture that looks alike.
 *
 * Two stages: the phash finds candidates fast (multi-index.ts, no all-pairs loop), then
 * each candidate is confirmed on the 32×32 colour thumbnails and the aspect ratio
 * (thumb-compare.ts), because similar cartoons share pHashes. The defaults below were
 * chosen by measurement (tools/bench/dupes.bench.ts; figures in the README).
 */
import { type Hash64, pairsWithinDistance, parseHash } from './multi-index.js';
import { aspectDifference, labDifference, thumbToLab } from './thumb-compare.js';

export interface DupeItem {
  id: string;
  file: string;
  phash: string;
  /** 32*32*3 RGB, upright, flattened on white, aspect ignored. */
  thumb: Uint8Array;
  width: number;
  height: number;
  distinctFrom?: readonly string[];
}

export interface DupePair {
  a: { id: string; file: string };
  b: { id: string; file: string };
  /** phash Hamming distance in bits. */
  distance: number;
}

/** How a candidate is confirmed; see CONFIRM_DEFAULTS. */
export interface ConfirmSettings {
  tolerance: number;
  brightenedTolerance: number;
  maxChangedPixels: number;
  maxMeanDifference: number;
  maxAspectDifference: number;
}

export interface DupeOptions {
  /** Max phash distance (bits) for a candidate. Default DEFAULT_PHASH_THRESHOLD. */
  threshold?: number;
  /** Overrides for the confirmation step (the benchmark sweeps these). */
  confirm?: Partial<ConfirmSettings>;
}

/**
 * Max phash distance (bits) for a candidate. Measured (README, dupes benchmark, 1,000
 * look-alike frogs + 200 planted copies): 98% of copies are within 6 bits, 98.5% within 8
 * (a few JPEG q40/q60 and brightened copies move 10–14 bits), while the phash-only false
 * candidates double from 6 to 8 (10.8k → 20.4k per 1,000 images), and each must be
 * confirmed. 6 keeps end-to-end recall at 96%, above the 90% target.
 */
export const DEFAULT_PHASH_THRESHOLD = 6;

export const CONFIRM_DEFAULTS: ConfirmSettings = {
  /**
   * A thumbnail pixel "changed" when its colour moved more than this (ΔE76 with chroma at
   * half weight; ~2.3 is just noticeable). Re-encoded copies measured ≤ 5 such pixels.
   */
  tolerance: 3,
  /** The same for a pair that differs by a brightness edit: box-averaged edges stay a little off. */
  brightenedTolerance: 10,
  /**
   * More changed pixels than this (of 1,024) = a different picture: a hat or an eyelid
   * changes 30+. Measured: 8 → 96% recall, 0 false pairs per 1,000; 16 → 97.5% but 0.83.
   */
  maxChangedPixels: 8,
  /** Mean difference over the thumbnail: re-encodes measured ≤ 1 (a safety net, rarely decisive). */
  maxMeanDifference: 3,
  /** |ln(aspect ratio a / b)|: 0.03 ≈ 3%, pixel rounding after a resize is far less. */
  maxAspectDifference: 0.03,
};

/** The confirmation verdict for two items (exported for the benchmark and tests). */
export function confirmSamePicture(a: DupeItem, b: DupeItem, settings: ConfirmSettings = CONFIRM_DEFAULTS): boolean {
  return confirmLab(a, b, thumbToLab(a.thumb), thumbToLab(b.thumb), settings);
}

function confirmLab(a: DupeItem, b: DupeItem, labA: Float32Array, labB: Float32Array, settings: ConfirmSettings): boolean {
  if (aspectDifference(a, b) > settings.maxAspectDifference) return false;
  const diff = labDifference(labA, labB, settings.tolerance, settings.brightenedTolerance);
  return diff.changedPixels <= settings.maxChangedPixels && diff.meanDifference <= settings.maxMeanDifference;
}

function acknowledged(a: DupeItem, b: DupeItem): boolean {
  const idA = a.id.toLowerCase();
  const idB = b.id.toLowerCase();
  return (a.distinctFrom ?? []).some((id) => id.toLowerCase() === idB) || (b.distinctFrom ?? []).some((id) => id.toLowerCase() === idA);
}

const byFileThenId = (x: DupeItem, y: DupeItem): number => (x.file < y.file ? -1 : x.file > y.file ? 1 : x.id < y.id ? -1 : x.id > y.id ? 1 : 0);

/**
 * Confirmed near-duplicate pairs, minus those acknowledged by `distinct_from` on either side.
 * Order: by a.file, then b.file (a is the pair's first file in code-unit order).
 */
export function findNearDuplicates(items: readonly DupeItem[], options: DupeOptions = {}): DupePair[] {
  const threshold = options.threshold ?? DEFAULT_PHASH_THRESHOLD;
  const settings = { ...CONFIRM_DEFAULTS, ...options.confirm };
  // Sorting first makes every index (and so the output) independent of the input order.
  const sorted = [...items].sort(byFileThenId);
  const hashes: Hash64[] = sorted.map((item) => {
    const hash = parseHash(item.phash);
    // Analysis always produces 16 hex digits; anything else is a bug upstream, not bad content.
    if (!hash) throw new TypeError(`${item.file}: phash must be 16 hex digits, got "${item.phash}"`);
    return hash;
  });
  // Lab thumbnails are made once per item that has a candidate, not once per pair.
  const labs: (Float32Array | undefined)[] = [];
  const lab = (k: number) => (labs[k] ??= thumbToLab(sorted[k]!.thumb));
  const pairs: DupePair[] = [];
  for (const { i, j, distance } of pairsWithinDistance(hashes, threshold)) {
    const a = sorted[i]!;
    const b = sorted[j]!;
    if (acknowledged(a, b) || !confirmLab(a, b, lab(i), lab(j), settings)) continue;
    pairs.push({ a: { id: a.id, file: a.file }, b: { id: b.id, file: b.file }, distance });
  }
  return pairs;
}
