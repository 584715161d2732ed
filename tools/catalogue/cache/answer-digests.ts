/**
 * Skips hashing the by-id answers of records that did not change. Each by-id file
 * (`site/api/pepe/<id>`, `site/v1/pepe/<id>`) is a function of its one record, the URLs and
 * the generator code only; when all three are as they were for the build that produced the
 * output's current manifest, the file's sha256 and size are that manifest's. Hashing 20k
 * answer bodies is ~100 ms of a one-image rebuild at 10k images.
 *
 * `answers.json` in the build cache records, for the build that produced manifest `version`
 * in `outDir`: a context (URLs + generator sources) and a digest of each record. It is used
 * only when the output still holds exactly that manifest version.
 */
import { join } from 'node:path';
import { readCacheJson } from './cache-files.js';
import { type Manifest, type ManifestEntry, manifestEntry } from '../../shared/manifest.js';
import { makeFolders } from '../../shared/make-folders.js';
import { replaceFile } from '../../shared/replace-file.js';

const FILE = 'answers.json';

export interface AnswerDigests {
  outDir: string;
  version: string;
  context: string;
  records: Record<string, string>;
  /** Path → digest of the inputs of a document made of several records (static-listing.ts's pages). */
  documents?: Record<string, string>;
}

export async function loadAnswerDigests(cacheDir: string): Promise<AnswerDigests | null> {
  const saved = (await readCacheJson(join(cacheDir, FILE))) as AnswerDigests | null;
  // Used only when its version and context match, and then only record by record: a foreign shape is no record.
  return saved !== null && typeof saved === 'object' && typeof saved.records === 'object' && saved.records !== null ? saved : null;
}

export async function saveAnswerDigests(cacheDir: string, digests: AnswerDigests): Promise<void> {
  await makeFolders(cacheDir);
  await replaceFile(join(cacheDir, FILE), JSON.stringify(digests));
}

const usable = (saved: AnswerDigests | null, current: { outDir: string; context: string }, previous: Manifest | null): saved is AnswerDigests =>
  saved !== null && previous !== null && saved.outDir === current.outDir && saved.version === previous.version && saved.context === current.context;

/**
 * A lookup of the previous manifest entry of an unchanged by-id answer (`path` of record
 * `id`), or undefined when its record changed or the saved digests are not those of the
 * output's current manifest.
 */
export function unchangedAnswers(
  saved: AnswerDigests | null,
  current: { outDir: string; context: string; records: Map<string, string> },
  previous: Manifest | null,
): KnownAnswer {
  if (!usable(saved, current, previous)) return () => undefined;
  return (id, path) => {
    const digest = current.records.get(id);
    return digest !== undefined && saved.records[id] === digest ? manifestEntry(previous!, path) : undefined;
  };
}

/** Like `unchangedAnswers`, for documents made of several records: the previous entry of `path` when it was made from the same `inputs` digest. */
export function unchangedDocuments(saved: AnswerDigests | null, current: { outDir: string; context: string }, previous: Manifest | null): KnownDocument {
  const documents = saved?.documents;
  if (!usable(saved, current, previous) || typeof documents !== 'object' || documents === null) return () => undefined;
  return (path, inputs) => (Object.hasOwn(documents, path) && documents[path] === inputs ? manifestEntry(previous!, path) : undefined);
}

/** The previous entry of document `path` when its inputs digest is `inputs` as at the last build. */
export type KnownDocument = (path: string, inputs: string) => ManifestEntry | undefined;

/** The previous entry of by-id answer `path` (of record `id`) when it is known to be unchanged. */
export type KnownAnswer = (id: string, path: string) => ManifestEntry | undefined;
