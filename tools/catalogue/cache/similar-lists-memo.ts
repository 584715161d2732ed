/**
 * The last build's similar lists (`similarLists` in functions/core/catalogue.ts), kept in the
 * build cache so that the next build compares only the records added, removed or given another
 * phash with the others (`updateSimilarLists`), instead of searching every pair again.
 *
 * `similar-lists.json` holds the build context (URLs and generator code, which covers the
 * cut-off and the limit), the ids and phashes in rank order, and each rank's list as
 * rank × 32 + distance. The output never depends on the memo: a list is only ever taken for
 * records whose phash is the one it was made from.
 */
import { similarLists, type SimilarListsOf, updateSimilarLists } from '../../../functions/core/catalogue.js';
import type { PepeRecord } from '../../../functions/core/record.js';
import type { Neighbour, SimilarPiecesReuse } from '../../../functions/core/similar.js';
import { cacheMemo, matchedIndexes } from './memo.js';

interface SavedPieces {
  width: number;
  perPiece: number;
  texts: string[];
}

interface SavedLists extends SimilarListsOf {
  context: string;
  /** The packed pieces of the lists' offsets and entries (`storeSimilar`); absent in a memo saved before they were kept. */
  pieces?: { offsets?: SavedPieces; entries?: SavedPieces };
}

const isPieces = (value: unknown): boolean => {
  const pieces = value as SavedPieces | undefined;
  return pieces === undefined || (Number.isSafeInteger(pieces?.width) && Number.isSafeInteger(pieces.perPiece) && Array.isArray(pieces.texts) && pieces.texts.every((text) => typeof text === 'string'));
};

/** How the similar lists of a build were made: from the last build's, or searched whole. */
export type SimilarListsRun = 'updated' | 'searched';

const isSaved = (value: unknown): value is SavedLists => {
  const saved = value as SavedLists | null;
  return (
    typeof saved?.context === 'string' &&
    Array.isArray(saved.ids) &&
    Array.isArray(saved.phashes) &&
    Array.isArray(saved.lists) &&
    saved.ids.length === saved.phashes.length &&
    saved.ids.length === saved.lists.length &&
    saved.lists.every((list) => Array.isArray(list) && list.every((entry) => Number.isSafeInteger(entry) && entry >= 0 && entry < saved.ids.length * 32)) &&
    (saved.pieces === undefined || (typeof saved.pieces === 'object' && saved.pieces !== null && isPieces(saved.pieces.offsets) && isPieces(saved.pieces.entries)))
  );
};

const SIMILAR_LISTS = cacheMemo('similar-lists.json', isSaved, (saved) => saved.context, { deltas: true });

const sameStrings = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((value, i) => value === b[i]);

/**
 * The similar-lists maker for one build (`compileCatalogue`'s `similarLists` option), reading
 * the saved lists first. `save()` keeps what it made for the next build.
 */
export async function memoizedSimilarLists(cacheDir: string, context: string) {
  // None yet, damaged or of other code (null): searched whole and saved again.
  const saved = await SIMILAR_LISTS.load(cacheDir, context);
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
    make(records: readonly PepeRecord[]): Neighbour[][] {
      const ids = records.map((record) => record.id);
      const updated = saved === null ? null : updateSimilarLists(saved, records, matchedIndexes(saved.ids, ids));
      const lists = updated ?? similarLists(records);
      run = updated === null ? 'searched' : 'updated';
      // Most records have no neighbour: they share one empty list.
      const none: number[] = [];
      built = { context, ids, phashes: records.map((record) => record.phash), lists: lists.map((list) => (list.length === 0 ? none : list.map(({ rank, distance }) => rank * 32 + distance))) };
      return lists;
    },
    /** What `make` did, or null before it ran. */
    run: (): SimilarListsRun | null => run,
    /** Saves the lists `make` made; written whole, then renamed into place. */
    async save(): Promise<void> {
      // Same ids and phashes in the same order: the same lists.
      if (built === null || (saved !== null && piecesKept && built.pieces !== undefined && sameStrings(saved.ids, built.ids) && sameStrings(saved.phashes, built.phashes))) return;
      await SIMILAR_LISTS.save(cacheDir, built, saved);
    },
  };
}
