/**
 * What the previous build left that lets this one plan only what a change touches. Each by-id
 * file (`api/pepe/<id>`, `v1/pepe/<id>`, `p/<id>`, `oembed/<id>.json`) is a function of its one
 * record, the URLs and the generator code only; when all three are as they were for the build
 * that produced the output's current manifest, the file's sha256 and size are that manifest's.
 * Documents made of several records (listing pages, sitemap files, dataset shards) are kept
 * while their inputs key (count, last id, links: plan-answers.ts) is the saved one and none of
 * their records changed.
 *
 * `answers.json` records, for the build that produced manifest `version` in `outDir`: the
 * context (URLs + generator sources) and each chunked document's inputs key. It is used only
 * when the output still holds exactly that manifest version. The records' digests are not in
 * it: the last build's pairs hold them (cache/unchanged-content.ts), and a change build's
 * analysis has them at hand (`RecordChanges`), so no build parses or writes one per record here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Manifest, type ManifestEntry, manifestEntry, sha256Of } from '../../shared/manifest.js';
import { cacheMemo, hasMembers } from './memo.js';

export interface AnswerDigests {
  outDir: string;
  version: string;
  context: string;
  /** Key → inputs of a document made of several records (listing pages, sitemap files, dataset shards), with the entry it was written with (`withEntry`). */
  documents: Record<string, string>;
}

/** Keyed at use (`usable`): by the previous manifest's version, known only once it is parsed. */
export const ANSWER_DIGESTS = cacheMemo<AnswerDigests>('answers.json', hasMembers({ version: 'string', documents: 'object' }));

/** Which records this build's files may differ in from the previous build's. */
export interface RecordChanges {
  /** Current ids whose digest is not the one the previous build saved (added, edited, moved, image replaced, or read again). */
  changed: ReadonlySet<string>;
  /** Ids of the previous build that are gone. */
  removed: readonly string[];
  /** Whether the previous build had record `id`. */
  had(id: string): boolean;
  /** Whether the previous build had record `id` with the digest it has now (so its files are as that build wrote them). */
  same(id: string): boolean;
}

/**
 * The changes since the previous build: `current` gives each current record's id with the digest
 * the previous build saved for it (undefined: none known, so changed), `previous` the previous
 * build's ids. A record is changed unless its digest is the one saved.
 */
export function recordChanges(digests: ReadonlyMap<string, string>, current: Iterable<readonly [string, string | undefined]>, previous: { has(id: string): boolean; keys(): Iterable<string> }): RecordChanges {
  const changed = new Set<string>();
  for (const [id, saved] of current) if (saved !== digests.get(id)) changed.add(id);
  const removed: string[] = [];
  for (const id of previous.keys()) if (!digests.has(id)) removed.push(id);
  return { changed, removed, had: (id) => previous.has(id), same: (id) => digests.has(id) && !changed.has(id) && previous.has(id) };
}

/** The previous build's output as far as the saved digests vouch for it. */
export interface PreviousAnswers {
  /** The records changed and removed since the previous build. */
  changes: RecordChanges;
  /** The previous entry of `path`. */
  entry(path: string): ManifestEntry | undefined;
  /** The saved inputs of document `key`. */
  document(key: string): string | undefined;
  /** The previous bytes of `path`, only when they are still those its manifest entry names. */
  read(path: string): Buffer | undefined;
}

/** Whether the saved inputs are those of the output's current manifest, of this output folder and context. */
export const vouchesFor = (saved: AnswerDigests | null, current: { outDir: string; context: string }, previous: Manifest | null): saved is AnswerDigests =>
  saved !== null && previous !== null && saved.outDir === current.outDir && saved.version === previous.version && saved.context === current.context;

/** The previous output, or null when the saved inputs are not those of the output's current manifest, of this output folder and context, or the changes are not known. */
export function previousAnswers(saved: AnswerDigests | null, current: { outDir: string; context: string }, previous: Manifest | null, changes: RecordChanges | null): PreviousAnswers | null {
  if (changes === null || previous === null || !vouchesFor(saved, current, previous)) return null;
  const { documents } = saved;
  return {
    changes,
    entry: (path) => manifestEntry(previous, path),
    document: (key) => (Object.hasOwn(documents, key) ? documents[key] : undefined),
    read(path) {
      const entry = manifestEntry(previous, path);
      if (entry === undefined) return undefined;
      try {
        const bytes = readFileSync(join(current.outDir, path));
        return bytes.length === entry.size && sha256Of(bytes) === entry.sha256 ? bytes : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/** A document's inputs as saved: followed, on a line of its own, by the entry it was written with (a dataset shard's index entry has none). */
export const withEntry = (inputs: string, entry: ManifestEntry): string => `${inputs}\n${entry.sha256} ${entry.size}`;

/** The inputs and entry of a document as `withEntry` saved it (inputs hold no line break). */
export function savedDocument(saved: string | undefined): { inputs?: string; entry?: ManifestEntry } {
  const at = saved?.lastIndexOf('\n') ?? -1;
  if (at < 0) return { inputs: saved };
  const [sha256, size] = saved!.slice(at + 1).split(' ');
  return { inputs: saved!.slice(0, at), entry: { sha256: sha256!, size: Number(size) } };
}

/**
 * What a document made of a run of consecutive records may take from the previous build: `changed`
 * flags each rank whose record is not as it was (added, edited, moved, its image replaced);
 * `known(key, inputs)` is the saved inputs check; `remember` keeps a document's inputs for the next build.
 */
export interface ChunkReuse {
  changed: Uint8Array;
  saved(key: string): string | undefined;
  entry(path: string): ManifestEntry | undefined;
  remember(key: string, inputs: string): void;
}

/**
 * The previous entry of the document at `path` made of ranks [start, end) and `inputs` (what
 * else it is made of: count, last id, links), when the previous build made it of the same:
 * none of those records changed (so, with the same first and last record and count, they are
 * the same records) and its inputs were the same. Remembers the inputs either way.
 */
export function keptChunk(reuse: ChunkReuse | undefined, path: string, start: number, end: number, inputs: string): ManifestEntry | undefined {
  if (reuse === undefined) return undefined;
  reuse.remember(path, inputs);
  if (reuse.saved(path) !== inputs) return undefined;
  for (let rank = start; rank < end; rank++) if (reuse.changed[rank] === 1) return undefined;
  return reuse.entry(path);
}
