/**
 * A table-driven blurhash encoder whose strings are identical to the npm `blurhash`
 * package's `encode` (tested on many random images): same basis values, same summation
 * order (x outer, y inner), same quantisation. The npm encoder recomputes two `Math.cos`
 * and three sRGB→linear `Math.pow` per pixel and component; here the cosines and the
 * sRGB→linear curve are lookup tables (`npm run bench -- --only images`).
 */

const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~';

function encode83(n: number, length: number): string {
  let result = '';
  for (let i = 1; i <= length; i++) {
    const digit = (Math.floor(n) / Math.pow(83, length - i)) % 83;
    result += DIGITS[Math.floor(digit)];
  }
  return result;
}

/** sRGB byte → linear, exactly the npm package's `sRGBToLinear`. */
const SRGB_TO_LINEAR = Float64Array.from({ length: 256 }, (_, value) => {
  const v = value / 255;
  return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
});

function linearTosRGB(value: number): number {
  const v = Math.max(0, Math.min(1, value));
  return v <= 0.0031308 ? Math.trunc(v * 12.92 * 255 + 0.5) : Math.trunc((1.055 * Math.pow(v, 1 / 2.4) - 0.055) * 255 + 0.5);
}

const signPow = (val: number, exp: number): number => (val < 0 ? -1 : 1) * Math.pow(Math.abs(val), exp);

/** basis[c][x*height + y] for component c = cy*componentX + cx, as the npm encoder computes it. */
const basisCache = new Map<string, Float64Array[]>();
function basisTables(width: number, height: number, componentX: number, componentY: number): Float64Array[] {
  const key = `${width}x${height}/${componentX}x${componentY}`;
  let tables = basisCache.get(key);
  if (tables) return tables;
  tables = [];
  for (let cy = 0; cy < componentY; cy++) {
    for (let cx = 0; cx < componentX; cx++) {
      const normalisation = cx === 0 && cy === 0 ? 1 : 2;
      const t = new Float64Array(width * height);
      for (let x = 0; x < width; x++) {
        for (let y = 0; y < height; y++) {
          t[x * height + y] = normalisation * Math.cos((Math.PI * cx * x) / width) * Math.cos((Math.PI * cy * y) / height);
        }
      }
      tables.push(t);
    }
  }
  basisCache.set(key, tables);
  return tables;
}

/**
 * Blurhash of an image given as packed pixels with `channels` bytes per pixel (3 = RGB,
 * 4 = RGBA; alpha is ignored like the npm encoder does).
 */
export function encodeBlurhash(pixels: Uint8Array, width: number, height: number, componentX: number, componentY: number, channels: 3 | 4 = 3): string {
  if (componentX < 1 || componentX > 9 || componentY < 1 || componentY > 9) throw new Error('blurhash needs 1..9 components per axis');
  if (pixels.length !== width * height * channels) throw new Error(`blurhash: ${pixels.length} bytes for ${width}x${height}x${channels}`);
  // Linearise once per pixel instead of once per pixel and component.
  const n = width * height;
  const lin = new Float64Array(n * 3);
  for (let x = 0; x < width; x++) {
    for (let y = 0; y < height; y++) {
      const p = (y * width + x) * channels;
      const o = (x * height + y) * 3;
      lin[o] = SRGB_TO_LINEAR[pixels[p]!]!;
      lin[o + 1] = SRGB_TO_LINEAR[pixels[p + 1]!]!;
      lin[o + 2] = SRGB_TO_LINEAR[pixels[p + 2]!]!;
    }
  }
  const scale = 1 / (width * height);
  const factors = basisTables(width, height, componentX, componentY).map((basis) => {
    let r = 0;
    let g = 0;
    let b = 0;
    for (let i = 0, o = 0; i < n; i++, o += 3) {
      const w = basis[i]!;
      r += w * lin[o]!;
      g += w * lin[o + 1]!;
      b += w * lin[o + 2]!;
    }
    return [r * scale, g * scale, b * scale] as const;
  });

  const dc = factors[0]!;
  const ac = factors.slice(1);
  let hash = encode83(componentX - 1 + (componentY - 1) * 9, 1);
  let maximumValue = 1;
  if (ac.length > 0) {
    const actualMaximumValue = Math.max(...ac.map((val) => Math.max(...val)));
    const quantised = Math.floor(Math.max(0, Math.min(82, Math.floor(actualMaximumValue * 166 - 0.5))));
    maximumValue = (quantised + 1) / 166;
    hash += encode83(quantised, 1);
  } else {
    hash += encode83(0, 1);
  }
  hash += encode83((linearTosRGB(dc[0]) << 16) + (linearTosRGB(dc[1]) << 8) + linearTosRGB(dc[2]), 4);
  const quant = (v: number): number => Math.floor(Math.max(0, Math.min(18, Math.floor(signPow(v / maximumValue, 0.5) * 9 + 9.5))));
  for (const f of ac) hash += encode83(quant(f[0]) * 19 * 19 + quant(f[1]) * 19 + quant(f[2]), 2);
  return hash;
}
