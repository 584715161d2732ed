/**
 * The framing of the build cache file: a magic line, then length-prefixed JSON documents
 * (u32 little-endian byte length, then UTF-8 JSON). The first is the full cache; each later
 * one is a delta appended by a save that changed little (one added image appends a few
 * hundred bytes instead of rewriting the whole file). A torn last document (a crash
 * mid-append) is reported, not applied, so the next save rewrites the whole file.
 */
import { readIntoSync } from '../../shared/read-regular-file.js';

const MAGIC = 'PEPECACHE4\n';

export interface CacheDocuments {
  documents: unknown[];
  /** Bytes of the frames that parsed; less than the file when its tail is torn or corrupt. */
  validBytes: number;
  /** Bytes of the first document's frame (magic included). */
  baseBytes: number;
}

/** null when the file is not a cache of this layout (or its first document is corrupt). */
export function readCacheDocuments(bytes: Buffer): CacheDocuments | null {
  if (bytes.length < MAGIC.length || bytes.toString('latin1', 0, MAGIC.length) !== MAGIC) return null;
  const documents: unknown[] = [];
  let at = MAGIC.length;
  let baseBytes = 0;
  while (at + 4 <= bytes.length) {
    const length = bytes.readUInt32LE(at);
    if (at + 4 + length > bytes.length) break;
    try {
      documents.push(JSON.parse(bytes.toString('utf8', at + 4, at + 4 + length)));
    } catch {
      break;
    }
    at += 4 + length;
    if (documents.length === 1) baseBytes = at;
  }
  return documents.length === 0 ? null : { documents, validBytes: at, baseBytes };
}

/**
 * The frames of a cache file, walked by their lengths without parsing a document: each
 * document's byte range, and the bytes up to the last whole frame; null without the magic.
 */
export function cacheFrames(bytes: Buffer): { frames: [start: number, end: number][]; validBytes: number } | null {
  if (bytes.length < MAGIC.length || bytes.toString('latin1', 0, MAGIC.length) !== MAGIC) return null;
  return framesFrom(bytes, MAGIC.length);
}

/**
 * `cacheFrames` of the cache file open at `fd` (`size` bytes), from the magic and each frame's
 * length alone: for a file decoded a frame at a time, no buffer of the whole file is made.
 */
export function cacheFramesOf(fd: number, size: number): { frames: [start: number, end: number][]; validBytes: number } | null {
  const magic = Buffer.alloc(MAGIC.length);
  if (readIntoSync(fd, magic, 0) !== MAGIC.length || magic.toString('latin1') !== MAGIC) return null;
  const frames: [number, number][] = [];
  const length = Buffer.alloc(4);
  let at = MAGIC.length;
  while (at + 4 <= size && readIntoSync(fd, length, at) === 4) {
    const end = at + 4 + length.readUInt32LE(0);
    if (end > size) break;
    frames.push([at + 4, end]);
    at = end;
  }
  return { frames, validBytes: at };
}

/** The byte range of the first document of a cache file, from its first bytes (the magic and the length); null without the magic. */
export function firstFrame(bytes: Buffer): [start: number, end: number] | null {
  if (bytes.length < MAGIC.length + 4 || bytes.toString('latin1', 0, MAGIC.length) !== MAGIC) return null;
  return [MAGIC.length + 4, MAGIC.length + 4 + bytes.readUInt32LE(MAGIC.length)];
}

/** The frames of `bytes` from `at` on (the deltas of a file whose first frame was read apart), as `cacheFrames`. */
export function framesFrom(bytes: Buffer, at: number): { frames: [start: number, end: number][]; validBytes: number } {
  const frames: [number, number][] = [];
  while (at + 4 <= bytes.length) {
    const end = at + 4 + bytes.readUInt32LE(at);
    if (end > bytes.length) break;
    frames.push([at + 4, end]);
    at = end;
  }
  return { frames, validBytes: at };
}

/** One framed document; `withMagic` for the first one of a file. */
export function frameDocument(document: unknown, withMagic: boolean): Buffer {
  return frameBytes(Buffer.from(JSON.stringify(document)), withMagic);
}

/** One frame of any bytes, for a file whose frames are walked with cacheFrames and never parsed as JSON. */
export function frameBytes(body: Uint8Array, withMagic: boolean): Buffer {
  return Buffer.concat([frameHead(body.length, withMagic), body]);
}

/** What goes before a frame's `length` bytes (the magic line first, for a file's first frame). */
export function frameHead(length: number, withMagic: boolean): Buffer {
  const head = Buffer.alloc((withMagic ? MAGIC.length : 0) + 4);
  if (withMagic) head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(length, head.length - 4);
  return head;
}

/**
 * Where a framed cache file stands between saves: whether a delta may be appended to it, and
 * the bytes of its first document and of the deltas after it. A save appends while the deltas
 * weigh less than `floorBytes` or half the first document, and rewrites the file whole after.
 * build-cache.bin (feature-cache.ts), renditions.bin (renditions.ts), records.bin
 * (unchanged-content.ts) and the memos saved by deltas (memo.ts) keep one each.
 */
export class CacheLog {
  private appendable = false;
  private baseBytes = 0;
  private logBytes = 0;

  constructor(private readonly floorBytes: number) {}

  /**
   * After a read of the whole file (`fileBytes`): a torn or corrupt tail must not be appended
   * after, nor may a delta go behind a first document the caller will not keep (`keepsBase`).
   */
  loaded(read: CacheDocuments, fileBytes: number, keepsBase = true): void {
    this.appendable = keepsBase && read.validBytes === fileBytes;
    this.baseBytes = read.baseBytes;
    this.logBytes = read.validBytes - read.baseBytes;
  }

  /** After a save recorded elsewhere, whose file is unchanged since (same stat): no read needed. */
  resumed(baseBytes: number, fileBytes: number): void {
    this.appendable = baseBytes > 0 && fileBytes >= baseBytes;
    this.baseBytes = baseBytes;
    this.logBytes = fileBytes - baseBytes;
  }

  /** Whether the next save may append a delta rather than rewrite the file. */
  get appends(): boolean {
    return this.appendable && this.logBytes < Math.max(this.floorBytes, this.baseBytes / 2);
  }

  /** Whether a delta of `frameBytes` may be appended and still leave the deltas under the bound (a memo's delta is known before it is written). */
  takes(frameBytes: number): boolean {
    return this.appendable && this.logBytes + frameBytes < Math.max(this.floorBytes, this.baseBytes / 2);
  }

  appended(frameBytes: number): void {
    this.logBytes += frameBytes;
  }

  rewritten(frameBytes: number): void {
    this.appendable = true;
    this.baseBytes = frameBytes;
    this.logBytes = 0;
  }
}
