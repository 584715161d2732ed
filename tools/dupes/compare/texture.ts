/** A pattern in one picture where the other is plain, which a 32×32 thumbnail averages away (the texture maps of tools/image). */
import type { ThumbComparison } from './compare.js';
import { sourceOf } from './crop.js';
import { encode, labF, labFInverse, LINEAR, SIDE } from './lab.js';
import { channelCurve, lightnessOf, type Tone } from './tone.js';

/** Texture map values (tools/image/pixels.ts `bandDeviations`) of a patterned cell and of a plain one: a re-encode's block noise stays under the first. */
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
