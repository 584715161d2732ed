/** Crops: a small crop of either thumbnail estimated from row and column profiles, and the residual against the cells it lies between. */
import { type CompareSettings, eroded } from './residual.js';
import { BYTES, CHROMA_WEIGHT, PIXELS, SIDE } from './lab.js';

export interface Crop {
  /** Which thumbnail is the cropped one (its frame is the other's inner part). */
  cropped: 'a' | 'b';
  /** Share of the uncropped picture's width or height cut at each side. */
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Mean of each column (axis 'x') or row ('y') of a float RGB thumbnail, per channel: 32 × 3 values. */
export function profile(image: ArrayLike<number>, axis: 'x' | 'y'): Float32Array {
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
export const sourceOf = (k: number, low: number, high: number) => (low + ((k + 0.5) / SIDE) * (1 - low - high)) * SIDE - 0.5;

/** Linear interpolation of a 32-cell profile (3 channels) at fractional cell `s`, channel `ch`. */
function sampleProfile(p: Float32Array, s: number, ch: number): number {
  const s0 = Math.max(0, Math.min(SIDE - 1, Math.floor(s)));
  const s1 = Math.min(SIDE - 1, s0 + 1);
  const f = Math.max(0, Math.min(1, s - s0));
  return p[s0 * 3 + ch]! * (1 - f) + p[s1 * 3 + ch]! * f;
}

/** The cuts (low, high) along one axis that best map the uncropped profile onto the cropped one, and the error. */
export function bestCuts(uncropped: Float32Array, cropped: Float32Array): { low: number; high: number; error: number } {
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
export function resampleInto(uncropped: Float32Array, crop: Omit<Crop, 'cropped'>): Float32Array {
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
 * least to greatest) of the 2×2 uncropped cells it lies between. A small crop moves every edge
 * by a fraction of a cell, so a cell on an outline averages another share of line and fill
 * than any interpolation of the uncropped cells predicts, but its colour still lies between
 * theirs. A recoloured area does not: all its neighbours have the old colour.
 */
export function envelopeFigures(uncropped: Float32Array, cropped: Float32Array, crop: Omit<Crop, 'cropped'>, { tolerance, fineTolerance }: CompareSettings) {
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


/** Largest total share of a side a crop may cut (a copy's crop is small), and the search step. */
const MAX_CROP = 0.04;
/** Region pixels (as they are) above which no crop is looked for: a crop moves lines, not areas. */
export const MAX_CROP_REGION = 32;
const CROP_STEP = 0.005;
