/**
 * The static listing a bare bucket serves: the catalogue in its canonical order (created_at,
 * ties by id) cut into content-defined chunks (tools/shared/content-chunks.ts), one page per
 * chunk at `api/listing/<first-id>`, linked older/newer, and a head `api/listing/head` with
 * the total and the two ends. Pages carry no totals and are named by their oldest record, so
 * an append, a removal, an edit or a back-dated add (inserted where its created_at puts it)
 * rewrites the page it falls in, a neighbour when it makes or removes a chunk's end, the
 * neighbours whose link changes, and the head: never the other pages.
 */
import { LISTING_CHUNKS, LISTING_HEAD_PATH, LISTING_PATH } from '../../functions/core/api-limits.js';
import type { Catalogue } from '../../functions/core/catalogue-runtime.js';
import { chunkEnds, type ChunkShape } from '../shared/content-chunks.js';
import type { ManifestEntry } from '../shared/manifest.js';
import { type ChunkReuse, keptChunk } from './cache/answer-digests.js';

export const listingPagePath = (firstId: string): string => `${LISTING_PATH}/${firstId}`;

export interface ListingOptions {
  /** How pages are cut (default LISTING_CHUNKS); tests make pages small. */
  shape?: ChunkShape;
  /** Pages made of the same records and links as at the previous build are kept, not rendered (answer-digests.ts, paths site-relative). */
  reuse?: ChunkReuse;
}

/** A planned listing file, site-relative: its body, or the previous entry of a page kept as it was. */
export interface ListingFile {
  path: string;
  body?: string;
  kept?: ManifestEntry;
}

/** The head and every page of the listing, in order (head first). `ids` are the records' ids by rank. */
export function listingFiles(catalogue: Catalogue, ids: readonly string[], options: ListingOptions = {}): ListingFile[] {
  const shape = options.shape ?? LISTING_CHUNKS;
  const base = catalogue.data.urls.baseUrl;
  const ends = chunkEnds(ids, shape);
  const starts = [0, ...ends.slice(0, -1)];
  const url = (chunk: number): string | null => (chunk >= 0 && chunk < ends.length ? `${base}${listingPagePath(ids[starts[chunk]!]!)}` : null);
  const head = `${base}${LISTING_HEAD_PATH}`;
  const files: ListingFile[] = [
    {
      path: LISTING_HEAD_PATH.slice(1),
      body: `{"data":{"total_items":${ids.length},"oldest":${JSON.stringify(url(0))},"newest":${JSON.stringify(url(ends.length - 1))},"chunk":{"mean":${shape.mean},"max":${shape.max}}},"error":null}`,
    },
  ];
  for (let chunk = 0; chunk < ends.length; chunk++) {
    const [start, end] = [starts[chunk]!, ends[chunk]!];
    const path = listingPagePath(ids[start]!).slice(1);
    // Besides its records, a page is made of its links and the shape (the URLs and the code are the context).
    const kept = keptChunk(options.reuse, path, start, end, `${shape.mean}/${shape.max} ${end - start} ${ids[end - 1]} ${url(chunk - 1) ?? ''} ${url(chunk + 1) ?? ''}`);
    if (kept) {
      files.push({ path, kept });
      continue;
    }
    const items: string[] = [];
    for (let rank = start; rank < end; rank++) items.push(catalogue.jsonA(rank));
    const meta = `{"order":"created_at_asc","older":${JSON.stringify(url(chunk - 1))},"newer":${JSON.stringify(url(chunk + 1))},"listing":${JSON.stringify(head)}}`;
    files.push({ path, body: `{"data":[${items.join(',')}],"meta":${meta},"error":null}` });
  }
  return files;
}
