/**
 * The generated parts of the output that other modules produce (the function bundle, the
 * gallery page), and the fingerprint that lets a rebuild with nothing changed skip them.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import type { PepeRecord, SiteUrls } from '../../functions/core/record.js';
import type { AnalysedItem } from './analyse-content.js';
import { bundleFunction, fillBundle, loadEsbuild } from './bundle-function.js';
import { cacheMemo } from './cache/memo.js';
import { makeFoldersSync } from '../shared/make-folders.js';
import { sha256Of } from '../shared/manifest.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * Everything whose change can change the build's result: answers and data (functions/core),
 * layout (tools/catalogue), image analysis and near-duplicates (their results are cached by
 * file stat, and the no-change path of cache/unchanged-content.ts skips them), bundle, gallery.
 */
const GENERATOR_SOURCES = ['functions/**/*.ts', 'tools/catalogue/**/*.ts', 'tools/image/**/*.ts', 'tools/dupes/**/*.ts', 'tools/gallery/**', 'tools/shared/content-chunks.ts', 'package-lock.json'];
const GALLERY_MODULE = join(REPO_ROOT, 'tools', 'gallery', 'write-gallery.ts');

/**
 * `generated.json` in the build cache: the generated files of the last build, each group under
 * a hash of everything it is made from: the code alone (`context`, which covers the generators'
 * sources and the lockfile, so esbuild's version too). The function's group holds the bundle's
 * template, which each build fills with its data module (bundle-function.ts), so a build whose
 * data alone changed never starts esbuild; the gallery's holds its files. Each file's sha256
 * is checked before use: the cache is trusted by content only.
 */
const GENERATED = cacheMemo('generated.json', (value): value is GeneratedGroup[] => Array.isArray(value));

/** Output-relative path → the file's text and its sha256. */
type GeneratedFiles = Record<string, { text: string; sha256: string }>;
interface GeneratedGroup {
  key: string;
  files: GeneratedFiles;
}

/** What the generated files are made from: the build context and the data module's text. */
export interface GeneratorInputs {
  cacheDir: string;
  context: string;
  dataModule: string;
}

const BUNDLE = 'functions/pepe.mjs';

export interface GeneratedExtras {
  /** Output-relative paths written into the staging folder. */
  paths: string[];
  /** How each group was had: from the cache or made now. */
  reused: { bundle: boolean; gallery: boolean };
  /** Saves what was made now into the cache (after the output is written: a cache failure is only warned about). */
  save: () => Promise<void>;
}

/** The group saved under `key`, when every file in it still has its recorded sha256. */
function usableGroup(saved: GeneratedGroup[], key: string): GeneratedFiles | null {
  const group = saved.find((entry) => entry !== null && typeof entry === 'object' && entry.key === key);
  if (!group || group.files === null || typeof group.files !== 'object') return null;
  const files = Object.values(group.files);
  return files.length > 0 && files.every((file) => typeof file?.text === 'string' && sha256Of(file.text) === file.sha256) ? group.files : null;
}

function writeGroup(stagingDir: string, files: GeneratedFiles): string[] {
  const paths = Object.keys(files).sort();
  for (const path of paths) {
    const target = join(stagingDir, path);
    makeFoldersSync(dirname(target));
    writeFileSync(target, files[path]!.text);
  }
  return paths;
}

function readGroup(stagingDir: string, paths: string[]): GeneratedFiles {
  const files: GeneratedFiles = {};
  for (const path of paths) {
    const text = readFileSync(join(stagingDir, path), 'utf8');
    files[path] = { text, sha256: sha256Of(text) };
  }
  return files;
}

const bundleKeyOf = (context: string): string => sha256Of(`bundle template\n${context}`);

/**
 * Loads esbuild ahead of `generateExtras` when this code's bundle template is not saved: a
 * build whose code is as before fills the saved template and never needs it.
 */
export async function loadBundlerIfNeeded(cacheDir: string, context: string): Promise<void> {
  const saved = (await GENERATED.load(cacheDir)) ?? [];
  if (usableGroup(saved, bundleKeyOf(context))?.[BUNDLE] === undefined) await loadEsbuild();
}

/**
 * Writes `functions/pepe.mjs` (from `data/catalogue.mjs`) and the gallery into a staging
 * output folder: from the build cache when `inputs` match a saved group, else made by esbuild.
 */
export async function generateExtras(stagingDir: string, inputs: GeneratorInputs): Promise<GeneratedExtras> {
  const saved = (await GENERATED.load(inputs.cacheDir)) ?? [];
  const bundleKey = bundleKeyOf(inputs.context);
  const galleryKey = sha256Of(`gallery\n${inputs.context}`);
  const cachedBundle = usableGroup(saved, bundleKey);
  const cachedGallery = usableGroup(saved, galleryKey);
  // Both run esbuild, which bundles on its own threads: side by side rather than one after the other.
  // Both settle before a failure is reported: the caller deletes the staging folder then, and the other must not write into it again.
  // A cached group is written synchronously, but inside an async function: a full disk then rejects its promise instead of throwing past the other one, which would be left running unawaited.
  const writeCached = async (files: GeneratedFiles) => writeGroup(stagingDir, files);
  const template = cachedBundle?.[BUNDLE]?.text;
  let made: GeneratedFiles | null = null;
  const [bundled, galleried] = await Promise.allSettled([
    template !== undefined
      ? writeCached({ [BUNDLE]: { text: fillBundle(template, inputs.dataModule), sha256: '' } })
      : bundleFunction({ distDir: stagingDir }).then((bundle) => {
          made = { [BUNDLE]: { text: bundle.template, sha256: sha256Of(bundle.template) } };
          return [relative(stagingDir, bundle.file).split(sep).join('/')];
        }),
    cachedGallery ? writeCached(cachedGallery) : writeGalleryIfPresent(stagingDir),
  ]);
  if (bundled.status === 'rejected') throw bundled.reason;
  if (galleried.status === 'rejected') throw galleried.reason;
  const groups: GeneratedGroup[] = [
    { key: bundleKey, files: template !== undefined ? cachedBundle! : made! },
    { key: galleryKey, files: cachedGallery ?? readGroup(stagingDir, galleried.value) },
  ];
  const reused = { bundle: template !== undefined, gallery: cachedGallery !== null };
  const save = async () => {
    // A gallery-less checkout has no gallery group to keep.
    const kept = groups.filter((group) => Object.keys(group.files).length > 0);
    if (reused.bundle && reused.gallery && saved.length === kept.length) return;
    await GENERATED.save(inputs.cacheDir, kept);
  };
  return { paths: [...bundled.value, ...galleried.value], reused, save };
}

/** The gallery is optional for the API: built when its module is part of the checkout. */
async function writeGalleryIfPresent(stagingDir: string): Promise<string[]> {
  if (!existsSync(GALLERY_MODULE)) return [];
  // A literal specifier, so that the CLI's bundle (tools/cli/compiled-cli.mjs) includes it as a lazy chunk.
  const gallery = await import('../gallery/write-gallery.js');
  const { files } = await gallery.writeGallery(join(stagingDir, 'site'));
  return files.map((file) => `site/${file.split(sep).join('/')}`);
}

/**
 * Synchronous on purpose: small files read one `await readFile` after another pay four round
 * trips through the thread pool each (open, stat, read, close); every build, the no-change one
 * included, waits for this hash.
 */
function generatorSourcesHash(): string {
  const hash = createHash('sha256');
  const paths = fg.sync(GENERATOR_SOURCES, { cwd: REPO_ROOT, ignore: ['**/*.test.ts', '**/node_modules/**'] }).sort();
  for (const path of paths) hash.update(`${path}\n`).update(readFileSync(join(REPO_ROOT, path))).update('\n');
  return hash.digest('hex');
}

export interface BuildInputs {
  /** A hash of everything that determines the output folder's bytes. */
  fingerprint: string;
  /** A hash of the URLs and the generator code: what every output file depends on besides the records. */
  context: string;
  /** Record id → digest of the record and of its image's key (its bytes' and renditions' hashes): what its by-id files are made of. */
  recordDigests: Map<string, string>;
}

/** A hash of the URLs, the generator code and any chunk shapes set: what every output file depends on besides the records. */
export function buildContext(urls: SiteUrls, chunks?: object): string {
  return sha256Of(`${JSON.stringify(urls)}\n${generatorSourcesHash()}${chunks === undefined ? '' : `\n${JSON.stringify(chunks)}`}`);
}

/** What a change build knows of the last build's digests (its pairs): their sum and count, the digests of the rows it read again or lost, and how many items it read. */
export interface DigestsBefore {
  sum: string;
  count: number;
  gone: readonly string[];
  read: number;
}

/**
 * Hashes of everything that determines the output folder's bytes: the records (each item's,
 * with its thumbnails), each image's content hash, and `context` (the URLs and the code that
 * turns them into files). Computed before compiling, so a rebuild with nothing changed skips
 * compiling, bundling and writing. A record's digest covers its image's key (`imageKey`: the
 * bytes' and the renditions' hashes), the files it has in site/images. An item a change build
 * took from the last build keeps that build's digest while its thumbnails are as then (its
 * renditions come from the same source bytes under the same settings): only the records read are hashed.
 * The fingerprint hashes the context, the count and the digests' sum (`digestSum`): order-free,
 * so a change build moves the last build's sum (`before`) by the digests that changed instead of
 * hashing a line per record. `rehashed`: the indexes of the items whose digest is not the one
 * taken over, so that the stages after it visit only those.
 */
export function buildInputs(items: readonly AnalysedItem[], imageKey: (item: AnalysedItem) => string, context: string, before?: DigestsBefore): BuildInputs & { digestSum: string; rehashed: number[] } {
  const recordDigests = new Map<string, string>();
  // The digests that changed (added, less those they replace).
  const moved = new Uint32Array(8);
  const rehashed: number[] = [];
  for (let index = 0; index < items.length; index++) {
    const item = items[index]!;
    const { record } = item;
    const keeps = keepsDigest(item);
    const digest = keeps ? item.previous!.digest : sha256Of(`${JSON.stringify(record)} ${imageKey(item)}`);
    recordDigests.set(record.id, digest);
    if (keeps) continue;
    rehashed.push(index);
    addDigest(moved, digest, 1);
    if (item.previous !== undefined) addDigest(moved, item.previous.digest, -1);
  }
  // The last build's sum moves when the items are its pairs less those read again or gone, plus those read; else it is made afresh.
  let sum: Uint32Array = new Uint32Array(8);
  if (before !== undefined && before.count - before.gone.length + before.read === items.length) {
    sum = sumWords(before.sum);
    for (let i = 0; i < 8; i++) sum[i] = sum[i]! + moved[i]!;
    for (const digest of before.gone) addDigest(sum, digest, -1);
  } else for (const digest of recordDigests.values()) addDigest(sum, digest, 1);
  const digestSum = Array.from(sum, (word) => word.toString(16).padStart(8, '0')).join('');
  return { fingerprint: sha256Of(`${context}\n${items.length}\n${digestSum}`), context, recordDigests, digestSum, rehashed };
}

/** `sum` plus (or less) a hex sha256, lane by lane modulo 2³² (a digest covers its image's sha256: `imageKey`). */
function addDigest(sum: Uint32Array, digest: string, sign: 1 | -1): void {
  for (let i = 0; i < 8; i++) sum[i] = sum[i]! + sign * Number.parseInt(digest.slice(8 * i, 8 * i + 8), 16);
}

const sumWords = (hex: string): Uint32Array => Uint32Array.from({ length: 8 }, (_, i) => Number.parseInt(hex.slice(8 * i, 8 * i + 8), 16));

/** Whether `buildInputs` gives the item the digest it was taken over with (so its record is as the last build saved it). */
const keepsDigest = (item: AnalysedItem): boolean => item.previous !== undefined && sameThumbnails(item.previous.thumbnails, item.record.thumbnails);

function sameThumbnails(a: PepeRecord['thumbnails'], b: PepeRecord['thumbnails']): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  return a.every((x, i) => x.file_name === b[i]!.file_name && x.width === b[i]!.width && x.height === b[i]!.height && x.type === b[i]!.type);
}
