/** Tone fitting: the global edit (brightness, contrast, gamma) that maps one thumbnail onto the other, and its application through sRGB clipping. */
import { BYTES, CHROMA_WEIGHT, clip, decode, encode, labToLinear, labToSrgb, LINEAR_RGB, linearToLab, MIX_STEP, PIXELS, SIDE } from './lab.js';

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

const IDENTITY: Tone = { lightness: { gain: 1, offset: 0, gamma: 1 }, chroma: 1 };

/** Whether the tone undoes nothing: the thumbnails are compared as they are. */
export function isIdentityTone({ lightness: { gain, offset, gamma }, chroma, channels }: Tone): boolean {
  return gain === 1 && offset === 0 && gamma === 1 && chroma === 1 && channels === undefined;
}

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

export const lightnessOf = (tone: Tone['lightness'], L: number): number =>
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
export function fitTone(a: Float32Array, b: Float32Array): { tones: Tone[]; oneColour: boolean } {
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
  // One colour (besides white and black) fits any curve: its edit cannot be told from a recolour.
  // Said also when nothing is undone: two shades of one colour differ in no other way.
  const oneColour = flatColours(a) < 2 || flatColours(b) < 2;
  if (oneColour || moved < GLOBAL_SHARE * (PIXELS - fixed)) return { tones: [IDENTITY], oneColour };
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
export function channelCurve(curve: NonNullable<Tone['channels']>, v: number): number {
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

/**
 * a's pixels through the edit, then through sRGB (what leaves the gamut is clipped per channel,
 * as in a file), and which pixels the edit pushed out of the gamut by more than CLIP_MARGIN.
 */
export function applyTone(a: Float32Array, tone: Tone): { mapped: Float32Array; clipped: Uint8Array | null } {
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

/** Share of the pixels not left at white or black that an edit moves: a recolour of one area moves fewer, and a mild curve would otherwise "explain" it. */
const GLOBAL_SHARE = 0.85;
/** Lightness within this of white or black: a pixel there that did not move says nothing about an edit (gamma barely moves near-white). */
const FIXED_L = 5;

/** How far out of the gamut (linear RGB above 1) a predicted pixel must go to count as clipped, and how much more a difference may be next to one. */
const CLIP_MARGIN = 0.02;

/** Plausible edits: lightness gain (brightness, contrast) up to this factor either way, offset up to this many L units, gamma up to this factor either way. */
const MAX_LIGHTNESS_GAIN = 1.3;
const MAX_LIGHTNESS_OFFSET = 20;
const MAX_GAMMA = 1.4;
/** L units by which a pixel may miss the first lightness fit and still take part in the second. */
const OUTLIER_L = 4;
/** Largest chroma gain (or its inverse) of a plausible edit: a contrast edit raises chroma too. */
const MAX_CHROMA_GAIN = 1.3;
