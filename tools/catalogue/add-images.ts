/**
 * `pepe add` as a library function: imports image files into the content folder, each with a
 * URL-safe name and a new sidecar; an image already inside the content folder keeps its place
 * and name and only gets its sidecar. All or nothing: every file is validated first (format,
 * decode, near-duplicates against the catalogue and each other) and if anything is refused,
 * nothing is written.
 */
import { randomUUID, randomBytes } from 'node:crypto';
import { lstatSync, readdirSync, existsSync, linkSync, renameSync, rmSync } from 'node:fs';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { resolve, basename, extname, isAbsolute, normalize, relative, sep, dirname, join } from 'node:path';
import { findNearDuplicates } from '../dupes/near-duplicates.js';
import { FEATURE_VERSION, analyseImage } from '../image/analyse-image.js';
import { type AnalyseFn, LIMITS, analyseContent, defaultCacheDir } from './analyse-content.js';
import { FeatureCache } from './cache/feature-cache.js';
import { dupeItems } from './near-duplicate-problems.js';
import { folderProblem, CONTENT_IMAGE_EXTS, foldKey, pathBelow } from './scan-content.js';
import { type Problem, warning, error } from '../shared/problems.js';
import { SidecarSchema, normaliseDescription, normaliseTags, textFlagProblems } from './sidecar.js';
import { makeFolders } from '../shared/make-folders.js';
import { sha256Of } from '../shared/manifest.js';
import { unwritableFolder } from './write-access.js';
import { windowsNameFault, isWindowsDeviceName } from './windows-names.js';


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
  const textProblems = textFlagProblems(options.description ?? null, options.tags ?? null);
  if (textProblems.length > 0) return { ok: false, added: [], problems: textProblems };
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
  const newItems = candidates.map((c) => ({ id: c.id, file: c.source, phash: c.result.phash, thumb: c.result.thumb.rgb, texture: c.result.texture, width: c.result.width, height: c.result.height, distinctFrom: [] as string[] }));
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
    cache.setFeatures(sha256Of(c.bytes), { format: r.format, ext: r.ext, mime: r.mime, width: r.width, height: r.height, phash: r.phash, blurhash: r.blurhash, animated: r.animated, thumb: r.thumb.rgb, texture: r.texture });
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

// What `pepe add` checks about where it writes: `--into` and images adopted where they are in
// the content folder. Each refusal is a problem that says what to do; builds would otherwise
// reject what add wrote (hidden folders, symlinks, two images sharing one sidecar).
/** `--into` must stay inside the content folder and not be hidden (the scan ignores hidden folders). */
export function checkInto(into: string | undefined): Problem | null {
  if (into === undefined || into === '') return null;
  const clean = normalize(into);
  if (isAbsolute(into) || clean === '..' || clean.startsWith(`..${sep}`) || clean.split(sep).some((part) => part.startsWith('.') && part !== '.')) {
    return error('bad-into', `--into "${into}" must be a relative folder inside the content folder, without ".." or hidden parts`);
  }
  // "." and empty parts name no folder (`--into .` is the content folder itself).
  for (const part of clean.split(sep).filter((p) => p !== '' && p !== '.')) {
    const fault = windowsNameFault(part);
    if (fault) return error('bad-into', `--into "${into}": the folder "${part}": ${fault}, so a Windows checkout of the repository would fail: choose another name`);
  }
  return null;
}

export const isInside = (folder: string, path: string): boolean => {
  const rel = pathBelow(folder, path);
  return rel !== null && rel !== '';
};

/** The first of `rel`'s parts (e.g. `a`, `a/b`, `a/b/c.png`) that is a symlink below `contentDir`, or undefined. */
function symlinkOnTheWay(contentDir: string, rel: string): string | undefined {
  const parts = rel.split('/').filter((part) => part !== '' && part !== '.');
  return parts.map((_, at) => parts.slice(0, at + 1).join('/')).find((part) => lstatSync(join(contentDir, part), { throwIfNoEntry: false })?.isSymbolicLink());
}

/** The name an image and its sidecar share, as builds pair them (scan-content.ts `stemOf`): without the extension, in Unicode NFC. */
const pairingName = (name: string): string => basename(name, extname(name)).normalize('NFC');

/** Why an image inside the content folder cannot be given a sidecar where it is, or null. */
export function inPlaceProblem(contentDir: string, abs: string, sidecarPath: string, source: string): Problem | null {
  const rel = relative(contentDir, abs).split(sep).join('/');
  if (rel.split('/').some((part) => part.startsWith('.'))) {
    return error('bad-into', `"${source}" is in a hidden folder of the content folder, which builds ignore: move it out first`);
  }
  // Builds never follow a symlink in the content folder (the link itself or a folder on its
  // way): a sidecar beside one would be "added" and still refused by every build.
  const link = symlinkOnTheWay(contentDir, rel);
  if (link !== undefined) {
    const what = link === rel ? 'is a symlink' : `is inside "${link}", a symlinked folder`;
    return error('symlink', `"${source}" ${what} in the content folder, which builds never follow: replace the link with the real ${link === rel ? 'file' : 'folder'}, then run the command again`);
  }
  for (const part of rel.split('/')) {
    const fault = windowsNameFault(part);
    if (fault) return error('windows-invalid-name', `"${source}": ${part === basename(abs) ? '' : `the folder "${part}": `}${fault}, so a Windows checkout of the repository would fail: rename it first (git mv if it is committed)`);
  }
  if (!CONTENT_IMAGE_EXTS.has(extname(abs).toLowerCase())) {
    return error('unsupported-format', `"${source}" is inside the content folder with a "${extname(abs) || 'missing'}" extension that builds do not read: rename it to .png, .jpg, .gif, .webp or .avif first`);
  }
  // Builds read the extension in any letter case (`frog.JSON` is frog.png's sidecar too) and
  // the name in either Unicode form (`café.json` with "e" + U+0301 is café.png's).
  const sidecarName = basename(sidecarPath);
  const existing = existsSync(sidecarPath) ? sidecarName : readdirSync(dirname(sidecarPath)).find((name) => extname(name).toLowerCase() === '.json' && pairingName(name) === pairingName(sidecarName));
  if (existing !== undefined) {
    return error('already-in-catalogue', `"${source}" already has a sidecar (${relative(contentDir, join(dirname(sidecarPath), existing)).split(sep).join('/')}): edit that one instead`);
  }
  // `a.png` beside `a.jpg`: both would be described by the one `a.json` (a name-collision in every build).
  const stem = basename(abs, extname(abs));
  const twins = readdirSync(dirname(abs)).filter((name) => name !== basename(abs) && CONTENT_IMAGE_EXTS.has(extname(name).toLowerCase()) && pairingName(name) === pairingName(abs));
  if (twins.length > 0) {
    return error('name-collision', `"${source}" and ${twins.map((name) => `"${name}"`).join(', ')} beside it would share the sidecar "${stem}.json": rename one of them first`);
  }
  return null;
}

export function intoSymlinkProblem(contentDir: string, into: string | undefined): Problem | null {
  const link = into ? symlinkOnTheWay(contentDir, normalize(into).split(sep).join('/')) : undefined;
  return link === undefined ? null : error('bad-into', `--into "${into}": "${link}" is a symlink in the content folder, which builds never follow: choose a real folder`);
}

/**
 * A part of `--into` that is not in the content folder as typed but is there in another letter
 * case or Unicode form (`Moods` beside `moods/`): Linux would make a second folder, which
 * macOS and Windows checkouts merge into one (a case-collision error in every build as soon as
 * both hold a name). Refused, naming the folder's own spelling.
 */
export function intoCaseProblem(contentDir: string, into: string | undefined): Problem | null {
  if (!into) return null;
  const spelled: string[] = [];
  const parts = normalize(into).split(sep).filter((p) => p !== '' && p !== '.');
  for (const [at, part] of parts.entries()) {
    const here = join(contentDir, ...spelled);
    const names = existsSync(here) && lstatSync(here).isDirectory() ? readdirSync(here) : [];
    if (names.includes(part)) {
      spelled.push(part);
      continue;
    }
    const twin = names.filter((name) => foldKey(name) === foldKey(part)).sort()[0];
    if (twin === undefined) return null;
    const existing = [...spelled, twin].join('/');
    if (!lstatSync(join(here, twin)).isDirectory()) {
      return error('bad-into', `--into "${into}": the content folder already has the file "${existing}", which differs only in letter case (one name on macOS and Windows checkouts): choose another --into`);
    }
    const corrected = [...spelled, twin, ...parts.slice(at + 1)].join('/');
    return error(
      'bad-into',
      `--into "${into}": the content folder already has "${existing}", which differs only in letter case (one folder on macOS and Windows checkouts, and a case-collision error in every build): use --into "${corrected}"`,
    );
  }
  return null;
}

// URL-safe file names for imported images: accents folded (NFKD, marks removed), lowercase,
// anything but a-z 0-9 becomes one dash. Names stay readable in the content folder and never
// need escaping in a URL or a shell.
const MAX_SLUG_LENGTH = 60;

export function slugify(name: string, fallback = 'pepe'): string {
  const slug = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/, '');
  if (slug === '') return fallback;
  // `nul.png` is legal here but no Windows checkout can hold it (windows-names.ts).
  return isWindowsDeviceName(slug) ? `${slug}-${fallback}` : slug;
}

/** `base`, else `base-2`, `base-3`, … : the first for which `taken` says no. */
export function uniqueSlug(base: string, taken: (candidate: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken(candidate)) return candidate;
  }
}

// Writes a set of new files all or nothing, for `pepe add`: an image copied without its
// sidecar (or the first of two images without the second) is a half-done import that the
// next build reports as an error, and the user was told nothing was added.
// 1. Stage: every file is written whole to a hidden temporary name beside its destination
// (hidden, so a build ignores one left behind by a killed process; same folder, so the
// next step is a link within one filesystem).
// 2. Commit: each is hard-linked to its real name, which fails rather than overwrite a file
// that appeared meanwhile; any failure unlinks the names already made.
// Ctrl-C (SIGINT), SIGTERM and SIGHUP are held for the whole call: one that arrives while
// staging stops the call before the commit with nothing written; the commit itself is
// synchronous and short, so it completes.
export interface NewFile {
  path: string;
  data: string | Uint8Array;
}

export type WriteOutcome =
  | { ok: true }
  /** Nothing was written: `path` is the file that failed and `cause` the system error. */
  | { ok: false; reason: 'failed'; path: string; cause: NodeJS.ErrnoException }
  /** Nothing was written: a signal arrived before the commit. */
  | { ok: false; reason: 'interrupted'; signal: NodeJS.Signals };

const HELD_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

const removeAll = (paths: string[]): void => {
  for (const path of paths) rmSync(path, { force: true });
};

/** Errors of a filesystem without hard links (some network and FAT-style mounts). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/** `temporary` → `path`, never replacing an existing file. */
function commitOne(temporary: string, path: string): void {
  try {
    linkSync(temporary, path);
  } catch (cause) {
    if (!NO_HARD_LINKS.has((cause as NodeJS.ErrnoException).code ?? '')) throw cause;
    // No hard links here: a rename, which would replace, after checking nothing is there.
    if (existsSync(path)) throw Object.assign(new Error(`EEXIST: file already exists, '${path}'`), { code: 'EEXIST' });
    renameSync(temporary, path);
  }
}

export async function writeNewFiles(files: readonly NewFile[]): Promise<WriteOutcome> {
  let signal: NodeJS.Signals | null = null;
  const hold = (received: NodeJS.Signals) => {
    signal ??= received;
  };
  for (const name of HELD_SIGNALS) process.on(name, hold);
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const staged: string[] = [];
  const committed: string[] = [];
  try {
    for (const [index, file] of files.entries()) {
      // Short whatever the real name: a name that just fits the 255-byte limit must still be writable.
      const temporary = join(dirname(file.path), `.pepe-add-${tag}-${index}.tmp`);
      try {
        await writeFile(temporary, file.data, { flag: 'wx' });
        staged.push(temporary);
      } catch (cause) {
        // A partly written temporary (disk full) is removed too.
        removeAll([...staged, temporary]);
        return { ok: false, reason: 'failed', path: file.path, cause: cause as NodeJS.ErrnoException };
      }
      if (signal) break;
    }
    if (signal) {
      removeAll(staged);
      return { ok: false, reason: 'interrupted', signal };
    }
    for (const [index, file] of files.entries()) {
      try {
        commitOne(staged[index]!, file.path);
        committed.push(file.path);
      } catch (cause) {
        removeAll([...committed, ...staged]);
        return { ok: false, reason: 'failed', path: file.path, cause: cause as NodeJS.ErrnoException };
      }
    }
    removeAll(staged);
    return { ok: true };
  } finally {
    for (const name of HELD_SIGNALS) process.off(name, hold);
  }
}
