/**
 * The confirmation step: is a phash candidate pair really the same picture?
 *
 * A 64-bit phash sees only coarse greyscale structure, so similar cartoons collide. The
 * 32×32 colour thumbnails (1,024 pixels) still show an eyelid, a hat, a skin tone or a
 * background pattern. Re-encoding and resizing move each thumbnail pixel a little;
 * a different picture moves some region a lot. Brightening moves everything, so it is
 * undone first: in CIE Lab, brightness is (as in sharp's `modulate`) a gain on lightness L,
 * the colour axes a, b stay put and sRGB clips what leaves the gamut. The gain is estimated
 * robustly and used only when the whole picture agrees with it (fitLightness); then we
 * count the pixels whose colour still differs (ΔE76, chroma at half weight).
 */

const THUMB_PIXELS = 32 * 32;

export interface ThumbDifference {
  /** Pixels whose colour difference (ΔE76, chroma at half weight, after any brightness fit) exceeds the tolerance. */
  changedPixels: number;
  /** True when a consistent brightness change was found and undone before comparing. */
  brightened: boolean;
  /** Mean difference (as changedPixels measures it) over the whole thumbnail. */
  meanDifference: number;
}

/** sRGB byte → linear light, once for all 256 values. */
const LINEAR = Float64Array.from({ length: 256 }, (_, v) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});

const labF = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : (t * 24389) / 27 / 116 + 16 / 116);

/** Packed RGB thumbnail → packed Lab (D65), Float32 (L 0..100). */
export function thumbToLab(rgb: Uint8Array): Float32Array {
  if (rgb.length !== THUMB_PIXELS * 3) throw new RangeError(`thumbnails must be 32×32 RGB (${THUMB_PIXELS * 3} bytes), got ${rgb.length}`);
  const lab = new Float32Array(rgb.length);
  for (let p = 0; p < rgb.length; p += 3) {
    const r = LINEAR[rgb[p]!]!;
    const g = LINEAR[rgb[p + 1]!]!;
    const b = LINEAR[rgb[p + 2]!]!;
    const fx = labF((0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047);
    const fy = labF(0.2126729 * r + 0.7151522 * g + 0.072175 * b);
    const fz = labF((0.0193339 * r + 0.119192 * g + 0.9503041 * b) / 1.08883);
    lab[p] = 116 * fy - 16;
    lab[p + 1] = 500 * (fx - fy);
    lab[p + 2] = 200 * (fy - fz);
  }
  return lab;
}

function meanLightness(lab: Float32Array): number {
  let sum = 0;
  for (let p = 0; p < lab.length; p += 3) sum += lab[p]!;
  return sum / THUMB_PIXELS;
}

/**
 * Differences after mapping the darker thumbnail's lightness onto the brighter one's with
 * the best `min(100, gain · L + offset)`; fitting from the darker side lets the clip at 100
 * reproduce saturated highlights.
 */
/** `tolerance` may differ for brightened pairs: the box-averaged edges of a brightened picture stay a little off. */
export function labDifference(a: Float32Array, b: Float32Array, tolerance: number, brightenedTolerance = tolerance): ThumbDifference {
  const [x, y] = meanLightness(a) <= meanLightness(b) ? [a, b] : [b, a];
  const { gain, offset } = fitLightness(x, y);
  // Below a 3% gain there is no brightness edit to undo: compare as is, with the strict
  // tolerance (a barely different skin tone must not earn the looser brightened tolerance).
  const brightened = Math.abs(gain - 1) > MIN_GAIN_CHANGE || Math.abs(offset) > 0.5;
  let changedPixels = 0;
  let total = 0;
  const tolerance2 = (brightened ? brightenedTolerance : tolerance) ** 2;
  const out = [0, 0, 0];
  for (let p = 0; p < x.length; p += 3) {
    let L = x[p]!;
    let A = x[p + 1]!;
    let B = x[p + 2]!;
    if (brightened) {
      brightenLab(L, A, B, gain, offset, out);
      [L, A, B] = out as [number, number, number];
    }
    const dL = L - y[p]!;
    // JPEG and WebP keep colour at half resolution (chroma subsampling), so edges bleed colour
    // into neighbouring thumbnail pixels; lightness stays sharp. Chroma counts half.
    const da = (A - y[p + 1]!) * CHROMA_WEIGHT;
    const db = (B - y[p + 2]!) * CHROMA_WEIGHT;
    const d2 = dL * dL + da * da + db * db;
    total += Math.sqrt(d2);
    if (d2 > tolerance2) changedPixels++;
  }
  return { changedPixels, brightened, meanDifference: total / THUMB_PIXELS };
}

const labFInverse = (f: number) => (f ** 3 > 216 / 24389 ? f ** 3 : ((116 * f - 16) * 27) / 24389);

/**
 * Lightness scaled as an editor's brightness does, then pushed through sRGB: colours that
 * leave the gamut are clipped per channel (a saturated yellow loses chroma), as in the file.
 */
function brightenLab(L: number, A: number, B: number, gain: number, offset: number, out: number[]): void {
  const fy = (Math.max(0, gain * L + offset) + 16) / 116;
  const X = 0.95047 * labFInverse(fy + A / 500);
  const Y = labFInverse(fy);
  const Z = 1.08883 * labFInverse(fy - B / 200);
  const clip = (v: number) => Math.min(1, Math.max(0, v));
  const r = clip(3.2404542 * X - 1.5371385 * Y - 0.4985314 * Z);
  const g = clip(-0.969266 * X + 1.8760108 * Y + 0.041556 * Z);
  const b = clip(0.0556434 * X - 0.2040259 * Y + 1.0572252 * Z);
  const fx2 = labF((0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047);
  const fy2 = labF(0.2126729 * r + 0.7151522 * g + 0.072175 * b);
  const fz2 = labF((0.0193339 * r + 0.119192 * g + 0.9503041 * b) / 1.08883);
  out[0] = 116 * fy2 - 16;
  out[1] = 500 * (fx2 - fy2);
  out[2] = 200 * (fy2 - fz2);
}

export function thumbDifference(a: Uint8Array, b: Uint8Array, tolerance: number, brightenedTolerance = tolerance): ThumbDifference {
  return labDifference(thumbToLab(a), thumbToLab(b), tolerance, brightenedTolerance);
}

/**
 * Brightness is a pure gain on lightness: estimate it as the median ratio over mid-tone
 * pixels, bounded to what "slightly brightened" can mean. A brightness edit moves every
 * mid-tone by that same ratio; a different picture (say a lighter skin) moves one region
 * and leaves the rest. So the gain is used only when most mid-tones agree with it,
 * otherwise the pictures are compared as they are.
 */
function fitLightness(x: Float32Array, y: Float32Array): { gain: number; offset: number } {
  const ratios: number[] = [];
  for (let p = 0; p < x.length; p += 3) {
    // Dark pixels give noisy ratios; very light ones in y may have hit the gamut's top.
    if (x[p]! > 15 && y[p]! < 90) ratios.push(y[p]! / x[p]!);
  }
  if (ratios.length < 16) return { gain: 1, offset: 0 };
  ratios.sort((u, v) => u - v);
  const gain = ratios[ratios.length >> 1]!;
  if (gain > MAX_GAIN || gain < 1 / MAX_GAIN) return { gain: 1, offset: 0 };
  let agreeing = 0;
  for (const ratio of ratios) if (Math.abs(ratio - gain) <= GAIN_AGREEMENT) agreeing++;
  if (agreeing < MIN_AGREEING_SHARE * ratios.length) return { gain: 1, offset: 0 };
  // The darker mid-tones (outlines, shirts) must move by the same ratio as the lighter ones
  // (skin): when one large region dominates the median, this is what exposes a recoloured region.
  const darker = bandMedianRatio(x, y, 15, 50);
  const lighter = bandMedianRatio(x, y, 50, 90);
  if (darker !== null && lighter !== null && Math.abs(darker - lighter) > GAIN_AGREEMENT) return { gain: 1, offset: 0 };
  // Light areas (backgrounds, left out of the fit) must have lightened too, at least half as
  // much as the gain says: a recoloured skin leaves a cream background exactly as it was.
  if (gain > 1 + MIN_GAIN_CHANGE) {
    const shifts: number[] = [];
    for (let p = 0; p < x.length; p += 3) {
      if (x[p]! >= 85 && x[p]! < 97) shifts.push((y[p]! - x[p]!) / (Math.min(100, gain * x[p]!) - x[p]!));
    }
    if (shifts.length >= THUMB_PIXELS * 0.05) {
      shifts.sort((u, v) => u - v);
      if (shifts[shifts.length >> 1]! < 0.5) return { gain: 1, offset: 0 };
    }
  }
  return { gain, offset: 0 };
}

/** Median lightness ratio y/x over pixels whose x lightness is in [low, high); null when under 5% of the thumbnail. */
function bandMedianRatio(x: Float32Array, y: Float32Array, low: number, high: number): number | null {
  const ratios: number[] = [];
  for (let p = 0; p < x.length; p += 3) if (x[p]! >= low && x[p]! < high && y[p]! < 90) ratios.push(y[p]! / x[p]!);
  if (ratios.length < THUMB_PIXELS * 0.05) return null;
  ratios.sort((u, v) => u - v);
  return ratios[ratios.length >> 1]!;
}

/** Weight of the colour axes (a, b) against lightness in the per-pixel difference. */
const CHROMA_WEIGHT = 0.5;

/** Smallest lightness gain treated as a brightness edit. */
const MIN_GAIN_CHANGE = 0.03;

/** "Slightly brightened": up to +50% lightness (the planted copies use +15%). */
const MAX_GAIN = 1.5;
/** A mid-tone agrees with the gain when its own ratio is this close to it. */
const GAIN_AGREEMENT = 0.05;
/** Share of mid-tones that must agree for a brightness edit to explain the difference. */
const MIN_AGREEING_SHARE = 0.8;

/** Same shape: |ln(aspect a / aspect b)|. Resizing keeps the aspect to a pixel's rounding. */
export function aspectDifference(a: { width: number; height: number }, b: { width: number; height: number }): number {
  return Math.abs(Math.log(a.width / a.height) - Math.log(b.width / b.height));
}
