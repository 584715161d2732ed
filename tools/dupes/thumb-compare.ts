/**
 * The confirmation step's measurements: how far apart are two 32×32 colour thumbnails once
 * every global edit a copy may carry is undone, and is what remains scattered (edges moved by
 * a re-encode or a resize) or concentrated in a region (a recolour, another detail)?
 *
 * 1. Tone: a gamma or contrast tool applies one curve to every sRGB channel, a brightness
 *    tool (sharp's modulate) scales lightness in Lab, keeping chroma; sRGB then clips each
 *    channel. So both kinds are fitted (channel curves by least squares on the values the
 *    other picture did not clip; lightness by a mid-tone ratio and affine and power fits),
 *    a's pixels are mapped through each and through sRGB's clipping, and the one leaving
 *    the fewest changed pixels is kept. A fit no edit can produce (see MAX_LIGHTNESS_GAIN)
 *    is not used: a recolour is then compared as it is.
 * 2. Alignment: a crop of a few percent shifts every edge by up to a cell. When many pixels
 *    differ but few in regions, the crop is estimated from row and column profiles, the tone
 *    fitted again on the aligned thumbnails, and each cell of the cropped one compared with
 *    the range of the cells of the other it lies between (envelopeFigures).
 * 3. What remains: a pixel "changed" when its colour is still more than `tolerance` off (ΔE76,
 *    chroma at half weight: JPEG and WebP keep colour at half resolution, so edges bleed).
 *    Edges moved by a re-encode, a resize or the resampling are lines a pixel or two wide; a
 *    recoloured shirt, skin or background, or a hat, is an area. `regionPixels` counts the
 *    changed pixels whose whole 3×3 neighbourhood changed too (an erosion), so lines count 0;
 *    `fineRegionPixels` the same at a finer tolerance, for an area in a close shade.
 */

const SIDE = 32;
const PIXELS = SIDE * SIDE;
const BYTES = PIXELS * 3;

/**
 * The global edit undone: lightness L → gain·100·(L/100)^gamma + offset; chroma (a, b) ×
 * chroma. Or, when `channels` is set (lightness and chroma then identity), the same curve on
 * each sRGB channel value v (0..1) → gain·v^gamma + offset, as a gamma or contrast tool does.
 */
export interface Tone {
  lightness: { gain: number; offset: number; gamma: number };
  chroma: number;
  channels?: { gain: number; offset: number; gamma: number; reversed: boolean };
}

export interface Crop {
  /** Which thumbnail is the cropped one (its frame is the other's inner part). */
  cropped: 'a' | 'b';
  /** Share of the uncropped picture's width or height cut at each side. */
  left: number;
  right: number;
  top: number;
  bottom: number;
}

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
  /** With a crop: the changed pixels before it was undone (a real crop moved every edge: 146–366 on the benchmark, 8–20× what remains). */
  uncroppedChangedPixels?: number;
}

export interface CompareSettings {
  /** Colour difference (ΔE76, chroma at half weight) above which a pixel counts as changed. */
  tolerance: number;
  /** Changed pixels up to which the thumbnails agree as they are (no crop is looked for). */
  alignAbove: number;
  /** A finer colour difference, for `fineRegionPixels`: a close shade changes an area by less than `tolerance`, but all of it. */
  fineTolerance: number;
}

/** sRGB byte → linear light, once for all 256 values. */
const LINEAR = Float64Array.from({ length: 256 }, (_, v) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});

const clip = (v: number) => Math.min(1, Math.max(0, v));
const labF = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : (t * 24389) / 27 / 116 + 16 / 116);
const labFInverse = (f: number) => (f * f * f > 216 / 24389 ? f * f * f : ((116 * f - 16) * 27) / 24389);

/** Linear RGB (0..1) → Lab (D65) into out[at..at+2]. */
function linearToLab(r: number, g: number, b: number, out: Float32Array, at: number): void {
  const fx = labF((0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047);
  const fy = labF(0.2126729 * r + 0.7151522 * g + 0.072175 * b);
  const fz = labF((0.0193339 * r + 0.119192 * g + 0.9503041 * b) / 1.08883);
  out[at] = 116 * fy - 16;
  out[at + 1] = 500 * (fx - fy);
  out[at + 2] = 200 * (fy - fz);
}

/** Packed RGB thumbnail → packed Lab (D65), Float32 (L 0..100). */
export function thumbToLab(rgb: Uint8Array): Float32Array {
  if (rgb.length !== BYTES) throw new RangeError(`thumbnails must be 32×32 RGB (${BYTES} bytes), got ${rgb.length}`);
  const lab = new Float32Array(BYTES);
  for (let p = 0; p < BYTES; p += 3) linearToLab(LINEAR[rgb[p]!]!, LINEAR[rgb[p + 1]!]!, LINEAR[rgb[p + 2]!]!, lab, p);
  return lab;
}

const IDENTITY: Tone = { lightness: { gain: 1, offset: 0, gamma: 1 }, chroma: 1 };

/**
 * The lightness edit, from the pixels b did not clip to black or white: brightness and
 * contrast are affine in L (L' = gain·L + offset, least squares), a gamma edit a power
 * (L' = 100·(L/100)^gamma, least squares on the logarithms); the one that fits better.
 * Both families move L monotonically, so that f(L) − L changes sign at most once between
 * black and white: a recoloured skin, lighter while the shirt and the background stay, is
 * neither.
 */
function fitLightness(a: Float32Array, b: Float32Array): Tone['lightness'][] {
  const first = fitLightnessOn(a, b, null);
  // Refitted without the pixels the first fit missed by more than OUTLIER_L: saturated colours
  // sRGB clipped (they could not brighten as far), a recoloured region.
  const [min, max] = [1, 99];
  const keep = new Uint8Array(PIXELS);
  for (let p = 0, i = 0; p < PIXELS; p++, i += 3) keep[p] = b[i]! >= min && b[i]! <= max && Math.abs(lightnessOf(first, a[i]!) - b[i]!) <= OUTLIER_L ? 1 : 0;
  return [first, ...lightnessCandidates(a, b, keep)];
}

/** Of the identity and the plausible candidates, the one with the least squared error. */
function fitLightnessOn(a: Float32Array, b: Float32Array, keep: Uint8Array | null): Tone['lightness'] {
  let best = IDENTITY.lightness;
  let bestError = lightnessError(a, b, keep, best);
  for (const tone of lightnessCandidates(a, b, keep)) {
    const error = lightnessError(a, b, keep, tone);
    if (error < bestError) [best, bestError] = [tone, error];
  }
  return best;
}

/** The plausible affine, power and gain fits on the pixels `keep` marks (all when null) that b did not clip. */
function lightnessCandidates(a: Float32Array, b: Float32Array, keep: Uint8Array | null): Tone['lightness'][] {
  let n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, lxx = 0, lxy = 0;
  for (let p = 0, i = 0; p < PIXELS; p++, i += 3) {
    // Black and white say only "at most" or "at least": an edit may have clipped them.
    if (!usable(a, b, keep, p, i)) continue;
    const x = a[i]!;
    const y = b[i]!;
    n++;
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    const lx = Math.log(x / 100);
    lxx += lx * lx;
    lxy += lx * Math.log(y / 100);
  }
  if (n < 32) return [];
  const variance = sxx - (sx * sx) / n;
  const gain = variance < 1e-6 ? 1 : (sxy - (sx * sy) / n) / variance;
  const affine = { gain, offset: (sy - gain * sx) / n, gamma: 1 };
  const power = { gain: 1, offset: 0, gamma: lxx < 1e-9 ? 1 : lxy / lxx };
  // Brightness alone (sharp's modulate, a gain on L): the median ratio of the mid-tones, which
  // neither clip nor sit on the gamut's edge as bright saturated colours do.
  const scaled = { gain: midToneRatio(a, b), offset: 0, gamma: 1 };
  const plausibleAffine = gain >= 1 / MAX_LIGHTNESS_GAIN && gain <= MAX_LIGHTNESS_GAIN && Math.abs(affine.offset) <= MAX_LIGHTNESS_OFFSET;
  const plausiblePower = power.gamma >= 1 / MAX_GAMMA && power.gamma <= MAX_GAMMA;
  const plausibleScaled = scaled.gain >= 1 / MAX_LIGHTNESS_GAIN && scaled.gain <= MAX_LIGHTNESS_GAIN;
  return [plausibleAffine ? affine : null, plausiblePower ? power : null, plausibleScaled ? scaled : null].filter((tone) => tone !== null);
}

/** Median of L_b / L_a over the pixels whose lightness in a is in 15..70 (1 when under 5% of them). */
function midToneRatio(a: Float32Array, b: Float32Array): number {
  const ratios: number[] = [];
  for (let i = 0; i < BYTES; i += 3) if (a[i]! > 15 && a[i]! < 70) ratios.push(b[i]! / a[i]!);
  if (ratios.length < PIXELS * 0.05) return 1;
  ratios.sort((x, y) => x - y);
  return ratios[ratios.length >> 1]!;
}

/** A pixel the lightness fit uses: kept (or, without `keep`, not clipped by b to black or white), and not black in a. */
const usable = (a: Float32Array, b: Float32Array, keep: Uint8Array | null, p: number, i: number): boolean =>
  (keep ? keep[p] === 1 : b[i]! >= 1 && b[i]! <= 99) && a[i]! >= 1;

function lightnessError(a: Float32Array, b: Float32Array, keep: Uint8Array | null, tone: Tone['lightness']): number {
  let sum = 0;
  for (let p = 0, i = 0; p < PIXELS; p++, i += 3) if (usable(a, b, keep, p, i)) sum += (lightnessOf(tone, a[i]!) - b[i]!) ** 2;
  return sum;
}

const lightnessOf = (tone: Tone['lightness'], L: number): number =>
  Math.min(100, Math.max(0, tone.gain * (tone.gamma === 1 ? L : 100 * (L / 100) ** tone.gamma) + tone.offset));

/** Least-squares gain of b's chroma over a's, on pixels with some colour that b did not clip to white or black. */
function fitChroma(a: Float32Array, b: Float32Array): number {
  let num = 0;
  let den = 0;
  for (let i = 0; i < BYTES; i += 3) {
    if (b[i]! < 1 || b[i]! > 99) continue;
    num += a[i + 1]! * b[i + 1]! + a[i + 2]! * b[i + 2]!;
    den += a[i + 1]! ** 2 + a[i + 2]! ** 2;
  }
  return den < 1 ? 1 : num / den;
}

/**
 * The edit mapping a onto b; a chroma gain no edit produces is left out. An edit moves nearly
 * every pixel but white and black: when under GLOBAL_SHARE of the others differ at all (ΔE >
 * 1) there is none to undo, and the thumbnails are compared as they are. A recolour of one
 * close shade (a skin a little lighter) moves the skin and its outline only, and a mild curve
 * would otherwise explain it.
 */
function fitTone(a: Float32Array, b: Float32Array): { tones: Tone[]; oneColour: boolean } {
  let moved = 0;
  let fixed = 0;
  for (let i = 0; i < BYTES; i += 3) {
    const dL = a[i]! - b[i]!;
    const da = (a[i + 1]! - b[i + 1]!) * CHROMA_WEIGHT;
    const db = (a[i + 2]! - b[i + 2]!) * CHROMA_WEIGHT;
    if (dL * dL + da * da + db * db > 1) moved++;
    // White and black stay where they are under most edits: a white background is no sign that nothing was edited.
    else if (a[i]! >= 100 - FIXED_L || a[i]! <= FIXED_L) fixed++;
  }
  if (moved < GLOBAL_SHARE * (PIXELS - fixed)) return { tones: [IDENTITY], oneColour: false };
  // One colour (besides white and black) fits any curve: its edit cannot be told from a recolour.
  if (flatColours(a) < 2 || flatColours(b) < 2) return { tones: [IDENTITY], oneColour: true };
  const chroma = fitChroma(a, b);
  const plausibleChroma = chroma >= 1 / MAX_CHROMA_GAIN && chroma <= MAX_CHROMA_GAIN ? chroma : 1;
  // Clipped colours drag the chroma fit down; a brightness edit keeps chroma: both are tried.
  const chromas = plausibleChroma === 1 ? [1] : [plausibleChroma, 1];
  // A contrast edit clips at both ends, so either picture may be the edited one: both ways.
  const [srgbA, srgbB] = [labToSrgb(a), labToSrgb(b)];
  const curves = [...fitChannels(srgbA, srgbB, false), ...fitChannels(srgbB, srgbA, true)];
  const channels = curves.map((curve) => ({ ...IDENTITY, channels: curve }));
  return { tones: [IDENTITY, ...fitLightness(a, b).flatMap((lightness) => chromas.map((chroma) => ({ lightness, chroma }))), ...channels], oneColour: false };
}

/**
 * How many colours the thumbnail's flat areas have, up to 2: 2×2 blocks whose pixels lie
 * within MIX_STEP of the first, not within FIXED_L of white or black, grouped greedily by
 * DISTINCT_COLOUR. A shape's edge cells blend it with the background in every proportion,
 * but no 2×2 block of them is flat, so a flat shape on white counts one.
 */
function flatColours(lab: Float32Array): number {
  const step2 = MIX_STEP * MIX_STEP;
  let first = -1;
  for (let r = 0; r < SIDE - 1; r++) {
    for (let c = 0; c < SIDE - 1; c++) {
      const i = (r * SIDE + c) * 3;
      if (lab[i]! <= FIXED_L || lab[i]! >= 100 - FIXED_L) continue;
      let flat = true;
      for (const j of [i + 3, i + SIDE * 3, i + SIDE * 3 + 3]) {
        if ((lab[i]! - lab[j]!) ** 2 + (lab[i + 1]! - lab[j + 1]!) ** 2 + (lab[i + 2]! - lab[j + 2]!) ** 2 > step2) flat = false;
      }
      if (!flat) continue;
      if (first < 0) first = i;
      else if ((lab[i]! - lab[first]!) ** 2 + (lab[i + 1]! - lab[first + 1]!) ** 2 + (lab[i + 2]! - lab[first + 2]!) ** 2 > DISTINCT_COLOUR * DISTINCT_COLOUR) return 2;
    }
  }
  return first < 0 ? 0 : 1;
}
/** ΔE76 between two flat areas above which they are two colours, not one colour's shading. */
const DISTINCT_COLOUR = 10;

/** sRGB encoding of a linear value (0..1). */
const encode = (v: number) => (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055);
/** sRGB value (0..1) → linear. */
const decode = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);

/** Lab (D65) → linear RGB, unclipped, into LINEAR_RGB. */
const LINEAR_RGB = new Float64Array(3);
function labToLinear(L: number, A: number, B: number): void {
  const fy = (L + 16) / 116;
  const X = 0.95047 * labFInverse(fy + A / 500);
  const Y = labFInverse(fy);
  const Z = 1.08883 * labFInverse(fy - B / 200);
  LINEAR_RGB[0] = 3.2404542 * X - 1.5371385 * Y - 0.4985314 * Z;
  LINEAR_RGB[1] = -0.969266 * X + 1.8760108 * Y + 0.041556 * Z;
  LINEAR_RGB[2] = 0.0556434 * X - 0.2040259 * Y + 1.0572252 * Z;
}

/** Packed Lab → packed sRGB values 0..1 (the thumbnail's bytes / 255, to rounding). */
function labToSrgb(lab: Float32Array): Float32Array {
  const out = new Float32Array(BYTES);
  for (let i = 0; i < BYTES; i += 3) {
    labToLinear(lab[i]!, lab[i + 1]!, lab[i + 2]!);
    for (let ch = 0; ch < 3; ch++) out[i + ch] = encode(clip(LINEAR_RGB[ch]!));
  }
  return out;
}

/**
 * A gamma or contrast tool applies one curve to every sRGB channel value: v^gamma (a power,
 * least squares on the logarithms) or gain·v + offset (least squares). Fitted on the values b
 * did not clip, jointly over the three channels: one curve, not one per channel (per-channel
 * curves "explain" any close colour). The plausible ones, as for lightness.
 */
function fitChannels(a: Float32Array, b: Float32Array, reversed: boolean): NonNullable<Tone['channels']>[] {
  let n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, lxx = 0, lxy = 0;
  for (let i = 0; i < BYTES; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (y <= 0.01 || y >= 0.99 || x <= 0.02 || x >= 0.98) continue;
    n++;
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    const lx = Math.log(x);
    lxx += lx * lx;
    lxy += lx * Math.log(y);
  }
  if (n < 96) return [];
  const variance = sxx - (sx * sx) / n;
  const gain = variance < 1e-9 ? 1 : (sxy - (sx * sy) / n) / variance;
  const offset = (sy - gain * sx) / n;
  const gamma = lxx < 1e-9 ? 1 : lxy / lxx;
  const curves: NonNullable<Tone['channels']>[] = [];
  if (gain >= 1 / MAX_LIGHTNESS_GAIN && gain <= MAX_LIGHTNESS_GAIN && Math.abs(offset) <= MAX_LIGHTNESS_OFFSET / 100) curves.push({ gain, offset, gamma: 1, reversed });
  if (gamma >= 1 / MAX_GAMMA && gamma <= MAX_GAMMA) curves.push({ gain: 1, offset: 0, gamma, reversed });
  return curves;
}

/** A gamma or contrast tool's curve on one sRGB channel value (0..1): gain·v^gamma + offset, unclipped. */
function channelCurve(curve: NonNullable<Tone['channels']>, v: number): number {
  return curve.gain * v ** curve.gamma + curve.offset;
}

/** a's pixels through a channel curve (clipped to 0..1 as in a file), back to Lab; pixels pushed above white by more than CLIP_MARGIN are marked. */
function applyChannels(a: Float32Array, curve: NonNullable<Tone['channels']>): { mapped: Float32Array; clipped: Uint8Array } {
  const out = new Float32Array(BYTES);
  const clipped = new Uint8Array(PIXELS);
  const rgb = [0, 0, 0];
  for (let i = 0; i < BYTES; i += 3) {
    labToLinear(a[i]!, a[i + 1]!, a[i + 2]!);
    for (let ch = 0; ch < 3; ch++) {
      const v = channelCurve(curve, encode(clip(LINEAR_RGB[ch]!)));
      if (v > 1 + CLIP_MARGIN) clipped[i / 3] = 1;
      rgb[ch] = decode(clip(v));
    }
    linearToLab(rgb[0]!, rgb[1]!, rgb[2]!, out, i);
  }
  return { mapped: out, clipped };
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
 * a's pixels through the edit, then through sRGB (what leaves the gamut is clipped per channel,
 * as in a file), and which pixels the edit pushed out of the gamut by more than CLIP_MARGIN.
 */
function applyTone(a: Float32Array, tone: Tone): { mapped: Float32Array; clipped: Uint8Array | null } {
  if (tone.channels) return applyChannels(a, tone.channels);
  const { gain, offset, gamma } = tone.lightness;
  if (gain === 1 && offset === 0 && gamma === 1 && tone.chroma === 1) return { mapped: a, clipped: null };
  const out = new Float32Array(BYTES);
  const clipped = new Uint8Array(PIXELS);
  for (let i = 0; i < BYTES; i += 3) {
    // Not clipped at 100: an editor brightens past white and sRGB clips each channel, which
    // keeps some of the colour (a pale green background turns a paler yellow-green, not grey).
    const L = Math.max(0, gain * (gamma === 1 ? a[i]! : 100 * (a[i]! / 100) ** gamma) + offset);
    const A = a[i + 1]! * tone.chroma;
    const B = a[i + 2]! * tone.chroma;
    out[i] = L;
    out[i + 1] = A;
    out[i + 2] = B;
    labToLinear(L, A, B);
    const r = LINEAR_RGB[0]!;
    const g = LINEAR_RGB[1]!;
    const bl = LINEAR_RGB[2]!;
    // Only a colour outside the gamut needs the (slower) way back through clipped sRGB.
    if (r < 0 || r > 1 || g < 0 || g > 1 || bl < 0 || bl > 1) {
      linearToLab(clip(r), clip(g), clip(bl), out, i);
      if (r > 1 + CLIP_MARGIN || g > 1 + CLIP_MARGIN || bl > 1 + CLIP_MARGIN) clipped[i / 3] = 1;
    }
  }
  return { mapped: out, clipped };
}

/**
 * Per-pixel colour difference, then the changed, region, fine region and mean figures. A cell
 * the edit clipped, or next to one, may mix source pixels that were clipped one by one with
 * darker ones (an eye's white and its pupil, a pale background and an outline): the edit of
 * the cell's average predicts it too light. There a cell darker than predicted counts as
 * changed only above CLIP_SLACK × tolerance; a lighter one as anywhere else. A cell whose
 * neighbourhood in the source has one colour (`flat`, flatCells) has nothing to mix and no slack: a
 * pale yellow background is not a brightened pale green one.
 */
function residualFigures(x: Float32Array, y: Float32Array, { tolerance, fineTolerance }: CompareSettings, clipped: Uint8Array | null = null, flat: Uint8Array | null = null) {
  const changed = new Uint8Array(PIXELS);
  const fine = new Uint8Array(PIXELS);
  const tolerance2 = tolerance * tolerance;
  const fine2 = fineTolerance * fineTolerance;
  const slack2 = tolerance2 * CLIP_SLACK * CLIP_SLACK;
  let changedPixels = 0;
  let total = 0;
  const exact = EXACT_DIFFERENCE * EXACT_DIFFERENCE;
  for (let p = 0, i = 0; p < PIXELS; p++, i += 3) {
    const dL = x[i]! - y[i]!;
    const da = (x[i + 1]! - y[i + 1]!) * CHROMA_WEIGHT;
    const db = (x[i + 2]! - y[i + 2]!) * CHROMA_WEIGHT;
    const d2 = dL * dL + da * da + db * db;
    total += Math.sqrt(d2);
    // Only darker than predicted: clipping its brightest source pixels can only darken a cell.
    const slack = clipped !== null && dL > 0 && nearClipped(clipped, p) && (flat === null || flat[p] === 0);
    if (d2 > (slack ? slack2 : tolerance2)) {
      changed[p] = 1;
      changedPixels++;
    }
    if (d2 > (slack ? slack2 : fine2)) fine[p] = 1;
    OFF[p] = d2 > exact ? 1 : 0;
  }
  return { changedPixels, regionPixels: eroded(changed), fineRegionPixels: eroded(fine), meanDifference: total / PIXELS, ...localFigures(fine, OFF, y), exactRegionPixels: eroded(OFF) };
}
/** Scratch for residualFigures: 1 where a pixel differs by more than EXACT_DIFFERENCE. */
const OFF = new Uint8Array(PIXELS);

/**
 * A local recolour's figures: the pixels off by more than the fine tolerance (`localPixels`),
 * and the box around every pixel off at all (by more than EXACT_DIFFERENCE: `offBox`, its
 * area in pixels), and the box around the drawing (`drawingBox`: what is not the colour of
 * the top-left corner). A small feature in another colour on the same drawing leaves a few off
 * pixels in a small part of it and nothing else; a re-encode or a resize leaves small
 * differences along every edge, over the whole drawing, however small it is.
 */
function localFigures(fine: Uint8Array, off: Uint8Array, lab: Float32Array): { localPixels: number; offBox: number; drawingBox: number } {
  let localPixels = 0;
  const offBox = new PixelBox();
  const drawing = new PixelBox();
  for (let p = 0; p < PIXELS; p++) {
    const i = p * 3;
    if ((lab[i]! - lab[0]!) ** 2 + (lab[i + 1]! - lab[1]!) ** 2 + (lab[i + 2]! - lab[2]!) ** 2 > MIX_STEP * MIX_STEP) drawing.add(p);
    if (fine[p] === 1) localPixels++;
    if (off[p] === 1 || fine[p] === 1) offBox.add(p);
  }
  return { localPixels, offBox: offBox.area(), drawingBox: drawing.area() };
}

/** The bounding box of the thumbnail pixels added to it, in pixels (0 when none was). */
class PixelBox {
  private top = SIDE;
  private bottom = -1;
  private left = SIDE;
  private right = -1;

  add(p: number): void {
    const r = (p / SIDE) | 0;
    const c = p % SIDE;
    if (r < this.top) this.top = r;
    if (r > this.bottom) this.bottom = r;
    if (c < this.left) this.left = c;
    if (c > this.right) this.right = c;
  }

  area(): number {
    return this.bottom < 0 ? 0 : (this.bottom - this.top + 1) * (this.right - this.left + 1);
  }
}

/** 1 where a pixel's 3×3 neighbourhood has one colour (every neighbour within MIX_STEP, ΔE76): nothing for a clip to mix. */
function flatCells(lab: Float32Array): Uint8Array {
  const out = new Uint8Array(PIXELS);
  const step2 = MIX_STEP * MIX_STEP;
  for (let r = 0; r < SIDE; r++) {
    for (let c = 0; c < SIDE; c++) {
      const i = (r * SIDE + c) * 3;
      let flat = 1;
      for (let y = Math.max(0, r - 1); y <= Math.min(SIDE - 1, r + 1) && flat; y++) {
        for (let x = Math.max(0, c - 1); x <= Math.min(SIDE - 1, c + 1); x++) {
          const j = (y * SIDE + x) * 3;
          if ((lab[i]! - lab[j]!) ** 2 + (lab[i + 1]! - lab[j + 1]!) ** 2 + (lab[i + 2]! - lab[j + 2]!) ** 2 > step2) {
            flat = 0;
            break;
          }
        }
      }
      out[r * SIDE + c] = flat;
    }
  }
  return out;
}
/** ΔE (as changedPixels measures it) up to which two thumbnail pixels are the same: identical drawings differ by 0. */
const EXACT_DIFFERENCE = 1;

/** ΔE76 between neighbouring cells above which a cell may mix colours (a flat background's cells differ by under 1). */
const MIX_STEP = 3;

/** Marked pixels whose whole 3×3 neighbourhood is marked too. */
function eroded(marked: Uint8Array): number {
  let count = 0;
  for (let r = 1; r < SIDE - 1; r++) {
    for (let c = 1; c < SIDE - 1; c++) {
      let all = true;
      for (let dr = -1; dr <= 1 && all; dr++) for (let dc = -1; dc <= 1 && all; dc++) all = marked[(r + dr) * SIDE + c + dc] === 1;
      if (all) count++;
    }
  }
  return count;
}

/** Whether pixel p or one of its 8 neighbours is marked. */
function nearClipped(clipped: Uint8Array, p: number): boolean {
  const r = (p / SIDE) | 0;
  const c = p % SIDE;
  for (let rr = Math.max(0, r - 1); rr <= Math.min(SIDE - 1, r + 1); rr++) {
    for (let cc = Math.max(0, c - 1); cc <= Math.min(SIDE - 1, c + 1); cc++) if (clipped[rr * SIDE + cc] === 1) return true;
  }
  return false;
}

/** Mean of each column (axis 'x') or row ('y') of a float RGB thumbnail, per channel: 32 × 3 values. */
function profile(image: ArrayLike<number>, axis: 'x' | 'y'): Float32Array {
  const out = new Float32Array(SIDE * 3);
  for (let r = 0; r < SIDE; r++) {
    for (let c = 0; c < SIDE; c++) {
      const k = axis === 'x' ? c : r;
      const i = (r * SIDE + c) * 3;
      out[k * 3] = out[k * 3]! + image[i]! / SIDE;
      out[k * 3 + 1] = out[k * 3 + 1]! + image[i + 1]! / SIDE;
      out[k * 3 + 2] = out[k * 3 + 2]! + image[i + 2]! / SIDE;
    }
  }
  return out;
}

/** Where cell k (0..31) of the cropped frame lies in the uncropped one's cells, for cuts `low` and `high` (shares). */
const sourceOf = (k: number, low: number, high: number) => (low + ((k + 0.5) / SIDE) * (1 - low - high)) * SIDE - 0.5;

/** Linear interpolation of a 32-cell profile (3 channels) at fractional cell `s`, channel `ch`. */
function sampleProfile(p: Float32Array, s: number, ch: number): number {
  const s0 = Math.max(0, Math.min(SIDE - 1, Math.floor(s)));
  const s1 = Math.min(SIDE - 1, s0 + 1);
  const f = Math.max(0, Math.min(1, s - s0));
  return p[s0 * 3 + ch]! * (1 - f) + p[s1 * 3 + ch]! * f;
}

/** The cuts (low, high) along one axis that best map the uncropped profile onto the cropped one, and the error. */
function bestCuts(uncropped: Float32Array, cropped: Float32Array): { low: number; high: number; error: number } {
  let best = { low: 0, high: 0, error: Number.POSITIVE_INFINITY };
  for (let low = 0; low <= MAX_CROP + 1e-9; low += CROP_STEP) {
    for (let high = 0; low + high <= MAX_CROP + 1e-9; high += CROP_STEP) {
      let error = 0;
      for (let k = 0; k < SIDE; k++) {
        const s = sourceOf(k, low, high);
        for (let ch = 0; ch < 3; ch++) error += (sampleProfile(uncropped, s, ch) - cropped[k * 3 + ch]!) ** 2;
      }
      if (error < best.error) best = { low, high, error };
    }
  }
  return best;
}

/** Bilinear resampling of the uncropped (float) thumbnail into the cropped one's frame. */
function resampleInto(uncropped: Float32Array, crop: Omit<Crop, 'cropped'>): Float32Array {
  const out = new Float32Array(BYTES);
  for (let r = 0; r < SIDE; r++) {
    const sy = Math.max(0, Math.min(SIDE - 1, sourceOf(r, crop.top, crop.bottom)));
    const y0 = Math.min(SIDE - 2, Math.floor(sy));
    const fy = sy - y0;
    for (let c = 0; c < SIDE; c++) {
      const sx = Math.max(0, Math.min(SIDE - 1, sourceOf(c, crop.left, crop.right)));
      const x0 = Math.min(SIDE - 2, Math.floor(sx));
      const fx = sx - x0;
      const i00 = (y0 * SIDE + x0) * 3;
      const i10 = i00 + SIDE * 3;
      for (let ch = 0; ch < 3; ch++) {
        const top = uncropped[i00 + ch]! * (1 - fx) + uncropped[i00 + 3 + ch]! * fx;
        const bottom = uncropped[i10 + ch]! * (1 - fx) + uncropped[i10 + 3 + ch]! * fx;
        out[(r * SIDE + c) * 3 + ch] = top * (1 - fy) + bottom * fy;
      }
    }
  }
  return out;
}

/**
 * The residual of a crop: each cell of the cropped thumbnail against the box (per Lab channel,
 * least to greatest) of the 2×2 uncropped cells it lies between. A 3% crop moves every edge by
 * a fraction of a cell, so a cell on an outline averages another share of line and fill than
 * any interpolation of the uncropped cells predicts (measured: 150–250 changed pixels after
 * bilinear resampling, with a few region pixels around the eyes), but its colour still lies
 * between theirs. A recoloured area does not: all its neighbours have the old colour.
 */
function envelopeFigures(uncropped: Float32Array, cropped: Float32Array, crop: Omit<Crop, 'cropped'>, { tolerance, fineTolerance }: CompareSettings) {
  const changed = new Uint8Array(PIXELS);
  const fine = new Uint8Array(PIXELS);
  let changedPixels = 0;
  let total = 0;
  for (let r = 0; r < SIDE; r++) {
    const y0 = Math.min(SIDE - 2, Math.floor(Math.max(0, Math.min(SIDE - 1, sourceOf(r, crop.top, crop.bottom)))));
    for (let c = 0; c < SIDE; c++) {
      const x0 = Math.min(SIDE - 2, Math.floor(Math.max(0, Math.min(SIDE - 1, sourceOf(c, crop.left, crop.right)))));
      const i = (r * SIDE + c) * 3;
      let d2 = 0;
      for (let ch = 0; ch < 3; ch++) {
        let low = Number.POSITIVE_INFINITY;
        let high = Number.NEGATIVE_INFINITY;
        for (let dy = 0; dy <= 1; dy++) {
          for (let dx = 0; dx <= 1; dx++) {
            const v = uncropped[((y0 + dy) * SIDE + x0 + dx) * 3 + ch]!;
            if (v < low) low = v;
            if (v > high) high = v;
          }
        }
        const v = cropped[i + ch]!;
        const outside = (v < low ? low - v : v > high ? v - high : 0) * (ch === 0 ? 1 : CHROMA_WEIGHT);
        d2 += outside * outside;
      }
      total += Math.sqrt(d2);
      if (d2 > tolerance * tolerance) {
        changed[r * SIDE + c] = 1;
        changedPixels++;
      }
      if (d2 > fineTolerance * fineTolerance) fine[r * SIDE + c] = 1;
    }
  }
  // A crop moves every edge: no local recolour is looked for.
  return { changedPixels, regionPixels: eroded(changed), fineRegionPixels: eroded(fine), meanDifference: total / PIXELS, localPixels: 0, offBox: PIXELS, drawingBox: PIXELS, exactRegionPixels: PIXELS };
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
  // A crop moves edges, not areas: as they are, 3% crops have 0–16 region pixels, a recolour hundreds.
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

/**
 * Share of the pixels not left at white or black that an edit moves. Brightness, contrast and
 * gamma copies move 95% or more on seed 2024 (and on every other seed), so 0.85 leaves a
 * margin; a close skin shade moves 15–35%, a pale background a shade off 61–79% (seeds 7, 99,
 * 123), which a mild curve would otherwise "explain".
 */
const GLOBAL_SHARE = 0.85;
/** Lightness within this of white or black: a pixel there that did not move says nothing about an edit (gamma barely moves L 96). */
const FIXED_L = 5;

/** How far out of the gamut (linear RGB above 1) a predicted pixel must go to count as clipped, and how much more a difference may be next to one. */
const CLIP_MARGIN = 0.02;
const CLIP_SLACK = 3;

/** Weight of the colour axes (a, b) against lightness in the per-pixel difference. */
const CHROMA_WEIGHT = 0.5;
/** Plausible edits: lightness gain (brightness, contrast) up to this factor either way, offset up to this many L units, gamma up to this factor either way. */
const MAX_LIGHTNESS_GAIN = 1.3;
const MAX_LIGHTNESS_OFFSET = 20;
const MAX_GAMMA = 1.4;
/** L units by which a pixel may miss the first lightness fit and still take part in the second. */
const OUTLIER_L = 4;
/** Largest chroma gain (or its inverse) of a plausible edit: +15% contrast raises chroma ~15–20%. */
const MAX_CHROMA_GAIN = 1.3;
/** Largest total share of a side a crop may cut (issue 25: at most 3%), and the search step. */
const MAX_CROP = 0.04;
/** Region pixels (as they are) above which no crop is looked for: 3% crops have 0–14 on seed 2024, 0–16 on seeds 7 and 99. */
const MAX_CROP_REGION = 32;
const CROP_STEP = 0.005;

/** Same shape: |ln(aspect a / aspect b)|. Resizing keeps the aspect to a pixel's rounding. */
export function aspectDifference(a: { width: number; height: number }, b: { width: number; height: number }): number {
  return Math.abs(Math.log(a.width / a.height) - Math.log(b.width / b.height));
}

/** Grey (Pillow's weights, ×1000) of a packed RGB thumbnail, summed over blocks of 2^`shift` pixels a side, row by row. */
function greyBlocks(rgb: Uint8Array, shift: 1 | 2): Int32Array {
  const side = SIDE >> shift;
  const out = new Int32Array(side * side);
  let i = 0;
  for (let r = 0; r < SIDE; r++) {
    const row = (r >> shift) * side;
    for (let c = 0; c < SIDE; c++, i += 3) {
      const k = row + (c >> shift);
      out[k] = out[k]! + 299 * rgb[i]! + 587 * rgb[i + 1]! + 114 * rgb[i + 2]!;
    }
  }
  return out;
}

/**
 * The second candidate key: 64 bits, one per 4×4-pixel block of the thumbnail, set when the
 * block's mean grey is above the median block. Coarser than the phash and so steadier: the
 * phash of a flat cartoon moves up to 16–22 bits under JPEG q40, WebP, a 150% resize, +15%
 * brightness or a 3% crop (its DCT coefficients sit close to their median), while this key
 * keeps all but a few of the benchmark's planted copies within THUMB_KEY_RADIUS. It cannot
 * tell look-alike drawings apart at all: its candidates go through the layout check.
 */
export function thumbKey(rgb: Uint8Array): { hi: number; lo: number } {
  const blocks = greyBlocks(rgb, 2);
  const sorted = blocks.slice().sort();
  const median = (sorted[31]! + sorted[32]!) / 2;
  let hi = 0;
  let lo = 0;
  for (let k = 0; k < 32; k++) if (blocks[k]! > median) hi |= 1 << k;
  for (let k = 0; k < 32; k++) if (blocks[k + 32]! > median) lo |= 1 << k;
  return { hi: hi >>> 0, lo: lo >>> 0 };
}

/** Thumbnail key distance (bits) up to which a pair is a candidate, whatever its phash distance. */
export const THUMB_KEY_RADIUS = 2;

/**
 * The thumbnail's layout: grey over 2×2-pixel blocks (16×16), less its mean, over its standard
 * deviation, so that a brightness, contrast or (nearly) gamma edit leaves it as it is.
 */
export function thumbLayout(rgb: Uint8Array): Float32Array {
  const blocks = greyBlocks(rgb, 1);
  let mean = 0;
  for (const v of blocks) mean += v;
  mean /= blocks.length;
  let variance = 0;
  for (const v of blocks) variance += (v - mean) ** 2;
  const sd = Math.sqrt(variance / blocks.length) || 1;
  const out = new Float32Array(blocks.length);
  for (let k = 0; k < blocks.length; k++) out[k] = (blocks[k]! - mean) / sd;
  return out;
}

/** Mean absolute difference of two layouts (standard deviations). */
export function layoutDifference(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let k = 0; k < a.length; k++) sum += Math.abs(a[k]! - b[k]!);
  return sum / a.length;
}

/**
 * Texture map values (twice the standard deviation, tools/image/pixels.ts `bandDeviations`) of
 * a patterned cell and of a plain one. JPEG q40's block noise on a plain background reaches 3;
 * snow's specks 6–15, dots, stripes and rays more.
 */
export const TEXTURE_PATTERNED = 4;
export const TEXTURE_PLAIN = 1;

/**
 * Cells patterned in one picture where the other is plain: the texture maps (32×32, a
 * pattern's strength per cell) compared cell by cell, a patterned cell (≥ TEXTURE_PATTERNED)
 * counting when the other picture is plain (≤ TEXTURE_PLAIN) in all its 3×3 neighbourhood,
 * which absorbs the half cell an edge moves under a resize. With a crop, the uncropped map is
 * first sampled into the cropped frame (nearest cell). A plain cell near white (a channel ≥
 * 250) in the lighter picture excuses the other's pattern when the fitted edit takes that
 * pattern's darker shade to near white too: a brightening that clips a pale background
 * erases its pattern, but not a grey one's.
 */
export function textureDifference(a: { texture: Uint8Array; thumb: Uint8Array }, b: { texture: Uint8Array; thumb: Uint8Array }, { crop, tone, lighter }: Pick<ThumbComparison, 'crop' | 'tone' | 'lighter'>): number {
  let [ta, tb, ra, rb] = [a.texture, b.texture, a.thumb, b.thumb];
  if (crop) {
    // The uncropped picture's maps, sampled into the cropped frame (nearest cell).
    const [texture, rgb] = crop.cropped === 'a' ? [tb, rb] : [ta, ra];
    const sampledTexture = new Uint8Array(SIDE * SIDE);
    const sampledRgb = new Uint8Array(SIDE * SIDE * 3);
    for (let r = 0; r < SIDE; r++) {
      const sy = Math.max(0, Math.min(SIDE - 1, Math.round(sourceOf(r, crop.top, crop.bottom))));
      for (let c = 0; c < SIDE; c++) {
        const from = sy * SIDE + Math.max(0, Math.min(SIDE - 1, Math.round(sourceOf(c, crop.left, crop.right))));
        sampledTexture[r * SIDE + c] = texture[from]!;
        sampledRgb.set(rgb.subarray(from * 3, from * 3 + 3), (r * SIDE + c) * 3);
      }
    }
    if (crop.cropped === 'a') [tb, rb] = [sampledTexture, sampledRgb];
    else [ta, ra] = [sampledTexture, sampledRgb];
  }
  const plainA = plainAround(ta, ra);
  const plainB = plainAround(tb, rb);
  let cells = 0;
  // A plain cell near white in the lighter picture excuses a pattern the edit takes to white.
  for (let i = 0; i < SIDE * SIDE; i++) {
    if (ta[i]! >= TEXTURE_PATTERNED && plainB[i] === 1 && !(lighter === 'b' && nearWhite(rb, i) && clipsToWhite(tone, darkestShade(ra, i)))) cells++;
    else if (tb[i]! >= TEXTURE_PATTERNED && plainA[i] === 1 && !(lighter === 'a' && nearWhite(ra, i) && clipsToWhite(tone, darkestShade(rb, i)))) cells++;
  }
  return cells;
}

const nearWhite = (rgb: Uint8Array, i: number) => rgb[i * 3]! >= NEAR_WHITE || rgb[i * 3 + 1]! >= NEAR_WHITE || rgb[i * 3 + 2]! >= NEAR_WHITE;
const NEAR_WHITE = 250;

/**
 * The darkest shade (grey 0..255) around cell i: the least thumbnail grey over its 3×3
 * neighbourhood. A pattern as coarse as a cell (stripes) shows its dark shade there; a finer
 * one (dots) averages into its background, so the edit is judged on the cells' own colours.
 */
function darkestShade(rgb: Uint8Array, i: number): number {
  const r = (i / SIDE) | 0;
  const c = i % SIDE;
  let darkest = 255;
  for (let y = Math.max(0, r - 1); y <= Math.min(SIDE - 1, r + 1); y++) {
    for (let x = Math.max(0, c - 1); x <= Math.min(SIDE - 1, c + 1); x++) {
      const k = y * SIDE + x;
      darkest = Math.min(darkest, 0.299 * rgb[k * 3]! + 0.587 * rgb[k * 3 + 1]! + 0.114 * rgb[k * 3 + 2]!);
    }
  }
  return darkest;
}

/** Whether the edit (darker picture → lighter) takes a neutral grey (0..255) to near white. */
function clipsToWhite(tone: Tone, grey: number): boolean {
  let v: number;
  if (tone.channels) {
    const { gain, offset, gamma, reversed } = tone.channels;
    // A reversed curve maps the lighter picture onto the darker: inverted here.
    v = reversed ? Math.max(0, (grey / 255 - offset) / gain) ** (1 / gamma) : channelCurve(tone.channels, grey / 255);
  } else {
    const L = 116 * labF(LINEAR[Math.round(grey)]!) - 16;
    v = encode(Math.min(1, labFInverse((lightnessOf(tone.lightness, L) + 16) / 116)));
  }
  return v * 255 >= NEAR_WHITE;
}

/**
 * 1 where a cell and its 3×3 neighbourhood are all plain: no pattern within a cell, and no
 * colour change across cells either. A pattern about
 * as coarse as a cell (a checkerboard) shows in the thumbnail rather than within its cells,
 * and a band of rows that happens to lie within one of its rows looks plain.
 */
function plainAround(texture: Uint8Array, rgb: Uint8Array): Uint8Array {
  const out = new Uint8Array(SIDE * SIDE);
  for (let r = 0; r < SIDE; r++) {
    for (let c = 0; c < SIDE; c++) {
      let plain = 1;
      const i = (r * SIDE + c) * 3;
      for (let y = Math.max(0, r - 1); y <= Math.min(SIDE - 1, r + 1) && plain; y++) {
        for (let x = Math.max(0, c - 1); x <= Math.min(SIDE - 1, c + 1); x++) {
          const j = (y * SIDE + x) * 3;
          if (texture[y * SIDE + x]! > TEXTURE_PLAIN || Math.abs(rgb[i]! - rgb[j]!) > PLAIN_STEP || Math.abs(rgb[i + 1]! - rgb[j + 1]!) > PLAIN_STEP || Math.abs(rgb[i + 2]! - rgb[j + 2]!) > PLAIN_STEP) {
            plain = 0;
            break;
          }
        }
      }
      out[r * SIDE + c] = plain;
    }
  }
  return out;
}

/** Largest step (per RGB channel) between neighbouring thumbnail cells of a plain area. */
const PLAIN_STEP = 8;
