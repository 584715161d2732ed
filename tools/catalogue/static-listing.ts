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
import type { ChunkShape } from '../shared/content-chunks.js';
import { type ChunkReuse, chunksOf, keptChunks, rememberChunks } from './cache/answer-digests.js';

export const listingPagePath = (firstId: string): string => `${LISTING_PATH}/${firstId}`;

export interface ListingOptions {
  /** How pages are cut (default LISTING_CHUNKS); tests make pages small. */
  shape?: ChunkShape;
  /** Pages made of the same records and links as at the previous build are kept unlisted, not rendered (answer-digests.ts). */
  reuse?: ChunkReuse;
}

/** A planned listing file, site-relative. */
export interface ListingFile {
  path: string;
  body: string;
}

/** The head and the pages to write, in order (head first): every page, or with `reuse` those not kept. `ids` are the records' ids by rank. */
export function listingFiles(catalogue: Catalogue, ids: readonly string[], options: ListingOptions = {}): ListingFile[] {
  const shape = options.shape ?? LISTING_CHUNKS;
  const base = catalogue.data.urls.baseUrl;
  const chunks = chunksOf(ids, shape, options.reuse, 'listing');
  const { ends, same, before } = chunks;
  const start = (chunk: number): number => (chunk === 0 ? 0 : ends[chunk - 1]!);
  const firstId = (chunk: number): string | undefined => (chunk >= 0 && chunk < ends.length ? ids[start(chunk)] : undefined);
  const url = (chunk: number): string | null => (chunk >= 0 && chunk < ends.length ? `${base}${listingPagePath(firstId(chunk)!)}` : null);
  const head = `${base}${LISTING_HEAD_PATH}`;
  const files: ListingFile[] = [
    {
      path: LISTING_HEAD_PATH.slice(1),
      body: `{"data":{"total_items":${ids.length},"oldest":${JSON.stringify(url(0))},"newest":${JSON.stringify(url(ends.length - 1))},"chunk":{"mean":${shape.mean},"max":${shape.max}}},"error":null}`,
    },
  ];
  const kept = before === null ? null : new Uint8Array(before.firsts.length);
  const previousFirst = (k: number): string | undefined => before!.firsts[k];
  for (let chunk = 0; chunk < ends.length; chunk++) {
    // Besides its records, a page is made of its links (the URLs, the shape and the code are the context).
    const k = same[chunk]!;
    if (k >= 0 && firstId(chunk - 1) === previousFirst(k - 1) && firstId(chunk + 1) === previousFirst(k + 1)) {
      kept![k] = 1;
      continue;
    }
    const items: string[] = [];
    for (let rank = start(chunk); rank < ends[chunk]!; rank++) items.push(catalogue.jsonA(rank));
    const meta = `{"order":"created_at_asc","older":${JSON.stringify(url(chunk - 1))},"newer":${JSON.stringify(url(chunk + 1))},"listing":${JSON.stringify(head)}}`;
    files.push({ path: listingPagePath(firstId(chunk)!).slice(1), body: `{"data":[${items.join(',')}],"meta":${meta},"error":null}` });
  }
  rememberChunks(options.reuse, 'listing', ids, chunks);
  const folder = `site${LISTING_PATH}/`;
  if (kept !== null) options.reuse!.keep(keptChunks(before!, kept, folder, 1, (k) => [`site${listingPagePath(before!.firsts[k]!)}`], (path) => path.slice(folder.length)));
  return files;
}
