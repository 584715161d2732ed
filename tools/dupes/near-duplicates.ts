/**
 * Near-duplicate images: the same picture again (re-encoded, resized, recompressed, its
 * brightness, contrast or gamma edited), not a different picture that looks alike and not
 * the same drawing recoloured (another skin, shirt, background or palette).
 *
 * Two stages: the phash finds candidates fast (multi-index.ts, no all-pairs loop), then each
 * candidate is confirmed on the 32×32 colour thumbnails and the aspect ratio (compare/:
 * the global edit undone, what remains must be scattered edges, not a region). judgePair gives
 * the figures and the rule that decided (`pepe dupes --explain`). The defaults below were
 * chosen by measurement (tools/bench/dupes.bench.ts).
 */
import { type Hash64, hammingDistance, pairsWithinDistance, parseHash } from '../../functions/core/multi-index.js';
import { areaHueShift, type CompareSettings, compareLab, type ThumbComparison } from './compare/compare.js';
import { THUMB_KEY_RADIUS, thumbKey } from './compare/key.js';
import { thumbToLab } from './compare/lab.js';
import { aspectDifference, layoutDifference, thumbLayout } from './compare/layout.js';
import { textureDifference } from './compare/texture.js';
import { isIdentityTone } from './compare/tone.js';

export interface DupeItem {
  id: string;
  file: string;
  phash: string;
  /** 32*32*3 RGB, upright, flattened on white, aspect ignored. */
  thumb: Uint8Array;
  /** 32*32 texture map (tools/image/pixels.ts `bandDeviations`), same frame as the thumbnail. */
  texture: Uint8Array;
  width: number;
  height: number;
  distinctFrom?: readonly string[];
  /** thumbKey(thumb), when the caller has it cached: then the thumbnail is read only for candidates. */
  thumbKey?: Hash64;
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
  /** The same once a crop is undone: a crop moves every outline by part of a cell. */
  maxCroppedChangedPixels: number;
  /**
   * ...but only for what a crop does: every edge moved (at least `minUncroppedChangedPixels`
   * changed before), at most `maxCroppedShare` of them left once it is undone, and a mean
   * difference (against the cells each cropped cell lies between) of at most
   * `maxCroppedMeanDifference`.
   */
  minUncroppedChangedPixels: number;
  maxCroppedShare: number;
  maxCroppedMeanDifference: number;
  /** Region pixels (changed with their whole 3×3 neighbourhood) above which the pictures differ. */
  maxRegionPixels: number;
  /** Region pixels at `fineTolerance` above which the pictures differ: an area in a close shade. */
  maxFineRegionPixels: number;
  /** With one colour: pixels off at all (ΔE 1) with their whole 3×3 neighbourhood above which it is another shade. */
  maxOneColourPixels: number;
  /**
   * A local recolour, compared as they are (no edit, no crop): at least `minLocalPixels`
   * pixels off by more than `fineTolerance`, and every pixel off at all inside a box of at
   * most `maxLocalBox` pixels and `maxLocalShare` of the drawing's box: the rest of the
   * picture matches exactly.
   */
  minLocalPixels: number;
  maxLocalBox: number;
  maxLocalShare: number;
  /** |ΔH| (a, b units) of one colour's area once the tone is undone (areaHueShift) above which its hue turned: another colour. */
  maxHueShift: number;
  maxAspectDifference: number;
  /** Layout difference (thumbLayout, mean standard deviations) above which the drawings differ. */
  maxLayoutDifference: number;
  /** Cells patterned in one picture and plain in the other (textureDifference) above which the pictures differ. */
  maxTextureCells: number;
  maxCroppedTextureCells: number;
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
 * 456 / 5; no fine region rule 457 / 6. Those 4 pairs were faint background patterns a 32×32
 * thumbnail cannot show, which the texture limits below now reject but for one.
 */
export const CONFIRM_DEFAULTS: ConfirmSettings = {
  tolerance: 4,
  /** A crop is accepted only when at least minUncroppedChangedPixels (100) changed as they are: below, none is looked for (same verdicts, less work). */
  alignAbove: 99,
  /** Re-encodes and resizes change 0–4 pixels, tone-edited copies mostly under 4 once clipping is allowed for; a thin detail (glasses) 30+. */
  maxChangedPixels: 4,
  /** 3% crops leave 5–27 changed pixels (edge cells), none in a region, once measured against the cells they lie between. */
  maxCroppedChangedPixels: 32,
  /**
   * Chosen on seed 2024 (tools/dupes/README.md): its 3% crops change 146–366 pixels before the
   * crop is undone and keep 1/8–1/20 of them, mean difference 0.07–0.71; another expression
   * (which a 0.5% "crop" also shifts) keeps a third (83 → 30), and a close background colour or
   * pattern behind stripes or dots stays within the cells' range but leaves a mean of 0.2–1.6.
   */
  minUncroppedChangedPixels: 100,
  maxCroppedShare: 0.15,
  maxCroppedMeanDifference: 0.5,
  /** Any changed area 3×3 pixels wide: a recolour or another detail. */
  maxRegionPixels: 0,
  /** A close skin or background shade moves a whole area by ΔE 2.5–4; a tone edit's residue is scattered or small. */
  fineTolerance: 2.5,
  maxFineRegionPixels: 32,
  /** Re-encoded, resized and palettised flat shapes leave none; two teal hearts a few levels apart 31 (tools/dupes/README.md). */
  maxOneColourPixels: 4,
  /** A local recolour leaves several such pixels in a small box; a copy compared as it is spreads its differences over the picture (tools/dupes/README.md). */
  minLocalPixels: 3,
  maxLocalBox: 256,
  maxLocalShare: 0.25,
  /**
   * Planted copies on seven seeds turn an area's hue by at most 2.91 (contrast +15% on a red
   * shirt), two emoji skin tones under a tone edit by 4.79 (tools/dupes/README.md).
   */
  maxHueShift: 4,
  /** |ln(aspect ratio a / b)|: a 3% crop of one side is 0.03, pixel rounding after a resize far less. */
  maxAspectDifference: 0.04,
  /**
   * Planted copies differ by at most 0.14 (a +15% brightness that clips, a 3% crop), re-encodes
   * and resizes by 0.02; two look-alike drawings mostly by more. Only a quick check before the
   * thumbnail comparison: most candidates (both keys) stop here.
   */
  maxLayoutDifference: 0.2,
  /**
   * Cells patterned in one picture where the other is plain (textureDifference). Uncropped,
   * the planted copies of seed 2024 leave none (JPEG q40's block noise reaches 3, under
   * TEXTURE_PATTERNED), a snowy background against a plain one 8 or more (seed 7): more than 3
   * is another picture. A 3% crop moves a pattern by up to a cell: crops leave at most 9 on
   * seed 2024 (16 and 11 on seeds 7 and 99), a dotted, striped or rayed background against a
   * plain one 30–170; the cropped limit is twice the most seed 2024's crops left, rounded up.
   */
  maxTextureCells: 3,
  maxCroppedTextureCells: 20,
};

/** The confirmation of one pair: every figure measured and the rule that decided. */
export interface Verdict {
  same: boolean;
  /** The rule that decided, in words. */
  rule: string;
  aspectDifference: number;
  /** Absent when the shapes already differ. */
  layoutDifference?: number;
  /** Absent when the shapes or layouts already differ. */
  comparison?: ThumbComparison;
  /** Cells patterned in one picture and plain in the other (textureDifference); absent with the comparison. */
  textureCells?: number;
  /** The largest hue turn of one colour's area (areaHueShift); only without a crop, once the other colour rules passed. */
  hueShift?: { cells: number; deltaH: number };
}

/** The confirmation verdict for two items (for the benchmark, tests and `pepe dupes --explain`). */
export function judgePair(a: DupeItem, b: DupeItem, settings: ConfirmSettings = CONFIRM_DEFAULTS): Verdict {
  return judgeThumbs(a, b, new ThumbFigures(a), new ThumbFigures(b), settings);
}

/** An item's thumbnail figures, made on first use (in findNearDuplicates, once per item). A class: no closures per item. */
class ThumbFigures {
  private layoutOf?: Float32Array;
  private labOf?: Float32Array;
  constructor(private readonly item: { readonly thumb: Uint8Array }) {}
  layout(): Float32Array {
    return (this.layoutOf ??= thumbLayout(this.item.thumb));
  }
  lab(): Float32Array {
    return (this.labOf ??= thumbToLab(this.item.thumb));
  }
}

function judgeThumbs(a: DupeItem, b: DupeItem, x: ThumbFigures, y: ThumbFigures, settings: ConfirmSettings): Verdict {
  const aspect = aspectDifference(a, b);
  if (aspect > settings.maxAspectDifference) {
    return { same: false, rule: `different shapes: aspect ratios differ by ${pct(aspect)}, more than the ${pct(settings.maxAspectDifference)} a crop or resize leaves`, aspectDifference: aspect };
  }
  const layout = layoutDifference(x.layout(), y.layout());
  if (layout > settings.maxLayoutDifference) {
    return { same: false, rule: `different drawings: the grey layouts differ by ${layout.toFixed(3)}, more than the ${settings.maxLayoutDifference} a copy's edit leaves`, aspectDifference: aspect, layoutDifference: layout };
  }
  const comparison = compareLab(x.lab(), y.lab(), settings);
  const textureCells = textureDifference(a, b, comparison);
  // One colour fits any curve: no edit was undone, and the verdict says why.
  const oneColour = comparison.oneColour ? 'one colour besides white and black, compared as it is (a brightness or gamma edit of one colour cannot be told from another colour, so the catalogue calls it a recolour): ' : '';
  let hueShift: Verdict['hueShift'];
  const verdict = (same: boolean, rule: string, prefixed = true): Verdict => ({ same, rule: same || !prefixed ? rule : oneColour + rule, aspectDifference: aspect, layoutDifference: layout, comparison, textureCells, ...(hueShift && { hueShift }) });
  if (comparison.regionPixels > settings.maxRegionPixels) {
    return verdict(false, `a region differs (${comparison.regionPixels} thumbnail pixels changed with all their neighbours, more than ${settings.maxRegionPixels}): a recolour or another detail, so a different picture`);
  }
  if (comparison.fineRegionPixels > settings.maxFineRegionPixels) {
    return verdict(false, `an area differs by a close shade (${comparison.fineRegionPixels} thumbnail pixels off by more than ΔE ${settings.fineTolerance} with all their neighbours, more than ${settings.maxFineRegionPixels}): another skin or background shade, so a different picture`);
  }
  if (comparison.oneColour && comparison.exactRegionPixels > settings.maxOneColourPixels) {
    return verdict(false, `its colour differs (${comparison.exactRegionPixels} thumbnail pixels off at all, by more than ΔE 1, with all their neighbours, more than ${settings.maxOneColourPixels}), so a different picture`);
  }
  if (comparison.crop === null && isIdentityTone(comparison.tone) && comparison.localPixels >= settings.minLocalPixels && comparison.offBox <= settings.maxLocalBox && comparison.offBox <= comparison.drawingBox * settings.maxLocalShare) {
    return verdict(
      false,
      `a small area differs where the rest matches exactly (${comparison.localPixels} thumbnail pixels off by more than ΔE ${settings.fineTolerance}, at least ${settings.minLocalPixels}, and every difference within a box of ${comparison.offBox} pixels, at most ${settings.maxLocalBox} and ${pctShare(settings.maxLocalShare)} of the drawing's ${comparison.drawingBox}): ` +
        'a local recolour (a mouth, the eyes, a badge), so a different picture',
      // Nothing else moved: no edit was in question.
      false,
    );
  }
  const before = comparison.uncroppedChangedPixels ?? 0;
  const cropExplains =
    comparison.crop !== null &&
    before >= settings.minUncroppedChangedPixels &&
    comparison.changedPixels <= settings.maxCroppedShare * before &&
    comparison.meanDifference <= settings.maxCroppedMeanDifference;
  // A crop is looked for only when more than alignAbove (> maxChangedPixels) pixels changed as
  // they are: if the crop does not explain them, the pair stays as different as it was.
  if (comparison.crop && !cropExplains) {
    return verdict(
      false,
      `not a crop: undoing the best crop leaves ${comparison.changedPixels} of ${before} changed thumbnail pixels, mean difference ${comparison.meanDifference.toFixed(2)} ` +
        `(a crop moves at least ${settings.minUncroppedChangedPixels}, keeps at most ${pctShare(settings.maxCroppedShare)} of them and a mean of at most ${settings.maxCroppedMeanDifference}): a different picture`,
    );
  }
  const maxChanged = comparison.crop ? settings.maxCroppedChangedPixels : settings.maxChangedPixels;
  if (comparison.changedPixels > maxChanged) {
    return verdict(false, `too many scattered differences (${comparison.changedPixels} of 1,024 thumbnail pixels changed${comparison.crop ? ' once the crop is undone' : ''}, more than ${maxChanged}): a different picture`);
  }
  hueShift = comparison.crop === null ? areaHueShift(x.lab(), y.lab(), comparison) : undefined;
  if (hueShift && hueShift.deltaH > settings.maxHueShift) {
    return verdict(false, `a colour's hue turned (an area of ${hueShift.cells} thumbnail pixels off by ΔH ${hueShift.deltaH.toFixed(2)} once the tone is undone, more than ${settings.maxHueShift}): brightness, contrast and gamma keep hues, so another colour and a different picture`);
  }
  const maxTexture = comparison.crop ? settings.maxCroppedTextureCells : settings.maxTextureCells;
  if (textureCells > maxTexture) {
    return verdict(false, `a pattern differs (${textureCells} of 1,024 cells patterned in one picture where the other is plain${comparison.crop ? ' once the crop is undone' : ''}, more than ${maxTexture}): dots, stripes, rays or snow against a plain background, so a different picture`);
  }
  const edited = !isIdentityTone(comparison.tone);
  const undone = [edited ? 'the global tone edit' : '', comparison.crop ? 'the crop' : ''].filter(Boolean).join(' and ');
  return verdict(true, `the same picture: ${undone ? `once ${undone} ${undone.includes(' and ') ? 'are' : 'is'} undone, ` : ''}${comparison.changedPixels} of 1,024 thumbnail pixels differ (at most ${maxChanged}), none of them in a region`);
}

const pctShare = (share: number) => `${Math.round(100 * share)}%`;
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
  // Thumbnail figures are made once per item that has a candidate, not once per pair.
  const figures = sorted.map((item) => new ThumbFigures(item));
  const pairs: DupePair[] = [];
  for (const { i, j, distance } of candidatePairs(sorted, hashes, threshold)) {
    const a = sorted[i]!;
    const b = sorted[j]!;
    if (acknowledged(a, b) || !judgeThumbs(a, b, figures[i]!, figures[j]!, settings).same) continue;
    pairs.push({ a: { id: a.id, file: a.file }, b: { id: b.id, file: b.file }, distance });
  }
  return pairs;
}

/**
 * The candidates: pairs within `threshold` phash bits, and pairs within THUMB_KEY_RADIUS bits of
 * the thumbnail key (thumbKey: copies whose phash moved further), once each, by i then j.
 */
function candidatePairs(items: readonly DupeItem[], hashes: Hash64[], threshold: number): { i: number; j: number; distance: number }[] {
  if (items.length <= ALL_PAIRS_BELOW) return allCandidatePairs(items, hashes, threshold);
  const pairs = pairsWithinDistance(hashes, threshold);
  const seen = new Set<number>();
  for (const { i, j } of pairs) seen.add(i * items.length + j);
  const keys = items.map((item) => item.thumbKey ?? thumbKey(item.thumb));
  for (const { i, j } of pairsWithinDistance(keys, THUMB_KEY_RADIUS)) {
    if (!seen.has(i * items.length + j)) pairs.push({ i, j, distance: hammingDistance(hashes[i]!, hashes[j]!) });
  }
  return pairs.sort((x, y) => x.i - y.i || x.j - y.j);
}

/** Below this many items every pair is compared: the multi-index's 2¹⁶-bucket tables cost more (a change build's few items and partners). */
const ALL_PAIRS_BELOW = 64;

/** candidatePairs by comparing every pair: the same pairs, in the same order. */
function allCandidatePairs(items: readonly DupeItem[], hashes: Hash64[], threshold: number): { i: number; j: number; distance: number }[] {
  const keys = items.map((item) => item.thumbKey ?? thumbKey(item.thumb));
  const pairs: { i: number; j: number; distance: number }[] = [];
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const distance = hammingDistance(hashes[i]!, hashes[j]!);
      if (distance <= threshold || hammingDistance(keys[i]!, keys[j]!) <= THUMB_KEY_RADIUS) pairs.push({ i, j, distance });
    }
  }
  return pairs;
}
