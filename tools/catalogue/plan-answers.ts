/**
 * The static answer files of a build (`precomputedFiles` of functions/core), planned in
 * proportion to the change: what the previous build made of the same inputs is taken from its
 * manifest (answer-digests.ts) without being rendered, hashed or digested again.
 *
 * - A record is *changed* when its digest is not the saved one (added, edited, moved by a new
 *   created_at) or its image was written again (`imageChanged`). Its by-id answers and
 *   per-pepe documents are rendered; every other record's are kept as the previous build wrote
 *   them, unlisted: the plan says which previous paths it keeps and how many
 *   (`keepPerRecordFiles`), so an unchanged record costs nothing here nor in writeOutput.
 * - A similar-pepes answer shows the records within SIMILAR_MAX_DISTANCE bits of its own phash
 *   (their ids, distances and variant A text): it can differ only for a record within that
 *   distance of a changed or removed record's phash, new or old (the old one read from the
 *   previous `api/pepe/<id>`, checked against its manifest entry). Those are rendered; with
 *   more changes than SIMILAR_SEARCHES, or an old phash that cannot be read, all are.
 * - Listing pages, sitemap files and dataset shards are cut again from the previous build's cut,
 *   moved by the change (answer-digests.ts `chunksOf`): a chunk of the same records (and, for a
 *   listing page, the same neighbours) is kept unlisted, as a record's files are.
 * - The catalogue-wide answers, the feeds, the heads and indexes are rendered every time: they
 *   are small.
 *
 * The API's answers come from the core's `catalogueAnswerFiles` and `recordAnswerFiles`, the
 * same two functions `precomputedFiles` is made of, so a new kind of answer is declared once. A
 * test holds the full plan (nothing known) byte-equal to `precomputedFiles` plus the documents,
 * and the property test (incremental-build.property.test.ts) every incremental plan byte-equal
 * to a full build.
 */
import { type CatalogueData, catalogueAnswerFiles, recordAnswerFiles } from '../../functions/core/catalogue.js';
import { type Catalogue, openCatalogue } from '../../functions/core/catalogue-runtime.js';
import { parseHash } from '../../functions/core/multi-index.js';
import { SIMILAR_MAX_DISTANCE } from '../../functions/core/similar.js';
import { type ChunkReuse, type PreviousAnswers, savedChunksText } from './cache/answer-digests.js';
import { sharePath, oembedPath, siteDocuments } from './site-documents.js';
import { listingFiles } from './static-listing.js';
import type { ChunkShape } from '../shared/content-chunks.js';
import { idSegmentKey, sha256Of } from '../shared/manifest.js';
import { byteLength, type KeptFiles, keptTogether, type LaterFiles, type PlannedFile } from './write-output.js';

const rendered = (path: string, body: string): PlannedFile => ({ path, body, sha256: sha256Of(body), size: byteLength(body) });

/**
 * Changed or removed records whose phash is searched for the similar answers it may alter (a
 * pass over every phash each, ~1 ms at 100k records); past it, every similar answer is rendered.
 */
const SIMILAR_SEARCHES = 256;

/** How the static listing, the sitemaps and the dataset are cut (defaults: LISTING_CHUNKS, SITEMAP_CHUNKS, DATASET_SHARD_SHAPE); tests make them small. */
export interface ChunkShapes {
  listing?: ChunkShape;
  sitemaps?: ChunkShape;
  dataset?: ChunkShape;
}

export interface PlanOptions {
  chunks?: ChunkShapes;
  /** The previous build's output as the saved digests vouch for it (answer-digests.ts `previousAnswers`), null when nothing can be taken from it. */
  previous?: PreviousAnswers | null;
  /** Ids of the records whose image's bytes are not the previous manifest's (the write compared them). */
  imageChanged?: ReadonlySet<string>;
  /** Filled with how each family of chunked documents is cut (answer-digests.ts), to be saved for the next build. */
  documents?: Map<string, string>;
}

/** A published image: its file name (`<id><ext>`) and sha256. */
export type ImageOf = (id: string) => { fileName: string; sha256: string };

/** The files every record has, by the path prefix and suffix around its id; `own`: made of the record alone. */
const PER_RECORD = [
  { prefix: 'site/api/pepe/', suffix: '', own: true },
  { prefix: 'site/v1/pepe/', suffix: '', own: true },
  { prefix: `site${sharePath('')}`, suffix: '', own: true },
  { prefix: `site${oembedPath('').slice(0, -'.json'.length)}`, suffix: '.json', own: true },
  { prefix: 'site/api/similar/', suffix: '', own: false },
] as const;
const OWN_FILES = PER_RECORD.filter((kind) => kind.own).length;

/**
 * Output-relative planned files (`site/…`). The ids come from `data.ids` when the data was just
 * compiled (decoding them again from the compact records costs more than keeping them).
 * `image(id)` gives each record's image, whose sha256 goes into the dataset's checksums.
 */
export function planAnswers(data: CatalogueData & { ids?: readonly string[] }, image: ImageOf, options: PlanOptions = {}): LaterFiles {
  const catalogue = openCatalogue(data);
  const ids = data.ids ?? Array.from({ length: catalogue.count }, (_, rank) => catalogue.id(rank));
  const previous = options.previous ?? null;
  const files: PlannedFile[] = catalogueAnswerFiles(catalogue).map(({ path, body }) => rendered(`site/${path}`, body));

  const changed = new Uint8Array(catalogue.count).fill(previous === null ? 1 : 0);
  const changedRanks: number[] = [];
  let removed: readonly string[] = [];
  if (previous !== null) {
    // The analysis (or the last build's pairs) names the changed records: no digest is compared here.
    const { changes } = previous;
    const changedSet = options.imageChanged === undefined ? changes.changed : new Set([...changes.changed, ...options.imageChanged]);
    // A few are found by the catalogue's binary search; many, in one pass over the ranks.
    if (changedSet.size * 64 < catalogue.count) {
      for (const id of changedSet) {
        const rank = catalogue.rankOf(id);
        if (rank >= 0 && changed[rank] === 0) {
          changed[rank] = 1;
          changedRanks.push(rank);
        }
      }
      changedRanks.sort((a, b) => a - b);
    } else for (let rank = 0; rank < catalogue.count; rank++) if (changedSet.has(ids[rank]!) && (changed[rank] = 1)) changedRanks.push(rank);
    removed = changes.removed;
  }
  const changedIds = changedRanks.map((rank) => ids[rank]!);
  const similarAgain = similarToRender(catalogue, changedRanks, [...changedIds.filter((id) => previous!.changes.had(id)), ...removed], previous);
  const kept: KeptFiles[] = previous === null ? [] : [keepPerRecordFiles(previous, changed, changedIds, removed, ids, similarAgain)];
  if (previous === null) changed.fill(1);

  // Answers made of the same inputs are the same bytes (every record without similar pepes shows the same empty list): rendered once.
  let noneSimilar: PlannedFile | undefined;
  const renderRanks = previous === null || similarAgain === undefined ? ids.keys() : [...similarAgain].sort((a, b) => a - b);
  const pepeRanks: number[] = [];
  for (const rank of renderRanks) {
    const similar = previous === null || similarAgain === undefined || similarAgain.has(rank);
    if (changed[rank] === 1) pepeRanks.push(rank);
    for (const answer of recordAnswerFiles(catalogue, rank, ids[rank]!)) {
      const path = `site/${answer.path}`;
      if (answer.own ? changed[rank] === 0 : !similar) continue;
      if (answer.own || catalogue.similar(rank).length > 0) files.push(rendered(path, answer.body()));
      else files.push({ ...(noneSimilar ??= rendered(path, answer.body())), path });
    }
  }
  pepeRanks.sort((a, b) => a - b);

  const documents = options.documents;
  const reuse: ChunkReuse | undefined = previous
    ? { dirty: changedRanks, before: (name) => previous.chunks(name), remember: (name, cut) => documents?.set(name, savedChunksText(cut)), keep: (files) => kept.push(files), read: (path) => previous.read(path) }
    : documents && { dirty: [], before: () => null, remember: (name, cut) => documents.set(name, savedChunksText(cut)), keep: () => undefined, read: () => undefined };
  const chunked = [
    ...listingFiles(catalogue, ids, { shape: options.chunks?.listing, reuse }),
    ...siteDocuments(catalogue, { imageSha256: (_name, id) => image(id).sha256, ids, pepeRanks, reuse, sitemapChunks: options.chunks?.sitemaps, datasetShape: options.chunks?.dataset }),
  ];
  for (const file of chunked) files.push(rendered(`site/${file.path}`, file.body));
  const together = keptTogether(kept);
  return { files, ...(together ? { kept: together } : {}) };
}

/** A record's images in the output (its original and renditions) as a build's item gives them: planned only for the records that changed. */
export interface RecordImages<T> {
  id(item: T): string;
  /** How many files it has (the original and each rendition). */
  files(item: T): number;
  plan(item: T): PlannedFile[];
}

const IMAGES = 'site/images/';
const ID_LENGTH = 36;

/**
 * The originals and renditions (`site/images/<id>…`), planned in proportion to the change: a
 * record whose digest (which covers its image's bytes and renditions: build-extras.ts
 * `buildInputs`) is the one the previous build saved keeps its files as that build wrote them,
 * unlisted and counted, as `keepPerRecordFiles` keeps the answers; the others' are planned.
 * Each item is one set lookup among the changed ids: every current record not changed is the same.
 */
export function planImages<T>(items: readonly T[], images: RecordImages<T>, previous: PreviousAnswers | null): LaterFiles {
  const files: PlannedFile[] = [];
  if (previous === null) {
    for (const item of items) files.push(...images.plan(item));
    return { files };
  }
  const { changes } = previous;
  let count = 0;
  for (const item of items) {
    if (changes.changed.has(images.id(item))) files.push(...images.plan(item));
    else count += images.files(item);
  }
  return {
    files,
    kept: {
      count,
      folders: [IMAGES],
      has(path) {
        const after = path.charCodeAt(IMAGES.length + ID_LENGTH);
        // `<id>.<ext>` or `<id>-<width>w-<hash>.webp`.
        return path.startsWith(IMAGES) && (after === 46 || after === 45) && changes.same(path.slice(IMAGES.length, IMAGES.length + ID_LENGTH));
      },
      // A changed record's previous renditions may have other names: its segment is looked through.
      touched: (digits) => segmentsOf([...changes.changed, ...changes.removed], digits),
    },
  };
}

const segmentsOf = (ids: Iterable<string>, digits: number): Set<string> => new Set(Array.from(ids, (id) => idSegmentKey(id, digits)));

/**
 * The per-record files that stay, kept unlisted: every previous one but those of changed and
 * removed records and the similar answers to render. The previous build, whose manifest the
 * saved digests vouch for, planned each of its records' files, so they are counted, not looked
 * for (writeOutput checks the count against the previous manifest's); a path is told by its
 * prefix, suffix and a previous record's id, so none is built nor hashed per record.
 */
function keepPerRecordFiles(previous: PreviousAnswers, changed: Uint8Array, changedIds: readonly string[], removed: readonly string[], ids: readonly string[], similarAgain: ReadonlySet<number> | undefined): KeptFiles {
  const count = changed.length;
  const left = new Set<string>();
  for (const id of [...changedIds, ...removed]) for (const kind of PER_RECORD) left.add(`${kind.prefix}${id}${kind.suffix}`);
  for (const rank of similarAgain ?? []) left.add(`${PER_RECORD[4].prefix}${ids[rank]}`);
  const kinds = similarAgain === undefined ? PER_RECORD.filter((kind) => kind.own) : PER_RECORD;
  return {
    count: OWN_FILES * (count - changedIds.length) + (count - (similarAgain?.size ?? count)),
    folders: kinds.map((kind) => kind.prefix),
    has(path) {
      if (left.has(path)) return false;
      for (const kind of kinds) {
        if (!path.startsWith(kind.prefix) || !path.endsWith(kind.suffix)) continue;
        return previous.changes.same(path.slice(kind.prefix.length, path.length - kind.suffix.length));
      }
      return false;
    },
    // The files of a record share their segment.
    touched: (digits) => segmentsOf([...changedIds, ...removed, ...Array.from(similarAgain ?? [], (rank) => ids[rank]!)], digits),
  };
}

/**
 * The ranks whose similar answer may differ from the previous build's: the changed records
 * (`changedRanks`) and those within SIMILAR_MAX_DISTANCE bits of the phash, now or before, of a
 * changed or removed record (`gone`: those that were in the previous build). Undefined when all may.
 */
function similarToRender(catalogue: Catalogue, changedRanks: readonly number[], gone: readonly string[], previous: PreviousAnswers | null): Set<number> | undefined {
  if (previous === null || changedRanks.length + gone.length > SIMILAR_SEARCHES) return undefined;
  const again = new Set(changedRanks);
  const phashes: (string | null)[] = changedRanks.map((rank) => (JSON.parse(catalogue.jsonA(rank)) as { phash: string | null }).phash);
  for (const id of gone) {
    const old = previous.read(`site/api/pepe/${id}`);
    if (old === undefined) return undefined;
    phashes.push((JSON.parse(old.toString('utf8')) as { data: { phash: string | null } }).data.phash);
  }
  for (const phash of phashes) {
    const hash = phash === null ? null : parseHash(phash);
    if (hash === null) continue;
    for (const { rank } of catalogue.nearHash(hash, SIMILAR_MAX_DISTANCE)) again.add(rank);
  }
  return again;
}
