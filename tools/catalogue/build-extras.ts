/**
 * The generated parts of the output that other modules produce (the function bundle, the
 * gallery page), and the fingerprint that lets a rebuild with nothing changed skip them.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import type { PepeRecord, SiteUrls } from '../../functions/core/record.js';
import { recordDigest } from './answer-digests.js';
import { bundleFunction } from './bundle-function.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * Everything whose change can change the build's result: answers and data (functions/core),
 * layout (tools/build), image analysis and near-duplicates (their results are cached by file
 * stat, and the no-change fast path of unchanged-content.ts skips them), bundle, gallery.
 */
const GENERATOR_SOURCES = ['functions/**/*.ts', 'tools/catalogue/**/*.ts', 'tools/image/**/*.ts', 'tools/dupes/**/*.ts', 'tools/gallery/**', 'package-lock.json'];
const GALLERY_MODULE = join(REPO_ROOT, 'tools', 'gallery', 'write-gallery.ts');

/**
 * Writes `functions/pepe.mjs` (from `data/catalogue.mjs`) and the gallery into a staging
 * output folder; returns the output-relative paths written (so nobody has to walk the tree).
 */
export async function generateExtras(stagingDir: string): Promise<string[]> {
  // Both run esbuild, which bundles on its own threads: side by side they take ~40 ms instead of ~60.
  // Both settle before a failure is reported: the caller deletes the staging folder then, and the other must not write into it again.
  const [bundled, galleried] = await Promise.allSettled([bundleFunction({ distDir: stagingDir }), writeGalleryIfPresent(stagingDir)]);
  if (bundled.status === 'rejected') throw bundled.reason;
  if (galleried.status === 'rejected') throw galleried.reason;
  const [bundle, gallery] = [bundled.value, galleried.value];
  return [relative(stagingDir, bundle.file).split(sep).join('/'), ...gallery];
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
 * Synchronous on purpose: ~100 small files read one `await readFile` after another cost
 * 70–90 ms of round trips through the thread pool (four each: open, stat, read, close),
 * against ~5 ms read in a row; every build, the no-change one included, waits for this hash.
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
  /** Record id → digest of the record. */
  recordDigests: Map<string, string>;
}

/** A hash of the URLs and the generator code: what every output file depends on besides the records. */
export function buildContext(urls: SiteUrls): string {
  return createHash('sha256').update(`${JSON.stringify(urls)}\n${generatorSourcesHash()}`).digest('hex');
}

/**
 * Hashes of everything that determines the output folder's bytes: the records, each image's
 * content hash, and `context` (the URLs and the code that turns them into files). Computed
 * before compiling, so a rebuild with nothing changed skips compiling, bundling and writing.
 */
export function buildInputs(records: PepeRecord[], imageHashes: Map<string, string>, context: string): BuildInputs {
  // One string, one hash call for the fingerprint: 10k `update` calls cost more than the hashing itself.
  const lines = [context];
  const recordDigests = new Map<string, string>();
  for (const record of records) {
    const json = JSON.stringify(record);
    recordDigests.set(record.id, recordDigest(json));
    lines.push(`${json} ${imageHashes.get(record.id)}`);
  }
  return { fingerprint: createHash('sha256').update(lines.join('\n')).digest('hex'), context, recordDigests };
}
