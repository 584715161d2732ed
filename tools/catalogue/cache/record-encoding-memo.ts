/**
 * What a change build's compile takes from the last build's (`CompileReuse` in
 * functions/core/catalogue.ts), so that it costs what changed. A record's encoded form depends
 * on the record and the text dictionary alone, and the dictionary lists its pieces in text
 * order (text-dictionary.ts), so adding an image mostly leaves it as it was. Then a chunk whose
 * records are the same (same digests) at the same ranks, and as many, is taken whole; a chunk
 * made again slices its saved records' encodings out of their old chunks and encodes the new
 * or changed ones. The dictionary's piece counts move by the records new or gone (those gone are
 * decoded from their chunks), and the id order merges the new records into the saved one. When
 * the dictionary differs, everything is encoded and chunked again; the output never depends on
 * the memo.
 *
 * `encoded-records.json` holds the build context (URLs and generator code, which covers the
 * codec), the dictionary text, each record's digest and id in rank order (the digest: the sha256
 * of its JSON, build-extras.ts `buildInputs`, which covers every field) and the build's digest sum,
 * the chunks with their joined lengths, hashes and offset width, the ranks in id order, the piece
 * counts and the OpenAPI text.
 */
import type { CompiledChunk, CompileReuse } from '../../../functions/core/catalogue.js';
import { CHUNK_SIZE } from '../../../functions/core/catalogue-data.js';
import type { PepeRecord } from '../../../functions/core/record.js';
import { lowerBound } from '../../../functions/core/lower-bound.js';
import { numberAt } from '../../../functions/core/packed-numbers.js';
import { dictionaryFields, encodedTexts } from '../../../functions/core/record-codec.js';
import { escapeForSource, unescapeFromSource } from '../../../functions/core/source-text.js';
import { chooseDictionary, countPieces, dictionaryPieces } from '../../../functions/core/text-dictionary.js';
import { cacheMemo, digestsInOrder, hasLineUpFields, type LineUp, linedUpByChange, matchedIndexes } from './memo.js';

interface SavedEncodings {
  context: string;
  dictionary: string;
  /** Record digests in rank order; each record's encoding is in its chunk. */
  digests: string[];
  /** How often each dictionary candidate occurs in the records' texts (`countPieces`). */
  counts: [piece: string, count: number][];
  /** The compiled chunks (`CompiledChunk`, member by member) and their offset width. */
  chunks: string[];
  joined: number[];
  hashes: string[];
  offsetWidth: number;
  /** The ranks in id order (`CompileReuse.idOrder`). */
  byId: number[];
  /** The phashes' pieces (`storeHashes`), their missing ranks and records a piece; absent in a memo saved before they were kept. */
  hashPieces?: string[];
  hashMissing?: number[][];
  hashPerPiece?: number;
  /** The OpenAPI document's text (`CompileReuse.openapi`): the context covers all it depends on. */
  openapi?: string;
  /** The record ids in rank order and the build's digest sum (`LineUp`); absent in a memo saved before they were kept. */
  ids?: string[];
  sum?: string;
}

/** What the memo did in one build: records taken from the last build, and records encoded. */
export interface RecordEncodingRun {
  reused: number;
  encoded: number;
}

const isSaved = (value: unknown): value is SavedEncodings => {
  const saved = value as SavedEncodings | null;
  return (
    typeof saved?.context === 'string' &&
    typeof saved.dictionary === 'string' &&
    Array.isArray(saved.digests) &&
    Array.isArray(saved.counts) &&
    Array.isArray(saved.chunks) &&
    Array.isArray(saved.joined) &&
    Array.isArray(saved.hashes) &&
    saved.chunks.length === Math.ceil(saved.digests.length / CHUNK_SIZE) &&
    saved.joined.length === saved.chunks.length &&
    saved.hashes.length === saved.chunks.length &&
    Number.isSafeInteger(saved.offsetWidth) &&
    Array.isArray(saved.byId) &&
    saved.byId.length === saved.digests.length &&
    (saved.hashPieces === undefined ||
      (Array.isArray(saved.hashPieces) &&
        saved.hashPieces.every((piece) => typeof piece === 'string') &&
        Array.isArray(saved.hashMissing) &&
        saved.hashMissing.length === saved.hashPieces.length &&
        saved.hashMissing.every((ranks) => Array.isArray(ranks) && ranks.every((rank) => Number.isSafeInteger(rank))) &&
        Number.isSafeInteger(saved.hashPerPiece))) &&
    (saved.openapi === undefined || typeof saved.openapi === 'string') &&
    hasLineUpFields(saved)
  );
};

const ENCODED_RECORDS = cacheMemo('encoded-records.json', isSaved, (saved) => saved.context, { deltas: true });

/** The memo saved for `context`, or null: what `memoizedRecordEncoding` starts from. */
export const readRecordEncodingMemo = (cacheDir: string, context: string) => ENCODED_RECORDS.load(cacheDir, context);

/**
 * The record encoder for one build (`compileCatalogue`'s `encodeRecords` and `reuse` options),
 * reading the saved encodings first. `digests`: record id → digest of the record, for every
 * record of the build (build-extras.ts `buildInputs`). `save()` keeps what was made for the next build.
 */
export async function memoizedRecordEncoding(cacheDir: string, context: string, digests: ReadonlyMap<string, string>, lineUp?: LineUp, read = readRecordEncodingMemo(cacheDir, context)) {
  const saved = await read;
  const built: SavedEncodings = { context, dictionary: '', digests: [], counts: [], chunks: [], joined: [], hashes: [], offsetWidth: 0, byId: [], sum: lineUp?.after };
  let run: RecordEncodingRun | null = null;
  let keptChunks = 0;
  let keptHashPieces = 0;
  let counted = false;
  // Each rank's record in the saved lists (-1: new or changed), worked out once per build.
  let aligned: { records: readonly PepeRecord[]; savedAt: Int32Array | null } | null = null;
  const align = (records: readonly PepeRecord[]) => {
    if (aligned?.records === records) return aligned.savedAt;
    const lined = saved === null ? null : linedUpByChange(saved, records, digests, lineUp);
    built.digests = lined?.digests ?? digestsInOrder(records, digests, 'memoizedRecordEncoding');
    built.ids = lined?.ids ?? records.map((record) => record.id);
    let savedAt: Int32Array | null = null;
    if (saved !== null) {
      savedAt = lined?.savedAt ?? matchedIndexes(saved.digests, built.digests);
      // Each saved record stands for one record at most (a guard: the ids, hence the digests, are distinct).
      const claimed = new Uint8Array(saved.digests.length);
      for (let rank = 0; rank < savedAt.length; rank++) {
        const at = savedAt[rank]!;
        if (at === -1) continue;
        if (claimed[at] === 1) savedAt[rank] = -1;
        else claimed[at] = 1;
      }
    }
    aligned = { records, savedAt };
    return savedAt;
  };
  // Whether ranks start .. end - 1 (a piece of `size` ranks) hold the saved records at the same ranks, and as many: a piece that lost its last record differs.
  const sameRanks = (start: number, end: number, size: number): boolean => {
    const savedAt = aligned?.savedAt;
    if (saved === null || savedAt == null || Math.min(start + size, saved.digests.length) !== end) return false;
    for (let rank = start; rank < end; rank++) if (savedAt[rank] !== rank) return false;
    return true;
  };
  // The saved encoding of the record at saved rank `at` as its chunk holds it (escaped), sliced out as the function does (catalogue-runtime.ts).
  const savedEscaped = (at: number): string => {
    const { chunks, digests: savedDigests, offsetWidth } = saved!;
    const index = Math.floor(at / CHUNK_SIZE);
    const chunk = chunks[index]!;
    const i = at - index * CHUNK_SIZE;
    const records = Math.min(CHUNK_SIZE, savedDigests.length - index * CHUNK_SIZE);
    const header = records * offsetWidth;
    const end = i + 1 < records ? header + numberAt(chunk, offsetWidth, i + 1) - 1 : chunk.length;
    return chunk.slice(header + numberAt(chunk, offsetWidth, i), end);
  };
  const reuse: CompileReuse = {
    dictionary(records, texts) {
      const savedAt = align(records);
      let counts: Map<string, number> | null = null;
      if (saved !== null && savedAt !== null) {
        const claimed = new Uint8Array(saved.digests.length);
        const fresh: number[] = [];
        for (let rank = 0; rank < savedAt.length; rank++) {
          const at = savedAt[rank]!;
          if (at === -1) fresh.push(rank);
          else claimed[at] = 1;
        }
        const gone = saved.digests.length - (records.length - fresh.length);
        // Counting the saved records that are gone costs decoding them: past half of all, count afresh.
        if (fresh.length + gone <= records.length / 2) {
          counts = new Map(saved.counts);
          for (const rank of fresh) countPieces(dictionaryFields(texts(rank)), counts, 1);
          const piece = gone > 0 ? dictionaryPieces(saved.dictionary) : null;
          for (let at = 0; at < claimed.length; at++) if (claimed[at] === 0) countPieces(dictionaryFields(encodedTexts(unescapeFromSource(savedEscaped(at)), piece!)), counts, -1);
        }
      }
      counts ??= countPieces(records.flatMap((_, rank) => dictionaryFields(texts(rank))));
      built.counts = [...counts];
      counted = true;
      return chooseDictionary(counts);
    },
    keptChunk(index) {
      if (saved === null || saved.dictionary !== built.dictionary || index >= saved.chunks.length) return undefined;
      const start = index * CHUNK_SIZE;
      if (!sameRanks(start, Math.min(start + CHUNK_SIZE, aligned?.savedAt?.length ?? 0), CHUNK_SIZE)) return undefined;
      keptChunks++;
      return { text: saved.chunks[index]!, joined: saved.joined[index]!, hash: saved.hashes[index]! };
    },
    hashes: {
      kept(start, end, perPiece) {
        const index = start / perPiece;
        if (saved?.hashPieces === undefined || saved.hashPerPiece !== perPiece || index >= saved.hashPieces.length || !sameRanks(start, end, perPiece)) return undefined;
        keptHashPieces++;
        return { text: saved.hashPieces[index]!, missing: saved.hashMissing![index]! };
      },
      made(pieces, perPiece) {
        built.hashPieces = pieces.map((piece) => piece.text);
        built.hashMissing = pieces.map((piece) => piece.missing);
        built.hashPerPiece = perPiece;
      },
    },
    openapi(make) {
      built.openapi = saved?.openapi ?? make();
      return built.openapi;
    },
    keptWidth: () => saved?.offsetWidth ?? 0,
    idOrder(records) {
      const savedAt = aligned?.records === records ? aligned.savedAt : null;
      if (saved === null || savedAt === null) return undefined;
      const rankNow = new Int32Array(saved.digests.length).fill(-1);
      const fresh: number[] = [];
      for (let rank = 0; rank < savedAt.length; rank++) {
        const at = savedAt[rank]!;
        if (at === -1) fresh.push(rank);
        else rankNow[at] = rank;
      }
      // The records kept, in the saved id order (a digest covers the id), merged with the new ones sorted by id.
      const kept = new Int32Array(saved.byId.length);
      let keptCount = 0;
      for (let i = 0; i < saved.byId.length; i++) {
        const rank = rankNow[saved.byId[i]!];
        if (rank !== undefined && rank !== -1) kept[keptCount++] = rank;
      }
      // A damaged memo (a rank twice or missing): sort them.
      if (keptCount + fresh.length !== records.length) return undefined;
      const idOf = (rank: number) => records[rank]!.id;
      fresh.sort((a, b) => (idOf(a) < idOf(b) ? -1 : 1));
      // Each new record's place found by a binary search: comparing it with every kept id reads every record.
      const ranks = new Array<number>(records.length);
      let made = 0;
      let from = 0;
      for (const rank of fresh) {
        const at = from + lowerBound(keptCount - from, (i) => idOf(kept[from + i]!) < idOf(rank));
        while (from < at) ranks[made++] = kept[from++]!;
        ranks[made++] = rank;
      }
      while (from < keptCount) ranks[made++] = kept[from++]!;
      return ranks;
    },
    madeIdOrder(ranks) {
      built.byId = ranks as number[];
    },
    madeChunks(chunks: readonly CompiledChunk[], offsetWidth: number) {
      built.chunks = chunks.map((chunk) => chunk.text);
      built.joined = chunks.map((chunk) => chunk.joined);
      built.hashes = chunks.map((chunk) => chunk.hash);
      built.offsetWidth = offsetWidth;
    },
  };
  return {
    encode(dictionary: string, records: readonly PepeRecord[], encodeOne: (rank: number) => string): (rank: number) => string {
      const savedAt = saved?.dictionary === dictionary ? align(records) : (align(records), null);
      let fresh = savedAt === null ? records.length : 0;
      for (let rank = 0; savedAt !== null && rank < savedAt.length; rank++) if (savedAt[rank] === -1) fresh++;
      run = { reused: records.length - fresh, encoded: fresh };
      built.dictionary = dictionary;
      // A record new or changed is never in a kept chunk: each is encoded once, when its chunk is made; a saved one is taken escaped, as its chunk holds it.
      return (rank) => {
        const at = savedAt === null ? -1 : savedAt[rank]!;
        return at === -1 ? escapeForSource(encodeOne(rank)) : savedEscaped(at);
      };
    },
    /** What `compileCatalogue` may take from the last build besides the encodings: the dictionary's counts, the chunks. */
    reuse,
    /** What `encode` did, or null before it ran. */
    run: (): RecordEncodingRun | null => run,
    /** Chunks taken whole from the last build. */
    keptChunks: (): number => keptChunks,
    /** Pieces of the phashes taken whole from the last build. */
    keptHashPieces: (): number => keptHashPieces,
    /** Saves what the compile made, unless it is what was saved. */
    async save(): Promise<void> {
      // Saved only whole: the counts and chunks of a compile that took them from this memo.
      if (run === null || !counted || built.chunks.length !== Math.ceil(built.digests.length / CHUNK_SIZE)) return;
      if (run.encoded === 0 && saved !== null && saved.digests.length === built.digests.length && saved.dictionary === built.dictionary && keptChunks === built.chunks.length && keptHashPieces === built.hashPieces?.length && saved.openapi === built.openapi && saved.sum === built.sum && saved.ids !== undefined) return;
      await ENCODED_RECORDS.save(cacheDir, built, saved);
    },
  };
}
