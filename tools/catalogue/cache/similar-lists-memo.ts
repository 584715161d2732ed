/**
 * The last build's similar lists (`similarLists` in functions/core/catalogue.ts), kept in the
 * build cache so that the next build compares only the records added, removed or given another
 * phash with the others (`updateSimilarLists`), instead of searching every pair again.
 *
 * `similar-lists.json` holds the build context (URLs and generator code, which covers the
 * cut-off and the limit), the ids and phashes in rank order, and the packed pieces of the
 * lists' offsets and entries (rank × 32 + distance) as the compile stored them: the lists are
 * read back from those (a 100k-item array of arrays is slow to parse and to diff), or saved
 * as arrays when no compile packed them. The output never depends on the memo: a list is only
 * ever taken for records whose phash is the one it was made from.
 */
import { similarLists, type SimilarListsOf, updateSimilarLists } from '../../../functions/core/catalogue.js';
import type { PepeRecord } from '../../../functions/core/record.js';
import type { SimilarPiecesReuse } from '../../../functions/core/similar.js';
import { numberAt } from '../../../functions/core/packed-numbers.js';
import { cacheMemo, matchedIndexes } from './memo.js';

interface SavedPieces {
  width: number;
  perPiece: number;
  texts: string[];
}

interface SavedLists extends SimilarListsOf {
  context: string;
  /** The packed pieces of the lists' offsets and entries (`storeSimilar`); absent when no compile packed them. */
  pieces?: { offsets?: SavedPieces; entries?: SavedPieces };
}

/** As saved: the lists themselves only when their pieces are not both there. */
type StoredLists = Omit<SavedLists, 'lists'> & { lists?: number[][] };

const isPieces = (value: unknown): boolean => {
  const pieces = value as SavedPieces | undefined;
  return pieces === undefined || (Number.isSafeInteger(pieces?.width) && Number.isSafeInteger(pieces.perPiece) && Array.isArray(pieces.texts) && pieces.texts.every((text) => typeof text === 'string'));
};

/** How the similar lists of a build were made: from the last build's, or searched whole. */
export type SimilarListsRun = 'updated' | 'searched';

const isEntries = (list: unknown, count: number): boolean => Array.isArray(list) && list.every((entry) => Number.isSafeInteger(entry) && entry >= 0 && entry < count * 32);

const isSaved = (value: unknown): value is StoredLists => {
  const saved = value as StoredLists | null;
  return (
    typeof saved?.context === 'string' &&
    Array.isArray(saved.ids) &&
    Array.isArray(saved.phashes) &&
    saved.ids.length === saved.phashes.length &&
    (saved.pieces === undefined || (typeof saved.pieces === 'object' && saved.pieces !== null && isPieces(saved.pieces.offsets) && isPieces(saved.pieces.entries))) &&
    (saved.lists === undefined ? packed(saved) !== null : Array.isArray(saved.lists) && saved.ids.length === saved.lists.length && saved.lists.every((list) => isEntries(list, saved.ids.length)))
  );
};

/** Both pieces of a memo that holds them, else null. */
const packed = (saved: StoredLists): { offsets: SavedPieces; entries: SavedPieces } | null => (saved.pieces?.offsets !== undefined && saved.pieces.entries !== undefined ? { offsets: saved.pieces.offsets, entries: saved.pieces.entries } : null);

/**
 * The lists of a memo, read back from its pieces as `similarReader` reads them, each a view of
 * one array of every entry (a list per record cost a change build more than its compile's
 * search); null when they do not hold one list a rank.
 */
function unpacked(saved: StoredLists): ArrayLike<number>[] | null {
  if (saved.lists !== undefined) return saved.lists;
  const { offsets, entries } = packed(saved)!;
  const count = saved.ids.length;
  // The first `length` numbers of pieced list `pieces` into `into`, each at most `limit`; false when the pieces do not hold them.
  const unpack = (pieces: SavedPieces, length: number, limit: number, into: Uint32Array | Float64Array): boolean => {
    for (let p = 0, index = 0; index < length; p++) {
      const text = pieces.texts[p];
      const here = Math.min(pieces.perPiece, length - index);
      if (text === undefined || here * pieces.width > text.length) return false;
      for (let at = 0; at < here; at++, index++) {
        const value = numberAt(text, pieces.width, at);
        if (value > limit) return false;
        into[index] = value;
      }
    }
    return true;
  };
  const ends = new Float64Array(count + 1);
  if (!unpack(offsets, count + 1, Number.MAX_SAFE_INTEGER, ends) || ends[0] !== 0) return null;
  for (let rank = 0; rank < count; rank++) if (ends[rank + 1]! < ends[rank]!) return null;
  if (ends[count]! > entries.texts.length * entries.perPiece) return null;
  const all = new Uint32Array(ends[count]!);
  if (!unpack(entries, all.length, count * 32 - 1, all)) return null;
  // Most records have no neighbour: they share one empty list.
  const none = all.subarray(0, 0);
  const lists = new Array<ArrayLike<number>>(count);
  for (let rank = 0; rank < count; rank++) lists[rank] = ends[rank + 1]! > ends[rank]! ? all.subarray(ends[rank]!, ends[rank + 1]!) : none;
  return lists;
}

const SIMILAR_LISTS = cacheMemo('similar-lists.json', isSaved, (saved) => saved.context, { deltas: true });

/** The saved lists, their pieces read back into lists; null when none, damaged or of other code. */
export async function readSimilarListsMemo(cacheDir: string, context: string): Promise<{ stored: StoredLists; lists: SavedLists } | null> {
  const stored = await SIMILAR_LISTS.load(cacheDir, context);
  const lists = stored === null ? null : unpacked(stored);
  return stored === null || lists === null ? null : { stored, lists: { ...stored, lists } };
}

const sameStrings = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((value, i) => value === b[i]);

/**
 * The similar-lists maker for one build (`compileCatalogue`'s `similarLists` option), reading
 * the saved lists first. `save()` keeps what it made for the next build.
 */
export async function memoizedSimilarLists(cacheDir: string, context: string, read = readSimilarListsMemo(cacheDir, context)) {
  // None yet, damaged or of other code (null): searched whole and saved again.
  const loaded = await read;
  const saved = loaded?.lists ?? null;
  let built: SavedLists | null = null;
  let run: SimilarListsRun | null = null;
  let piecesKept = true;
  const pieces: SimilarPiecesReuse = {
    sameUpTo() {
      if (saved === null || built === null) return 0;
      const most = Math.min(saved.lists.length, built.lists.length);
      let rank = 0;
      for (; rank < most; rank++) {
        const before = saved.lists[rank]!;
        const now = built.lists[rank]!;
        // The very list saved (updateSimilarLists keeps a list whose members kept their rank).
        if (before === now) continue;
        if (before.length !== now.length) break;
        let same = true;
        for (let i = 0; i < now.length && same; i++) same = before[i] === now[i];
        if (!same) break;
      }
      return rank;
    },
    kept(name, width, perPiece) {
      const kept = saved?.pieces?.[name];
      return kept?.width === width && kept.perPiece === perPiece ? kept.texts : undefined;
    },
    made(name, texts, width, perPiece, kept) {
      if (built === null) return;
      built.pieces = { ...built.pieces, [name]: { width, perPiece, texts: [...texts] } };
      if (kept < texts.length) piecesKept = false;
    },
  };
  return {
    /** What `compileCatalogue` may take from the last build's packed lists (its `similarPieces` option), once `make` ran. */
    pieces,
    make(records: readonly PepeRecord[], ids: readonly string[] = records.map((record) => record.id)): readonly ArrayLike<number>[] {
      const updated = saved === null ? null : updateSimilarLists(saved, records, matchedIndexes(saved.ids, ids));
      const lists = updated ?? similarLists(records);
      run = updated === null ? 'searched' : 'updated';
      built = { context, ids, phashes: records.map((record) => record.phash), lists };
      return lists;
    },
    /** What `make` did, or null before it ran. */
    run: (): SimilarListsRun | null => run,
    /** Saves the lists `make` made; written whole, then renamed into place. */
    async save(): Promise<void> {
      // Same ids and phashes in the same order: the same lists.
      if (built === null || (saved !== null && piecesKept && built.pieces !== undefined && sameStrings(saved.ids, built.ids) && sameStrings(saved.phashes, built.phashes))) return;
      const { lists, ...rest } = built;
      await SIMILAR_LISTS.save(cacheDir, packed(rest) === null ? { ...rest, lists: lists.map((list) => Array.from(list)) } : rest, loaded?.stored ?? null);
    },
  };
}
