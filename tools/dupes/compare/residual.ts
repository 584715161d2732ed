/** What remains once an edit is undone: changed, region and fine region pixels, and the figures of a local recolour. */
import { CHROMA_WEIGHT, MIX_STEP, PIXELS, SIDE } from './lab.js';

export interface CompareSettings {
  /** Colour difference (ΔE76, chroma at half weight) above which a pixel counts as changed. */
  tolerance: number;
  /** Changed pixels up to which the thumbnails agree as they are (no crop is looked for). */
  alignAbove: number;
  /** A finer colour difference, for `fineRegionPixels`: a close shade changes an area by less than `tolerance`, but all of it. */
  fineTolerance: number;
}

/** How many times the tolerance a cell next to a clipped one may be darker than predicted: it may mix clipped and unclipped pixels. */
const CLIP_SLACK = 3;

/**
 * Per-pixel colour difference, then the changed, region, fine region and mean figures. A cell
 * the edit clipped, or next to one, may mix source pixels that were clipped one by one with
 * darker ones (an eye's white and its pupil, a pale background and an outline): the edit of
 * the cell's average predicts it too light. There a cell darker than predicted counts as
 * changed only above CLIP_SLACK × tolerance; a lighter one as anywhere else. A cell whose
 * neighbourhood in the source has one colour (`flat`, flatCells) has nothing to mix and no slack: a
 * pale yellow background is not a brightened pale green one.
 */
export function residualFigures(x: Float32Array, y: Float32Array, { tolerance, fineTolerance }: CompareSettings, clipped: Uint8Array | null = null, flat: Uint8Array | null = null) {
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
export function flatCells(lab: Float32Array): Uint8Array {
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


/** Marked pixels whose whole 3×3 neighbourhood is marked too. */
export function eroded(marked: Uint8Array): number {
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
