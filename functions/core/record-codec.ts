/**
 * The compact text form of a record inside the function's data module, and the variant A/B
 * JSON composed from it. Why not store each record's JSON: the data module is scanned by
 * V8 on every cold start, in proportion to its size, and the JSON repeats keys, the id three times
 * and the base URL; this form is about a third of the size. Composing a record's JSON from
 * it is a string template (no JSON.parse/stringify per request) and yields exactly the
 * bytes of `JSON.stringify` (held equal by record-codec.test.ts).
 *
 * One record = 15 fields joined by TAB (JSON text never holds a raw tab or newline):
 * id (ID_KEY_LENGTH characters, compact-values.ts hex), extension code, file_size,
 * tags JSON, description JSON, phash, created_at, updated_at ('' when equal to created_at),
 * width, height, blurhash, thumbnails (`<width>x<height>-<hash16>` each, comma-separated,
 * for the build's names `<id>-<width>w-<hash16>.webp`), then the credits artist, source_url,
 * license (each its JSON string content, '' for null: the sidecar turns an empty credit into
 * null). Tags and description JSON are dictionary-encoded
 * (text-dictionary.ts); integers, 16-digit phashes and canonical `toISOString()` dates (as
 * epoch milliseconds) are in compact-values.ts form; any other value is stored as
 * `!` + its JSON text, so every record round-trips.
 */
import { EXT_CODES } from './catalogue-data.js';
import { decodeHex, decodeUint, encodedHexLength, encodeHex, encodeUint } from './compact-values.js';
import type { PepeRecord } from './record.js';
import { expandText, TAG_PIECES, WORD_PIECES, type PieceLookup } from './text-dictionary.js';

const RAW = '!';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PHASH = /^[0-9a-f]{16}$/;
const DASH_CODE = 45;

/** Length of the id key that starts every record. */
export const ID_KEY_LENGTH = encodedHexLength(32);

/** The id key of a lowercase UUID (keys sort like the ids), or null for anything else. */
export function idKey(id: string): string | null {
  return UUID.test(id) ? encodeHex(id, DASH_CODE) : null;
}

/** The UUID of the id key at `offset` of `text`. */
export function idFromKey(text: string, offset = 0): string {
  const hex = decodeHex(text, 32, offset);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** JSON string content without the quotes. */
const jsonText = (value: string): string => JSON.stringify(value).slice(1, -1);

const encodeCount = (n: number): string => (Number.isSafeInteger(n) && n >= 0 ? encodeUint(n) : RAW + JSON.stringify(n));
const decodeCount = (text: string): string => (text.startsWith(RAW) ? text.slice(1) : String(decodeUint(text)));

function encodeDate(iso: string): string {
  const ms = Date.parse(iso);
  return ms >= 0 && new Date(ms).toISOString() === iso ? encodeUint(ms) : RAW + jsonText(iso);
}
const decodeDate = (text: string): string => (text.startsWith(RAW) ? text.slice(1) : new Date(decodeUint(text)).toISOString());

const encodePhash = (phash: string): string => (PHASH.test(phash) ? encodeHex(phash) : RAW + jsonText(phash));
const decodePhash = (text: string): string => (text.startsWith(RAW) ? text.slice(1) : decodeHex(text, 16));

/** A credit: '' for null (a credit is never ''), else its JSON string content. */
const encodeCredit = (credit: string | null): string => (credit === null ? '' : jsonText(credit));
const decodeCredit = (text: string | undefined): string => (text === undefined || text === '' ? 'null' : `"${text}"`);

const THUMBNAIL_HASH = /^[0-9a-f]{16}$/;

function encodeThumbnails(record: PepeRecord): string {
  const parts: string[] = [];
  for (const { file_name, width, height, type } of record.thumbnails) {
    const hash = file_name.slice(-21, -5);
    const canonical = type === 'image/webp' && THUMBNAIL_HASH.test(hash) && file_name === `${record.id}-${width}w-${hash}.webp` && Number.isSafeInteger(width) && Number.isSafeInteger(height);
    if (!canonical) return RAW + JSON.stringify(record.thumbnails);
    parts.push(`${width}x${height}-${hash}`);
  }
  return parts.join(',');
}

/** Variant A's `thumbnails` JSON; `images` is the JSON-escaped `<base_url>/images/`. */
function thumbnailsJson(text: string, id: string, images: string): string {
  if (text === '') return '[]';
  if (text.startsWith(RAW)) {
    const thumbnails = JSON.parse(text.slice(1)) as PepeRecord['thumbnails'];
    return `[${thumbnails.map((t) => `{"url":"${images}${jsonText(t.file_name)}","width":${JSON.stringify(t.width)},"height":${JSON.stringify(t.height)},"type":${JSON.stringify(t.type)}}`).join(',')}]`;
  }
  const items = text.split(',').map((part) => {
    const [size, hash] = part.split('-') as [string, string];
    const [width, height] = size.split('x') as [string, string];
    return `{"url":"${images}${id}-${width}w-${hash}.webp","width":${width},"height":${height},"type":"image/webp"}`;
  });
  return `[${items.join(',')}]`;
}

export interface RecordTexts {
  tags: string;
  description: string;
}

/** The tags and description JSON of a record, the texts the dictionary is built from. */
export function recordTexts(record: PepeRecord): RecordTexts {
  return { tags: record.tags && record.tags.length > 0 ? JSON.stringify(record.tags) : 'null', description: JSON.stringify(record.description) };
}

/** A record's texts as `buildDictionary` takes them. */
export const dictionaryFields = ({ tags, description }: RecordTexts): { text: string; pieces: RegExp }[] => [
  { text: tags, pieces: TAG_PIECES },
  { text: description, pieces: WORD_PIECES },
];

/** The tags and description JSON of an encoded record (`encodeRecord`'s `texts`), expanded with the dictionary it was encoded with. */
export function encodedTexts(line: string, dictionary: PieceLookup): RecordTexts {
  const [, , , tags, description] = line.split('\t', 5) as [string, string, string, string, string];
  return { tags: expandText(tags, dictionary), description: expandText(description, dictionary) };
}

/**
 * `encode` = `dictionaryEncoder(dictionary)` of the dictionary the composer will get; `texts` =
 * `recordTexts(record)` when the caller has them already. Throws on an id that is not a
 * lowercase UUID (a build bug).
 */
export function encodeRecord(record: PepeRecord, encode: (text: string, pieces: RegExp) => string, texts = recordTexts(record)): string {
  const key = idKey(record.id);
  if (key === null) throw new Error(`encodeRecord: record id ${JSON.stringify(record.id)} is not a lowercase UUID`);
  const { tags, description } = texts;
  return [
    key,
    String(EXT_CODES.indexOf(record.file_ext)),
    encodeCount(record.file_size),
    encode(tags, TAG_PIECES),
    encode(description, WORD_PIECES),
    encodePhash(record.phash),
    encodeDate(record.created_at),
    record.updated_at === record.created_at ? '' : encodeDate(record.updated_at),
    encodeCount(record.width),
    encodeCount(record.height),
    jsonText(record.blurhash),
    encodeThumbnails(record),
    encodeCredit(record.artist),
    encodeCredit(record.source_url),
    encodeCredit(record.license),
  ].join('\t');
}

/** The created_at of an encoded record, in epoch milliseconds (the pepe of the day picks by it). */
export function createdAtMs(line: string): number {
  return Date.parse(decodeDate(line.split('\t', 7)[6]!));
}

/** Composes both JSON forms of encoded records; `imageBase` values are the JSON-escaped `<url>/images/`. */
export function recordComposer(baseUrl: string, cdnUrl: string, dictionary: PieceLookup) {
  const baseImages = jsonText(`${baseUrl}/images/`);
  const cdnImages = jsonText(`${cdnUrl}/images/`);
  return {
    jsonA(line: string): string {
      const [key, ext, size, packedTags, packedDescription, phash, created, updated, width, height, blurhash, thumbnails, artist, sourceUrl, license] = line.split('\t') as [string, ...string[]];
      const id = idFromKey(key);
      const tags = expandText(packedTags!, dictionary);
      const description = expandText(packedDescription!, dictionary);
      const fileExt = EXT_CODES[Number(ext)];
      const createdAt = decodeDate(created!);
      const updatedAt = updated === '' ? createdAt : decodeDate(updated!);
      return (
        `{"id":"${id}","file_name":"${id}${fileExt}","file_ext":"${fileExt}","file_size":${decodeCount(size!)},"tags":${tags},"description":${description},` +
        `"url":"${baseImages}${id}${fileExt}","phash":"${decodePhash(phash!)}","created_at":"${createdAt}","updated_at":"${updatedAt}",` +
        `"width":${decodeCount(width!)},"height":${decodeCount(height!)},"blurhash":"${blurhash}","thumbnails":${thumbnailsJson(thumbnails!, id, baseImages)},` +
        `"artist":${decodeCredit(artist)},"source_url":${decodeCredit(sourceUrl)},"license":${decodeCredit(license)}}`
      );
    },
    jsonB(line: string): string {
      const [key, ext, , , packedDescription] = line.split('\t', 5) as [string, ...string[]];
      const id = idFromKey(key);
      const description = expandText(packedDescription!, dictionary);
      return `{"id":"${id}","url":"${cdnImages}${id}${EXT_CODES[Number(ext)]}","description":${description === 'null' ? '""' : description}}`;
    },
  };
}
