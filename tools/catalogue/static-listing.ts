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
import { sha256Of } from '../shared/manifest.js';

export const listingPagePath = (firstId: string): string => `${LISTING_PATH}/${firstId}`;

export interface ListingOptions {
  /** How pages are cut (default LISTING_CHUNKS); tests make pages small. */
  shape?: ChunkShape;
  /**
   * Skips rendering a page whose inputs are unchanged: given the page's path and a digest of
   * what it is made from (its records' digests from `recordDigest`, its neighbours' names, the
   * shape), returns true when the file can stay as it is. Without `recordDigest`, every page is rendered.
   */
  unchanged?: (path: string, inputs: string) => boolean;
  /** The digest of a record by id (answer-digests.ts), for `unchanged`. */
  recordDigest?: (id: string) => string | undefined;
}

/** A planned listing file, site-relative; no body when `unchanged` vouched for it; `inputs` when it could be digested. */
export interface ListingFile {
  path: string;
  body?: string;
  inputs?: string;
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
    const path = listingPagePath(ids[starts[chunk]!]!).slice(1);
    const inputs = pageInputs(ids, starts[chunk]!, ends[chunk]!, url(chunk - 1), url(chunk + 1), shape, options.recordDigest);
    if (inputs !== undefined && options.unchanged?.(path, inputs)) {
      files.push({ path, inputs });
      continue;
    }
    const items: string[] = [];
    for (let rank = starts[chunk]!; rank < ends[chunk]!; rank++) items.push(catalogue.jsonA(rank));
    const meta = `{"order":"created_at_asc","older":${JSON.stringify(url(chunk - 1))},"newer":${JSON.stringify(url(chunk + 1))},"listing":${JSON.stringify(head)}}`;
    files.push({ path, body: `{"data":[${items.join(',')}],"meta":${meta},"error":null}`, inputs });
  }
  return files;
}

/** A digest of everything a page is made from besides the URLs and the code (which the caller's context covers), or undefined when a record has no digest. */
function pageInputs(ids: readonly string[], start: number, end: number, older: string | null, newer: string | null, shape: ChunkShape, recordDigest: ListingOptions['recordDigest']): string | undefined {
  if (!recordDigest) return undefined;
  const parts = [`${shape.mean}/${shape.max}`, older ?? '', newer ?? ''];
  for (let rank = start; rank < end; rank++) {
    const digest = recordDigest(ids[rank]!);
    if (digest === undefined) return undefined;
    parts.push(digest);
  }
  return sha256Of(parts.join('\n'));
}
