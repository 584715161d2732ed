/**
 * `dist/manifest.json`: every output file with its sha256 and size, the catalogue version
 * (a hash over those lines), counts and the settings the build baked in. Publishing diffs
 * against it; the build reuses unchanged files from it.
 */
import { hash } from 'node:crypto';
import { join } from 'node:path';
import type { SiteUrls } from '../../functions/core/record.js';
import { NotAFileError, readRegularFile, readRegularFileSync } from './read-regular-file.js';

export const MANIFEST_FILE = 'manifest.json';

export interface ManifestEntry {
  sha256: string;
  size: number;
}

export interface Manifest {
  format: 1;
  version: string;
  settings: SiteUrls;
  counts: { records: number; images: number; files: number };
  files: Record<string, ManifestEntry>;
}

/** JSON with object keys sorted at every level, 2-space indent, trailing newline: byte-stable. */
export function stableJson(value: unknown): string {
  const sortKeys = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
    }
    return v;
  };
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

/**
 * Keys in code-unit order (what `.sort()` yields), sorting only when they are not already:
 * checking 30k keys is ~20× cheaper than sorting them. Sorted with `<` rather than by
 * `.sort()`'s default comparison, which converts both sides with ToString first: the 30k
 * output paths of a 10k build (images in content order, then the answers) take 8–12 ms
 * against 20–28 ms in a fresh process. Same order: `<` on strings compares code units too.
 */
function sortedKeys(keys: string[]): string[] {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return keys.sort(byCodeUnits);
  return keys;
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Strings that JSON.stringify leaves as they are between its quotes (printable ASCII, no `"` or `\\`): every path and hash a build makes. */
const PLAIN_JSON_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const jsonString = (text: string): string => (PLAIN_JSON_STRING.test(text) ? `"${text}"` : JSON.stringify(text));
/** A finite number prints the same through a template as through JSON.stringify (both use Number's toString). */
const jsonNumber = (value: number): string => (Number.isFinite(value) ? `${value}` : JSON.stringify(value));

/**
 * The `files` member exactly as manifest.json holds it (`JSON.stringify(files, null, 2)` one
 * level deep), from paths in order. One pass over 30k entries, no intermediate objects: this,
 * the version hash and the rest of the file cost about half of what building a sorted object,
 * a list of version lines and a copy for `JSON.stringify` did (~50 ms at 10k images). Quoting
 * plain strings with a template instead of 60k JSON.stringify calls halves it again (62 → 24 ms
 * for 30k entries, measured); the tests hold the text byte-equal to `stableJson`.
 */
function filesJson(paths: readonly string[], entryOf: (path: string) => ManifestEntry): string {
  if (paths.length === 0) return '{}';
  const members = new Array<string>(paths.length);
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i]!;
    const { sha256, size } = entryOf(path);
    members[i] = `    ${jsonString(path)}: {\n      "sha256": ${jsonString(sha256)},\n      "size": ${jsonNumber(size)}\n    }`;
  }
  return `{\n${members.join(',\n')}\n  }`;
}

/**
 * The hex sha256 the tools record and compare for bytes or text (UTF-8): a manifest entry, a
 * cache key, an object's `x-amz-meta-sha256`. One-shot `crypto.hash` (Node ≥ 20.12): ~3× faster
 * than createHash for the 20k small answer bodies of a 10k catalogue.
 */
export const sha256Of = (bytes: string | Uint8Array): string => hash('sha256', bytes, 'hex');

/**
 * The catalogue version: the sha256 of the `files` member of manifest.json, as written there
 * (paths sorted, each with its sha256 and size). Two builds with the same output files have
 * the same version, whatever else happened.
 */
export function catalogueVersion(files: Record<string, ManifestEntry>): string {
  return sha256Of(filesJsonOf(files));
}

/** `filesJson` of a manifest's `files` object (one parsed from disk, or built by hand). */
const filesJsonOf = (files: Record<string, ManifestEntry>): string => filesJson(sortedKeys(Object.keys(files)), (path) => files[path]!);

/** The text of `files` of manifests made by createManifest (never modified afterwards), so that manifestJson does not serialise them again. */
const filesTexts = new WeakMap<Manifest, string>();

export function createManifest(files: Map<string, ManifestEntry>, settings: SiteUrls, counts: { records: number; images: number }): Manifest {
  const paths = sortedKeys([...files.keys()]);
  const text = filesJson(paths, (path) => files.get(path)!);
  const manifest = {
    format: 1,
    version: sha256Of(text),
    settings: { baseUrl: settings.baseUrl, apiUrl: settings.apiUrl, cdnUrl: settings.cdnUrl },
    counts: { ...counts, files: files.size },
  } as Manifest;
  // The sorted object is made on first access only: a build needs the text, not the object.
  Object.defineProperty(manifest, 'files', {
    enumerable: true,
    configurable: true,
    get() {
      const sorted: Record<string, ManifestEntry> = {};
      for (const path of paths) sorted[path] = files.get(path)!;
      Object.defineProperty(manifest, 'files', { value: sorted, enumerable: true, writable: true, configurable: true });
      return sorted;
    },
  });
  filesTexts.set(manifest, text);
  return manifest;
}

/**
 * `stableJson(manifest)` without its generic key sorting (the manifest's keys have a fixed
 * order, and `files` is sorted by createManifest, so it is not sorted again). Tested
 * byte-equal to `stableJson`.
 */
export function manifestJson(manifest: Manifest): string {
  const { settings, counts } = manifest;
  const text = filesTexts.get(manifest) ?? filesJsonOf(manifest.files);
  // The files text goes where this placeholder is: the first string of the skeleton (counts are numbers).
  const placeholder = '\u0000files';
  const quotedPlaceholder = JSON.stringify(placeholder);
  const skeleton = JSON.stringify(
    {
      counts: { files: counts.files, images: counts.images, records: counts.records },
      files: placeholder,
      format: manifest.format,
      settings: { apiUrl: settings.apiUrl, baseUrl: settings.baseUrl, cdnUrl: settings.cdnUrl },
      version: manifest.version,
    },
    null,
    2,
  );
  const at = skeleton.indexOf(quotedPlaceholder);
  return `${skeleton.slice(0, at)}${text}${skeleton.slice(at + quotedPlaceholder.length)}\n`;
}

/** Whether two manifests agree on everything but `files` (format, version, settings, counts). */
export function sameHeader(a: Manifest, b: Manifest): boolean {
  const keys = (m: Manifest) => JSON.stringify([m.format, m.version, m.settings.baseUrl, m.settings.apiUrl, m.settings.cdnUrl, m.counts.records, m.counts.images, m.counts.files]);
  return keys(a) === keys(b);
}

const SHA256 = /^[0-9a-f]{64}$/;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

/** An empty, `.` or `..` segment (a leading `/` is an empty first one): one regexp test instead of a split, ~3× cheaper over 30k paths. */
const BAD_SEGMENT = /(?:^|\/)\.{0,2}(?:\/|$)/;
/** A path a build can have written: relative, no empty, `.` or `..` segment, not the manifest itself. */
const isOutputPath = (path: string): boolean => path !== MANIFEST_FILE && !BAD_SEGMENT.test(path);

/**
 * What is wrong with a parsed manifest.json, in words that follow the file's name, or null for
 * one `createManifest` could have made. The one check of build, serve and publish: each of
 * them used to check less (the build only `format` and that `files` was of type object, so
 * `"files": null` or a missing `settings` stopped it with a TypeError, and a `../` path would
 * have been removed from outside the output folder as a file the build no longer makes).
 */
export function manifestShapeError(value: unknown): string | null {
  if (!isObject(value)) return 'is not a JSON object';
  if (value.format !== 1) return `has format ${JSON.stringify(value.format)}, this version of pepe reads format 1`;
  if (typeof value.version !== 'string') return 'has no "version" string';
  const { settings, counts, files } = value;
  if (!isObject(settings) || typeof settings.baseUrl !== 'string' || typeof settings.apiUrl !== 'string' || typeof settings.cdnUrl !== 'string') return 'has no "settings" object with baseUrl, apiUrl and cdnUrl';
  if (!isObject(counts) || !isCount(counts.records) || !isCount(counts.images) || !isCount(counts.files)) return 'has no "counts" object with records, images and files';
  if (!isObject(files)) return 'has no "files" object';
  for (const path in files) {
    const entry = files[path] as { sha256?: unknown; size?: unknown } | null;
    if (typeof entry !== 'object' || entry === null || typeof entry.sha256 !== 'string' || !SHA256.test(entry.sha256) || !isCount(entry.size)) return `lists "${path}" without a valid {sha256, size}`;
    if (!isOutputPath(path)) return `lists an invalid path "${path}"`;
  }
  return null;
}

/** A manifest.json that is there but cannot be used; the message names the file and says what is wrong with it. */
export class UnusableManifestError extends Error {
  constructor(
    readonly file: string,
    /** In words that follow the file's name: 'is not valid JSON (…)', 'has no "files" object'. */
    readonly why: string,
  ) {
    super(`${file} ${why}`);
  }
}

/** null when reading `file` failed because there is none (no manifest); else throws UnusableManifestError saying why. */
function noManifestOrThrow(file: string, failure: unknown): null {
  const code = (failure as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return null;
  if (failure instanceof NotAFileError) throw new UnusableManifestError(file, `is ${failure.kind}, not a file`);
  throw new UnusableManifestError(file, code === 'EISDIR' ? 'is a folder, not a file' : `cannot be read (${code ?? String(failure)})`);
}

/** The manifest in `bytes` read from `file`, checked unless `trusted`; throws UnusableManifestError. */
function parseManifest(file: string, bytes: Buffer, trusted = false): Manifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new UnusableManifestError(file, 'is not valid JSON');
  }
  if (trusted) return parsed as Manifest;
  const why = manifestShapeError(parsed);
  if (why !== null) throw new UnusableManifestError(file, why);
  return parsed as Manifest;
}

/** `<outDir>/manifest.json` checked, or null when there is none; throws UnusableManifestError when it is there but not a build's manifest. */
export async function loadManifest(outDir: string, options: LoadManifestOptions = {}): Promise<Manifest | null> {
  const file = join(outDir, MANIFEST_FILE);
  const bytes = await readRegularFile(file).catch((failure: unknown) => noManifestOrThrow(file, failure));
  return bytes === null ? null : parseManifest(file, bytes, options.writtenByLastBuild?.() === true);
}

export interface LoadManifestOptions {
  /**
   * Asked after the read: whether the file still has the stat (size, mtime, ctime, inode) the
   * last build recorded when it wrote it. Then the bytes read are that build's own manifest,
   * and the shape check (~20 ms at 30k entries, on every build that changes the output) is
   * skipped; any edit since, by hand or by a tool, changes the ctime and so gets the check.
   */
  writtenByLastBuild?: () => boolean;
}

/** `loadManifest` for a synchronous caller. */
export function loadManifestSync(outDir: string): Manifest | null {
  const file = join(outDir, MANIFEST_FILE);
  let bytes: Buffer | null;
  try {
    bytes = readRegularFileSync(file);
  } catch (failure) {
    bytes = noManifestOrThrow(file, failure);
  }
  return bytes === null ? null : parseManifest(file, bytes);
}

/** `readManifest` for a lazy getter. */
export function readManifestSync(outDir: string): Manifest | null {
  try {
    return loadManifestSync(outDir);
  } catch {
    return null;
  }
}

/** The previous build's manifest, or null when there is none or it is not one of ours (`loadManifest` says why). */
export async function readManifest(outDir: string): Promise<Manifest | null> {
  return loadManifest(outDir).catch(() => null);
}
