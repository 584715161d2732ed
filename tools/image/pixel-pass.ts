/**
 * The per-pixel work of the analysis in one WebAssembly pass (pixel-pass.wat): flatten,
 * Pillow greyscale, 32x32 area-weighted thumbnail sums and Pillow's horizontal Lanczos pass, with
 * the Lanczos dot products eight taps at a time (i16 dot products in SIMD), fed the frame in
 * cache-sized chunks of rows; then Pillow's vertical pass over the 32 columns, all at once. The phash is defined on the
 * full-resolution image (the specification: what imagehash.phash computes), so every pixel
 * goes through the Lanczos filter; in plain JS that pass cost ~17 ns per pixel, more than
 * the decode. The same arithmetic in pixels.ts + pil-resize.ts remains the reference, and
 * the path for frames this pass does not take (grey decodes, sides under 32 px).
 *
 * pixel-pass.wasm is the WAT compiled by `npm run build:wasm` and committed (a test fails
 * when it is stale): loading it is far cheaper than compiling the WAT with wabt at run time,
 * which would be a visible part of a one-image rebuild.
 */
import { readFileSync } from 'node:fs';
import { lanczosCoefficients, pilResizeTo32 } from './pil-resize.js';
import { areaThumbnail, bandDeviations, cellAverages, cellWeights, flattenToRgb, pilGreyFromRgb, type RawImage } from './pixels.js';

const OUT = 32;

export const PIXEL_PASS_WASM = new URL('./pixel-pass.wasm', import.meta.url);

export interface PassExports {
  memory: WebAssembly.Memory;
  rows: (...args: number[]) => void;
  vertical: (...args: number[]) => void;
}

let instance: PassExports | undefined;

/** The pass for this thread, instantiated on first use (a rebuild that decodes nothing never loads it). */
export function pixelPass(): PassExports {
  instance ??= new WebAssembly.Instance(new WebAssembly.Module(readFileSync(PIXEL_PASS_WASM))).exports as unknown as PassExports;
  return instance;
}

/**
 * Drops this thread's instance, so that its memory can be collected: a WebAssembly memory only
 * grows, and it holds a chunk of rows plus one byte per row and column of the 32-column
 * intermediate, which a very tall frame makes large. The next image instantiates it again, cheaply.
 */
export function releasePixelPass(): void {
  instance = undefined;
}

/**
 * The tallest frame the pass takes: its per-column sums are u32, and a column's sum over a
 * band is at most 255 * height (row weights add up to the height, in 1/32 pixel). Far above
 * any frame the pixel limit lets through with 32 columns (50 Mpx / 32 = 1.6 M rows).
 */
const MAX_PASS_HEIGHT = Math.floor(0xffffffff / 255);

/**
 * Whether `runPixelPass` handles this frame: RGB or RGBA, at least 32 px each way (so every
 * row and column touches at most two thumbnail cells), and not taller than its sums allow.
 */
export const pixelPassApplies = (image: RawImage): boolean =>
  (image.channels === 3 || image.channels === 4) && image.width >= OUT && image.height >= OUT && image.height <= MAX_PASS_HEIGHT;

/** 16-byte aligned bump allocation over the module's memory. */
function layout(sizes: Record<string, number>): { offsets: Record<string, number>; total: number } {
  const offsets: Record<string, number> = {};
  let at = 0;
  for (const [name, size] of Object.entries(sizes)) {
    offsets[name] = at;
    at += Math.ceil(size / 16) * 16;
  }
  return { offsets, total: at };
}

/**
 * Bytes of the frame copied into the module's memory at a time: a chunk of whole rows small
 * enough to stay in the core's cache while the pass reads it, so the frame crosses memory
 * once, and the module's memory stays small whatever the frame's size.
 */
const CHUNK_BYTES = 128 * 1024;

export interface PixelPassResult {
  /** Pillow's 32x32 LANCZOS resize of Pillow's greyscale (the phash's input). */
  grey32: Uint8Array;
  /** 32x32 RGB area-weighted thumbnail of the flattened frame (same as `areaThumbnail`). */
  thumb: Uint8Array;
  /** 32x32 texture map (pixels.ts `bandDeviations`) of the horizontal pass. */
  texture: Uint8Array;
}

export function runPixelPass(pass: PassExports, image: RawImage): PixelPassResult {
  if (!pixelPassApplies(image)) throw new Error(`runPixelPass: ${image.channels} channels, ${image.width}x${image.height}`);
  const { width, height, channels } = image;
  const horiz = lanczosCoefficients(width, OUT);
  const vert = lanczosCoefficients(height, OUT);
  // Per output column, blocks of eight taps: eight high then eight low i16 halves (pixel-pass.wat $horizontal).
  const kstride = Math.ceil(horiz.ksize / 8) * 32;
  const xs = cellWeights(width, OUT);
  const rowBytes = width * channels;
  const chunkRows = Math.max(1, Math.floor(CHUNK_BYTES / rowBytes));
  const { offsets: o, total } = layout({
    // SIMD loads read up to 16 bytes past the last row.
    src: chunkRows * rowBytes + 16,
    grey: (width + 8) * 2,
    taps: OUT * kstride,
    tstart: OUT * 4,
    tblocks: OUT * 4,
    cellx: OUT * 16,
    acc: OUT * OUT * 3 * 8,
    mid: height * OUT,
    // Per-column sums of a band (SIMD writes up to 16 slots past the row).
    colsum: (width * channels + 16) * 4,
    vtaps: OUT * vert.ksize * 4,
    vstart: OUT * 4,
    vcount: OUT * 4,
    grey32: OUT * OUT,
  });
  const memory = pass.memory;
  if (memory.buffer.byteLength < total) memory.grow(Math.ceil((total - memory.buffer.byteLength) / 65536));
  const buf = memory.buffer;
  const taps = new Int16Array(buf, o.taps, (OUT * kstride) / 2);
  taps.fill(0);
  const tstart = new Int32Array(buf, o.tstart, OUT);
  const tblocks = new Int32Array(buf, o.tblocks, OUT);
  for (let xx = 0; xx < OUT; xx++) {
    const n = horiz.count[xx]!;
    const row = (xx * kstride) / 2;
    for (let k = 0; k < n; k++) {
      const tap = horiz.taps[xx * horiz.ksize + k]!;
      const at = row + (k >> 3) * 16 + (k & 7);
      taps[at] = tap >> 11;
      taps[at + 8] = tap & 2047;
    }
    tstart[xx] = horiz.start[xx]!;
    tblocks[xx] = Math.ceil(n / 8);
  }
  const cellx = new Int32Array(buf, o.cellx, OUT * 4);
  for (let i = 0; i < OUT; i++) cellx.set([xs.first[i]!, xs.end[i]!, xs.head[i]!, xs.tail[i]!], i * 4);
  new Int32Array(buf, o.colsum, width * channels + 16).fill(0);
  const src = new Uint8Array(buf, o.src, chunkRows * rowBytes);
  for (let y0 = 0; y0 < height; y0 += chunkRows) {
    const y1 = Math.min(height, y0 + chunkRows);
    src.set(image.data.subarray(y0 * rowBytes, y1 * rowBytes));
    pass.rows(o.src!, y0, y1, width, height, channels, o.grey!, o.taps!, kstride, o.tstart!, o.tblocks!, OUT, o.cellx!, o.acc!, o.mid!, o.colsum!);
  }
  new Int32Array(buf, o.vtaps, OUT * vert.ksize).set(vert.taps);
  new Int32Array(buf, o.vstart, OUT).set(vert.start);
  new Int32Array(buf, o.vcount, OUT).set(vert.count);
  pass.vertical(o.mid!, o.vtaps!, vert.ksize * 4, o.vstart!, o.vcount!, OUT, o.grey32!);
  const grey32 = new Uint8Array(buf, o.grey32, OUT * OUT).slice();
  const thumb = cellAverages(new Float64Array(buf, o.acc, OUT * OUT * 3), width, height);
  const texture = bandDeviations(new Uint8Array(buf, o.mid, height * OUT), height);
  return { grey32, thumb, texture };
}

/** The same results in plain JS (pixels.ts + pil-resize.ts): the reference the pass is tested against. */
export function referenceGridFeatures(image: RawImage): PixelPassResult {
  const { width, height } = image;
  const rgb = flattenToRgb(image);
  const grey = pilGreyFromRgb(rgb, width, height);
  // The horizontal pass is made once, for the phash and for the texture map.
  const { mid, grey32 } = pilResizeTo32(grey, width, height);
  return { grey32, thumb: areaThumbnail(rgb, width, height, OUT, OUT), texture: bandDeviations(mid, height) };
}

/**
 * The phash input and the thumbnail of a decoded frame: the WebAssembly pass where it
 * applies, else the reference JS (identical results; the tests compare the two).
 */
export function gridFeatures(image: RawImage): PixelPassResult {
  return pixelPassApplies(image) ? runPixelPass(pixelPass(), image) : referenceGridFeatures(image);
}
