/** Two 32×32 thumbnails compared once a copy's global edit and crop are undone (tools/dupes/README.md, step 2). */
import { bestCuts, type Crop, envelopeFigures, MAX_CROP_REGION, profile, resampleInto } from './crop.js';
import { BYTES, PIXELS } from './lab.js';
import { type CompareSettings, flatCells, residualFigures } from './residual.js';
import { applyTone, fitTone, type Tone } from './tone.js';

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
    // Measured against the cells each cropped cell lies between, not their interpolation.
    const onUncropped = (cropped === 'b') !== (tone.channels?.reversed === true);
    const figures = envelopeFigures(onUncropped ? applyTone(uncropped, tone).mapped : uncropped, onUncropped ? inner : applyTone(inner, tone).mapped, crop, settings);
    if (figures.changedPixels < best.changedPixels) best = { crop: { cropped, ...crop }, lighter: 'b', tone, oneColour: asIs.oneColour, ...figures, uncroppedChangedPixels: asIs.changedPixels };
  }
  return best;
}


function meanLightness(lab: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < BYTES; i += 3) sum += lab[i]!;
  return sum / PIXELS;
}
