/**
 * The framing of the build cache file: a magic line, then length-prefixed JSON documents
 * (u32 little-endian byte length, then UTF-8 JSON). The first is the full cache; each later
 * one is a delta appended by a save that changed little (one added image appends a few
 * hundred bytes instead of rewriting ~5 MB at 10k images). A torn last document (a crash
 * mid-append) is reported, not applied, so the next save rewrites the whole file.
 */
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

/** One framed document; `withMagic` for the first one of a file. */
export function frameDocument(document: unknown, withMagic: boolean): Buffer {
  const json = Buffer.from(JSON.stringify(document));
  const header = Buffer.alloc((withMagic ? MAGIC.length : 0) + 4);
  if (withMagic) header.write(MAGIC, 0, 'latin1');
  header.writeUInt32LE(json.length, header.length - 4);
  return Buffer.concat([header, json]);
}
