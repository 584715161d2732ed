/**
 * Shorter text forms of a record's fixed-shape values (record-codec.ts): unsigned integers
 * and lowercase hex strings in base 64. The alphabet is in ASCII order, so encoded hex of
 * equal length sorts like the hex itself: ids are compared without decoding them. Every
 * character is plain ASCII that needs no escaping in a JS literal.
 */
const ALPHABET = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';
const DIGIT = new Uint8Array(128);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;
const HEX = '0123456789abcdef';

/** A safe integer ≥ 0 in base 64, most significant digit first. */
export function encodeUint(value: number): string {
  let out = '';
  let rest = value;
  do {
    out = ALPHABET[rest % 64]! + out;
    rest = Math.floor(rest / 64);
  } while (rest > 0);
  return out;
}

export function decodeUint(text: string): number {
  let value = 0;
  for (let i = 0; i < text.length; i++) value = value * 64 + DIGIT[text.charCodeAt(i)]!;
  return value;
}

/** Value of a lowercase hex digit's char code (callers pass lowercase hex: a checked id or phash). */
const nibble = (code: number): number => (code <= 57 ? code - 48 : code - 87);

/**
 * Lowercase hex, 3 hex digits (12 bits) per 2 characters; a last group of 1–2 digits takes as
 * many characters. Digits are read by char code (no slice and parseInt per group: a build
 * encodes two hex strings per record). Characters equal to `skipCode` are not digits and are
 * passed over: a UUID's dashes (-1: none), without a dash-free copy of the id first.
 */
export function encodeHex(hex: string, skipCode = -1): string {
  let out = '';
  let value = 0;
  let digits = 0;
  for (let i = 0; i < hex.length; i++) {
    const code = hex.charCodeAt(i);
    if (code === skipCode) continue;
    value = (value << 4) | nibble(code);
    if (++digits === 3) {
      out += ALPHABET[value >> 6]! + ALPHABET[value & 63]!;
      value = 0;
      digits = 0;
    }
  }
  if (digits === 2) out += ALPHABET[value >> 4]! + ALPHABET[value & 15]!;
  else if (digits === 1) out += ALPHABET[value]!;
  return out;
}

/** The `hexLength` hex digits of an encodeHex text starting at `offset`. */
export function decodeHex(text: string, hexLength: number, offset = 0): string {
  let out = '';
  let at = offset;
  for (let left = hexLength; left > 0; left -= 3) {
    if (left >= 3) {
      // No 4096-entry lookup table: building one costs more in a cold process than a whole first answer.
      const value = DIGIT[text.charCodeAt(at)]! * 64 + DIGIT[text.charCodeAt(at + 1)]!;
      out += HEX[value >> 8]! + HEX[(value >> 4) & 15]! + HEX[value & 15]!;
      at += 2;
    } else if (left === 2) {
      out += HEX[DIGIT[text.charCodeAt(at)]!]! + HEX[DIGIT[text.charCodeAt(at + 1)]!]!;
      at += 2;
    } else {
      out += HEX[DIGIT[text.charCodeAt(at)]!]!;
      at += 1;
    }
  }
  return out;
}

/** Characters encodeHex writes for this many hex digits. */
export const encodedHexLength = (hexLength: number): number => Math.floor(hexLength / 3) * 2 + (hexLength % 3);
