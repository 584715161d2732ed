/**
 * Compact posting lists (the ranks of the records containing a term, in one field) as
 * JSON-safe text. Each list is encoded as whichever is shorter:
 *
 * - a sorted list: first rank, then `gap - 1` for each following rank, as base-64 VLQ
 *   (5 data bits + 1 continuation bit per character), so frequent small gaps cost one
 *   character each;
 * - a bitmap of all ranks for terms found in a large share of the records (where a list
 *   would cost more than one character per 6 records): its bytes (bit k of byte j is rank
 *   8j + k, the layout of the run time's Uint32Array bitsets on a little-endian machine) as
 *   unpadded base64url, so Node's base64 decoder writes them straight into the bitset. A
 *   cold process runs our code in V8's interpreter: decoding a 100k-record bitmap six bits
 *   at a time there cost 15 M instructions, about a fifth of a first search's work.
 *
 * A segment starts with a VLQ header `count * 2 + kind` (kind 0 = list, 1 = bitmap). The
 * alphabet is base64url: plain ASCII that needs no escaping in JSON, JS or HTML, so the
 * bundled data stays one byte per character.
 */
import { asciiText, digitsFor, packNumbers } from '../packed-numbers.js';
import type { FieldPostings } from './search-types.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const CONTINUE = 32;
const DATA_MASK = 31;

/** char code → 6-bit value; 255 marks a character outside the alphabet. */
const DIGIT = new Uint8Array(128).fill(255);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;

export const KIND_LIST = 0;
export const KIND_BITMAP = 1;

/** A decoded posting list: sorted ranks, or a bitmap (bit r of word r>>>5) of `docCount` bits. */
export type Posting = { kind: typeof KIND_LIST; count: number; ranks: Uint32Array } | { kind: typeof KIND_BITMAP; count: number; bits: Uint32Array };

/** Appends `value` (a non-negative integer) as VLQ to `out`. */
function pushVlq(out: string[], value: number): void {
  let rest = value;
  do {
    const low = rest & DATA_MASK;
    rest = Math.floor(rest / 32);
    out.push(ALPHABET[rest > 0 ? low | CONTINUE : low]!);
  } while (rest > 0);
}

function vlqLength(value: number): number {
  let length = 1;
  for (let rest = Math.floor(value / 32); rest > 0; rest = Math.floor(rest / 32)) length++;
  return length;
}

/** Characters of a bitmap segment's body for an index of `docCount` records: unpadded base64url of its bytes. */
const bitmapChars = (docCount: number): number => Math.ceil((Math.ceil(docCount / 8) * 4) / 3);

/** Unpadded base64url of `bytes`, what `decodeBitmap` reads back into the words those bytes are on a little-endian machine. */
export function encodeBytes(bytes: Uint8Array): string {
  // Node's encoder writes the same characters (three bytes to four, the first holding the first byte's high bits, no padding).
  if (NODE_BUFFER !== undefined) return NODE_BUFFER.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64url');
  const codes = new Uint8Array(Math.ceil((bytes.length * 4) / 3));
  for (let c = 0; c < codes.length; c++) {
    const i = (c >>> 2) * 3;
    const group = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    codes[c] = ALPHABET.charCodeAt((group >>> (18 - 6 * (c & 3))) & 63);
  }
  return asciiText(codes);
}

/** Encodes ascending, distinct ranks (all < docCount) as one segment. */
export function encodePosting(ranks: readonly number[], docCount: number): string {
  const out: string[] = [];
  let listLength = 0;
  for (let i = 0; i < ranks.length; i++) listLength += vlqLength(i === 0 ? ranks[0]! : ranks[i]! - ranks[i - 1]! - 1);
  if (ranks.length > 0 && bitmapChars(docCount) < listLength) {
    pushVlq(out, ranks.length * 2 + KIND_BITMAP);
    const bytes = new Uint8Array(Math.ceil(docCount / 8));
    for (const rank of ranks) bytes[rank >>> 3]! |= 1 << (rank & 7);
    out.push(encodeBytes(bytes));
  } else {
    pushVlq(out, ranks.length * 2 + KIND_LIST);
    for (let i = 0; i < ranks.length; i++) pushVlq(out, i === 0 ? ranks[0]! : ranks[i]! - ranks[i - 1]! - 1);
  }
  return out.join('');
}

/**
 * `encodePosting` of the `count` ranks set in `bits` (bit r of word r >>> 5) when that is a
 * bitmap for `docCount` records, made from the words without listing the ranks; else null.
 * A list costs a character a rank at least, so fewer bitmap characters than ranks is a bitmap.
 */
export function encodeBitmapPosting(bits: Uint32Array, count: number, docCount: number): string | null {
  if (count === 0 || bitmapChars(docCount) >= count) return null;
  const bytes = new Uint8Array(Math.ceil(docCount / 8));
  for (let j = 0; j < bytes.length; j++) bytes[j] = ((bits[j >>> 2] ?? 0) >>> ((j & 3) * 8)) & 255;
  const out: string[] = [];
  pushVlq(out, count * 2 + KIND_BITMAP);
  out.push(encodeBytes(bytes));
  return out.join('');
}

/**
 * Position after the last VLQ read by readVlq. A module variable instead of a returned
 * tuple: this runs in a cold process before the JIT has optimised anything, where tuple
 * allocation and destructuring cost several times the decoding itself.
 */
let afterVlq = 0;

/** Reads one VLQ at `text[position]` (sets afterVlq). Throws on corrupt input (a build bug). */
function readVlq(text: string, position: number): number {
  let value = 0;
  let scale = 1;
  let at = position;
  for (;;) {
    const digit = DIGIT[text.charCodeAt(at)] ?? 255;
    if (digit === 255) throw new Error(`search index: corrupt posting data at character ${at}; rebuild the catalogue`);
    value += (digit & DATA_MASK) * scale;
    at++;
    if ((digit & CONTINUE) === 0) {
      afterVlq = at;
      return value;
    }
    scale *= 32;
  }
}

const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;
/** Node's Buffer, when the bitset's bytes are in the order the bitmap's are (every machine Netlify runs). */
const NODE_BUFFER = LITTLE_ENDIAN ? (globalThis as { Buffer?: typeof Buffer }).Buffer : undefined;

/**
 * Writes the bitmap body of `chars` characters at `text[start]` into `bits`. With Node's
 * Buffer its base64 decoder does it in one call (≈ 0.1 M instructions for 100k records,
 * against 15 M for a loop run by the interpreter); `portable` is the loop, for runtimes
 * without Buffer or big-endian machines, and for the test that holds both equal.
 */
export function decodeBitmap(text: string, start: number, chars: number, bits: Uint32Array, portable = NODE_BUFFER === undefined): void {
  if (!portable) {
    NODE_BUFFER!.from(bits.buffer, bits.byteOffset, bits.byteLength).write(text.slice(start, start + chars), 'base64url');
    return;
  }
  let stream = 0;
  for (let i = 0; i < chars; i++) {
    const digit = DIGIT[text.charCodeAt(start + i)] ?? 255;
    if (digit === 255) throw new Error(`search index: corrupt posting data at character ${start + i}; rebuild the catalogue`);
    // Character i holds bits 6i .. 6i + 5 of the byte stream, each byte's high bit first.
    for (let b = 5; b >= 0; b--, stream++) {
      if (((digit >>> b) & 1) === 0) continue;
      const rank = (stream & ~7) + 7 - (stream & 7);
      bits[rank >>> 5]! |= 1 << (rank & 31);
    }
  }
}

/** The record count of the segment at `offset`, without decoding it. */
export function postingCount(text: string, offset: number): number {
  return Math.floor(readVlq(text, offset) / 2);
}

/** Decodes the segment at `offset` (as written by encodePosting) for an index of `docCount` records. */
export function decodePosting(text: string, offset: number, docCount: number): Posting {
  const header = readVlq(text, offset);
  const start = afterVlq;
  const count = Math.floor(header / 2);
  if (header % 2 === KIND_BITMAP) {
    const bits = new Uint32Array(Math.ceil(docCount / 32));
    decodeBitmap(text, start, bitmapChars(docCount), bits);
    return { kind: KIND_BITMAP, count, bits };
  }
  const ranks = new Uint32Array(count);
  let at = start;
  let previous = -1;
  for (let i = 0; i < count; i++) {
    // Inlined VLQ read: this loop is the hot path of a first-time term lookup.
    let value = 0;
    let scale = 1;
    for (;;) {
      const digit = DIGIT[text.charCodeAt(at++)]!;
      value += (digit & DATA_MASK) * scale;
      if ((digit & CONTINUE) === 0) break;
      scale *= 32;
    }
    previous = i === 0 ? value : previous + value + 1;
    ranks[i] = previous;
  }
  return { kind: KIND_LIST, count, ranks };
}

/** The kind (KIND_LIST or KIND_BITMAP) of the segment at `offset`, read from its header alone. */
export function segmentKind(text: string, offset: number): number {
  return readVlq(text, offset) % 2;
}

/**
 * The number of ranks of the list segment at `offset` when each keeps its rank (`rankNow[r] === r`),
 * else -1 (a bitmap too): read without allocating, since most of a change build's segments pass.
 */
export function keptListCount(text: string, offset: number, rankNow: Int32Array): number {
  const header = readVlq(text, offset);
  if (header % 2 !== KIND_LIST) return -1;
  const count = Math.floor(header / 2);
  let at = afterVlq;
  let rank = -1;
  for (let i = 0; i < count; i++) {
    let value = 0;
    let scale = 1;
    for (;;) {
      const digit = DIGIT[text.charCodeAt(at++)]!;
      value += (digit & DATA_MASK) * scale;
      if ((digit & CONTINUE) === 0) break;
      scale *= 32;
    }
    rank += value + 1;
    if (rankNow[rank] !== rank) return -1;
  }
  return count;
}

/**
 * Segments written as character codes into one growing buffer, taken as text a run at a time
 * (`take`): a change build writes most list segments again, and a string or an array for each
 * would be most of what it allocates.
 */
export class SegmentCodes {
  codes = new Uint8Array(1 << 16);
  length = 0;

  push(code: number): void {
    if (this.length === this.codes.length) {
      const grown = new Uint8Array(this.codes.length * 2);
      grown.set(this.codes);
      this.codes = grown;
    }
    this.codes[this.length++] = code;
  }

  pushVlq(value: number): void {
    let rest = value;
    do {
      const low = rest & DATA_MASK;
      rest = Math.floor(rest / 32);
      this.push(ALPHABET.charCodeAt(rest > 0 ? low | CONTINUE : low));
    } while (rest > 0);
  }

  /** The codes written since the last take, as text. */
  take(): string {
    const text = asciiText(this.codes.subarray(0, this.length));
    this.length = 0;
    return text;
  }
}

/**
 * Writes into `out` what `encodePosting` writes for the ranks of the list segment at
 * `text[offset]`, each rank r moved to `rankNow[r]` (dropped where that is -1), merged with
 * `gained` (ascending, none of them a moved rank), for `docCount` records, and returns its
 * length (1 for the empty list); `rankNow` must keep the ranks it keeps in order. Returns 0,
 * writing nothing, when that is not a list: a bitmap segment, or one the ranks would make one.
 */
export function remapList(text: string, offset: number, rankNow: Int32Array, gained: readonly number[], docCount: number, out: SegmentCodes): number {
  const header = readVlq(text, offset);
  if (header % 2 !== KIND_LIST) return 0;
  const count = Math.floor(header / 2);
  const start = afterVlq;
  // Two passes over the segment: the ranks' count and list length first (encodePosting's choice), then the codes.
  for (let pass = 0; pass < 2; pass++) {
    if (pass === 1) {
      if (bitmapChars(docCount) < remapped.length) return 0;
      out.pushVlq(remapped.count * 2 + KIND_LIST);
    }
    remapped.last = -1;
    remapped.count = 0;
    remapped.length = 0;
    const to = pass === 0 ? null : out;
    let at = start;
    let rank = -1;
    let g = 0;
    for (let i = 0; i < count; i++) {
      rank += readVlq(text, at) + 1;
      at = afterVlq;
      const moved = rankNow[rank]!;
      if (moved === -1) continue;
      while (g < gained.length && gained[g]! < moved) remappedRank(gained[g++]!, to);
      remappedRank(moved, to);
    }
    while (g < gained.length) remappedRank(gained[g++]!, to);
  }
  return vlqLength(remapped.count * 2 + KIND_LIST) + remapped.length;
}

/** `remapList`'s list so far: its last rank, its ranks and their characters (module state: no closure or tuple a segment). */
const remapped = { last: -1, count: 0, length: 0 };

function remappedRank(rank: number, out: SegmentCodes | null): void {
  const gap = remapped.last === -1 ? rank : rank - remapped.last - 1;
  remapped.length += vlqLength(gap);
  remapped.count++;
  remapped.last = rank;
  out?.pushVlq(gap);
}

/**
 * `encodeBitmapPosting` of the bitmap segment at `text[offset]` (written for `before` records)
 * with each rank r moved to `rankNow[r]` (dropped where -1) and `gained` set, for `docCount`
 * records: the ranks are moved bit by bit, never listed. null when the segment is a list, or
 * when the ranks make no bitmap.
 */
export function remapBitmap(text: string, offset: number, before: number, rankNow: Int32Array, gained: readonly number[], docCount: number): string | null {
  const posting = decodePosting(text, offset, before);
  if (posting.kind !== KIND_BITMAP) return null;
  const bits = new Uint32Array(Math.ceil(docCount / 32));
  let count = 0;
  for (let i = 0; i < posting.bits.length; i++) {
    let word = posting.bits[i]!;
    while (word !== 0) {
      const lowest = word & -word;
      const moved = rankNow[i * 32 + 31 - Math.clz32(lowest)]!;
      word ^= lowest;
      if (moved === -1) continue;
      bits[moved >>> 5]! |= 1 << (moved & 31);
      count++;
    }
  }
  for (const rank of gained) bits[rank >>> 5]! |= 1 << (rank & 31);
  return encodeBitmapPosting(bits, count + gained.length, docCount);
}

/**
 * Whether a segment of `kind` written for an index of `before` records is what `encodePosting`
 * writes for the same ranks in one of `after` records: a bitmap's body is sized by the count,
 * and a list stays a list while a bitmap does not get shorter.
 */
export function keepsEncoding(kind: number, before: number, after: number): boolean {
  return Math.ceil(before / 8) === Math.ceil(after / 8) || (kind === KIND_LIST && bitmapChars(after) >= bitmapChars(before));
}

/** One field's postings (search-types.ts) of the given rank lists, one segment per term, in order. */
export function encodeFieldPostings(rankLists: readonly (readonly number[])[], docCount: number): FieldPostings {
  return fieldPostings(rankLists.map((ranks) => encodePosting(ranks, docCount)));
}

/** One field's postings made of its segments, one per term, in order. */
export function fieldPostings(segments: readonly string[]): FieldPostings {
  const offsets: number[] = [];
  let offset = 0;
  for (const segment of segments) {
    offsets.push(offset);
    offset += segment.length;
  }
  const offsetWidth = digitsFor(offset);
  return { postings: segments.join(''), offsets: packNumbers(offsets, offsetWidth), offsetWidth };
}
