/**
 * What the last build left for this one: `last-build.json` (what it wrote into which output,
 * from what), `records.bin`, and the memos of its answers, search index and record encodings.
 * Opened once before the scan, reading last-build.json alone (the no-change path reads nothing
 * else); each memo is read on first use, at most once; all are saved once, after the commit.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { PepeRecord } from '../../../functions/core/record.js';
import { loadManifest, type Manifest, MANIFEST_FILE, readManifestSync, UnusableManifestError } from '../../shared/manifest.js';
import type { Problem } from '../../shared/problems.js';
import { forgetReadsAhead, readAhead, readAheadDone, reserveFileBytes } from '../../shared/read-regular-file.js';
import type { ChangeHint } from '../scan-content.js';
import { ANSWER_DIGESTS, type AnswerDigests, type RecordChanges } from './answer-digests.js';
import { cacheMemo, forgetParsedAhead, hasMembers, type LineUp, parseMemosAhead } from './memo.js';
import { memoizedRecordEncoding, readRecordEncodingMemo } from './record-encoding-memo.js';
import { memoizedSearchIndex, readSearchIndexMemo } from './search-index-memo.js';
import { memoizedSimilarLists, readSimilarListsMemo } from './similar-lists-memo.js';
import { loadPairs, loadRecords, type PairsDelta, type PairsList, pairsFile, recordsFile, type SavedRecords, savePairs, saveRecords } from './unchanged-content.js';
import type { PreviousBuild } from '../analyse-content.js';

interface LastBuildJson {
  outDir: string;
  fingerprint: string;
  /** The manifest version that build produced. */
  version: string;
  /** Its number of files, and the stat of the manifest.json it left (proves the output still holds it). */
  files?: number;
  manifestStat?: FileStatKey | null;
  /** The content listing's stat fingerprint (unchanged-content.ts), and what that build reported. */
  unchanged?: UnchangedContent;
  /** The stat of the records file that build left in the cache folder, and the bytes of its full list (unchanged-content.ts). */
  recordsStat?: FileStatKey | null;
  recordsBase?: number;
  /** The same for the pairs file (unchanged-content.ts), and the hash of the settings its rows were made under. */
  pairsStat?: FileStatKey | null;
  pairsBase?: number;
  pairsSettings?: string;
  /** The sum of the pairs' digests (build-extras.ts `buildInputs`). */
  pairsSum?: string;
  /** When a scan's change hint last proved false (a folder touched, nothing changed): later hints count only changes past it (ms). */
  quietSince?: number;
}

/** What a rebuild of unchanged content reports without analysing anything. */
export interface UnchangedContent {
  statFingerprint: string;
  problems: Problem[];
  images: number;
  records: number;
}

interface FileStatKey {
  size: number;
  mtimeMs: number;
  ino: number;
}

function statKey(path: string): FileStatKey | null {
  const info = statSync(path, { throwIfNoEntry: false });
  return info ? { size: info.size, mtimeMs: info.mtimeMs, ino: info.ino } : null;
}

/** The cache files a change build reads whole besides pairs.bin: read ahead with it into buffers it keeps, or (the compile's memos, decoded at once) into the page cache once it is parsed. */
const READ_WITH_PAIRS = [ANSWER_DIGESTS.file, 'renditions.bin'];
const COMPILE_MEMOS = ['search-index.json', 'encoded-records.json', 'similar-lists.json'];
/** Records from which the scan lists in a worker thread: at 10k its start costs a no-change build about what it saves a change build. */
const LISTING_WORKER_FROM = 20_000;

const sameStatKey = (a: FileStatKey | null | undefined, b: FileStatKey | null): boolean => !!a && !!b && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;

/** Keyed by the output folder: another folder's last build says nothing about this one. */
const LAST_BUILD = cacheMemo<LastBuildJson>('last-build.json', hasMembers({ outDir: 'string', fingerprint: 'string', version: 'string' }), (saved) => saved.outDir);

/** What the build saves for the next one once its output is committed. */
export interface BuildMade {
  fingerprint: string;
  context: string;
  /** The records changed and removed since the last build (null: not known, the records file is written whole). */
  changes: RecordChanges | null;
  /** Path → digest of the inputs of each document made of several records (plan-answers.ts). */
  documents: ReadonlyMap<string, string>;
  /** The manifest the commit left. */
  manifest: Manifest;
  /** What else this build made for the next one (the generated files), saved with the rest. */
  memos: readonly Memo[];
  /** Its records, and what it reports when its content listing (by stat) is seen again: null when the listing had problems. */
  records: PepeRecord[];
  unchanged: UnchangedContent | null;
  /** Its pairs, for the next change build: null when it has none to leave (its listing had problems). */
  pairs: PairsMade | null;
}

/** What a build leaves in the pairs file (unchanged-content.ts). */
export interface PairsMade {
  /** A hash of the settings the rows were made under: another build's rows say nothing about this one's. */
  settings: string;
  /** Every row in scan order, with its record (made only when the file is written whole). */
  list: () => PairsList;
  /** What changed since the file the last build left, when this build started from it. */
  delta: PairsDelta | null;
  /** The sum of the rows' digests. */
  digestSum: string;
}

/** The compile's memos as read from their files (null: none for the context). */
interface CompileMemosRead {
  searchIndex: ReturnType<typeof readSearchIndexMemo>;
  recordEncoding: ReturnType<typeof readRecordEncodingMemo>;
  similar: ReturnType<typeof readSimilarListsMemo>;
}

/** A cache file this build made, saved on request. */
interface Memo {
  save(): Promise<void>;
}

export class LastBuild {
  /** The output's manifest.json when it is there but not a build's (damaged, edited, a pipe). */
  unusableManifest: UnusableManifestError | null = null;
  private previous: Promise<Manifest | null> | undefined;
  private parsed: Manifest | null | undefined;
  private answers: Promise<AnswerDigests | null> | undefined;
  /** Whether the scan's change hint started reads ahead, and the memos' among them. */
  private hinted = false;
  private memosAhead = false;
  /** `previousBuild`'s answer, once parsed (the change hint may parse it during the scan). */
  private pairsParsed: { settings: string; previous: PreviousBuild | null } | undefined;
  /** When this build's scan started (`changeHint`): every change before it is in its listing. */
  private listedAt: number | undefined;
  /** The compile's memos as read for a context (`compileMemos`), once. */
  private memosRead: { context: string; read: CompileMemosRead } | undefined;
  /** The saving of the compile's memos: a failure is held for `save`. */
  private memosSaved: Promise<{ failure: unknown } | null> = Promise.resolve(null);

  private constructor(
    readonly cacheDir: string,
    readonly outDir: string,
    private readonly json: LastBuildJson | null,
    /** The output still holds the manifest.json the last build left (same stat): it need not be parsed to be trusted. */
    readonly outputIntact: boolean,
  ) {}

  static async open(cacheDir: string, outDir: string): Promise<LastBuild> {
    const json = await LAST_BUILD.load(cacheDir, outDir);
    return new LastBuild(cacheDir, outDir, json, json !== null && sameStatKey(json.manifestStat, statKey(join(outDir, MANIFEST_FILE))));
  }

  /**
   * For the scan: once it meets a file or folder changed since the last build wrote its
   * output, the files a change build reads are read ahead on libuv's threads while it scans
   * on. A build that finds nothing changed never starts them (a no-change build reads none).
   * A large catalogue is listed in a worker thread, and this thread parses the last build's
   * pairs meanwhile (`previousBuild` under `settings`), then the compile's memos, then runs
   * `meanwhile`: more of what a change build reads whatever changed, while the scan goes on.
   */
  changeHint(settings: string, workerFrom = LISTING_WORKER_FROM, meanwhile?: () => void): ChangeHint | undefined {
    const written = this.outputIntact ? this.json!.manifestStat?.mtimeMs : undefined;
    if (written === undefined) return undefined;
    this.listedAt = Date.now();
    const files = [...READ_WITH_PAIRS.map((name) => join(this.cacheDir, name)), join(this.outDir, MANIFEST_FILE)];
    const inWorker = (this.json!.unchanged?.records ?? 0) >= workerFrom;
    const onChange = () => {
      this.hinted = true;
      readAhead(files);
      if (!inWorker) readAhead([pairsFile(this.cacheDir)], 'page cache');
      else {
        // The pairs are parsed at once (a read ahead would only delay it), the memos read ahead meanwhile.
        this.readMemosAhead();
        // A failure here shows again when the build asks for the same.
        this.changeBase(settings)
          .then(() => {
            parseMemosAhead(COMPILE_MEMOS.map((name) => join(this.cacheDir, name)));
            void this.answerDigests().catch(() => undefined);
            void this.previousManifest().catch(() => undefined);
            meanwhile?.();
          })
          .catch(() => undefined);
      }
    };
    return { since: Math.max(written, this.json!.quietSince ?? 0), onChange, inWorker };
  }

  /**
   * After a scan whose hint proved false (a folder's ctime moved, e.g. a hidden file made and
   * deleted in it, yet the listing is the last build's): the reads ahead are dropped, and the
   * next scans hint only for changes past now, so a no-change build does not read ahead again.
   */
  async unchangedAfterHint(): Promise<void> {
    if (!this.hinted) return;
    forgetReadsAhead();
    forgetParsedAhead();
    // Only a hint: a cache folder that cannot be written now leaves the next build reading ahead again.
    await LAST_BUILD.save(this.cacheDir, { ...this.json!, quietSince: Date.now() }).catch(() => undefined);
  }

  /**
   * What a change build starts from (`previousBuild` under `settings`), once the read ahead of
   * pairs.bin (if any) is done, so that it is read from memory; then the compile's memos are read ahead
   * while the analysis goes on, if the scan hinted at a change (once).
   */
  async changeBase(settings: string): Promise<PreviousBuild | null> {
    await readAheadDone(pairsFile(this.cacheDir));
    const previous = this.previousBuild(settings);
    this.readMemosAhead();
    return previous;
  }

  private readMemosAhead(): void {
    if (!this.hinted || this.memosAhead) return;
    this.memosAhead = true;
    readAhead(COMPILE_MEMOS.map((name) => join(this.cacheDir, name)), 'page cache');
  }

  /** What the last build reported, when its output stands and the content listing and settings (`statFingerprint`) are as then. */
  unchanged(statFingerprint: string | null): UnchangedContent | null {
    const unchanged = this.json?.unchanged;
    const stands = this.outputIntact && statFingerprint !== null && unchanged?.statFingerprint === statFingerprint && sameStatKey(this.json!.recordsStat, statKey(recordsFile(this.cacheDir)));
    return stands ? unchanged! : null;
  }

  /** Whether the output stands and was made from the same inputs (`fingerprint`: records, image bytes, URLs, code). */
  madeFrom(fingerprint: string): boolean {
    return this.outputIntact && this.json!.fingerprint === fingerprint;
  }

  /** The number of files in the last build's output. */
  get files(): number {
    return this.json?.files ?? 0;
  }

  /**
   * What a change build starts from: the last build's pairs with their records, and its
   * problems, when its output stands and they were made under these `settings`; null otherwise
   * (or when the file is torn or foreign: then the build analyses everything).
   */
  private previousBuild(settings: string): PreviousBuild | null {
    if (this.pairsParsed?.settings !== settings) this.pairsParsed = { settings, previous: this.parsePrevious(settings) };
    return this.pairsParsed.previous;
  }

  private parsePrevious(settings: string): PreviousBuild | null {
    const json = this.json;
    if (!this.outputIntact || json?.unchanged === undefined || json.pairsSettings !== settings || !this.pairsStand()) return null;
    // Its frames and then the compile's memos are read through one buffer: made once, of the largest memo.
    reserveFileBytes(Math.max(0, ...COMPILE_MEMOS.map((name) => statSync(join(this.cacheDir, name), { throwIfNoEntry: false })?.size ?? 0)));
    const rows = loadPairs(this.cacheDir);
    if (rows === null) return null;
    return { rows, problems: json.unchanged.problems, statFingerprint: json.unchanged.statFingerprint, digestSum: json.pairsSum };
  }

  private pairsStand(): boolean {
    return this.json?.pairsBase !== undefined && sameStatKey(this.json.pairsStat, statKey(pairsFile(this.cacheDir)));
  }

  /** Saves the pairs (a delta when this build started from the file the last build left); the fields last-build.json keeps of them. */
  private savePairs(pairs: PairsMade | null): Pick<LastBuildJson, 'pairsStat' | 'pairsBase' | 'pairsSettings' | 'pairsSum'> {
    if (pairs === null) return {};
    const saved = pairs.delta !== null && this.pairsStand() ? { baseBytes: this.json!.pairsBase!, fileBytes: this.json!.pairsStat!.size } : null;
    const pairsBase = savePairs(this.cacheDir, pairs.list, pairs.delta, saved);
    return { pairsStat: statKey(pairsFile(this.cacheDir)), pairsBase, pairsSettings: pairs.settings, pairsSum: pairs.digestSum };
  }

  /** The records of the last build (read on demand: a maintainer's `pepe build` never needs them). */
  records(): PepeRecord[] {
    return loadRecords(this.cacheDir);
  }

  /** The output's manifest, parsed once; null when there is none or it is unusable (`unusableManifest` says why). */
  previousManifest(): Promise<Manifest | null> {
    // Parsed without its checks when its stat is still the one the last build recorded.
    const trusted = () => this.outputIntact && sameStatKey(this.json!.manifestStat, statKey(join(this.outDir, MANIFEST_FILE)));
    return (this.previous ??= loadManifest(this.outDir, { writtenByLastBuild: trusted }).then(
      (manifest) => (this.parsed = manifest),
      (failure: unknown) => {
        if (!(failure instanceof UnusableManifestError)) throw failure;
        this.unusableManifest = failure;
        return (this.parsed = null);
      },
    ));
  }

  /** The output's manifest as parsed, or a reader of it for a result that may never be asked for it. */
  outputManifest(): Manifest | (() => Manifest | null) {
    return this.parsed ?? (() => readManifestSync(this.outDir));
  }

  /** The answer digests the last build saved, read once. */
  answerDigests(): Promise<AnswerDigests | null> {
    return (this.answers ??= ANSWER_DIGESTS.load(this.cacheDir));
  }

  /** The search index, record encoding and similar lists memos saved for `context`, each read from its file once (the scan's `meanwhile` may read them first). */
  readCompileMemos(context: string): CompileMemosRead {
    if (this.memosRead?.context !== context) {
      const { cacheDir } = this;
      const read = { searchIndex: readSearchIndexMemo(cacheDir, context), recordEncoding: readRecordEncodingMemo(cacheDir, context), similar: readSimilarListsMemo(cacheDir, context) };
      this.memosRead = { context, read };
    }
    return this.memosRead.read;
  }

  /** The search index, record encoding and similar lists makers for this build's `context`, from the memos saved for it. */
  async compileMemos(context: string, recordDigests: ReadonlyMap<string, string>, lineUp?: LineUp) {
    const read = this.readCompileMemos(context);
    const [searchIndex, recordEncoding, similar] = await Promise.all([memoizedSearchIndex(this.cacheDir, context, recordDigests, lineUp, read.searchIndex), memoizedRecordEncoding(this.cacheDir, context, recordDigests, lineUp, read.recordEncoding), memoizedSimilarLists(this.cacheDir, context, read.similar)]);
    return { searchIndex, recordEncoding, similar };
  }

  /**
   * Records that this content gave the last build's output: from now on its listing alone can
   * prove it, and the next scans hint only for changes past this one's start (the output keeps
   * its older manifest). The records file is written only when the last build did not leave it.
   */
  async keepUnchanged(records: PepeRecord[], unchanged: UnchangedContent, pairs: PairsMade | null): Promise<void> {
    const recordsBase = this.recordsStand() ? this.json!.recordsBase! : saveRecords(this.cacheDir, records, null);
    const quietSince = this.listedAt ?? this.json!.quietSince;
    await LAST_BUILD.save(this.cacheDir, { ...this.json!, unchanged, recordsStat: statKey(recordsFile(this.cacheDir)), recordsBase, ...this.savePairs(pairs), quietSince });
  }

  /** Whether the records file is the one the last build left (so it holds that build's records). */
  private recordsStand(): boolean {
    return this.json?.recordsBase !== undefined && sameStatKey(this.json.recordsStat, statKey(recordsFile(this.cacheDir)));
  }

  /** The records file the last build left, with what changed since: what a delta goes behind; null when there is none to trust. */
  private savedRecords(changes: RecordChanges | null): SavedRecords | null {
    // The changes are told against the records of the last build, which made the output and left the file.
    if (changes === null || !this.outputIntact || !this.recordsStand()) return null;
    return { changes, baseBytes: this.json!.recordsBase!, fileBytes: this.json!.recordsStat!.size };
  }

  /**
   * Runs `write` while the compile's memos are saved: each is only ever used for the very
   * inputs it was made from, so it holds whether or not the output is then written, and the
   * thread is idle while the write waits for esbuild. None is left writing once `write` settles.
   */
  async savingMemos<T>(memos: readonly Memo[], write: () => Promise<T>): Promise<T> {
    this.memosSaved = Promise.all(memos.map((memo) => memo.save())).then(
      () => null,
      (failure: unknown) => ({ failure }),
    );
    try {
      return await write();
    } finally {
      await this.memosSaved;
    }
  }

  /** Saves what this build made, after its commit: last-build.json last, since it vouches for the output. */
  async save(made: BuildMade): Promise<void> {
    const held = await this.memosSaved;
    if (held !== null) throw held.failure;
    await Promise.all(made.memos.map((memo) => memo.save()));
    const { version } = made.manifest;
    const recordsBase = saveRecords(this.cacheDir, made.records, this.savedRecords(made.changes));
    await ANSWER_DIGESTS.save(this.cacheDir, { outDir: this.outDir, version, context: made.context, documents: Object.fromEntries(made.documents) });
    const manifestStat = statKey(join(this.outDir, MANIFEST_FILE));
    const recordsStat = statKey(recordsFile(this.cacheDir));
    const unchanged = made.unchanged ?? undefined;
    const pairs = this.savePairs(made.pairs);
    await LAST_BUILD.save(this.cacheDir, { outDir: this.outDir, fingerprint: made.fingerprint, version, files: made.manifest.counts.files, manifestStat, unchanged, recordsStat, recordsBase, ...pairs });
  }
}
