/**
 * `pepe add` as a library function: imports image files into the content folder, each with a
 * URL-safe name and a new sidecar; an image already inside the content folder keeps its place
 * and name and only gets its sidecar. All or nothing: every file is validated first (format,
 * decode, near-duplicates against the catalogue and each other) and if anything is refused,
 * nothing is written.
 */
import { randomUUID } from 'node:crypto';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { basename, extname, join, relative, resolve, sep } from 'node:path';
import { findNearDuplicates } from '../dupes/near-duplicates.js';
import { FEATURE_VERSION, analyseImage } from '../image/analyse-image.js';
import { type AnalyseFn, LIMITS, analyseContent, defaultCacheDir } from './analyse-content.js';
import { FeatureCache } from './feature-cache.js';
import { dupeItems } from './near-duplicate-problems.js';
import { folderProblem } from './file-in-the-way.js';
import { error, type Problem, warning } from '../shared/problems.js';
import { CONTENT_IMAGE_EXTS } from './scan-content.js';
import { SidecarSchema, normaliseDescription, normaliseTags } from './sidecar.js';
import { slugify, uniqueSlug } from './slug.js';
import { checkInto, inPlaceProblem, intoCaseProblem, intoSymlinkProblem, isInside } from './add-checks.js';
import { makeFolders } from '../shared/make-folders.js';
import { unwritableFolder } from './write-access.js';
import { type NewFile, writeNewFiles } from './write-new-files.js';

/** Re-exported: the CLI checks --into before any work. */
export { checkInto } from './add-checks.js';

export interface AddImagesOptions {
  contentDir: string;
  /** Source image paths (absolute, or relative to the process's cwd); one inside the content folder is adopted where it is. */
  files: string[];
  /** Subfolder of the content folder to copy into (created if needed). */
  into?: string;
  tags?: string[] | null;
  description?: string | null;
  /** Import near-duplicates anyway. */
  force?: boolean;
  cacheDir?: string;
  analyse?: AnalyseFn;
  /** For tests: the clock and the id source. */
  now?: () => Date;
  newId?: () => string;
}

export interface AddedImage {
  source: string;
  /** Content-relative paths written. */
  file: string;
  sidecar: string;
  id: string;
}

export interface AddResult {
  ok: boolean;
  added: AddedImage[];
  problems: Problem[];
}

export async function addImages(options: AddImagesOptions): Promise<AddResult> {
  const contentDir = resolve(options.contentDir);
  const intoProblem =
    checkInto(options.into) ??
    folderProblem('content-missing', 'the content folder', contentDir, 'pass --content with the folder that holds the images') ??
    // Never created here: a mistyped --content would start a second catalogue unnoticed.
    (existsSync(contentDir) ? null : error('content-missing', `the content folder "${contentDir}" does not exist: pass --content with the catalogue's folder, or create it first for a new catalogue`)) ??
    folderProblem('bad-into', `--into "${options.into}": the folder`, join(contentDir, options.into ?? ''), 'choose another --into') ??
    // Builds never follow a symlinked folder: the images would land outside the catalogue.
    intoSymlinkProblem(contentDir, options.into) ??
    // `--into Moods` beside `moods/`: one folder on macOS and Windows.
    intoCaseProblem(contentDir, options.into);
  if (intoProblem) return { ok: false, added: [], problems: [intoProblem] };
  const cacheDir = options.cacheDir ?? defaultCacheDir(contentDir);
  const analyse = options.analyse ?? analyseImage;
  const problems: Problem[] = [];

  // 1. Validate every source image.
  const candidates = [];
  for (const source of options.files) {
    const abs = resolve(source);
    const info = await stat(abs).catch(() => null);
    if (!info?.isFile()) {
      problems.push(error('source-missing', `"${source}" is not a file: check the path`));
      continue;
    }
    // An image already inside the content folder (what a missing-sidecar error suggests) keeps
    // its place and name: only its sidecar is written, beside it.
    const inPlace = isInside(contentDir, abs);
    if (inPlace) {
      const sidecarPath = `${abs.slice(0, abs.length - extname(abs).length)}.json`;
      const problem = inPlaceProblem(contentDir, abs, sidecarPath, source);
      if (problem) {
        problems.push(problem);
        continue;
      }
    }
    if (info.size > LIMITS.maxFileBytes) {
      problems.push(error('file-too-large', `"${source}" is ${(info.size / 1048576).toFixed(1)} MB, over the ${LIMITS.maxFileBytes / 1048576} MB limit: export it smaller`));
      continue;
    }
    const bytes = await readFile(abs);
    const result = await analyse(bytes, { maxPixels: LIMITS.maxPixels, maxFrames: LIMITS.maxFrames, maxTotalPixels: LIMITS.maxTotalPixels, timeoutMs: LIMITS.timeoutMs });
    if (!result.ok) {
      problems.push(error(result.code, `"${source}": ${result.message}`));
      continue;
    }
    candidates.push({ source, abs, inPlace, bytes, result, id: (options.newId ?? randomUUID)().toLowerCase() });
  }
  if (problems.length > 0) return { ok: false, added: [], problems };

  // 2. Near-duplicates against the catalogue and among the new images.
  // A cache this user cannot write (a read-only checkout) is read, not updated: it only saves time.
  const writeCache = unwritableFolder([cacheDir]) === null;
  const existing = await analyseContent({ contentDir, cacheDir, analyse, writeCache });
  const newItems = candidates.map((c) => ({ id: c.id, file: c.source, phash: c.result.phash, thumb: c.result.thumb.rgb, width: c.result.width, height: c.result.height, distinctFrom: [] as string[] }));
  const newIds = new Set(newItems.map((i) => i.id));
  const pairs = (await findNearDuplicates([...dupeItems(existing.items), ...newItems])).filter((p) => newIds.has(p.a.id) || newIds.has(p.b.id));
  for (const pair of pairs) {
    const [mine, other] = newIds.has(pair.a.id) ? [pair.a, pair.b] : [pair.b, pair.a];
    const where = newIds.has(other.id) ? `${other.file}, also in this import` : `${other.file} (id ${other.id}) already in the catalogue`;
    const text = `"${mine.file}" looks like the same picture as ${where} (distance ${pair.distance})`;
    // With --force the pair is imported and stays visible (build warns, check fails until distinct_from says otherwise).
    problems.push(
      options.force
        ? warning('near-duplicate', `${text}: imported anyway (--force); add "distinct_from" to a sidecar if they are knowingly different`)
        : error('near-duplicate', `${text}: skip it, or pass --force to import it anyway`),
    );
  }
  if (!options.force && pairs.length > 0) return { ok: false, added: [], problems };

  // 3. Choose names, then write image + sidecar for each (never overwriting anything).
  const folder = join(contentDir, options.into ?? '');
  const chosen = new Set<string>();
  // Names compared ignoring case: `frog.png` beside an existing `Frog.png` is one file on macOS
  // and Windows checkouts (a case-collision error in every build).
  const present = new Set((existsSync(folder) ? readdirSync(folder) : []).map((name) => name.toLowerCase()));
  const taken = (slug: string) =>
    chosen.has(slug) || present.has(`${slug}.json`) || [...CONTENT_IMAGE_EXTS].some((ext) => present.has(`${slug}${ext}`));
  const now = (options.now ?? (() => new Date()))().toISOString();
  const added: AddedImage[] = [];
  const files: NewFile[] = [];
  const cache = await FeatureCache.load(cacheDir, FEATURE_VERSION);
  const rel = (p: string) => relative(contentDir, p).split(sep).join('/');
  const writeFailed = (path: string, cause: NodeJS.ErrnoException) =>
    error('write-failed', `could not write "${rel(path)}" (${cause.code ?? cause.message}): make the folder writable or free some space, then run the command again`);
  let createdFolder: string | undefined;
  try {
    createdFolder = await makeFolders(folder);
  } catch (cause) {
    return { ok: false, added: [], problems: [writeFailed(folder, cause as NodeJS.ErrnoException)] };
  }
  for (const c of candidates) {
    const sidecar = SidecarSchema.parse({ id: c.id, description: normaliseDescription(options.description ?? null), tags: normaliseTags(options.tags ?? null), created_at: now });
    let imagePath = c.abs;
    let sidecarPath = `${c.abs.slice(0, c.abs.length - extname(c.abs).length)}.json`;
    if (!c.inPlace) {
      const slug = uniqueSlug(slugify(basename(c.source, extname(c.source))), taken);
      chosen.add(slug);
      imagePath = join(folder, `${slug}${c.result.ext}`);
      sidecarPath = join(folder, `${slug}.json`);
      files.push({ path: imagePath, data: c.bytes });
    }
    files.push({ path: sidecarPath, data: `${JSON.stringify(sidecar, null, 2)}\n` });
    added.push({ source: c.source, file: rel(imagePath), sidecar: rel(sidecarPath), id: c.id });
  }
  // All or nothing, also on a failed write (read-only folder, full disk) or Ctrl-C.
  const written = await writeNewFiles(files);
  if (!written.ok) {
    // The --into folder this call created is empty again: it goes too.
    if (createdFolder) await rm(createdFolder, { recursive: true, force: true });
    const problem =
      written.reason === 'interrupted'
        ? error('interrupted', `stopped by ${written.signal} before anything was written: run the command again to add the images`)
        : writeFailed(written.path, written.cause);
    // Alone: the --force warnings so far say "imported anyway", and nothing was.
    return { ok: false, added: [], problems: [problem] };
  }
  for (const c of candidates) {
    // Prime the feature cache so the next build does not decode the image again.
    const r = c.result;
    cache.setFeatures(createHash('sha256').update(c.bytes).digest('hex'), { format: r.format, ext: r.ext, mime: r.mime, width: r.width, height: r.height, phash: r.phash, blurhash: r.blurhash, animated: r.animated, thumb: r.thumb.rgb });
  }
  // The images are in: a cache that cannot be written only costs the next build a decode.
  const notSaved = !writeCache
    ? 'not writable for this user'
    : await cache.save({ prune: false }).then(
        () => null,
        (cause: NodeJS.ErrnoException) => cause.code ?? cause.message,
      );
  const saved = notSaved === null ? null : warning('cache-not-written', `the build cache "${cacheDir}" could not be updated (${notSaved}): the next build analyses the new images again`);
  return { ok: true, added, problems: saved ? [...problems, saved] : problems };
}
