/** Colour conversion for 32×32 thumbnails: sRGB bytes, linear light and CIE Lab (D65), and the colour difference the comparison counts in. */
/** The thumbnail's side, pixel count and packed RGB byte count. */
export const SIDE = 32;
export const PIXELS = SIDE * SIDE;
export const BYTES = PIXELS * 3;

/** sRGB byte → linear light, once for all 256 values. */
export const LINEAR = Float64Array.from({ length: 256 }, (_, v) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});

export const clip = (v: number) => Math.min(1, Math.max(0, v));
export const labF = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : (t * 24389) / 27 / 116 + 16 / 116);
export const labFInverse = (f: number) => (f * f * f > 216 / 24389 ? f * f * f : ((116 * f - 16) * 27) / 24389);

/** Linear RGB (0..1) → Lab (D65) into out[at..at+2]. */
export function linearToLab(r: number, g: number, b: number, out: Float32Array, at: number): void {
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

/** sRGB encoding of a linear value (0..1). */
export const encode = (v: number) => (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055);
/** sRGB value (0..1) → linear. */
export const decode = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);

/** Lab (D65) → linear RGB, unclipped, into LINEAR_RGB. */
export const LINEAR_RGB = new Float64Array(3);
export function labToLinear(L: number, A: number, B: number): void {
  const fy = (L + 16) / 116;
  const X = 0.95047 * labFInverse(fy + A / 500);
  const Y = labFInverse(fy);
  const Z = 1.08883 * labFInverse(fy - B / 200);
  LINEAR_RGB[0] = 3.2404542 * X - 1.5371385 * Y - 0.4985314 * Z;
  LINEAR_RGB[1] = -0.969266 * X + 1.8760108 * Y + 0.041556 * Z;
  LINEAR_RGB[2] = 0.0556434 * X - 0.2040259 * Y + 1.0572252 * Z;
}

/** Packed Lab → packed sRGB values 0..1 (the thumbnail's bytes / 255, to rounding). */
export function labToSrgb(lab: Float32Array): Float32Array {
  const out = new Float32Array(BYTES);
  for (let i = 0; i < BYTES; i += 3) {
    labToLinear(lab[i]!, lab[i + 1]!, lab[i + 2]!);
    for (let ch = 0; ch < 3; ch++) out[i + ch] = encode(clip(LINEAR_RGB[ch]!));
  }
  return out;
}

/** Weight of the colour axes (a, b) against lightness in the per-pixel difference. */
export const CHROMA_WEIGHT = 0.5;

/** ΔE76 between neighbouring cells above which a cell may mix colours (a flat background's cells differ by under 1). */
export const MIX_STEP = 3;
