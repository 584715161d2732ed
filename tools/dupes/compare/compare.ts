/** Two 32×32 thumbnails compared once a copy's global edit and crop are undone (tools/dupes/README.md, step 2). */
import { bestCuts, type Crop, envelopeFigures, MAX_CROP_REGION, profile, resampleInto } from './crop.js';
import { BYTES, PIXELS } from './lab.js';
import { type CompareSettings, flatCells, residualFigures } from './residual.js';
import { applyTone, fitTone, isIdentityTone, type Tone } from './tone.js';

export type { CompareSettings } from './residual.js';


export interface ThumbComparison {
  /** The edit mapping the darker thumbnail onto the lighter (see Tone for `channels.reversed`). */
  tone: Tone;
  /** Which thumbnail is the lighter one (mean L), the one the tone maps onto. */
  lighter: 'a' | 'b';
  /** The crop undone before comparing, or null when the thumbnails were compared as they are. */
  crop: Crop | null;
  /** Pixels whose colour is still more than `tolerance` off after the tone and crop are undone. */
  changedPixels: number;
  /** Changed pixels whose whole 3×3 neighbourhood changed too: a region, not an edge. */
  regionPixels: number;
  /** Pixels off by more than `fineTolerance` with their whole 3×3 neighbourhood: an area of a close shade. */
  fineRegionPixels: number;
  /** Mean colour difference over the thumbnail (as changedPixels measures it). */
  meanDifference: number;
  /** The pictures have one colour besides white and black (flat areas within ΔE 10): no edit was undone, since any curve fits one colour. */
  oneColour: boolean;
  /** Pixels off by more than EXACT_DIFFERENCE with their whole 3×3 neighbourhood (all of them with a crop): with one colour, its area in another shade. */
  exactRegionPixels: number;
  /** Pixels off by more than `fineTolerance` (0 with a crop). */
  localPixels: number;
  /** Area (pixels) of the box around every pixel off by more than EXACT_DIFFERENCE (the whole thumbnail with a crop). */
  offBox: number;
  /** Area (pixels) of the box around the drawing: every pixel of one thumbnail off the colour of its top-left corner by more than ΔE 3. */
  drawingBox: number;
  /** With a crop: the changed pixels before it was undone (a real crop moves every edge, so many more than remain). */
  uncroppedChangedPixels?: number;
}


/** Of the tones fitTone offers, the one that leaves the fewest changed pixels (then the least mean difference). */
function bestTone(a: Float32Array, b: Float32Array, settings: CompareSettings): { tone: Tone; oneColour: boolean } & ReturnType<typeof residualFigures> {
  let best: ({ tone: Tone } & ReturnType<typeof residualFigures>) | null = null;
  const { tones, oneColour } = fitTone(a, b);
  // Which cells of each side have one colour (for the clip slack): the same for every tone, so made once a side.
  let flatA: Uint8Array | undefined;
  let flatB: Uint8Array | undefined;
  for (const tone of tones) {
    const reversed = tone.channels?.reversed === true;
    const { mapped, clipped } = applyTone(reversed ? b : a, tone);
    const flat = clipped === null ? null : reversed ? (flatB ??= flatCells(b)) : (flatA ??= flatCells(a));
    const figures = residualFigures(mapped, reversed ? a : b, settings, clipped, flat);
    if (!best || figures.changedPixels < best.changedPixels || (figures.changedPixels === best.changedPixels && figures.meanDifference < best.meanDifference)) best = { tone, ...figures };
  }
  return { ...best!, oneColour };
}

/**
 * Compares two thumbnails in Lab (thumbToLab): the tone fitted a → b; then, when what differs
 * is mostly lines, a crop of either one looked for and undone (see the module comment).
 */
export function compareLab(a: Float32Array, b: Float32Array, settings: CompareSettings): ThumbComparison {
  // From the darker to the lighter: brightening clips, and a clipped colour cannot be darkened back.
  if (meanLightness(a) <= meanLightness(b)) return compareDarkerToLighter(a, b, settings);
  const { crop, ...figures } = compareDarkerToLighter(b, a, settings);
  return { ...figures, lighter: 'a', crop: crop && { ...crop, cropped: crop.cropped === 'a' ? 'b' : 'a' } };
}

/** compareLab with a the darker thumbnail (its crop names them as given). */
function compareDarkerToLighter(a: Float32Array, b: Float32Array, settings: CompareSettings): ThumbComparison {
  const asIs: ThumbComparison = { crop: null, lighter: 'b', ...bestTone(a, b, settings) };
  // A crop moves edges, not areas: with many region pixels as they are, the pair is a recolour, not a crop.
  if (asIs.changedPixels <= settings.alignAbove || asIs.regionPixels > MAX_CROP_REGION) return asIs;
  let best = asIs;
  for (const cropped of ['a', 'b'] as const) {
    const [uncropped, inner] = cropped === 'a' ? [b, a] : [a, b];
    const x = bestCuts(profile(uncropped, 'x'), profile(inner, 'x'));
    const y = bestCuts(profile(uncropped, 'y'), profile(inner, 'y'));
    if (x.low + x.high + y.low + y.high === 0) continue;
    const crop = { left: x.low, right: x.high, top: y.low, bottom: y.high };
    const resampled = resampleInto(uncropped, crop);
    const [from, to] = cropped === 'a' ? [a, resampled] : [resampled, b];
    // The tone is fitted again on the aligned pixels: the first fit saw every edge off.
    const { tone } = bestTone(from, to, settings);
    // A copy carries one edit: a crop and a tone edit together explain too much (a brightened
    // pale background against another, a 0.5% "crop" absorbing the rest).
    if (!isIdentityTone(tone)) continue;
    // Measured against the cells each cropped cell lies between, not their interpolation.
    const onUncropped = (cropped === 'b') !== (tone.channels?.reversed === true);
    const figures = envelopeFigures(onUncropped ? applyTone(uncropped, tone).mapped : uncropped, onUncropped ? inner : applyTone(inner, tone).mapped, crop, settings);
    if (figures.changedPixels < best.changedPixels) best = { crop: { cropped, ...crop }, lighter: 'b', tone, oneColour: asIs.oneColour, ...figures, uncroppedChangedPixels: asIs.changedPixels };
  }
  return best;
}


/**
 * The largest hue turn of one colour's area once the comparison's tone is undone (no crop):
 * the cells flat in both thumbnails (flatCells), not near white or black, grouped by colour
 * (within HUE_AREA_JOIN of an area's first cell); of the areas of at least HUE_AREA_CELLS cells
 * with chroma at least HUE_AREA_CHROMA, the largest |ΔH| (CIE hue difference, a and b units) of
 * the area's mean colour against its mean prediction. Brightness, contrast and gamma move an
 * area's lightness and chroma but barely its hue; another skin tone turns it.
 */
export function areaHueShift(a: Float32Array, b: Float32Array, comparison: ThumbComparison): { cells: number; deltaH: number } {
  const [darker, lighter] = comparison.lighter === 'b' ? [a, b] : [b, a];
  const [from, to] = comparison.tone.channels?.reversed === true ? [lighter, darker] : [darker, lighter];
  const mapped = applyTone(from, comparison.tone).mapped;
  const flatFrom = flatCells(from);
  const flatTo = flatCells(to);
  // Per area: its first cell's colour, then the sums of its cells' colours and predictions.
  const areas: number[][] = [];
  for (let p = 0, i = 0; p < PIXELS; p++, i += 3) {
    if (flatFrom[p] === 0 || flatTo[p] === 0 || to[i]! < 3 || to[i]! > 97) continue;
    let area = areas.find((s) => (s[0]! - to[i]!) ** 2 + (s[1]! - to[i + 1]!) ** 2 + (s[2]! - to[i + 2]!) ** 2 < HUE_AREA_JOIN ** 2);
    if (!area) areas.push((area = [to[i]!, to[i + 1]!, to[i + 2]!, 0, 0, 0, 0, 0]));
    area[3]!++;
    area[4]! += to[i + 1]!;
    area[5]! += to[i + 2]!;
    area[6]! += mapped[i + 1]!;
    area[7]! += mapped[i + 2]!;
  }
  let worst = { cells: 0, deltaH: 0 };
  for (const [, , , n, ta, tb, ma, mb] of areas) {
    const chroma = Math.hypot(ta!, tb!) / n!;
    if (n! < HUE_AREA_CELLS || chroma < HUE_AREA_CHROMA) continue;
    // The component of (target − prediction) across the target's hue direction.
    const deltaH = Math.abs(ta! * (tb! - mb!) - tb! * (ta! - ma!)) / n! / n! / chroma;
    if (deltaH > worst.deltaH) worst = { cells: n!, deltaH };
  }
  return worst;
}
/** ΔE76 within which a flat cell joins an area; the least cells and chroma of an area whose hue is judged. */
const HUE_AREA_JOIN = 8;
const HUE_AREA_CELLS = 24;
const HUE_AREA_CHROMA = 15;

function meanLightness(lab: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < BYTES; i += 3) sum += lab[i]!;
  return sum / PIXELS;
}
