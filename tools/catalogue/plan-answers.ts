/**
 * The static answer files of a build (`precomputedFiles` of functions/core), planned
 * incrementally: the by-id answers of records known to be unchanged (answer-digests.ts) are
 * planned from the previous manifest's entry without being generated or hashed at all;
 * only new or changed records' answers are rendered. A similar-pepes answer is kept likewise
 * while the records it shows and their distances are unchanged (a digest of them, saved with
 * the listing pages' inputs), so a change renders only the answers that show a changed record.
 *
 * The API's answers come from the core's `catalogueAnswerFiles` and `recordAnswerFiles`, the
 * same two functions `precomputedFiles` is made of, so a new kind of answer is declared once;
 * `siteDocuments` adds share pages, feeds, dataset and sitemap, `listingFiles` the static
 * listing, whose pages are skipped like by-id answers when their inputs are unchanged. A test
 * holds the full plan (nothing known) byte-equal to `precomputedFiles` plus those.
 */
import { type CatalogueData, catalogueAnswerFiles, recordAnswerFiles } from '../../functions/core/catalogue.js';
import { openCatalogue } from '../../functions/core/catalogue-runtime.js';
import type { Neighbour } from '../../functions/core/similar.js';
import type { KnownAnswer, KnownDocument } from './cache/answer-digests.js';
import { siteDocuments } from './site-documents.js';
import { listingFiles } from './static-listing.js';
import type { ChunkShape } from '../shared/content-chunks.js';
import { sha256Of } from '../shared/manifest.js';
import { byteLength, type PlannedFile } from './write-output.js';

const rendered = (path: string, body: string): PlannedFile => ({ path, body, sha256: sha256Of(body), size: byteLength(body) });

/** How the static listing and the sitemaps are cut (defaults: LISTING_CHUNKS, SITEMAP_CHUNKS); tests make them small. */
export interface ChunkShapes {
  listing?: ChunkShape;
  sitemaps?: ChunkShape;
}

export interface PlanOptions {
  chunks?: ChunkShapes;
  /** The previous entry of a listing page made from the same inputs (answer-digests.ts). */
  knownPage?: KnownDocument;
  /** Record id → digest of the record (build-extras.ts), of which listing pages' inputs are made. */
  recordDigests?: ReadonlyMap<string, string>;
  /** Filled with each listing page's inputs digest (by output path), to be saved for the next build. */
  pageInputs?: Map<string, string>;
}

/**
 * Output-relative planned files (`site/…`); `known(id, path)` gives the unchanged entry of a
 * by-id answer or per-pepe document, if any. The ids come from `data.ids` when the data was
 * just compiled (decoding them again from the compact records costs more than keeping them).
 * `imageSha256` (by image file name) goes into the dataset's checksums (site-documents.ts).
 */
export function planAnswers(data: CatalogueData & { ids?: readonly string[] }, known: KnownAnswer, imageSha256: (fileName: string) => string, options: PlanOptions = {}): PlannedFile[] {
  const catalogue = openCatalogue(data);
  const ids = data.ids ?? Array.from({ length: catalogue.count }, (_, rank) => catalogue.id(rank));
  const files: PlannedFile[] = catalogueAnswerFiles(catalogue).map(({ path, body }) => rendered(`site/${path}`, body));
  const { knownPage, recordDigests, pageInputs } = options;
  const listing = listingFiles(catalogue, ids, {
    shape: options.chunks?.listing,
    recordDigest: recordDigests && ((id) => recordDigests.get(id)),
    unchanged: knownPage && ((path, inputs) => knownPage(`site/${path}`, inputs) !== undefined),
  });
  for (const file of listing) {
    const path = `site/${file.path}`;
    if (file.inputs !== undefined) pageInputs?.set(path, file.inputs);
    const old = file.body === undefined ? knownPage!(path, file.inputs!)! : undefined;
    files.push(old ? { path, sha256: old.sha256, size: old.size, unchanged: true } : rendered(path, file.body!));
  }
  // Answers made of the same inputs are the same bytes (every record without similar pepes shows the same empty list): rendered once.
  const byInputs = new Map<string, PlannedFile>();
  for (let rank = 0; rank < catalogue.count; rank++) {
    const id = ids[rank]!;
    for (const answer of recordAnswerFiles(catalogue, rank, id)) {
      const path = `site/${answer.path}`;
      const inputs = answer.shows && recordDigests ? shownInputs(answer.shows(), ids, recordDigests) : undefined;
      // No body: an unchanged file is never written (its entry is the previous manifest's, so
      // writeOutput need not look it up again).
      const old = answer.own ? known(id, path) : inputs ? knownPage?.(path, inputs) : undefined;
      if (old) files.push({ path, sha256: old.sha256, size: old.size, unchanged: true });
      else if (inputs === undefined) files.push(rendered(path, answer.body()));
      else {
        const same = byInputs.get(inputs) ?? rendered(path, answer.body());
        byInputs.set(inputs, same);
        files.push({ ...same, path });
      }
      // The shared empty list is not saved: it costs one lookup in writeOutput instead of an entry per record.
      if (inputs) pageInputs?.set(path, inputs);
    }
  }
  for (const file of siteDocuments(catalogue, { imageSha256, sitemapChunks: options.chunks?.sitemaps, unchanged: (id, path) => known(id, `site/${path}`) !== undefined })) {
    const path = `site/${file.path}`;
    const old = file.body === undefined ? known(file.id!, path)! : undefined;
    files.push(old ? { path, sha256: old.sha256, size: old.size, unchanged: true } : rendered(path, file.body!));
  }
  return files;
}

/**
 * A digest of the records an answer shows (`RecordAnswerFile.shows`) and their distances, '' when
 * it shows none, undefined when one has no digest: with the URLs and the code (the context), all
 * its bytes are made of.
 */
function shownInputs(shown: readonly Neighbour[], ids: readonly string[], recordDigests: ReadonlyMap<string, string>): string | undefined {
  if (shown.length === 0) return '';
  const parts: string[] = [];
  for (const { rank, distance } of shown) {
    const digest = recordDigests.get(ids[rank]!);
    if (digest === undefined) return undefined;
    parts.push(`${distance} ${digest}`);
  }
  return sha256Of(parts.join('\n'));
}
