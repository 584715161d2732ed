/**
 * `pepe build` as a library function: content folder → output folder (layout in tools/catalogue/README.md).
 * Validates and analyses everything first; writes only when there is no error, and then
 * all-or-nothing (see write-output.ts). Returns a result; never prints.
 */
import { readdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type ContentPair, type ContentScan, isAtOrBelow, listContent, folderProblem } from './scan-content.js';
import { catalogueDataPaths, catalogueModuleSource, compileCatalogue } from '../../functions/core/catalogue.js';
import { type PepeRecord, type SiteUrls } from '../../functions/core/record.js';
import { type AnalyseContentOptions, type AnalysedItem, type AnalyseStats, analyseContent, type ContentAnalysis, type PreviousBuild, dateProblems, defaultCacheDir, effectiveLimits, LostFeatures, recordsInOrder, sortProblems, type TakeOver, takeOverFrom } from './analyse-content.js';
import { type InOutput, openRenditions, type RenditionEntry, renditionFileName, renditionFiles, renditionFolder, type RenditionRun, type RenditionsRun, thumbnailsOf } from './renditions.js';
import type { RenditionSettings } from '../image/renditions.js';
import { createManifest, manifestEntry, type Manifest, readManifestSync, sha256Of, UnusableManifestError } from '../shared/manifest.js';
import { nearDuplicateProblems, readDupesMemo, type DupesMemo } from './near-duplicate-problems.js';
import { error, type Problem, warning } from '../shared/problems.js';
import { diskFullProblem, isDiskFull } from './disk-full.js';
import { type Recovery, recoverOutput } from './commit-output.js';
import { type ChunkShapes, planAnswers, planImages } from './plan-answers.js';
import { byteLength, piecesFile, type PlannedFile, writeOutput } from './write-output.js';
import { previousAnswers, recordChanges, type RecordChanges, vouchesFor } from './cache/answer-digests.js';
import { type BuildInputs, buildContext, buildInputs, type GeneratedExtras, generateExtras, loadBundlerIfNeeded } from './build-extras.js';
import { LastBuild, type PairsMade, type UnchangedContent } from './cache/last-build.js';
import { PAIR_STATS, pairRow, pairStats } from './cache/stat-keyed-map.js';
import { FEATURE_VERSION } from '../image/analyse-image.js';
import { writeAccessProblem } from './write-access.js';
import { changedImageWarnings } from './changed-images.js';
import { listingFingerprint } from './cache/unchanged-content.js';
import { cachePlacementProblem } from './cache/cache-placement.js';
import { cacheFileProblems } from './cache/cache-files.js';
import type { RecordEncodingRun } from './cache/record-encoding-memo.js';
import type { SearchIndexRun } from './cache/search-index-memo.js';
import { DATASET_SHARD_SHAPE } from './dataset-shards.js';

export interface BuildOptions extends Omit<AnalyseContentOptions, 'writeCache' | 'onDecoded'> {
  outDir: string;
  urls: SiteUrls;
  /** Rendition widths and encoder settings (default RENDITION_SETTINGS; `widths: []` makes none: the build bench's baseline). */
  renditions?: RenditionSettings;
  /** How the static listing and the sitemaps are cut (plan-answers.ts); tests make them small. */
  chunks?: ChunkShapes;
  /** Records from which a change build lists the content in a worker thread (default LISTING_WORKER_FROM); tests make it 0. */
  listInWorkerFrom?: number;
}

export interface BuildStats extends AnalyseStats {
  records: number;
  warnings: number;
  errors: number;
  /** Output files written (new or changed bytes); 0 for a build that changed nothing. */
  written: number;
  /** Output files of the previous build left in place untouched (unchanged bytes). */
  kept: number;
  removed: number;
  timings: AnalyseStats['timings'] & { dupesMs: number; renditionsMs: number; compileMs: number; writeMs: number; generateMs: number };
  /** What the renditions stage did (renditions.ts): null when the build did not reach it. */
  renditions: RenditionRun | null;
  seconds: number;
  /**
   * Which no-change path the build took: 'listing' (every content file's stat, the settings
   * and the code as at the last build: nothing read, unchanged-content.ts), 'records' (the
   * content was analysed and gave the last build's records and image hashes), or null.
   */
  shortcut: 'listing' | 'records' | null;
  /** How the search index was made (search-index-memo.ts): null when the build compiled nothing. */
  searchIndex: SearchIndexRun | null;
  /** How many records were encoded, and how many taken from the last build (record-encoding-memo.ts): null when the build compiled nothing. */
  recordEncoding: RecordEncodingRun | null;
  /** Whether the function bundle and the gallery came from the build cache (build-extras.ts): null when the build wrote no output. */
  generated: GeneratedExtras['reused'] | null;
}

export interface BuildResult {
  ok: boolean;
  problems: Problem[];
  records: PepeRecord[];
  manifest: Manifest | null;
  /** false when the output folder was left exactly as it was. */
  changed: boolean;
  stats: BuildStats;
  /** Set when `beforeDecoding` declined: the images that wait to be decoded (nothing written). */
  declined?: number;
}

/**
 * The stats of a build that decoded, compiled and wrote nothing (refused, or the last build's
 * result taken whole): every count and timing 0 but those given.
 */
function idleStats(seconds: number, given: Partial<Omit<BuildStats, 'timings' | 'seconds'>> & { timings?: Partial<BuildStats['timings']> }): BuildStats {
  const timings = { cacheLoadMs: 0, scanMs: 0, decodeMs: 0, pixelsMs: 0, blurhashMs: 0, readHashMs: 0, totalMs: 0, cpuMs: 0, dupesMs: 0, renditionsMs: 0, compileMs: 0, writeMs: 0, generateMs: 0, ...given.timings };
  const none = { images: 0, cacheHits: 0, decoded: 0, hashed: 0, changed: null, records: 0, warnings: 0, errors: 0, written: 0, kept: 0, removed: 0, shortcut: null, searchIndex: null, recordEncoding: null, renditions: null, generated: null };
  return { ...none, ...given, timings, seconds };
}

/** A build refused before any work (a folder argument that names a file): nothing read or written. */
function refusedBuild(problems: Problem[], started: number): BuildResult {
  const stats = idleStats((performance.now() - started) / 1000, { errors: problems.length });
  return { ok: false, problems, records: [], manifest: null, changed: false, stats };
}

/** Which folder the build is writing, to name the right one when the disk is full. */
interface Writing {
  folder: 'output' | 'cache';
}

export async function buildCatalogue(options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const writing: Writing = { folder: 'cache' };
  const outDir = resolve(options.outDir);
  const cacheDir = options.cacheDir ?? defaultCacheDir(resolve(options.contentDir));
  try {
    return await buildInto({ ...options, outDir, cacheDir }, started, writing);
  } catch (failure) {
    // The last build's manifest is read a segment at a time: one damaged since is found midway, before the commit.
    if (failure instanceof UnusableManifestError) return refusedBuild([error('bad-out-dir', `${failure.message}: the output folder "${outDir}" was changed since the last build; empty it to build it again whole`)], started);
    if (!isDiskFull(failure)) throw failure;
    // Before the commit point (after it only the cache is written, and that is only warned about): the output is as it was.
    const problem = writing.folder === 'output' ? diskFullProblem(failure, 'the output folder', outDir, '--out') : diskFullProblem(failure, 'the cache folder', cacheDir, '--cache');
    return refusedBuild([problem], started);
  }
}

/** The build, with `outDir` resolved and `cacheDir` given (buildCatalogue names them when the disk is full). */
async function buildInto(options: BuildOptions & { cacheDir: string }, started: number, writing: Writing): Promise<BuildResult> {
  const contentDir = resolve(options.contentDir);
  const { outDir, cacheDir } = options;
  const misplaced = folderProblems(contentDir, outDir, cacheDir);
  if (misplaced.length > 0) return refusedBuild(misplaced, started);
  // A build interrupted while applying its changes is rolled back (or completed) before anything reads the output.
  const recovery = recoverOutput(outDir);
  const last = await LastBuild.open(cacheDir, outDir);

  const context = buildContext(options.urls, options.chunks);
  const limits = effectiveLimits(options.limits);
  const settings = { contentDir, context, featureVersion: FEATURE_VERSION, limits, renditions: options.renditions ?? null };
  const settingsKey = sha256Of(JSON.stringify(settings));
  const scanStart = performance.now();
  // Read once, by the near-duplicate search or, in a change build, while the scan goes on.
  let dupesMemo: DupesMemo | undefined;
  const readDupes = () => (dupesMemo ??= readDupesMemo(cacheDir));
  const meanwhile = () => {
    void Promise.all(Object.values(last.readCompileMemos(context))).catch(() => undefined);
    void readDupes().keys().catch(() => undefined);
  };
  // A change build takes over the last build's pairs as the worker lstats them, on this thread, idle by then (analyse-content.ts `TakeOver`).
  let takeOver: TakeOver | undefined;
  let listing = true;
  const onPaired = (scan: ContentScan, filled: (pair: number) => boolean) => {
    const takeOverWhileListed = async () => {
      const previous = await last.changeBase(settingsKey);
      if (previous === null || !listing || scan.problems.length > 0 || scan.loneSidecars.length > 0) return;
      const early = (takeOver = takeOverFrom(scan, previous, cacheDir));
      while (listing && !early.advance(filled)) await new Promise((done) => setTimeout(done, 5));
    };
    // A failure here shows again when the build reads the same.
    takeOverWhileListed().catch(() => undefined);
  };
  const hint = recovery.state === 'busy' ? undefined : last.changeHint(settingsKey, options.listInWorkerFrom, meanwhile);
  const listed = await listContent(contentDir, hint && { ...hint, onPaired });
  listing = false;
  const listingKey = 'pair' in listed ? listingFingerprint(settings, listed.digest) : null;
  const unchanged = recovery.state === 'busy' ? null : last.unchanged(listingKey);
  if (unchanged !== null) {
    await last.unchangedAfterHint();
    const listMs = performance.now() - scanStart;
    return lastBuildResult(last, unchanged, { scanMs: listMs, totalMs: listMs }, started);
  }
  const scan = 'pair' in listed ? await listed.pair() : listed;
  const scanMs = performance.now() - scanStart;
  // What the next build finds unchanged: a listing without problems.
  const statFingerprint = scan.problems.length > 0 ? null : listingKey;
  // Only now: the no-change path reads no cache file but last-build.json and records.bin.
  const cacheFiles = cacheFileProblems(cacheDir);
  const unusableCache = cacheFiles.filter((problem) => problem.severity === 'error');
  if (unusableCache.length > 0) return refusedBuild(unusableCache, started);

  // Each image the analysis decodes hands its pixels to its renditions (renditions.ts): no second decode.
  const renditions = await openRenditions({ cacheDir, limits, concurrency: options.concurrency, settings: options.renditions });
  // A change build reads only the pairs whose stat changed since the last build (analyse-content.ts).
  const previous = recovery.state === 'busy' ? undefined : ((await last.changeBase(settingsKey)) ?? undefined);
  const analyse = (from: typeof previous) => analyseContent({ ...options, contentDir, cacheDir, writeCache: true, scan, onDecoded: renditions.fromDecoded, previous: from, takeOver });
  let analysis = await analyse(previous);
  if (analysis.declined !== undefined) return { ...refusedBuild([], started), declined: analysis.declined };
  const dupesStart = performance.now();
  // A change build compares only what changed, when the memo was made for the last build's items.
  const change = () => (analysis.changes && previous ? { ...analysis.changes, from: previous.statFingerprint } : undefined);
  const findDupes = () => nearDuplicateProblems(analysis.items, 'warning', { dir: cacheDir, write: true, fingerprint: statFingerprint, change: change(), memo: readDupes() });
  let dupes: Problem[];
  try {
    dupes = await findDupes();
  } catch (failure) {
    // The build cache lost a thumbnail the near-duplicate search needs: analyse every pair, as with no last build.
    if (!(failure instanceof LostFeatures) || previous === undefined) throw failure;
    analysis = await analyse(undefined);
    if (analysis.declined !== undefined) return { ...refusedBuild([], started), declined: analysis.declined };
    dupes = await findDupes();
  }
  // A change build keeps the last build's date problems of the records it did not read.
  const problems = sortProblems([...cacheFiles, ...analysis.problems, ...dateProblems(analysis.changes?.items ?? analysis.items, 'warning'), ...(await outDirProblems(contentDir, recovery, last)), ...dupes]);
  const stats = analysedStats(analysis, problems, { scanMs, dupesMs: performance.now() - dupesStart });
  const records = recordsInOrder(analysis.items);
  if (stats.errors > 0) {
    await renditions.keep();
    return resultOf({ ok: false, problems, records, changed: false }, stats, started, last.outputManifest());
  }
  // A change build whose plan keeps the unchanged records' files finishes only the images it read: the others' renditions are their records' thumbnails, in the cache and the output already.
  const keepsOutput = analysis.changes !== undefined && previous !== undefined && vouchesFor(await last.answerDigests(), { outDir: options.outDir, context }, await last.previousManifest());
  const made = await finishRenditions(renditions, keepsOutput ? analysis.changes!.items : analysis.items, !keepsOutput, () => last.previousManifest(), stats);
  if (made.problems.length > 0) return resultOf({ ok: false, problems: sortProblems([...problems, ...made.problems]), records, changed: false }, stats, started, last.outputManifest());

  // An image's bytes and its renditions': a record's digest covers the files it has in site/images.
  const imageKey = (item: AnalysedItem) => `${item.sha256}${(made.bySource.get(item.sha256) ?? []).map((entry) => ` ${entry.sha256}:${entry.size}`).join('')}`;
  const before = analysis.changes && previous?.digestSum !== undefined ? { sum: previous.digestSum, count: previous.rows.size, gone: analysis.changes.freedDigests, read: analysis.changes.items.length } : undefined;
  const inputs = buildInputs(analysis.items, imageKey, context, before);
  // What the next build reports if it finds this listing again: the content's problems only (it has no cache file to warn about).
  const contentProblems = problems.filter((problem) => !cacheFiles.includes(problem));
  const unchangedContent = statFingerprint === null ? null : { statFingerprint, problems: contentProblems, images: analysis.stats.images, records: records.length };
  const pairs = statFingerprint === null ? null : pairsMade(settingsKey, scan.pairs, analysis, inputs, records);
  if (last.madeFrom(inputs.fingerprint)) {
    stats.kept = last.files;
    stats.shortcut = 'records';
    if (unchangedContent !== null) await last.keepUnchanged(records, unchangedContent, pairs);
    return resultOf({ ok: true, problems, records, changed: false }, stats, started, () => readManifestSync(outDir));
  }
  // This build writes: esbuild loads during the reads below when it will bundle, so that the bundle can start at once (bundle-function.ts).
  loadBundlerIfNeeded(options.cacheDir, inputs.context).catch(() => undefined); // a failure to load shows when bundling
  const run: Run = { options, last, stats, inputs, records, unchangedContent, pairs, changes: changesOf(analysis, previous, inputs), sums: { before: previous?.digestSum, after: inputs.digestSum } };
  const compiled = await compileData(run, records);
  const written = await writeFiles(run, compiled, analysis.items, made.bySource, writing, analysis.changes?.items ?? []);
  problems.push(...written.problems);
  stats.warnings += written.problems.length;
  return resultOf({ ok: true, problems, records, changed: written.changed }, stats, started, written.manifest);
}

/**
 * An output or cache folder that names a file, lies inside the other or the content folder, or
 * cannot be written: checked before any work, since the output is staged beside outDir and
 * committed into it.
 */
function folderProblems(contentDir: string, outDir: string, cacheDir: string): Problem[] {
  const misplaced = [
    folderProblem('bad-out-dir', 'the output folder', outDir, 'choose another --out'),
    folderProblem('bad-cache-dir', 'the cache folder', cacheDir, 'pass --cache with a folder (or leave --cache out)') ?? cachePlacementProblem(cacheDir, contentDir, outDir),
  ].filter((problem) => problem !== null);
  if (misplaced.length > 0) return misplaced;
  const fix = (flag: string) => `make it writable, or pass ${flag} with a folder you can write`;
  return [
    writeAccessProblem('bad-out-dir', 'the output folder', outDir, [dirname(outDir), outDir], fix('--out')),
    writeAccessProblem('bad-cache-dir', 'the cache folder', cacheDir, [cacheDir], fix('--cache')),
  ].filter((problem) => problem !== null);
}

/**
 * Refuses an output folder another build is writing, and one that would destroy something
 * that is not a previous build: a folder that overlaps the content, or holds files but no
 * manifest.json of a build (damaged, edited, a pipe: the message says why).
 */
async function outDirProblems(contentDir: string, recovery: Recovery, last: LastBuild): Promise<Problem[]> {
  const { outDir } = last;
  const busy = recovery.state === 'busy' ? [error('bad-out-dir', `another pepe build (pid ${recovery.pid}) is writing the output folder "${outDir}": wait for it to finish (if no build is running, delete "${recovery.txnDir}")`)] : [];
  const hasPrevious = last.outputIntact || (await last.previousManifest()) !== null;
  if (isAtOrBelow(outDir, contentDir) || isAtOrBelow(contentDir, outDir)) {
    return [...busy, error('bad-out-dir', `the output folder "${outDir}" and the content folder "${contentDir}" overlap: choose another --out`)];
  }
  const existing = await readdir(outDir).catch(() => [] as string[]);
  if (existing.length > 0 && !hasPrevious) {
    const unusable = last.unusableManifest;
    const holds = unusable === null ? 'holds no manifest.json of a previous build' : `holds no usable manifest.json of a previous build ("${unusable.file}" ${unusable.why})`;
    return [...busy, error('bad-out-dir', `the output folder "${outDir}" is not empty and ${holds}; it would be replaced: empty it or choose another --out`)];
  }
  return busy;
}

/** The stats of a build that analysed its content; the later stages fill in the rest. */
function analysedStats(analysis: ContentAnalysis, problems: Problem[], timings: { scanMs: number; dupesMs: number }): BuildStats {
  const errors = problems.filter((p) => p.severity === 'error').length;
  return {
    ...analysis.stats,
    records: analysis.items.length,
    warnings: problems.length - errors,
    errors,
    written: 0,
    kept: 0,
    removed: 0,
    timings: { ...analysis.stats.timings, ...timings, renditionsMs: 0, compileMs: 0, writeMs: 0, generateMs: 0 },
    seconds: 0,
    shortcut: null,
    searchIndex: null,
    recordEncoding: null,
    renditions: null,
    generated: null,
  };
}

/**
 * A result whose records or manifest may be read on first access only (a maintainer's `pepe
 * build` never needs them); `stats.seconds` is taken now.
 */
function resultOf(
  fields: Pick<BuildResult, 'ok' | 'problems' | 'changed'> & { records: PepeRecord[] | (() => PepeRecord[]) },
  stats: BuildStats,
  started: number,
  manifest: Manifest | null | (() => Manifest | null),
): BuildResult {
  stats.seconds = (performance.now() - started) / 1000;
  const { records, ...rest } = fields;
  const result = { ...rest, stats } as BuildResult;
  if (typeof records === 'function') {
    let loaded: PepeRecord[] | undefined;
    Object.defineProperty(result, 'records', { get: () => (loaded ??= records()), enumerable: true });
  } else result.records = records;
  if (typeof manifest === 'function') Object.defineProperty(result, 'manifest', { get: manifest, enumerable: true });
  else result.manifest = manifest;
  return result;
}

/** The last build's result, for a build whose content listing and settings are as then. */
function lastBuildResult(last: LastBuild, unchanged: UnchangedContent, timings: { scanMs: number; totalMs: number }, started: number): BuildResult {
  const { problems, images, records } = unchanged;
  const stats = idleStats(0, { images, cacheHits: images, timings, records, warnings: problems.length, kept: last.files, shortcut: 'listing' });
  return resultOf({ ok: true, problems, records: () => last.records(), changed: false }, stats, started, () => readManifestSync(last.outDir));
}

/**
 * Renditions of the valid images (`complete`: every one; else those a change build read): made
 * during the analysis, from the cache, or encoded now. A rendition the previous output already
 * holds under every name it gets is not linked again, so its cache file is not read. Each of
 * these records gets its thumbnails.
 */
async function finishRenditions(renditions: RenditionsRun, items: readonly AnalysedItem[], complete: boolean, previousManifest: () => Promise<Manifest | null>, stats: BuildStats) {
  // Only when some reused rendition could be in the output: a catalogue of images too small for renditions never reads the manifest here.
  const inOutput = async (): Promise<InOutput> => {
    const previous = await previousManifest();
    const idsBySource = new Map<string, string[]>();
    for (const item of items) {
      const ids = idsBySource.get(item.sha256);
      if (ids) ids.push(item.record.id);
      else idsBySource.set(item.sha256, [item.record.id]);
    }
    return (sourceSha, entry) => previous !== null && (idsBySource.get(sourceSha) ?? []).every((id) => manifestEntry(previous, `site/images/${renditionFileName(id, entry)}`)?.sha256 === entry.sha256);
  };
  const made = await renditions.finish(
    items.map((item) => ({ sha256: item.sha256, file: item.file, abs: item.abs, width: item.record.width, animated: item.animated })),
    inOutput,
    complete,
  );
  stats.timings.renditionsMs = made.run.ms;
  stats.renditions = made.run;
  stats.errors += made.problems.length;
  if (made.problems.length === 0) for (const item of items) item.record.thumbnails = thumbnailsOf(item.record.id, made.bySource.get(item.sha256) ?? []);
  return made;
}

/** What the stages after the analysis share. */
interface Run {
  options: BuildOptions & { cacheDir: string };
  last: LastBuild;
  stats: BuildStats;
  inputs: BuildInputs;
  records: PepeRecord[];
  unchangedContent: UnchangedContent | null;
  pairs: PairsMade | null;
  /** The records changed and removed since the last build, when the analysis started from it. */
  changes: RecordChanges | null;
  /** The digest sums of the last build (when known) and of this one: a memo of the last build's lines up by `changes`. */
  sums: { before?: string; after: string };
}

/**
 * What changed since the last build, from what the analysis took over from it: each item's
 * digest then (`item.previous`; a pair read again counts as changed) and the last build's ids:
 * those of the items taken over, and those it freed (read again or gone: the only ones that can be gone).
 */
function changesOf(analysis: ContentAnalysis, previous: PreviousBuild | undefined, { recordDigests: digests, rehashed }: { recordDigests: ReadonlyMap<string, string>; rehashed: readonly number[] }): RecordChanges | null {
  if (analysis.changes === undefined || previous === undefined) return null;
  const { freed, items: read } = analysis.changes;
  // Only the items whose digest is not the one taken over: the others are unchanged.
  const current = rehashed.map((index) => [analysis.items[index]!.record.id, analysis.items[index]!.previous?.digest] as const);
  const readIds = new Set(read.map((item) => item.record.id));
  // Every current id not read again was taken over, so the last build had it.
  const had = { has: (id: string) => freed.has(id) || (digests.has(id) && !readIds.has(id)), keys: () => freed };
  return recordChanges(digests, current, had);
}

/**
 * The rows the next change build starts from (cache/unchanged-content.ts): each pair's paths and
 * stat keys and what it gave; only those that changed when this build started from the last
 * build's. None when a pair gave no item (that build failed).
 */
function pairsMade(settings: string, pairs: readonly ContentPair[], analysis: ContentAnalysis, { recordDigests: digests, digestSum, rehashed }: { recordDigests: ReadonlyMap<string, string>; digestSum: string; rehashed: readonly number[] }, records: readonly PepeRecord[]): PairsMade | null {
  const { items, changes } = analysis;
  if (items.length !== pairs.length) return null;
  for (let index = 0; index < items.length; index++) if (items[index]!.file !== pairs[index]!.image.rel) return null;
  const row = (item: AnalysedItem, pair: ContentPair) => pairRow(pair, item.sha256, item.record.id, digests.get(item.record.id)!, item.distinctFrom);
  let delta: PairsMade['delta'] = null;
  if (changes) {
    // The pairs read, and any other whose record's digest changed (its thumbnails).
    delta = { set: [], records: [], stats: [], drop: changes.removed };
    for (const index of rehashed) {
      delta.set.push(row(items[index]!, pairs[index]!));
      delta.records.push(items[index]!.record);
      pairStats(pairs[index]!, delta.stats, delta.stats.length);
    }
  }
  const list = () => {
    const rankOf = new Map(records.map((record, rank) => [record, rank]));
    const stats = new Float64Array(PAIR_STATS * pairs.length);
    pairs.forEach((pair, index) => pairStats(pair, stats, PAIR_STATS * index));
    return { rows: items.map((item, index) => row(item, pairs[index]!)), records: items.map((item) => item.record), ranks: items.map((item) => rankOf.get(item.record)!), stats };
  };
  return { settings, list, delta, digestSum };
}

/** The catalogue data, compiled with the last build's memos, and its files (the images are planned in writeFiles, with the answers' previous output). */
async function compileData(run: Run, records: PepeRecord[]) {
  const { options, last, stats, inputs } = run;
  const compileStart = performance.now();
  const { searchIndex, recordEncoding, similar } = await last.compileMemos(inputs.context, inputs.recordDigests, { ...run.sums, changed: run.changes?.changed });
  const data = compileCatalogue(records, options.urls, { searchIndex: searchIndex.build, encodeRecords: recordEncoding.encode, reuse: recordEncoding.reuse, similarLists: similar.make, similarPieces: similar.pieces, sorted: true });
  stats.searchIndex = searchIndex.run();
  stats.recordEncoding = recordEncoding.run();
  // The bundle inlines the data module (generated from the staging folder); the pieces file is read by the function at run time.
  const paths = catalogueDataPaths(data);
  const module = catalogueModuleSource(data);
  const files: PlannedFile[] = [{ path: paths.module, body: module, sha256: sha256Of(module), size: byteLength(module), neededByGenerate: true }, piecesFile(paths.pieces, data.pieces())];
  stats.timings.compileMs = performance.now() - compileStart;
  return { data, files, memos: [searchIndex, recordEncoding, similar] };
}

const originalPath = (item: AnalysedItem) => `site/images/${item.record.id}${item.record.file_ext}`;

/**
 * Writes the output: the answers are planned while the function bundles, then everything is
 * committed (write-output.ts). Then saves what the next build reuses: a full disk there is
 * only a warning, since the output is built.
 */
async function writeFiles(run: Run, compiled: Awaited<ReturnType<typeof compileData>>, items: AnalysedItem[], renditions: Map<string, RenditionEntry[]>, writing: Writing, read: readonly AnalysedItem[]) {
  const { options, last, stats, inputs } = run;
  const { outDir, cacheDir } = options;
  const { data } = compiled;
  const previous = await last.previousManifest();
  const saved = await last.answerDigests();
  const documents = new Map<string, string>();
  const planOptions = { chunks: options.chunks, previous: previousAnswers(saved, { outDir, context: inputs.context }, previous, run.changes), documents };
  // The originals and renditions of the records that changed; the others' are kept as they are.
  const folder = renditionFolder(cacheDir);
  const imageFiles = planImages(
    items,
    {
      id: (item) => item.record.id,
      files: (item) => 1 + item.record.thumbnails.length,
      plan: (item) => [{ path: originalPath(item), sha256: item.sha256, size: item.record.file_size, copyFrom: item.abs }, ...renditionFiles(folder, item.record.id, renditions.get(item.sha256) ?? [])],
    },
    planOptions.previous,
  );
  const files = [...imageFiles.files, ...compiled.files];
  const writeStart = performance.now();
  let planMs = 0;
  let generated: GeneratedExtras | undefined;
  const dataModule = files.find((file) => file.neededByGenerate)!;
  writing.folder = 'output';
  const written = await last.savingMemos(compiled.memos, () => writeOutput({
    outDir,
    previous,
    files,
    kept: imageFiles.kept,
    // After the function bundle has started: it needs the data module, not the answers.
    plannedLater: (written, incremental) => {
      const planStart = performance.now();
      // The originals, whose sums the dataset lists: a changed record's among the items read (the shards take the others' from those they replace), any other looked up as shards ask.
      const byId = new Map<string, AnalysedItem>(read.map((item) => [item.record.id, item]));
      let passes = 0;
      const imageOf = (id: string) => {
        let item = byId.get(id);
        if (item === undefined) {
          // A change renders a shard or two: one pass over the items finds a shard's worth of ids in rank order from this one; past a few passes, all are indexed.
          const at = data.ids.indexOf(id);
          const wanted = ++passes > 4 ? null : new Set(data.ids.slice(at, at + DATASET_SHARD_SHAPE.max));
          for (const other of items) if (wanted === null || wanted.has(other.record.id)) byId.set(other.record.id, other);
          item = byId.get(id)!;
        }
        return { fileName: `${id}${item.record.file_ext}`, sha256: item.sha256 };
      };
      const imageChanged = new Set(written.filter((path) => path.startsWith('site/images/')).map((path) => path.slice('site/images/'.length, path.lastIndexOf('.'))));
      // Files are kept from the previous output only where it is still there.
      const answers = planAnswers(data, imageOf, { ...planOptions, previous: incremental ? planOptions.previous : null, imageChanged });
      planMs = performance.now() - planStart;
      return answers;
    },
    generate: async (staging) => {
      const generateStart = performance.now();
      generated = await generateExtras(staging, { cacheDir, context: inputs.context, dataModule: String(dataModule.body) });
      stats.timings.generateMs = performance.now() - generateStart;
      stats.generated = generated.reused;
      return generated.paths;
    },
    manifestFor: (entries, reuse) => createManifest(entries, options.urls, { records: stats.records, images: items.length }, reuse),
  }));
  writing.folder = 'cache';
  const problems: Problem[] = [];
  try {
    await last.save({ fingerprint: inputs.fingerprint, context: inputs.context, changes: run.changes, documents, manifest: written.manifest, memos: generated ? [generated] : [], records: run.records, unchanged: run.unchangedContent, pairs: run.pairs });
  } catch (failure) {
    // The output is built; a cache file torn by the full disk reads as missing next time (memo.ts).
    if (!isDiskFull(failure)) throw failure;
    problems.push(warning('cache-not-written', `${diskFullProblem(failure, 'the cache folder', cacheDir, '--cache').message}; the output was built, the next build redoes the work the cache would have saved`));
  }
  // A search per changed image (rare), rather than a 10k-entry map on every build.
  problems.push(...changedImageWarnings(written.written, previous, (path) => items.find((item) => path === originalPath(item))?.file));
  stats.written = written.written.length;
  stats.kept = written.kept;
  stats.removed = written.removed.length;
  // Planning the answers counts as compiling, although it runs inside writeOutput.
  stats.timings.compileMs += planMs;
  stats.timings.writeMs = performance.now() - writeStart - planMs;
  return { changed: written.changed, manifest: written.manifest, problems };
}
