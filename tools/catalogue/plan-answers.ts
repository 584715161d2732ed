/**
 * The static answer files of a build (`precomputedFiles` of functions/core), planned
 * incrementally: the by-id answers of records known to be unchanged (answer-digests.ts) are
 * planned from the previous manifest's entry without being generated or hashed at all;
 * only new or changed records' answers are rendered. At 10k images that skips rendering and
 * hashing 20k bodies (~250 ms) when one image is added.
 *
 * The API's answers come from the core's `catalogueAnswerFiles` and `recordAnswerFiles`, the
 * same two functions `precomputedFiles` is made of, so a new kind of answer is declared once;
 * `siteDocuments` adds share pages, feeds, dataset and sitemap. A test holds the full plan
 * (nothing known) byte-equal to `precomputedFiles` plus the site documents.
 */
import { type CatalogueData, catalogueAnswerFiles, recordAnswerFiles } from '../../functions/core/catalogue.js';
import { openCatalogue } from '../../functions/core/catalogue-runtime.js';
import type { KnownAnswer } from './answer-digests.js';
import { siteDocuments } from './site-documents.js';
import { sha256Of } from '../shared/manifest.js';
import { byteLength, type PlannedFile } from './write-output.js';

const rendered = (path: string, body: string): PlannedFile => ({ path, body, sha256: sha256Of(body), size: byteLength(body) });

/**
 * Output-relative planned files (`site/…`); `known(id, path)` gives the unchanged entry of a
 * by-id answer or per-pepe document, if any. The ids come from `data.ids` when the data was
 * just compiled (decoding 10k ids from the compact records cost ~20 ms of a fresh process).
 * `imageSha256` (by image file name) goes into the dataset's checksums (site-documents.ts).
 */
export function planAnswers(data: CatalogueData & { ids?: readonly string[] }, known: KnownAnswer, imageSha256: (fileName: string) => string): PlannedFile[] {
  const catalogue = openCatalogue(data);
  const ids = data.ids;
  // The whole-catalogue answers shift with any record (every sorted page when one is added).
  const files: PlannedFile[] = catalogueAnswerFiles(catalogue).map(({ path, body }) => rendered(`site/${path}`, body));
  for (let rank = 0; rank < catalogue.count; rank++) {
    const id = ids ? ids[rank]! : catalogue.id(rank);
    for (const answer of recordAnswerFiles(catalogue, rank, id)) {
      const path = `site/${answer.path}`;
      // No body: an unchanged file is never written (its entry is the previous manifest's, so
      // writeOutput need not look it up again).
      const old = answer.own ? known(id, path) : undefined;
      files.push(old ? { path, sha256: old.sha256, size: old.size, unchanged: true } : rendered(path, answer.body()));
    }
  }
  for (const file of siteDocuments(catalogue, { imageSha256, unchanged: (id, path) => known(id, `site/${path}`) !== undefined })) {
    const path = `site/${file.path}`;
    const old = file.body === undefined ? known(file.id!, path)! : undefined;
    files.push(old ? { path, sha256: old.sha256, size: old.size, unchanged: true } : rendered(path, file.body!));
  }
  return files;
}
