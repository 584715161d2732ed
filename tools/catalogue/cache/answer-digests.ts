/**
 * What the previous build left that lets this one plan only what a change touches. Each by-id
 * file (`api/pepe/<id>`, `v1/pepe/<id>`, `p/<id>`, `oembed/<id>.json`) is a function of its one
 * record, the URLs and the generator code only; when all three are as they were for the build
 * that produced the output's current manifest, the file's sha256 and size are that manifest's.
 * Documents made of runs of records (listing pages, sitemap files, dataset shards) are cut again
 * from the previous build's cut, moved by the change (`chunksOf`): a chunk of the same records
 * is kept, unlisted.
 *
 * `answers.json` records, for the build that produced manifest `version` in `outDir`: the
 * context (URLs + generator sources) and how each family of chunked documents was cut (each
 * chunk's first id and count, and what a kept chunk needs besides: a shard's index entry). It
 * is used only when the output still holds exactly that manifest version. The records' digests
 * are not in it: the last build's pairs hold them (cache/unchanged-content.ts), and a change
 * build's analysis has them at hand (`RecordChanges`), so no build parses or writes one per
 * record here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ChunkCut, type ChunkShape, chunkStarts, cutChunks, recutChunks } from '../../shared/content-chunks.js';
import { type Manifest, type ManifestEntry, manifestEntry, segmentKeyOf, sha256Of } from '../../shared/manifest.js';
import type { KeptFiles } from '../write-output.js';
import { cacheMemo, hasMembers } from './memo.js';

export interface AnswerDigests {
  outDir: string;
  version: string;
  context: string;
  /** Family of chunked documents (CHUNKED: listing pages, sitemap files, dataset shards) → how it was cut (`savedChunksText`). */
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
  /** How the previous build cut the chunked documents of family `name`. */
  chunks(name: ChunkedFamily): SavedChunks;
  /** The previous bytes of `path`, only when they are still those its manifest entry names. */
  read(path: string): Buffer | undefined;
}

/** Whether the saved inputs are those of the output's current manifest, of this output folder and context. */
export const vouchesFor = (saved: AnswerDigests | null, current: { outDir: string; context: string }, previous: Manifest | null): saved is AnswerDigests =>
  saved !== null && previous !== null && saved.outDir === current.outDir && saved.version === previous.version && saved.context === current.context;

/** The previous output, or null when the saved inputs are not those of the output's current manifest, of this output folder and context, or the changes or a family's cut are not known. */
export function previousAnswers(saved: AnswerDigests | null, current: { outDir: string; context: string }, previous: Manifest | null, changes: RecordChanges | null): PreviousAnswers | null {
  if (changes === null || previous === null || !vouchesFor(saved, current, previous)) return null;
  const cuts = new Map<ChunkedFamily, SavedChunks>();
  for (const name of CHUNKED) {
    const cut = Object.hasOwn(saved.documents, name) ? parseSavedChunks(saved.documents[name]!) : null;
    if (cut === null) return null;
    cuts.set(name, cut);
  }
  return {
    changes,
    entry: (path) => manifestEntry(previous, path),
    chunks: (name) => cuts.get(name)!,
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

/** The families of documents cut into chunks of consecutive records. */
export const CHUNKED = ['listing', 'sitemaps', 'dataset'] as const;
export type ChunkedFamily = (typeof CHUNKED)[number];

/** A family's cut as saved: each chunk's first id and count, and per chunk what a kept one needs besides (a shard's index entry; '' for none). */
export interface SavedChunks extends ChunkCut {
  extras: readonly string[];
}

export const savedChunksText = (cut: SavedChunks): string => JSON.stringify([cut.closed, cut.firsts.join(' '), cut.counts.join(' '), cut.extras]);

/** The cut `savedChunksText` wrote, or null when the text is not one (an older cache: everything is planned again). */
export function parseSavedChunks(text: string): SavedChunks | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 4) return null;
  const [closed, firstsText, countsText, extras] = value as unknown[];
  if (typeof firstsText !== 'string' || typeof countsText !== 'string' || !Array.isArray(extras)) return null;
  const firsts = firstsText === '' ? [] : firstsText.split(' ');
  const counts = countsText === '' ? [] : countsText.split(' ').map(Number);
  const whole = (n: unknown, min: number) => Number.isSafeInteger(n) && (n as number) >= min;
  if (counts.length !== firsts.length || extras.length !== firsts.length || !whole(closed, 0) || (closed as number) > firsts.length) return null;
  if (!counts.every((count) => whole(count, 1)) || !extras.every((extra) => typeof extra === 'string')) return null;
  return { firsts, counts, closed: closed as number, extras: extras as string[] };
}

/**
 * What a family of documents made of runs of consecutive records takes from the previous build:
 * `dirty`, the ascending ranks whose record is not as it was (added, edited, moved, its image
 * replaced); the previous cut; where to leave this build's cut for the next; `keep`, which
 * takes the previous files it keeps unlisted; and the previous files, read back.
 */
export interface ChunkReuse {
  dirty: readonly number[];
  before(name: ChunkedFamily): SavedChunks | null;
  remember(name: ChunkedFamily, cut: SavedChunks): void;
  keep(files: KeptFiles): void;
  /** The previous bytes of an output path, when still those its manifest entry names (`PreviousAnswers.read`). */
  read(path: string): Buffer | undefined;
}

/** A family's chunks: `ends` (shared/content-chunks.ts), and for each the previous chunk of the same records (`same`, -1: none). */
export interface Chunks {
  ends: number[];
  closed: number;
  same: number[];
  before: SavedChunks | null;
}

/** The chunks of the records by rank (`ids`), cut again from the previous cut when there is one: in proportion to the change. */
export function chunksOf(ids: readonly string[], shape: ChunkShape, reuse: ChunkReuse | undefined, name: ChunkedFamily): Chunks {
  const before = reuse?.before(name) ?? null;
  if (before === null) {
    const { ends, closed } = cutChunks(ids, shape);
    return { ends, closed, same: new Array<number>(ends.length).fill(-1), before };
  }
  return { ...recutChunks(ids, shape, before, reuse!.dirty, startsOf(before)), before };
}

const starts = new WeakMap<SavedChunks, Map<string, number>>();
/** A previous cut's chunk index by first id, made once for the cut and its kept files. */
function startsOf(before: SavedChunks): Map<string, number> {
  let index = starts.get(before);
  if (index === undefined) starts.set(before, (index = chunkStarts(before)));
  return index;
}

/** Saves the cut of `chunks` for the next build, with each chunk's `extras`. */
export function rememberChunks(reuse: ChunkReuse | undefined, name: ChunkedFamily, ids: readonly string[], chunks: Chunks, extras: readonly string[] = []): void {
  if (reuse === undefined) return;
  const firsts = new Array<string>(chunks.ends.length);
  const counts = new Array<number>(chunks.ends.length);
  for (let j = 0, start = 0; j < chunks.ends.length; start = chunks.ends[j]!, j++) {
    firsts[j] = ids[start]!;
    counts[j] = chunks.ends[j]! - start;
  }
  reuse.remember(name, { firsts, counts, closed: chunks.closed, extras: extras.length === 0 ? new Array<string>(firsts.length).fill('') : extras });
}

/**
 * The previous chunks' files kept as they are (`kept[k]`), unlisted: `paths(k)` gives chunk k's
 * `perChunk` output-relative files, all under `folder`; `firstIdOf` tells a file named by its
 * chunk's first id from its path (else a map of the previous chunks' paths is made on the first
 * question: writeOutput asks only in the segments it walks).
 */
export function keptChunks(before: SavedChunks, kept: Uint8Array, folder: string, perChunk: number, paths: (k: number) => readonly string[], firstIdOf?: (path: string) => string): KeptFiles {
  let count = 0;
  for (let k = 0; k < kept.length; k++) count += kept[k]! * perChunk;
  let byPath: Map<string, number> | undefined;
  const chunkOf = (path: string): number | undefined => {
    if (firstIdOf !== undefined) {
      const k = startsOf(before).get(firstIdOf(path));
      return k !== undefined && paths(k).includes(path) ? k : undefined;
    }
    if (byPath === undefined) {
      byPath = new Map();
      for (let k = 0; k < kept.length; k++) for (const file of paths(k)) byPath.set(file, k);
    }
    return byPath.get(path);
  };
  return {
    count,
    folders: [folder],
    has(path) {
      if (!path.startsWith(folder)) return false;
      const k = chunkOf(path);
      return k !== undefined && kept[k] === 1;
    },
    touched(digits) {
      const keys = new Set<string>();
      for (let k = 0; k < before.firsts.length; k++) if (kept[k] === 0) for (const file of paths(k)) keys.add(segmentKeyOf(file, digits));
      return keys;
    },
  };
}
