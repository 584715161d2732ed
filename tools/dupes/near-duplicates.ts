/**
 * Near-duplicate images: the same picture again (re-encoded, resized, recompressed, its
 * brightness, contrast or gamma edited), not a different picture that looks alike and not
 * the same drawing recoloured (another skin, shirt, background or palette).
 *
 * Two stages: the phash finds candidates fast (multi-index.ts, no all-pairs loop), then each
 * candidate is confirmed on the 32×32 colour thumbnails and the aspect ratio (thumb-compare.ts:
 * the global edit undone, what remains must be scattered edges, not a region). judgePair gives
 * the figures and the rule that decided (`pepe dupes --explain`). The defaults below were
 * chosen by measurement (tools/bench/dupes.bench.ts).
 */
import { type Hash64, pairsWithinDistance, parseHash } from '../../functions/core/multi-index.js';
import { aspectDifference, type CompareSettings, compareLab, type ThumbComparison, thumbToLab } from './thumb-compare.js';

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
export interface ConfirmSettings extends CompareSettings {
  /** Changed pixels (any layout) above which the pictures differ. */
  maxChangedPixels: number;
  /** Region pixels (changed with their whole 3×3 neighbourhood) above which the pictures differ. */
  maxRegionPixels: number;
  /** Region pixels at `fineTolerance` above which the pictures differ: an area in a close shade. */
  maxFineRegionPixels: number;
  maxAspectDifference: number;
}

export interface DupeOptions {
  /** Max phash distance (bits) for a candidate. Default DEFAULT_PHASH_THRESHOLD. */
  threshold?: number;
  /** Overrides for the confirmation step (the benchmark sweeps these). */
  confirm?: Partial<ConfirmSettings>;
}

/**
 * Max phash distance (bits) for a candidate. Measured (dupes benchmark, 500 planted copies of 17
 * edits): 95.2% of copies within 6 bits, 96.4% within 8, 97% within 10 (JPEG q40/60 and crops
 * move up to 16–22), while the candidates to confirm grow 14.9k → 28.2k → 47.1k per 1,000
 * images; end-to-end recall gains 0.6 points from 6 to 8, for twice the confirmation work.
 */
export const DEFAULT_PHASH_THRESHOLD = 6;

/**
 * Chosen on the dupes benchmark (1,000 look-alike drawings, 500 planted copies of 17 edits,
 * 250 recolours; `npm run bench -- --only dupes`, sweep "confirmation settings") on corpus
 * seed 2024, checked on seed 7 (tools/dupes/README.md). Copies found of 500 / distinct pairs:
 * at most 4 changed pixels and 32 fine region pixels 456 / 4; 2 changed 451 / 3; 8 changed
 * 456 / 5; no fine region rule 457 / 6. The 4 distinct pairs left are faint background
 * patterns a 32×32 thumbnail cannot show.
 */
export const CONFIRM_DEFAULTS: ConfirmSettings = {
  tolerance: 4,
  alignAbove: 8,
  /** Re-encodes and resizes change 0–4 pixels, tone-edited copies mostly under 4 once clipping is allowed for; a thin detail (glasses) 30+. */
  maxChangedPixels: 4,
  /** Any changed area 3×3 pixels wide: a recolour or another detail. */
  maxRegionPixels: 0,
  /** A close skin or background shade moves a whole area by ΔE 2.5–4; a tone edit's residue is scattered or small. */
  fineTolerance: 2.5,
  maxFineRegionPixels: 32,
  /** |ln(aspect ratio a / b)|: a 3% crop of one side is 0.03, pixel rounding after a resize far less. */
  maxAspectDifference: 0.04,
};

/** The confirmation of one pair: every figure measured and the rule that decided. */
export interface Verdict {
  same: boolean;
  /** The rule that decided, in words. */
  rule: string;
  aspectDifference: number;
  /** Absent when the shapes already differ. */
  comparison?: ThumbComparison;
}

/** The confirmation verdict for two items (for the benchmark, tests and `pepe dupes --explain`). */
export function judgePair(a: DupeItem, b: DupeItem, settings: ConfirmSettings = CONFIRM_DEFAULTS): Verdict {
  return judgeLab(a, b, thumbToLab(a.thumb), thumbToLab(b.thumb), settings);
}

function judgeLab(a: DupeItem, b: DupeItem, labA: Float32Array, labB: Float32Array, settings: ConfirmSettings): Verdict {
  const aspect = aspectDifference(a, b);
  if (aspect > settings.maxAspectDifference) {
    return { same: false, rule: `different shapes: aspect ratios differ by ${pct(aspect)}, more than the ${pct(settings.maxAspectDifference)} a crop or resize leaves`, aspectDifference: aspect };
  }
  const comparison = compareLab(labA, labB, settings);
  const verdict = (same: boolean, rule: string): Verdict => ({ same, rule, aspectDifference: aspect, comparison });
  if (comparison.regionPixels > settings.maxRegionPixels) {
    return verdict(false, `a region differs (${comparison.regionPixels} thumbnail pixels changed with all their neighbours, more than ${settings.maxRegionPixels}): a recolour or another detail, so a different picture`);
  }
  if (comparison.fineRegionPixels > settings.maxFineRegionPixels) {
    return verdict(false, `an area differs by a close shade (${comparison.fineRegionPixels} thumbnail pixels off by more than ΔE ${settings.fineTolerance} with all their neighbours, more than ${settings.maxFineRegionPixels}): another skin or background shade, so a different picture`);
  }
  if (comparison.changedPixels > settings.maxChangedPixels) {
    return verdict(false, `too many scattered differences (${comparison.changedPixels} of 1,024 thumbnail pixels changed, more than ${settings.maxChangedPixels}): a different picture`);
  }
  const { gain, offset, gamma } = comparison.tone.lightness;
  const edited = gain !== 1 || offset !== 0 || gamma !== 1 || comparison.tone.chroma !== 1 || comparison.tone.channels !== undefined;
  const undone = [edited ? 'the global tone edit' : '', comparison.crop ? 'the crop' : ''].filter(Boolean).join(' and ');
  return verdict(true, `the same picture: ${undone ? `once ${undone} ${undone.includes(' and ') ? 'are' : 'is'} undone, ` : ''}${comparison.changedPixels} of 1,024 thumbnail pixels differ (at most ${settings.maxChangedPixels}), none of them in a region`);
}

const pct = (ratio: number) => `${(100 * (Math.exp(ratio) - 1)).toFixed(1)}%`;

/** The confirmation verdict for two items as a yes or no. */
export function confirmSamePicture(a: DupeItem, b: DupeItem, settings: ConfirmSettings = CONFIRM_DEFAULTS): boolean {
  return judgePair(a, b, settings).same;
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
    if (acknowledged(a, b) || !judgeLab(a, b, lab(i), lab(j), settings).same) continue;
    pairs.push({ a: { id: a.id, file: a.file }, b: { id: b.id, file: b.file }, distance });
  }
  return pairs;
}
