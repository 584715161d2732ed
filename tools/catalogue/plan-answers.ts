/**
 * The static answer files of a build (`precomputedFiles` of functions/core), planned
 * incrementally: the by-id answers of records known to be unchanged (answer-digests.ts) are
 * planned from the previous manifest's entry without being generated or hashed at all;
 * only new or changed records' answers are rendered. At 10k images that skips rendering and
 * hashing 20k bodies (~250 ms) when one image is added.
 *
 * This mirrors `precomputedFiles` (the API's answers) plus `siteDocuments` (share pages, feeds,
 * dataset, sitemap) path for path; a test holds the full plan (nothing known) byte-equal to
 * them, so a new kind of precomputed file shows up there.
 */
import { byIdBodyA, byIdBodyB } from '../../functions/core/bodies.js';
import { similarBody, tagsBody } from '../../functions/core/discovery.js';
import { type CatalogueData, sortedPageFiles } from '../../functions/core/catalogue.js';
import { openCatalogue } from '../../functions/core/catalogue-runtime.js';
import type { KnownAnswer } from './answer-digests.js';
import { siteDocuments } from './site-documents.js';
import { byteLength, type PlannedFile, sha256Of } from './write-output.js';

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
  const files: PlannedFile[] = [rendered('site/api/openapi.json', catalogue.openapi()), rendered('site/api/tags', tagsBody(catalogue))];
  // Every page shifts when one record is added: rendered each build (≈ 2 × 400 bodies at 10k records).
  for (const { path, body } of sortedPageFiles(catalogue)) files.push(rendered(`site/${path}`, body));
  for (let rank = 0; rank < catalogue.count; rank++) {
    const id = ids ? ids[rank]! : catalogue.id(rank);
    const pathA = `site/api/pepe/${id}`;
    const pathB = `site/v1/pepe/${id}`;
    const oldA = known(id, pathA);
    const oldB = known(id, pathB);
    // No body: an unchanged file is never written (its entry is the previous manifest's, so
    // writeOutput need not look it up again).
    files.push(oldA ? { path: pathA, sha256: oldA.sha256, size: oldA.size, unchanged: true } : rendered(pathA, byIdBodyA(catalogue, rank)));
    files.push(oldB ? { path: pathB, sha256: oldB.sha256, size: oldB.size, unchanged: true } : rendered(pathB, byIdBodyB(catalogue, rank)));
    // Always rendered: a record's similar pepes change with the others' records, not only its own.
    files.push(rendered(`site/api/similar/${id}`, similarBody(catalogue, rank)));
  }
  for (const file of siteDocuments(catalogue, { imageSha256, unchanged: (id, path) => known(id, `site/${path}`) !== undefined })) {
    const path = `site/${file.path}`;
    const old = file.body === undefined ? known(file.id!, path)! : undefined;
    files.push(old ? { path, sha256: old.sha256, size: old.size, unchanged: true } : rendered(path, file.body!));
  }
  return files;
}
