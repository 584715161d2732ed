/**
 * `pepe build` as a library function: content folder → output folder (layout in tools/catalogue/README.md).
 * Validates and analyses everything first; writes only when there is no error, and then
 * all-or-nothing (see write-output.ts). Returns a result; never prints.
 */
import { readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { isAtOrBelow, scanContent, folderProblem } from './scan-content.js';
import { catalogueDataFiles, compileCatalogue } from '../../functions/core/catalogue.js';
import { compareRecords, type PepeRecord, type SiteUrls } from '../../functions/core/record.js';
import { type AnalyseContentOptions, type AnalysedItem, type AnalyseStats, analyseContent, dateProblems, defaultCacheDir, effectiveLimits, sortProblems } from './analyse-content.js';
import { openRenditions, type RenditionEntry, renditionFileName, renditionFiles, renditionFolder, type RenditionRun, thumbnailsOf } from './renditions.js';
import type { RenditionSettings } from '../image/renditions.js';
import { createManifest, loadManifest, manifestEntry, type Manifest, MANIFEST_FILE, readManifestSync, sha256Of, UnusableManifestError } from '../shared/manifest.js';
import { nearDuplicateProblems } from './near-duplicate-problems.js';
import { error, type Problem, warning } from '../shared/problems.js';
import { diskFullProblem, isDiskFull } from './disk-full.js';
import { recoverOutput } from './commit-output.js';
import { type ChunkShapes, planAnswers } from './plan-answers.js';
import { byteLength, type PlannedFile, writeOutput } from './write-output.js';
import { loadAnswerDigests, saveAnswerDigests, unchangedAnswers, unchangedDocuments } from './cache/answer-digests.js';
import { buildContext, buildInputs, type GeneratedExtras, generateExtras } from './build-extras.js';
import { type LastBuild, loadLastBuild, sameStatKey, saveLastBuild, statKey } from './cache/last-build.js';
import { FEATURE_VERSION } from '../image/analyse-image.js';
import { writeAccessProblem } from './write-access.js';
import { changedImageWarnings } from './changed-images.js';
import { contentStatFingerprint, loadRecords, recordsFile, saveRecords } from './cache/unchanged-content.js';
import { cachePlacementProblem } from './cache/cache-placement.js';
import { cacheFileProblems } from './cache/cache-files.js';
import { memoizedRecordEncoding, type RecordEncodingRun } from './cache/record-encoding-memo.js';
import { memoizedSearchIndex, type SearchIndexRun } from './cache/search-index-memo.js';
import { memoizedSimilarLists } from './cache/similar-lists-memo.js';
import { loadEsbuild } from './bundle-function.js';

export interface BuildOptions extends Omit<AnalyseContentOptions, 'writeCache' | 'onDecoded'> {
  outDir: string;
  urls: SiteUrls;
  /** Rendition widths and encoder settings (default RENDITION_SETTINGS; `widths: []` makes none: the build bench's baseline). */
  renditions?: RenditionSettings;
  /** How the static listing and the sitemaps are cut (plan-answers.ts); tests make them small. */
  chunks?: ChunkShapes;
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
 * Refuses output folders that would destroy something that is not a previous build.
 * `unusable` is the output's manifest.json when it is there but not a build's (damaged,
 * edited, a pipe): the folder is then refused as one without a manifest, and the message says why.
 */
async function outDirProblems(contentDir: string, outDir: string, hasPrevious: boolean, unusable: UnusableManifestError | null): Promise<Problem[]> {
  if (isAtOrBelow(outDir, contentDir) || isAtOrBelow(contentDir, outDir)) {
    return [error('bad-out-dir', `the output folder "${outDir}" and the content folder "${contentDir}" overlap: choose another --out`)];
  }
  const existing = await readdir(outDir).catch(() => [] as string[]);
  if (existing.length > 0 && !hasPrevious) {
    const holds = unusable === null ? 'holds no manifest.json of a previous build' : `holds no usable manifest.json of a previous build ("${unusable.file}" ${unusable.why})`;
    return [error('bad-out-dir', `the output folder "${outDir}" is not empty and ${holds}; it would be replaced: empty it or choose another --out`)];
  }
  return [];
}

/**
 * The stats of a build that decoded, compiled and wrote nothing (refused, or the last build's
 * result taken whole): every count and timing 0 but those given.
 */
function idleStats(seconds: number, given: Partial<Omit<BuildStats, 'timings' | 'seconds'>> & { timings?: Partial<BuildStats['timings']> }): BuildStats {
  const timings = { cacheLoadMs: 0, scanMs: 0, decodeMs: 0, pixelsMs: 0, blurhashMs: 0, readHashMs: 0, totalMs: 0, cpuMs: 0, dupesMs: 0, renditionsMs: 0, compileMs: 0, writeMs: 0, generateMs: 0, ...given.timings };
  const none = { images: 0, cacheHits: 0, decoded: 0, hashed: 0, records: 0, warnings: 0, errors: 0, written: 0, kept: 0, removed: 0, shortcut: null, searchIndex: null, recordEncoding: null, renditions: null, generated: null };
  return { ...none, ...given, timings, seconds };
}

/** `compareRecords` order, with each timestamp parsed once instead of once per comparison. */
function sortedRecords(records: PepeRecord[]): PepeRecord[] {
  const keyed = records.map((record) => ({ record, t: Date.parse(record.created_at) }));
  keyed.sort((a, b) => a.t - b.t || compareRecords(a.record, b.record));
  return keyed.map((k) => k.record);
}

/** The last build's result, for a build whose content listing and settings are the same (`isUnchanged`). */
function lastBuildResult(last: LastBuild, run: { cacheDir: string; timings: { scanMs: number; totalMs: number }; seconds: number; manifest: () => Manifest | null }): BuildResult {
  const { problems, images, records } = last.unchanged!;
  const stats = idleStats(run.seconds, { images, cacheHits: images, timings: run.timings, records, warnings: problems.length, kept: last.files ?? 0, shortcut: 'listing' });
  const result = { ok: true, problems, changed: false, stats } as BuildResult;
  // Both read on first access only: a maintainer's `pepe build` never needs them.
  let loaded: PepeRecord[] | undefined;
  Object.defineProperty(result, 'records', { get: () => (loaded ??= loadRecords(run.cacheDir)), enumerable: true });
  Object.defineProperty(result, 'manifest', { get: run.manifest, enumerable: true });
  return result;
}

/** Whether the last build's result stands: same content listing and settings, its records file intact. */
function isUnchanged(last: LastBuild | null, statFingerprint: string | null, cacheDir: string): last is LastBuild {
  return statFingerprint !== null && last?.unchanged?.statFingerprint === statFingerprint && sameStatKey(last.recordsStat, statKey(recordsFile(cacheDir)));
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
  const misplaced = [
    folderProblem('bad-out-dir', 'the output folder', outDir, 'choose another --out'),
    folderProblem('bad-cache-dir', 'the cache folder', cacheDir, 'pass --cache with a folder (or leave --cache out)') ?? cachePlacementProblem(cacheDir, contentDir, outDir),
  ].filter((problem) => problem !== null);
  // Checked before any work: the output is staged beside outDir and committed into it.
  if (misplaced.length === 0) {
    const fix = (flag: string) => `make it writable, or pass ${flag} with a folder you can write`;
    misplaced.push(
      ...[
        writeAccessProblem('bad-out-dir', 'the output folder', outDir, [dirname(outDir), outDir], fix('--out')),
        writeAccessProblem('bad-cache-dir', 'the cache folder', cacheDir, [cacheDir], fix('--cache')),
      ].filter((problem) => problem !== null),
    );
  }
  if (misplaced.length > 0) return refusedBuild(misplaced, started);
  // A build interrupted while applying its changes is rolled back (or completed) before anything reads the output.
  const recovery = recoverOutput(outDir);
  // The output's manifest.json is parsed only when needed: a stat equal to the one the last
  // build recorded proves it is that build's manifest (30k entries at 10k images: ~50 ms).
  const last = await loadLastBuild(cacheDir);
  const manifestStat = statKey(join(outDir, MANIFEST_FILE));
  const lastManifestIntact = last !== null && last.outDir === outDir && sameStatKey(last.manifestStat, manifestStat);
  let parsedPrevious: Manifest | null | undefined;
  let unusablePrevious: UnusableManifestError | null = null;
  const readPrevious = (): Promise<Manifest | null> =>
    loadManifest(outDir, { writtenByLastBuild: () => lastManifestIntact && sameStatKey(last.manifestStat, statKey(join(outDir, MANIFEST_FILE))) }).catch((failure: unknown) => {
      if (!(failure instanceof UnusableManifestError)) throw failure;
      unusablePrevious = failure;
      return null;
    });
  const previousManifest = async () => (parsedPrevious === undefined ? (parsedPrevious = await readPrevious()) : parsedPrevious);
  const outputManifest = () => readManifestSync(outDir);

  const scanStart = performance.now();
  const scan = await scanContent(contentDir);
  const scanMs = performance.now() - scanStart;
  const context = buildContext(options.urls, options.chunks);
  const statFingerprint = contentStatFingerprint(scan, { contentDir, context, featureVersion: FEATURE_VERSION, limits: effectiveLimits(options.limits), renditions: options.renditions ?? null });
  if (recovery.state !== 'busy' && lastManifestIntact && isUnchanged(last, statFingerprint, cacheDir)) {
    const timings = { scanMs, totalMs: performance.now() - scanStart };
    return lastBuildResult(last, { cacheDir, timings, seconds: (performance.now() - started) / 1000, manifest: outputManifest });
  }
  // After the no-change path, which reads no cache file but last-build.json and records.json (a file there, or it is not taken).
  const cacheFiles = cacheFileProblems(cacheDir);
  const unusableCache = cacheFiles.filter((problem) => problem.severity === 'error');
  if (unusableCache.length > 0) return refusedBuild(unusableCache, started);
  // Renditions (renditions.ts): each image the analysis decodes hands its pixels over, so that
  // its renditions cost no second decode and encode while the analysis goes on.
  const renditions = await openRenditions({ cacheDir, limits: effectiveLimits(options.limits), concurrency: options.concurrency, settings: options.renditions });
  const analysis = await analyseContent({ ...options, contentDir, cacheDir, writeCache: true, scan, onDecoded: renditions.fromDecoded });
  if (analysis.declined !== undefined) return { ...refusedBuild([], started), declined: analysis.declined };
  const dupesStart = performance.now();
  const dupes = await nearDuplicateProblems(analysis.items, 'warning', { dir: cacheDir, write: true });
  const busy: Problem[] = recovery.state === 'busy' ? [error('bad-out-dir', `another pepe build (pid ${recovery.pid}) is writing the output folder "${outDir}": wait for it to finish (if no build is running, delete "${recovery.txnDir}")`)] : [];
  const hasPrevious = lastManifestIntact || (await previousManifest()) !== null;
  const problems = sortProblems([...cacheFiles, ...analysis.problems, ...dateProblems(analysis.items, 'warning'), ...busy, ...(await outDirProblems(contentDir, outDir, hasPrevious, unusablePrevious)), ...dupes]);
  const dupesMs = performance.now() - dupesStart;
  const records = sortedRecords(analysis.items.map((item) => item.record));
  const errors = problems.filter((p) => p.severity === 'error').length;
  const stats: BuildStats = {
    ...analysis.stats,
    records: records.length,
    warnings: problems.length - errors,
    errors,
    written: 0,
    kept: 0,
    removed: 0,
    timings: { ...analysis.stats.timings, scanMs, dupesMs, renditionsMs: 0, compileMs: 0, writeMs: 0, generateMs: 0 },
    seconds: 0,
    shortcut: null,
    searchIndex: null,
    recordEncoding: null,
    renditions: null,
    generated: null,
  };
  const finish = (result: Omit<BuildResult, 'stats' | 'manifest'>, manifest: Manifest | null | (() => Manifest | null)): BuildResult => {
    stats.seconds = (performance.now() - started) / 1000;
    const built = { ...result, stats } as BuildResult;
    // Parsed on first access when the build did not need it (a no-change rebuild).
    if (typeof manifest === 'function') Object.defineProperty(built, 'manifest', { get: manifest, enumerable: true });
    else built.manifest = manifest;
    return built;
  };
  if (errors > 0) {
    await renditions.keep();
    return finish({ ok: false, problems, records, changed: false }, parsedPrevious ?? outputManifest);
  }

  // Renditions of the valid images: made during the analysis, from the cache, or encoded now.
  // A rendition the previous output already holds under every name it gets is not linked again: its cache file is not read.
  const previousOutput = await previousManifest();
  const idsBySource = new Map<string, string[]>();
  for (const item of analysis.items) idsBySource.set(item.sha256, [...(idsBySource.get(item.sha256) ?? []), item.record.id]);
  const inOutput = (sourceSha: string, entry: RenditionEntry) =>
    previousOutput !== null && (idsBySource.get(sourceSha) ?? []).every((id) => manifestEntry(previousOutput, `site/images/${renditionFileName(id, entry)}`)?.sha256 === entry.sha256);
  const made = await renditions.finish(
    analysis.items.map((item) => ({ sha256: item.sha256, file: item.file, abs: item.abs, width: item.record.width, animated: item.animated })),
    inOutput,
  );
  stats.timings.renditionsMs = made.run.ms;
  stats.renditions = made.run;
  if (made.problems.length > 0) {
    stats.errors += made.problems.length;
    return finish({ ok: false, problems: sortProblems([...problems, ...made.problems]), records, changed: false }, parsedPrevious ?? outputManifest);
  }
  const renditionsOf = (item: AnalysedItem) => made.bySource.get(item.sha256) ?? [];
  // The records (`records` above) are these objects.
  for (const item of analysis.items) item.record.thumbnails = thumbnailsOf(item.record.id, renditionsOf(item));

  // Same records, image bytes, URLs, code and output folder as the last build: nothing can differ.
  const inputs = buildInputs(records, new Map(analysis.items.map((item) => [item.record.id, item.sha256])), context);
  const fingerprint = inputs.fingerprint;
  if (lastManifestIntact && last.fingerprint === fingerprint) {
    stats.kept = last.files ?? 0;
    stats.shortcut = 'records';
    // Same records as the last build: from now on the listing alone can prove it
    // (unchanged-content.ts). Saved here, not by builds that change the output, so that
    // those (one image added…) never pay for writing the records.
    if (statFingerprint !== null) {
      saveRecords(cacheDir, records);
      // The content's problems only: the next build that takes them whole has no cache file to warn about.
      const contentProblems = problems.filter((problem) => !cacheFiles.includes(problem));
      const unchanged = { statFingerprint, problems: contentProblems, images: analysis.stats.images, records: records.length };
      await saveLastBuild(cacheDir, { ...last, unchanged, recordsStat: statKey(recordsFile(cacheDir)) });
    }
    return finish({ ok: true, problems, records, changed: false }, outputManifest);
  }
  // This build bundles: esbuild loads during the reads below, so that the bundle can start at once (bundle-function.ts).
  loadEsbuild().catch(() => undefined); // a failure to load shows when bundling
  const previous = await previousManifest();
  const savedDigests = await loadAnswerDigests(cacheDir);
  const reuse = unchangedAnswers(savedDigests, { outDir, context: inputs.context, records: inputs.recordDigests }, previous);
  const pageInputs = new Map<string, string>();
  const planOptions = { chunks: options.chunks, knownPage: unchangedDocuments(savedDigests, { outDir, context: inputs.context }, previous), recordDigests: inputs.recordDigests, pageInputs };

  const compileStart = performance.now();
  const [searchIndex, recordEncoding, similar] = await Promise.all([memoizedSearchIndex(cacheDir, inputs.context), memoizedRecordEncoding(cacheDir, inputs.context, inputs.recordDigests), memoizedSimilarLists(cacheDir, inputs.context)]);
  const data = compileCatalogue(records, options.urls, { searchIndex: searchIndex.build, encodeRecords: recordEncoding.encode, similarLists: similar.make });
  stats.searchIndex = searchIndex.run();
  stats.recordEncoding = recordEncoding.run();
  const files: PlannedFile[] = analysis.items.map((item) => ({
    path: `site/images/${item.record.id}${item.record.file_ext}`,
    sha256: item.sha256,
    size: item.record.file_size,
    copyFrom: item.abs,
  }));
  const folder = renditionFolder(cacheDir);
  for (const item of analysis.items) files.push(...renditionFiles(folder, item.record.id, renditionsOf(item)));
  // The bundle inlines the data module (generated from the staging folder); the pieces file is read by the function at run time.
  for (const { path, body } of catalogueDataFiles(data)) {
    files.push({ path, body, sha256: sha256Of(body), size: byteLength(body), neededByGenerate: path === 'data/catalogue.mjs' });
  }
  stats.timings.compileMs = performance.now() - compileStart;

  const writeStart = performance.now();
  let planMs = 0;
  const counts = { records: records.length, images: analysis.items.length };
  // The memos are saved while writeOutput waits for esbuild, after its write loop (this thread
  // is idle then): safe before the output is written, since each memo is only ever used for
  // the very inputs it was made from (search-index-memo.ts, record-encoding-memo.ts, similar-lists-memo.ts). A failure
  // is held until the output is written, and then reported like the other cache files'.
  const memosSaved = Promise.all([searchIndex.save(), recordEncoding.save(), similar.save()]).then(() => null, (failure: unknown) => ({ failure }));
  writing.folder = 'output';
  let written: Awaited<ReturnType<typeof writeOutput>>;
  let generated: GeneratedExtras | undefined;
  const dataModule = files.find((file) => file.neededByGenerate)!;
  try {
    written = await writeOutput({
      outDir,
      previous,
      files,
      // After the function bundle has started: it needs the data module, not the answers.
      plannedLater: () => {
        const planStart = performance.now();
        // The originals (copied), whose sums the dataset lists; not the renditions (linked from the cache).
        const imageSha256 = new Map(files.filter((file) => file.copyFrom !== undefined).map((file) => [file.path.slice('site/images/'.length), file.sha256]));
        const answers = planAnswers(data, reuse, (name) => imageSha256.get(name)!, planOptions);
        planMs = performance.now() - planStart;
        return answers;
      },
      generate: async (staging) => {
        const generateStart = performance.now();
        generated = await generateExtras(staging, { cacheDir, context: inputs.context, dataModuleSha256: dataModule.sha256 });
        stats.timings.generateMs = performance.now() - generateStart;
        stats.generated = generated.reused;
        return generated.paths;
      },
      manifestFor: (entries, reuse) => createManifest(entries, options.urls, counts, reuse),
    });
  } finally {
    // Nothing of this build is left writing into the cache once it returns, whatever happened.
    await memosSaved;
  }
  writing.folder = 'cache';
  try {
    const memos = await memosSaved;
    if (memos !== null) throw memos.failure;
    await generated?.save();
    await saveAnswerDigests(cacheDir, { outDir, version: written.manifest.version, context: inputs.context, records: Object.fromEntries(inputs.recordDigests), documents: Object.fromEntries(pageInputs) });
    await saveLastBuild(cacheDir, { outDir, fingerprint, version: written.manifest.version, files: written.manifest.counts.files, manifestStat: statKey(join(outDir, MANIFEST_FILE)) });
  } catch (failure) {
    // The output is built; a cache file torn by the full disk reads as missing next time (cache-json.ts).
    if (!isDiskFull(failure)) throw failure;
    problems.push(warning('cache-not-written', `${diskFullProblem(failure, 'the cache folder', cacheDir, '--cache').message}; the output was built, the next build redoes the work the cache would have saved`));
    stats.warnings++;
  }
  // A search per changed image (rare), rather than a 10k-entry map on every build.
  const changedImages = changedImageWarnings(written.written, previous, (path) => analysis.items.find((item) => path === `site/images/${item.record.id}${item.record.file_ext}`)?.file);
  if (changedImages.length > 0) {
    problems.push(...changedImages);
    stats.warnings += changedImages.length;
  }
  stats.written = written.written.length;
  stats.kept = written.kept;
  stats.removed = written.removed.length;
  // Planning the answers counts as compiling, although it runs inside writeOutput.
  stats.timings.compileMs += planMs;
  stats.timings.writeMs = performance.now() - writeStart - planMs;
  return finish({ ok: true, problems, records, changed: written.changed }, written.manifest);
}
