/**
 * The compact text form of a record inside the function's data module, and the variant A/B
 * JSON composed from it. Why not store each record's JSON: the data module is scanned by
 * V8 on every cold start (≈ linear in bytes), and the JSON repeats keys, the id three times
 * and the base URL; this form is less than half the size. Composing a record's JSON from
 * it is a string template (no JSON.parse/stringify per request) and yields exactly the
 * bytes of `JSON.stringify` (held equal by record-codec.test.ts).
 *
 * One record = fields joined by TAB (JSON text never holds a raw tab or newline):
 * id, extension code, file_size, tags JSON, description JSON, phash, created_at,
 * updated_at ('' when equal to created_at), width, height, blurhash.
 * Dates in canonical `toISOString()` form are stored as base-36 epoch milliseconds.
 */
import { EXT_CODES } from './catalogue-data.js';
import type { PepeRecord } from './record.js';

/** JSON string content without the quotes. */
const jsonText = (value: string): string => JSON.stringify(value).slice(1, -1);

function encodeDate(iso: string): string {
  const ms = Date.parse(iso);
  return ms >= 0 && new Date(ms).toISOString() === iso ? ms.toString(36) : jsonText(iso);
}

/** Base-36 has only lowercase letters; an ISO date always holds an uppercase 'T'. */
const decodeDate = (text: string): string => (text.includes('T') ? text : new Date(parseInt(text, 36)).toISOString());

export function encodeRecord(record: PepeRecord): string {
  const tags = record.tags && record.tags.length > 0 ? JSON.stringify(record.tags) : 'null';
  return [
    jsonText(record.id),
    String(EXT_CODES.indexOf(record.file_ext)),
    String(record.file_size),
    tags,
    JSON.stringify(record.description),
    jsonText(record.phash),
    encodeDate(record.created_at),
    record.updated_at === record.created_at ? '' : encodeDate(record.updated_at),
    String(record.width),
    String(record.height),
    jsonText(record.blurhash),
  ].join('\t');
}

/** Composes both JSON forms of encoded records; `imageBase` values are the JSON-escaped `<url>/images/`. */
export function recordComposer(baseUrl: string, cdnUrl: string) {
  const baseImages = jsonText(`${baseUrl}/images/`);
  const cdnImages = jsonText(`${cdnUrl}/images/`);
  return {
    jsonA(line: string): string {
      const [id, ext, size, tags, description, phash, created, updated, width, height, blurhash] = line.split('\t') as [string, ...string[]];
      const fileExt = EXT_CODES[Number(ext)];
      const createdAt = decodeDate(created!);
      const updatedAt = updated === '' ? createdAt : decodeDate(updated!);
      return (
        `{"id":"${id}","file_name":"${id}${fileExt}","file_ext":"${fileExt}","file_size":${size},"tags":${tags},"description":${description},` +
        `"url":"${baseImages}${id}${fileExt}","phash":"${phash}","created_at":"${createdAt}","updated_at":"${updatedAt}",` +
        `"width":${width},"height":${height},"blurhash":"${blurhash}"}`
      );
    },
    jsonB(line: string): string {
      const [id, ext, , , description] = line.split('\t', 5) as [string, ...string[]];
      return `{"id":"${id}","url":"${cdnImages}${id}${EXT_CODES[Number(ext)]}","description":${description === 'null' ? '""' : description}}`;
    },
  };
}
