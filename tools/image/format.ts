/**
 * Image format detection from magic bytes. The file name's extension is never trusted:
 * the build publishes under the detected extension and warns when the name disagrees.
 */
import type { ImageExt } from '../../functions/core/record.js';

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp' | 'avif';

export interface ImageFormatInfo {
  format: ImageFormat;
  ext: ImageExt;
  mime: string;
}

const INFO: Record<ImageFormat, ImageFormatInfo> = {
  png: { format: 'png', ext: '.png', mime: 'image/png' },
  jpeg: { format: 'jpeg', ext: '.jpg', mime: 'image/jpeg' },
  gif: { format: 'gif', ext: '.gif', mime: 'image/gif' },
  webp: { format: 'webp', ext: '.webp', mime: 'image/webp' },
  avif: { format: 'avif', ext: '.avif', mime: 'image/avif' },
};

/** What the catalogue accepts, for error messages. */
export const ACCEPTED_FORMATS_TEXT = 'PNG, JPEG, GIF, WebP (also animated) and AVIF';

const startsWith = (bytes: Uint8Array, sig: readonly number[], at = 0): boolean =>
  bytes.length >= at + sig.length && sig.every((b, i) => bytes[at + i] === b);

const ascii = (bytes: Uint8Array, start: number, end: number): string =>
  String.fromCharCode(...bytes.subarray(start, Math.min(end, bytes.length)));

/** ISO-BMFF `ftyp` box: major brand plus compatible brands (AVIF and HEIC share the container). */
function ftypBrands(bytes: Uint8Array): string[] | null {
  if (bytes.length < 16 || ascii(bytes, 4, 8) !== 'ftyp') return null;
  const boxSize = ((bytes[0]! << 24) >>> 0) + (bytes[1]! << 16) + (bytes[2]! << 8) + bytes[3]!;
  const end = Math.min(boxSize, bytes.length, 256);
  const brands = [ascii(bytes, 8, 12)];
  for (let i = 16; i + 4 <= end; i += 4) brands.push(ascii(bytes, i, i + 4));
  return brands;
}

/** The supported format these bytes are, or null (use `describeUnsupported` for the message). */
export function detectFormat(bytes: Uint8Array): ImageFormatInfo | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return INFO.png;
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return INFO.jpeg;
  if (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a') return INFO.gif;
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return INFO.webp;
  const brands = ftypBrands(bytes);
  // 'avis' is an AVIF image sequence; both decode with libheif's AV1 path.
  if (brands && (brands[0] === 'avif' || brands[0] === 'avis' || (brands.includes('avif') && !isHeicBrand(brands[0]!)))) return INFO.avif;
  return null;
}

// 'mif1'/'msf1' are generic HEIF brands that AVIF files also carry, so they do not rule AVIF out.
const isHeicBrand = (brand: string): boolean => brand.startsWith('hei') || brand.startsWith('hev');

/** A human name for what unsupported bytes look like, for the `unsupported-format` message. */
export function describeUnsupported(bytes: Uint8Array): string {
  const head = ascii(bytes, 0, 512).replace(/^\uFEFF/, '').trimStart().toLowerCase();
  if (head.startsWith('<svg') || ((head.startsWith('<?xml') || head.startsWith('<!doctype svg')) && head.includes('<svg'))) return 'an SVG drawing';
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return 'a TIFF image';
  if (ascii(bytes, 0, 2) === 'BM') return 'a BMP image';
  const brands = ftypBrands(bytes);
  if (brands && brands.some((b) => b.startsWith('hei') || b.startsWith('hev'))) return 'a HEIC/HEIF image';
  if (brands) return `an ISO media file (brand '${brands[0]}')`;
  if (startsWith(bytes, [0x00, 0x00, 0x01, 0x00])) return 'an ICO icon';
  if (ascii(bytes, 0, 4) === '%PDF') return 'a PDF document';
  if (ascii(bytes, 0, 4) === 'RIFF') return `a RIFF '${ascii(bytes, 8, 12)}' file`;
  if (startsWith(bytes, [0xff, 0x0a]) || startsWith(bytes, [0x00, 0x00, 0x00, 0x0c, 0x4a, 0x58, 0x4c, 0x20])) return 'a JPEG XL image';
  if (head.startsWith('<')) return 'an HTML/XML text file';
  if (bytes.length === 0) return 'an empty file';
  return 'no known image format';
}

/**
 * What a viewer allocates to show an image, read from the container (no decode): the number
 * of frames, and the canvas, the rectangle every frame is drawn on (GIF's logical screen
 * joined with every frame's rectangle, WebP's VP8X canvas, PNG's IHDR, which APNG frames may
 * not exceed). Null canvas: the format has none of its own (JPEG, AVIF, a simple WebP), and
 * the decoded size is the canvas. AVIF counts as one frame: libvips reads its primary image.
 *
 * A decoder may report a frame, not the canvas: libvips gives a GIF with a huge screen and
 * thousands of 1×1 frames as 1×1, which published so is a decode bomb for every browser.
 */
export interface FrameLayout {
  frames: number;
  canvas: { width: number; height: number } | null;
}

export function frameLayout(bytes: Uint8Array, format: ImageFormat): FrameLayout {
  if (format === 'gif') return gifLayout(bytes);
  if (format === 'webp') return webpLayout(bytes);
  if (format === 'png' && bytes.length >= 24 && ascii(bytes, 12, 16) === 'IHDR') return { frames: pngFrames(bytes), canvas: { width: u32be(bytes, 16), height: u32be(bytes, 20) } };
  return { frames: 1, canvas: null };
}

const u16le = (bytes: Uint8Array, at: number): number => (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8);
const u24le = (bytes: Uint8Array, at: number): number => u16le(bytes, at) | ((bytes[at + 2] ?? 0) << 16);
const u32le = (bytes: Uint8Array, at: number): number => (u24le(bytes, at) + (bytes[at + 3] ?? 0) * 2 ** 24);
const u32be = (bytes: Uint8Array, at: number): number => (bytes[at] ?? 0) * 2 ** 24 + (((bytes[at + 1] ?? 0) << 16) | ((bytes[at + 2] ?? 0) << 8) | (bytes[at + 3] ?? 0));

/** GIF: frames counted by walking the blocks; the canvas is the logical screen grown to hold every frame's rectangle. */
function gifLayout(bytes: Uint8Array): FrameLayout {
  let width = u16le(bytes, 6);
  let height = u16le(bytes, 8);
  let pos = 13;
  const flags = bytes[10] ?? 0;
  if (flags & 0x80) pos += 3 * (1 << ((flags & 0x07) + 1)); // global colour table
  let frames = 0;
  const skipSubBlocks = () => {
    while (pos < bytes.length) {
      const size = bytes[pos]!;
      pos += 1 + size;
      if (size === 0) return;
    }
  };
  while (pos < bytes.length) {
    const block = bytes[pos]!;
    if (block === 0x3b) break; // trailer
    if (block === 0x21) {
      pos += 2; // extension introducer + label
      skipSubBlocks();
    } else if (block === 0x2c) {
      frames++;
      width = Math.max(width, u16le(bytes, pos + 1) + u16le(bytes, pos + 5));
      height = Math.max(height, u16le(bytes, pos + 3) + u16le(bytes, pos + 7));
      const packed = bytes[pos + 9] ?? 0;
      pos += 10;
      if (packed & 0x80) pos += 3 * (1 << ((packed & 0x07) + 1)); // local colour table
      pos += 1; // LZW minimum code size
      skipSubBlocks();
    } else {
      break; // corrupt: the decoder will say so
    }
  }
  return { frames: Math.max(frames, 1), canvas: { width, height } };
}

/** WebP: the VP8X canvas (24-bit width − 1 and height − 1) and its ANMF frames; a simple WebP is one frame of its own size. */
function webpLayout(bytes: Uint8Array): FrameLayout {
  if (ascii(bytes, 12, 16) !== 'VP8X' || bytes.length < 30) return { frames: 1, canvas: null };
  const canvas = { width: u24le(bytes, 24) + 1, height: u24le(bytes, 27) + 1 };
  let frames = 0;
  for (let pos = 12; pos + 8 <= bytes.length; ) {
    if (ascii(bytes, pos, pos + 4) === 'ANMF') frames++;
    const size = u32le(bytes, pos + 4);
    pos += 8 + size + (size & 1);
  }
  return { frames: Math.max(frames, 1), canvas };
}

/** PNG: acTL's frame count for an APNG, else 1. */
function pngFrames(bytes: Uint8Array): number {
  for (let pos = 8; pos + 12 <= bytes.length; ) {
    const size = u32be(bytes, pos);
    const type = ascii(bytes, pos + 4, pos + 8);
    if (type === 'acTL') return Math.max(u32be(bytes, pos + 8), 1);
    if (type === 'IDAT' || type === 'IEND') return 1; // acTL must come before the image data
    pos += 12 + size;
  }
  return 1;
}
