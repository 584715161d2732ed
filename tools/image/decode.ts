/**
 * One full decode of the first frame, upright, with the safety limits the build needs.
 * sharp always gets the bytes (never a path: librsvg would follow relative references,
 * and the build has read the bytes already for the sha256).
 */
import type Sharp from 'sharp';
import { detectFormat } from './format.js';
import type { RawImage } from './pixels.js';
import { isTruncated } from './truncation.js';

export type DecodeFailureCode = 'undecodable' | 'truncated' | 'too-many-pixels' | 'timeout';

export interface DecodeOptions {
  /** Refuse images with more pixels than this (width x height of the first frame). */
  maxPixels: number;
  /** Give up after this many milliseconds. */
  timeoutMs: number;
}

let sharpLoaded: Promise<typeof Sharp> | undefined;
/** sharp, imported on first use: a rebuild that decodes nothing does not pay for its import. */
const loadSharp = (): Promise<typeof Sharp> => (sharpLoaded ??= import('sharp').then((module) => module.default));

export type DecodeResult =
  | { ok: true; image: RawImage }
  | { ok: false; code: DecodeFailureCode; message: string };

/**
 * Settings for decoding many images: call once per process (or worker) before a batch.
 * One libvips thread per image: throughput comes from decoding several images at once,
 * and more threads per image only oversubscribe the cores. The operation cache holds
 * results by input buffer, which one-shot decodes never reuse. Returns a function that
 * restores sharp's previous settings (a library should not leave them changed).
 */
export async function configureSharpForBatch(): Promise<() => void> {
  const sharp = await loadSharp();
  const concurrency = sharp.concurrency();
  sharp.concurrency(1);
  sharp.cache(false);
  return () => {
    sharp.concurrency(concurrency);
    sharp.cache(true);
  };
}

/**
 * Decode failure → code and message. A file whose own structure ends past its last byte is
 * truncated whatever the decoder said (truncation.ts): its message may have been lost under
 * concurrent decodes (one libvips error buffer for all threads), and a decoder may report a
 * cut file as a corrupt one (libwebp: "unable to parse image").
 */
export function classifyDecodeFailure(message: string, bytes: Uint8Array, options: DecodeOptions): { code: DecodeFailureCode; message: string } {
  const classified = classify(message, options);
  if (classified.code !== 'undecodable') return classified;
  const format = detectFormat(bytes)?.format;
  if (format && isTruncated(bytes, format)) return { code: 'truncated', message: 'the file is truncated (it ends before its last image data); re-export or re-download the image' };
  return classified;
}

/** A message libvips lost (one error buffer for all threads): it says nothing about the cause. */
const UNINFORMATIVE = /^\s*(unknown error\.?)?\s*$/i;

const TRUNCATED = /premature end|end of stream|truncat|unexpected end|not enough data|read error|short read/i;

/**
 * The line of libvips' message that tells the cause: its error buffer is shared and keeps
 * lines until read, so the same decode may carry a later complaint ("JPEG datastream contains
 * no image") or another thread's; the message a user sees must not depend on which.
 */
const causeLine = (message: string, pattern: RegExp) => {
  const lines = message.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  return lines.find((line) => pattern.test(line)) ?? lines[0] ?? '';
};

function classify(message: string, options: DecodeOptions): { code: DecodeFailureCode; message: string } {
  if (/exceeds pixel limit/i.test(message)) {
    return { code: 'too-many-pixels', message: `the image has more than ${options.maxPixels.toLocaleString('en')} pixels, the limit; scale it down before adding it` };
  }
  if (/timeout/i.test(message)) return timeoutFailure(options);
  if (TRUNCATED.test(message)) {
    return { code: 'truncated', message: `the file is truncated (${causeLine(message, TRUNCATED)}); re-export or re-download the image` };
  }
  const reason = UNINFORMATIVE.test(message) ? 'the decoder gave no reason' : causeLine(message, /./);
  return { code: 'undecodable', message: `the image cannot be decoded (${reason}); re-export it as PNG, JPEG, WebP, GIF or AVIF` };
}

const timeoutFailure = (options: DecodeOptions) => ({
  code: 'timeout' as const,
  message: `decoding took longer than ${options.timeoutMs} ms; the file is probably malformed or far too large, re-export it`,
});

/**
 * Frees a frame decodeFirstFrame returned, now, instead of when V8 next collects: detaching its
 * ArrayBuffer (`transfer(0)`) drops the last reference to sharp's memory, which is then freed at
 * once. A build decodes frames of up to 50 megapixels one after another, and V8 counts such
 * memory outside its heap as pressure: each few frames forced a full mark of the whole heap (the
 * cold build's largest cost after the decode itself: tools/image/README.md). Only for a frame no
 * code reads any more (a sharp job reading it must have finished); `data` is then empty. A
 * view of part of a buffer is left alone. Where
 * `ArrayBuffer.prototype.transfer` is missing (Node 20) the frame is left to the collector.
 */
export function releaseFrame(image: RawImage): void {
  const { data } = image;
  const buffer = data.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };
  // A view of part of a buffer (Node's pool of small Buffers) shares it with others: left alone.
  if (typeof buffer.transfer !== 'function' || data.byteOffset !== 0 || data.byteLength !== buffer.byteLength) return;
  buffer.transfer(0);
}

/**
 * Decodes every pixel of the first frame (header metadata alone succeeds on truncated
 * JPEGs; a full pixel decode does not), applies the EXIF orientation, and returns packed
 * 8-bit samples (sharp converts grey, palette and 16-bit inputs to 8-bit sRGB[A]).
 * `failOn: 'truncated'` fails truncated files but keeps images with benign decoder
 * warnings (e.g. extraneous bytes) that every browser shows fine.
 */
export async function decodeFirstFrame(bytes: Buffer, options: DecodeOptions): Promise<DecodeResult> {
  const seconds = Math.max(1, Math.ceil(options.timeoutMs / 1000));
  const sharp = await loadSharp();
  const job = sharp(bytes, { limitInputPixels: options.maxPixels, failOn: 'truncated', pages: 1, sequentialRead: true })
    .rotate()
    .timeout({ seconds })
    .raw()
    .toBuffer({ resolveWithObject: true });
  // sharp's own timeout has whole-second granularity; the race enforces the exact bound
  // (the abandoned job then stops at sharp's timeout).
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
  });
  try {
    const result = await Promise.race([job, deadline]);
    if (result === 'timeout') {
      job.catch(() => undefined);
      return { ok: false, ...timeoutFailure(options) };
    }
    const { data, info } = result;
    return { ok: true, image: { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, channels: info.channels } };
  } catch (err) {
    return { ok: false, ...classifyDecodeFailure(err instanceof Error ? err.message : String(err), bytes, options) };
  } finally {
    clearTimeout(timer);
  }
}
