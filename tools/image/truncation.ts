/**
 * Whether an image file ends before its own structure says it should. Used to classify a
 * decode failure whose message is lost: libvips keeps one error buffer for all threads, so
 * under concurrent decodes a failure can arrive as "Unknown error" (or empty), and the
 * message alone cannot tell truncated from undecodable. The bytes always do.
 */
import type { ImageFormat } from './format.js';

const lastMarker = (bytes: Uint8Array, second: number): number => {
  for (let i = bytes.length - 2; i >= 0; i--) if (bytes[i] === 0xff && bytes[i + 1] === second) return i;
  return -1;
};

/** JPEG: the last end-of-image marker must follow the last start-of-scan (entropy data stuffs 0xFF, so neither occurs by chance; an EXIF thumbnail's EOI precedes the main scans). */
function jpegTruncated(bytes: Uint8Array): boolean {
  return lastMarker(bytes, 0xd9) < lastMarker(bytes, 0xda);
}

/** PNG: chunks must chain up to IEND inside the file (a first chunk that is not IHDR is garbage, not a cut file). */
function pngTruncated(bytes: Uint8Array): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length >= 16 && String.fromCharCode(bytes[12]!, bytes[13]!, bytes[14]!, bytes[15]!) !== 'IHDR') return false;
  for (let at = 8; at + 8 <= bytes.length; ) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!);
    const end = at + 12 + length;
    if (end > bytes.length) return true;
    if (type === 'IEND') return false;
    at = end;
  }
  return true;
}

/** GIF: blocks must chain up to the trailer (0x3B) inside the file. */
function gifTruncated(bytes: Uint8Array): boolean {
  if (bytes.length < 13) return true;
  let at = 13;
  if (bytes[10]! & 0x80) at += 3 * (1 << ((bytes[10]! & 0x07) + 1));
  const skipSubBlocks = (from: number): number => {
    let p = from;
    while (p < bytes.length && bytes[p] !== 0) p += bytes[p]! + 1;
    return p + 1;
  };
  while (at < bytes.length) {
    const block = bytes[at]!;
    if (block === 0x3b) return false;
    if (block === 0x21) at = skipSubBlocks(at + 2);
    else if (block === 0x2c) {
      if (at + 10 > bytes.length) return true;
      const flags = bytes[at + 9]!;
      at += 10;
      if (flags & 0x80) at += 3 * (1 << ((flags & 0x07) + 1));
      at = skipSubBlocks(at + 1);
    } else return false; // Not a block start: malformed rather than truncated.
  }
  return true;
}

/** WebP: the RIFF header states the file's length. */
function webpTruncated(bytes: Uint8Array): boolean {
  if (bytes.length < 12) return true;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return view.getUint32(4, true) + 8 > bytes.length;
}

/** AVIF (ISO-BMFF): every top-level box must fit in the file. */
function avifTruncated(bytes: Uint8Array): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at < bytes.length; ) {
    if (at + 8 > bytes.length) return true;
    let size = view.getUint32(at);
    if (size === 1) {
      if (at + 16 > bytes.length) return true;
      size = Number(view.getBigUint64(at + 8));
    } else if (size === 0) return false; // Extends to the end of the file.
    if (size < 8) return false;
    if (at + size > bytes.length) return true;
    at += size;
  }
  return false;
}

export function isTruncated(bytes: Uint8Array, format: ImageFormat): boolean {
  switch (format) {
    case 'jpeg':
      return jpegTruncated(bytes);
    case 'png':
      return pngTruncated(bytes);
    case 'gif':
      return gifTruncated(bytes);
    case 'webp':
      return webpTruncated(bytes);
    case 'avif':
      return avifTruncated(bytes);
  }
}
