/**
 * The last build's encoded records (record-codec.ts), kept in the build cache so that the next
 * build encodes only the records that are new or changed. A record's encoded form depends on
 * the record and the text dictionary alone, and the dictionary lists its pieces in text
 * order (text-dictionary.ts), so adding an image mostly leaves it as it was: then every
 * other record's encoding is the saved one. When the dictionary differs, everything is
 * encoded again; the output never depends on the memo.
 *
 * `encoded-records.json` holds the build context (URLs and generator code, which covers the
 * codec), the dictionary text, and each record's digest (the sha256 of its JSON,
 * build-extras.ts `buildInputs`, which covers every field) with its encoded form.
 */
import type { PepeRecord } from '../../../functions/core/record.js';
import { cacheMemo, matchedIndexes } from './memo.js';

interface SavedEncodings {
  context: string;
  dictionary: string;
  /** Record digests, parallel to `encoded`. */
  digests: string[];
  encoded: string[];
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
    Array.isArray(saved.encoded) &&
    saved.digests.length === saved.encoded.length
  );
};

const ENCODED_RECORDS = cacheMemo('encoded-records.json', isSaved, (saved) => saved.context, { deltas: true });

/**
 * The record encoder for one build (`compileCatalogue`'s `encodeRecords` option), reading the
 * saved encodings first. `digests`: record id → digest of the record, for every record of the
 * build (build-extras.ts `buildInputs`). `save()` keeps what was encoded for the next build.
 */
export async function memoizedRecordEncoding(cacheDir: string, context: string, digests: ReadonlyMap<string, string>) {
  const saved = await ENCODED_RECORDS.load(cacheDir, context);
  let built: SavedEncodings | null = null;
  let run: RecordEncodingRun | null = null;
  return {
    encode(dictionary: string, records: readonly PepeRecord[], encodeOne: (rank: number) => string): string[] {
      const recordDigests = records.map((record) => {
        const digest = digests.get(record.id);
        if (digest === undefined) throw new Error(`memoizedRecordEncoding: no digest for record ${record.id}`);
        return digest;
      });
      const savedAt = saved !== null && saved.dictionary === dictionary ? matchedIndexes(saved.digests, recordDigests) : null;
      const encoded = new Array<string>(records.length);
      let fresh = 0;
      for (let rank = 0; rank < records.length; rank++) {
        const at = savedAt === null ? -1 : savedAt[rank]!;
        if (at !== -1) encoded[rank] = saved!.encoded[at]!;
        else {
          encoded[rank] = encodeOne(rank);
          fresh++;
        }
      }
      run = { reused: records.length - fresh, encoded: fresh };
      built = { context, dictionary, digests: recordDigests, encoded };
      return encoded;
    },
    /** What `encode` did, or null before it ran. */
    run: (): RecordEncodingRun | null => run,
    /** Saves the encodings `encode` made, unless they are the saved ones. */
    async save(): Promise<void> {
      if (built === null || (run?.encoded === 0 && saved !== null && saved.digests.length === built.digests.length && saved.dictionary === built.dictionary)) return;
      await ENCODED_RECORDS.save(cacheDir, built, saved);
    },
  };
}
