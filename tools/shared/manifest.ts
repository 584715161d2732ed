/**
 * The build manifest: every output file with its sha256 and size, split so that a change
 * rewrites only the parts it touches (as a git tree does).
 *
 * - `dist/manifest.json`, the root and commit point: `format: 5`, `version`, `settings`,
 *   `counts`, `segments` (the few segments of folders: key → `{sha256, files, bytes}`),
 *   `trees` (tree key → `{sha256, segments, bytes}`) and, when not empty, `delta`
 *   (`{files, net, parts}`, each part `{sha256, files, bytes}`). `version` is the sha256 of the `segments`, `trees` and
 *   `delta` members as written there.
 * - `dist/manifest/<sha256>.json`, one per tree: `{"segments": {key: {sha256, files, bytes}}}`,
 *   the id segments whose key starts with the tree's (`treeKeyOf`), so that the root stays a few
 *   KB and a change rewrites the trees of the segments it touches, as git's trees do.
 * - `dist/manifest/<sha256>.json`, one per segment: `{"files": {path: {sha256, size}}}`, keys
 *   sorted, one file a line. Trees and segments are named by the sha256 of their bytes, so never
 *   rewritten in place.
 * - `dist/manifest/<sha256>.json`, the delta's parts: `{"files": {path: {sha256, size} | null}}`,
 *   the per-record paths whose entry differs from their id segment's file (null: not there any
 *   more), so that a change touching a dozen id segments writes a small file or two instead of a
 *   segment and a tree each: `recent` and one part a build (`DELTA_RECENT_LINES`); a few
 *   segments a build are folded back (`DELTA_FOLD_FROM`).
 *
 * A path that holds a record id goes to the segment of the id's first `d` hex digits
 * (`segmentDigits`), any other to the segment of its top folders (`segmentKeyOf`).
 * In memory a root's `segments` holds every segment, its trees' included (`mergeTrees`), and
 * a manifest's entries are its segments' with the delta applied.
 */
import { hash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SiteUrls } from '../../functions/core/record.js';
import { NotAFileError, readRegularFile, readRegularFileSync } from './read-regular-file.js';

export const MANIFEST_FILE = 'manifest.json';
/** The folder of the segment files, beside the root. */
export const SEGMENT_FOLDER = 'manifest';
/** The output-relative path of the segment file with this sha256. */
export const segmentFile = (sha256: string): string => `${SEGMENT_FOLDER}/${sha256}.json`;

export interface ManifestEntry {
  sha256: string;
  size: number;
}

/** What the root says of one segment: its file's sha256 and size, and how many paths it lists. */
export interface SegmentRef {
  sha256: string;
  files: number;
  bytes: number;
}

export interface ManifestCounts {
  records: number;
  images: number;
  files: number;
}

/** What the root says of one tree: its file's sha256 and size, and how many segments it lists. */
export interface TreeRef {
  sha256: string;
  segments: number;
  bytes: number;
}

/**
 * What the root says of its delta (format 5): how many paths it lists, how many files it adds
 * to its segments' count (negative: removes), and its files (`DELTA_PARTS`): part `0`…`f` holds
 * lines of the id segments whose key starts with that digit, `recent` the newest lines, read
 * last; each named as a segment is.
 */
export interface DeltaRef {
  files: number;
  net: number;
  parts: Record<string, SegmentRef>;
}

/** The delta member of a format-4 root: one file. */
interface DeltaRef4 {
  sha256: string;
  files: number;
  bytes: number;
  net: number;
}

/** The delta's newest part; the others are named by the first hex digit of their segments' id. */
export const RECENT_PART = 'recent';
const DELTA_PART_KEY = /^(?:[0-9a-f]|recent)$/;
/** The delta part a line of id segment `key` goes to when its part is written. */
const partOf = (key: string): string => key.charAt(3);

/** A delta's lines: path → its entry, or null where the path's segment lists it and the manifest does not. */
export type DeltaLines = Map<string, ManifestEntry | null>;

/** `manifest.json` itself; `segments` also holds the trees' segments once they are read (`mergeTrees`). Format 3 (no delta) is read as written by earlier versions. */
export interface ManifestRoot {
  format: 3 | 4 | 5;
  version: string;
  settings: SiteUrls;
  counts: ManifestCounts;
  segments: Record<string, SegmentRef>;
  trees: Record<string, TreeRef>;
  delta?: DeltaRef;
}

/** A root with its segments' entries at hand. */
export interface Manifest extends ManifestRoot {
  /** Every listed file, sorted; assembled on first access (hot paths use `manifestEntry`). */
  readonly files: Record<string, ManifestEntry>;
}

type Entries = Map<string, ManifestEntry>;

/**
 * Segment key → its entries (the delta applied). A build's own manifest is read lazily
 * (`loadManifest` with `writtenByLastBuild`): each segment's file on first use, so that a change
 * reads the few segments it touches; the other accessors read them all.
 */
class Segments {
  constructor(
    private readonly read: Map<string, Entries>,
    /** Keys whose file is not read yet, and how to read one (shared by the manifests made from this one: an unread segment is the same in both). */
    private readonly unread: Set<string> = new Set(),
    private readonly load: (key: string) => Entries = (key) => {
      throw new Error(`manifest segment "${key}" has no reader`);
    },
  ) {}

  get(key: string): Entries | undefined {
    const entries = this.read.get(key);
    if (entries !== undefined || !this.unread.has(key)) return entries;
    const loaded = this.load(key);
    this.unread.delete(key);
    this.read.set(key, loaded);
    return loaded;
  }

  has(key: string): boolean {
    return this.read.has(key) || this.unread.has(key);
  }

  /** Whether the entries of `key` are at hand, so that a caller can take an unread segment for the one its ref names. */
  isRead(key: string): boolean {
    return this.read.has(key);
  }

  set(key: string, entries: Entries): void {
    this.unread.delete(key);
    this.read.set(key, entries);
  }

  delete(key: string): void {
    this.unread.delete(key);
    this.read.delete(key);
  }

  keys(): string[] {
    return [...this.read.keys(), ...this.unread];
  }

  /** Every segment's entries (reads those not read yet). */
  values(): Entries[] {
    for (const key of [...this.unread]) this.get(key);
    return [...this.read.values()];
  }

  get allRead(): boolean {
    return this.unread.size === 0;
  }

  copy(): Segments {
    return new Segments(new Map(this.read), new Set(this.unread), this.load);
  }
}

/**
 * Per manifest: its segments' entries (the delta applied), the entries of the segment file of
 * a key the delta changes (`base`), and the text of the segments, trees and delta this
 * process serialised (the ones to write).
 */
interface SegmentState {
  entries: Segments;
  base?: (key: string) => ReadonlyMap<string, ManifestEntry> | undefined;
  /** The keys whose entries the delta changes (so not the count their ref says). */
  deltaKeys?: ReadonlySet<string>;
  texts: Map<string, string>;
  treeTexts?: Map<string, string>;
  deltaTexts?: Map<string, string>;
}
const states = new WeakMap<ManifestRoot, SegmentState>();
/** The delta lines of a root whose trees were read (`mergeTrees`) or that `createManifest` made. */
const deltas = new WeakMap<ManifestRoot, DeltaLines>();
const NO_LINES: DeltaLines = new Map();

/** The lines of each delta part of a root whose trees were read or that `createManifest` made. */
const deltaPartLines = new WeakMap<ManifestRoot, ReadonlyMap<string, DeltaLines>>();
const NO_PARTS: ReadonlyMap<string, DeltaLines> = new Map();

/** The delta lines of a root read with its trees (none for a root without a delta): its parts applied in order, `recent` last. */
export const deltaOf = (root: ManifestRoot): DeltaLines => deltas.get(root) ?? NO_LINES;

/** The lines of each of the root's delta parts, by part key. */
export const deltaPartsOf = (root: ManifestRoot): ReadonlyMap<string, DeltaLines> => deltaPartLines.get(root) ?? NO_PARTS;

/** The delta files a root names: part key and ref, in reading order. */
export const deltaFiles = (root: ManifestRoot): [string, SegmentRef][] => (root.delta ? Object.entries(root.delta.parts).sort(([a], [b]) => byCodeUnits(a, b)) : []);

/** The lines the parts give read in order (`0`…`f`, then `recent`, which overrides). */
function mergedParts(parts: ReadonlyMap<string, DeltaLines>): DeltaLines {
  const merged: DeltaLines = new Map();
  for (const key of [...parts.keys()].sort(byCodeUnits)) for (const [path, entry] of parts.get(key)!) merged.set(path, entry);
  return merged;
}

/**
 * The delta in two levels, as an LSM tree's: a change writes its lines to the `recent` part; a
 * build rewrites the other parts `recent` holds most lines of (moving those lines there) until
 * `recent` lists at most `DELTA_RECENT_LINES`, and one a build once the delta lists more than
 * `DELTA_FOLD_FROM`; then the `DELTA_FOLD_PER_BUILD` id segments of those parts the delta
 * changes most fold back into their segment files, and as many as it takes to stay within
 * `DELTA_MAX_LINES` (~140 bytes a line). A change then uploads `recent` and a part (~1/16 of the
 * delta) rather than the whole delta; each fold costs a segment and a tree file.
 */
export const DELTA_FOLD_FROM = 512;
export const DELTA_FOLD_PER_BUILD = 2;
export const DELTA_MAX_LINES = 8192;
export const DELTA_RECENT_LINES = 256;

/**
 * Records per id segment at most: 256 (about 1,500–2,000 paths: an original, its renditions
 * and five documents each). The digits grow with the catalogue: 1 up to 4,096 records, 2 up to
 * 65,536, 3 up to 1,048,576, 4 beyond. Crossing a step re-keys (rewrites) every id segment once.
 */
export const RECORDS_PER_SEGMENT = 256;

export function segmentDigits(records: number): number {
  let digits = 1;
  while (records > RECORDS_PER_SEGMENT * 16 ** digits) digits++;
  return digits;
}

/**
 * The tree of a segment: `id:` and the first half of its digits (none for one digit), so the
 * root and each tree list about the same number of entries (at 3 digits: 256 trees of 16
 * segments, ~1.8 KB each, and a root of ~30 KB); null for a folder's segment, which the root lists itself.
 */
export function treeKeyOf(segmentKey: string): string | null {
  if (!segmentKey.startsWith('id:')) return null;
  const digits = segmentKey.length - 3;
  return `id:${segmentKey.slice(3, 3 + (digits === 1 ? 0 : Math.ceil(digits / 2)))}`;
}

/** The folders whose files are named by a record id (`<id>`, `<id>.json`, `<id><ext>`, `<id>-<width>w-<hash>.webp`): they go to id segments. */
export const ID_FOLDERS = ['site/images/', 'site/api/pepe/', 'site/v1/pepe/', 'site/api/similar/', 'site/api/listing/', 'site/p/', 'site/oembed/'] as const;
const ID_PATH = new RegExp(`^(?:${ID_FOLDERS.join('|')})([0-9a-fA-F]{8})-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?:[.-][^/]*)?$`);

/** The segment of every file named by record id `id` (no path to match: a planner counting a record's files calls this once a record). */
export const idSegmentKey = (id: string, digits: number): string => `id:${id.slice(0, digits).toLowerCase()}`;

/**
 * The segment of an output path: `id:<first digits of the id>` for a per-record file, else its
 * top folders: `site/<folder>` for a site file in a folder, `site` for one at the site's root,
 * `<folder>` for a build file (`data`, `functions`).
 */
export function segmentKeyOf(path: string, digits: number): string {
  const id = ID_PATH.exec(path);
  if (id) return idSegmentKey(id[1]!, digits);
  const first = path.indexOf('/');
  if (first < 0) return '.';
  if (path.startsWith('site/')) {
    const second = path.indexOf('/', first + 1);
    return second < 0 ? 'site' : path.slice(0, second);
  }
  return path.slice(0, first);
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

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Strings that JSON.stringify leaves as they are between its quotes (printable ASCII, no `"` or `\\`): every path and hash a build makes. */
const PLAIN_JSON_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const jsonString = (text: string): string => (PLAIN_JSON_STRING.test(text) ? `"${text}"` : JSON.stringify(text));
/** A finite number prints the same through a template as through JSON.stringify (both use Number's toString). */
const jsonNumber = (value: number): string => (Number.isFinite(value) ? `${value}` : JSON.stringify(value));

/** A segment file's text: its paths sorted (code units), one a line. */
export function segmentJson(entries: ReadonlyMap<string, ManifestEntry>): string {
  const paths = [...entries.keys()].sort(byCodeUnits);
  const lines = new Array<string>(paths.length);
  for (let i = 0; i < paths.length; i++) {
    const { sha256, size } = entries.get(paths[i]!)!;
    lines[i] = `${jsonString(paths[i]!)}:{"sha256":${jsonString(sha256)},"size":${jsonNumber(size)}}`;
  }
  return `{"files":{\n${lines.join(',\n')}\n}}\n`;
}

/** The `segments` member of a format-2 root (one segment a line), whose sha256 was its version. */
function segmentsJson(segments: Record<string, SegmentRef>): string {
  const keys = Object.keys(segments).sort(byCodeUnits);
  if (keys.length === 0) return '{}';
  const lines = keys.map((key) => {
    const { bytes, files, sha256 } = segments[key]!;
    return `    ${jsonString(key)}: {"bytes": ${jsonNumber(bytes)}, "files": ${jsonNumber(files)}, "sha256": ${jsonString(sha256)}}`;
  });
  return `{\n${lines.join(',\n')}\n  }`;
}

/** The root's own segments (not in a tree). */
function directSegments(segments: Record<string, SegmentRef>): Record<string, SegmentRef> {
  const own: Record<string, SegmentRef> = {};
  for (const key in segments) if (treeKeyOf(key) === null) own[key] = segments[key]!;
  return own;
}

/** The `trees` member exactly as manifest.json holds it (one tree a line). */
function treesJson(trees: Record<string, TreeRef>): string {
  const keys = Object.keys(trees).sort(byCodeUnits);
  if (keys.length === 0) return '{}';
  const lines = keys.map((key) => {
    const { bytes, segments, sha256 } = trees[key]!;
    return `    ${jsonString(key)}: {"bytes": ${jsonNumber(bytes)}, "segments": ${jsonNumber(segments)}, "sha256": ${jsonString(sha256)}}`;
  });
  return `{\n${lines.join(',\n')}\n  }`;
}

/** A tree file's text: its segments sorted (code units), one a line. */
export function treeJson(segments: Record<string, SegmentRef>): string {
  const lines = Object.keys(segments)
    .sort(byCodeUnits)
    .map((key) => {
      const { bytes, files, sha256 } = segments[key]!;
      return `${jsonString(key)}:{"bytes":${jsonNumber(bytes)},"files":${jsonNumber(files)},"sha256":${jsonString(sha256)}}`;
    });
  return `{"segments":{\n${lines.join(',\n')}\n}}\n`;
}

/** A delta file's text: its paths sorted (code units), one a line, null for a path gone. */
export function deltaJson(lines: ReadonlyMap<string, ManifestEntry | null>): string {
  const paths = [...lines.keys()].sort(byCodeUnits);
  const out = new Array<string>(paths.length);
  for (let i = 0; i < paths.length; i++) {
    const entry = lines.get(paths[i]!)!;
    out[i] = `${jsonString(paths[i]!)}:${entry === null ? 'null' : `{"sha256":${jsonString(entry.sha256)},"size":${jsonNumber(entry.size)}}`}`;
  }
  return `{"files":{\n${out.join(',\n')}\n}}\n`;
}

/** The `delta` member exactly as manifest.json holds it (one line; a format-4 root's as it was). */
function deltaRefJson(delta: DeltaRef | DeltaRef4): string {
  if (!('parts' in delta)) return `{"bytes": ${jsonNumber(delta.bytes)}, "files": ${jsonNumber(delta.files)}, "net": ${jsonNumber(delta.net)}, "sha256": ${jsonString(delta.sha256)}}`;
  const parts = Object.keys(delta.parts)
    .sort(byCodeUnits)
    .map((key) => {
      const { bytes, files, sha256 } = delta.parts[key]!;
      return `${jsonString(key)}: {"bytes": ${jsonNumber(bytes)}, "files": ${jsonNumber(files)}, "sha256": ${jsonString(sha256)}}`;
    });
  return `{"files": ${jsonNumber(delta.files)}, "net": ${jsonNumber(delta.net)}, "parts": {${parts.join(', ')}}}`;
}

/**
 * The hex sha256 the tools record and compare for bytes or text (UTF-8): a manifest entry, a
 * cache key, an object's `x-amz-meta-sha256`. One-shot `crypto.hash` (Node ≥ 20.12): ~3× faster
 * than createHash for the 20k small answer bodies of a 10k catalogue.
 */
export const sha256Of = (bytes: string | Uint8Array): string => hash('sha256', bytes, 'hex');

/** The catalogue version of a root: the sha256 of its `segments` (its own ones), `trees` and `delta` (when it has one) members as written. */
export const catalogueVersion = (root: Pick<ManifestRoot, 'segments' | 'trees'> & { delta?: DeltaRef | DeltaRef4 }): string =>
  sha256Of(`${segmentsJson(directSegments(root.segments))}\n${treesJson(root.trees)}${root.delta ? `\n${deltaRefJson(root.delta)}` : ''}`);

function withState(root: ManifestRoot, state: SegmentState): Manifest {
  const manifest = root as Manifest;
  states.set(root, state);
  Object.defineProperty(manifest, 'files', {
    enumerable: false,
    configurable: true,
    get() {
      const sorted: Record<string, ManifestEntry> = {};
      for (const path of manifestPaths(manifest).sort(byCodeUnits)) sorted[path] = manifestEntry(manifest, path)!;
      return sorted;
    },
  });
  return manifest;
}

const stateOf = (manifest: ManifestRoot): SegmentState => {
  const state = states.get(manifest);
  if (!state) throw new Error('manifest without its segments: read it with loadManifest or make it with createManifest');
  return state;
};

/**
 * The manifest of `files`. With `reuse`, the manifest is `reuse.previous` with the entries of
 * `reuse.changed` (paths written or removed since) taken from `files` (absent: removed), so
 * `files` need hold only those: a segment holding none of them is the previous one, its entries shared, not grouped, serialised nor hashed again; and
 * the changed paths of an id segment the previous manifest has go into the delta instead of a
 * new segment file and tree, a few segments being folded back a build (`DELTA_FOLD_FROM`).
 * Without `reuse` (a full build) there is no delta.
 */
export function createManifest(
  files: ReadonlyMap<string, ManifestEntry>,
  settings: SiteUrls,
  counts: { records: number; images: number },
  reuse?: { previous: Manifest | null; changed: Iterable<string> },
): Manifest {
  const digits = segmentDigits(counts.records);
  const derived = reuse?.previous ? states.get(reuse.previous) : undefined;
  const changedFrom = derived ? changedEntries(reuse!.previous!, derived, digits, files, reuse!.changed) : undefined;
  const entries = changedFrom?.entries ?? new Segments(groupedBySegment(files, digits));
  const previous = reuse?.previous ?? null;
  const previousState = previous === null ? undefined : states.get(previous);
  // The delta goes on over the same keys; a change of digits re-keys (writes) every segment.
  const carry = previous !== null && previousState !== undefined && segmentDigits(previous.counts.records) === digits;
  const lines: DeltaLines = new Map(carry ? deltaOf(previous) : []);
  const previousParts = carry ? deltaPartsOf(previous) : NO_PARTS;
  // Read first: reading a segment of the delta sets its base.
  const baseOf = (key: string): ReadonlyMap<string, ManifestEntry> | undefined => {
    const applied = previousState!.entries.get(key);
    return previousState!.base?.(key) ?? applied;
  };
  // An id segment the previous manifest has and this one keeps takes its changes in the delta; any other touched segment is written whole.
  const viaDelta = (key: string): boolean => carry && key.startsWith('id:') && previous.segments[key] !== undefined && entries.has(key);
  const touched = new Set<string>();
  for (const path of reuse?.changed ?? []) {
    const key = segmentKeyOf(path, digits);
    if (!viaDelta(key)) {
      touched.add(key);
      continue;
    }
    const was = baseOf(key)?.get(path);
    const now = entries.get(key)?.get(path);
    if (was === now || (was !== undefined && now !== undefined && was.sha256 === now.sha256 && was.size === now.size)) lines.delete(path);
    else lines.set(path, now ?? null);
  }
  const grouped = groupedBySegment(lines, digits);
  // Parts rewritten this build: those holding lines of a segment written whole, and the one drained.
  const rewritten = new Set<string>();
  const foldSegment = (key: string) => {
    touched.add(key);
    if (key.startsWith('id:') && previousParts.has(partOf(key))) rewritten.add(partOf(key));
    for (const path of grouped.get(key)!.keys()) lines.delete(path);
    grouped.delete(key);
  };
  for (const key of [...grouped.keys()]) if (touched.has(key) || !viaDelta(key)) foldSegment(key);
  // What `recent` would hold for each part kept as it is: the lines that differ from what the part file gives.
  const pendingOf = (part: string): DeltaLines => {
    const pending: DeltaLines = new Map();
    const file = previousParts.get(part) ?? NO_LINES;
    const base = (path: string): ManifestEntry | null => baseOf(segmentKeyOf(path, digits))?.get(path) ?? null;
    const same = (a: ManifestEntry | null, b: ManifestEntry | null) => a === b || (a !== null && b !== null && a.sha256 === b.sha256 && a.size === b.size);
    for (const [key, segment] of grouped) {
      if (partOf(key) !== part) continue;
      for (const [path, entry] of segment) if (!same(entry, file.has(path) ? file.get(path)! : base(path))) pending.set(path, entry);
    }
    for (const [path, entry] of file) if (!lines.has(path) && !same(entry, base(path))) pending.set(path, base(path));
    return pending;
  };
  const pending = new Map<string, DeltaLines>();
  for (const part of new Set([...[...grouped.keys()].map(partOf), ...previousParts.keys()])) if (part !== RECENT_PART && !rewritten.has(part)) pending.set(part, pendingOf(part));
  let recentSize = 0;
  for (const part of pending.values()) recentSize += part.size;
  // Drain the parts `recent` holds most lines of (else the largest) until it holds at most DELTA_RECENT_LINES, and one a build
  // once the delta is past DELTA_FOLD_FROM, folding there the segments the delta changes most.
  const linesOf = new Map<string, number>();
  for (const [key, segment] of grouped) linesOf.set(partOf(key), (linesOf.get(partOf(key)) ?? 0) + segment.size);
  const size = (part: string) => pending.get(part)?.size ?? 0;
  const order = [...linesOf.keys()].filter((part) => !rewritten.has(part)).sort((a, b) => size(b) - size(a) || linesOf.get(b)! - linesOf.get(a)! || byCodeUnits(a, b));
  const folding = lines.size > DELTA_FOLD_FROM;
  for (let i = 0; i < order.length && (recentSize > DELTA_RECENT_LINES || (folding && i === 0)); i++) {
    rewritten.add(order[i]!);
    recentSize -= size(order[i]!);
  }
  if (folding) {
    const densest = [...grouped.keys()].sort((a, b) => Number(rewritten.has(partOf(b))) - Number(rewritten.has(partOf(a))) || grouped.get(b)!.size - grouped.get(a)!.size || byCodeUnits(a, b));
    for (let i = 0; i < densest.length && ((i < DELTA_FOLD_PER_BUILD && rewritten.has(partOf(densest[i]!))) || lines.size > DELTA_MAX_LINES); i++) {
      rewritten.add(partOf(densest[i]!));
      foldSegment(densest[i]!);
    }
  }
  // The parts as written: each rewritten one holds its lines (those the segment file already gives dropped), `recent` the rest.
  const parts = new Map<string, DeltaLines>();
  const recent: DeltaLines = new Map();
  for (const [part, file] of previousParts) if (part !== RECENT_PART && !rewritten.has(part)) parts.set(part, file);
  for (const [part, moved] of pending) if (!rewritten.has(part)) for (const [path, entry] of moved) recent.set(path, entry);
  for (const [key, segment] of grouped) {
    const part = partOf(key);
    if (!rewritten.has(part)) continue;
    let into = parts.get(part);
    if (!into) parts.set(part, (into = new Map()));
    const base = baseOf(key);
    for (const [path, entry] of segment) {
      const was = base?.get(path) ?? null;
      if (!(entry === was || (entry !== null && was !== null && entry.sha256 === was.sha256 && entry.size === was.size))) into.set(path, entry);
    }
  }
  for (const [part, file] of parts) if (file.size === 0) parts.delete(part);
  if (recent.size > 0) parts.set(RECENT_PART, recent);
  lines.clear();
  for (const [path, entry] of mergedParts(parts)) lines.set(path, entry);
  const withLines = groupedBySegment(lines, digits);
  // The base of a segment the delta still changes is the previous one's, its file kept: found when asked.
  const base = (key: string) => (withLines.has(key) ? baseOf(key) : undefined);
  const segments: Record<string, SegmentRef> = {};
  const texts = new Map<string, string>();
  for (const key of [...entries.keys()].sort(byCodeUnits)) {
    const kept = previous !== null && !touched.has(key) ? previous.segments[key] : undefined;
    // A segment not read is one no change touched: the previous file.
    if (kept !== undefined && (withLines.has(key) || !entries.isRead(key) || kept.files === entries.get(key)!.size)) {
      segments[key] = kept;
      continue;
    }
    const text = segmentJson(entries.get(key)!);
    texts.set(key, text);
    segments[key] = { sha256: sha256Of(text), files: entries.get(key)!.size, bytes: Buffer.byteLength(text) };
  }
  // A tree whose segments are all the previous root's is the previous tree; the others are serialised, and written when the previous root lacks them.
  const members = new Map<string, Record<string, SegmentRef>>();
  const sameMembers = new Map<string, number>();
  for (const key in segments) {
    const tree = treeKeyOf(key);
    if (tree === null) continue;
    let refs = members.get(tree);
    if (!refs) members.set(tree, (refs = {}));
    refs[key] = segments[key]!;
    if (previous !== null && previous.segments[key] === segments[key]) sameMembers.set(tree, (sameMembers.get(tree) ?? 0) + 1);
  }
  const trees: Record<string, TreeRef> = {};
  const treeTexts = new Map<string, string>();
  for (const key of [...members.keys()].sort(byCodeUnits)) {
    const kept = previous?.trees[key];
    if (kept !== undefined && kept.segments === sameMembers.get(key) && Object.keys(members.get(key)!).length === kept.segments) {
      trees[key] = kept;
      continue;
    }
    const text = treeJson(members.get(key)!);
    const ref = { sha256: sha256Of(text), segments: Object.keys(members.get(key)!).length, bytes: Buffer.byteLength(text) };
    if (previous?.trees[key]?.sha256 !== ref.sha256) treeTexts.set(key, text);
    trees[key] = ref;
  }
  let delta: DeltaRef | undefined;
  const deltaTexts = new Map<string, string>();
  let total = 0;
  if (changedFrom !== undefined && !entries.allRead) total = previous!.counts.files + changedFrom.net;
  else for (const segment of entries.values()) total += segment.size;
  if (lines.size > 0) {
    let net = total;
    for (const key in segments) net -= segments[key]!.files;
    const refs: Record<string, SegmentRef> = {};
    for (const part of [...parts.keys()].sort(byCodeUnits)) {
      const kept = previous?.delta?.parts[part];
      if (kept !== undefined && parts.get(part) === previousParts.get(part)) {
        refs[part] = kept;
        continue;
      }
      const text = deltaJson(parts.get(part)!);
      const ref = { sha256: sha256Of(text), files: parts.get(part)!.size, bytes: Buffer.byteLength(text) };
      if (kept?.sha256 !== ref.sha256) deltaTexts.set(part, text);
      refs[part] = ref;
    }
    delta = { files: lines.size, net, parts: refs };
  }
  const root: ManifestRoot = {
    format: 5,
    version: catalogueVersion({ segments, trees, ...(delta ? { delta } : {}) }),
    settings: { baseUrl: settings.baseUrl, apiUrl: settings.apiUrl, cdnUrl: settings.cdnUrl },
    counts: { ...counts, files: total },
    segments,
    trees,
    ...(delta ? { delta } : {}),
  };
  if (delta) {
    deltas.set(root, lines);
    deltaPartLines.set(root, parts);
  }
  return withState(root, { entries, base, deltaKeys: new Set(withLines.keys()), texts, treeTexts, deltaTexts });
}

/** Entries by path (the files, or the delta's lines) grouped by segment key. */
function groupedBySegment<T>(entries: ReadonlyMap<string, T>, digits: number): Map<string, Map<string, T>> {
  const grouped = new Map<string, Map<string, T>>();
  for (const [path, entry] of entries) {
    const key = segmentKeyOf(path, digits);
    let segment = grouped.get(key);
    if (!segment) grouped.set(key, (segment = new Map()));
    segment.set(path, entry);
  }
  return grouped;
}

/**
 * The entries of `previous` (`state`) with those of `changed` set from `files` or removed: the
 * segments none of them falls in are the previous maps themselves (never written to once made);
 * a change of digits regroups every entry once.
 */
function changedEntries(previous: Manifest, state: SegmentState, digits: number, files: ReadonlyMap<string, ManifestEntry>, changed: Iterable<string>): { entries: Segments; net: number } {
  let entries: Segments;
  const copied = new Set<string>();
  // Files added less files removed.
  let net = 0;
  if (segmentDigits(previous.counts.records) === digits) entries = state.entries.copy();
  else {
    entries = new Segments(new Map());
    for (const segment of state.entries.values()) {
      segment.forEach((entry, path) => {
        const key = segmentKeyOf(path, digits);
        let into = entries.get(key);
        if (!into) {
          entries.set(key, (into = new Map()));
          copied.add(key);
        }
        into.set(path, entry);
      });
    }
  }
  for (const path of changed) {
    const key = segmentKeyOf(path, digits);
    let segment = entries.get(key);
    if (!copied.has(key)) {
      entries.set(key, (segment = new Map(segment)));
      copied.add(key);
    }
    const entry = files.get(path);
    const had = segment!.has(path);
    if (entry === undefined) segment!.delete(path);
    else segment!.set(path, entry);
    net += (entry === undefined ? 0 : 1) - (had ? 1 : 0);
  }
  for (const key of copied) if (entries.get(key)!.size === 0) entries.delete(key);
  return { entries, net };
}

/** The entry of `path`, or undefined when the manifest does not list it. */
export function manifestEntry(manifest: Manifest, path: string): ManifestEntry | undefined {
  const { entries } = stateOf(manifest);
  return entries.get(segmentKeyOf(path, segmentDigits(manifest.counts.records)))?.get(path);
}

/** The keys of the manifest's segments (those with entries). */
export const segmentKeys = (manifest: Manifest): Iterable<string> => stateOf(manifest).entries.keys();

/** How many paths segment `key` lists (the delta applied), from its ref where its file is not read and the delta leaves it as it is; undefined when the manifest has none there. */
export function segmentSize(manifest: Manifest, key: string): number | undefined {
  const { entries, deltaKeys } = stateOf(manifest);
  const ref = manifest.segments[key];
  if (ref !== undefined && entries.has(key) && !entries.isRead(key) && deltaKeys?.has(key) !== true) return ref.files;
  return entries.get(key)?.size;
}

/** The entries of segment `key` (the delta applied), or undefined when the manifest has none there. */
export const segmentEntries = (manifest: Manifest, key: string): ReadonlyMap<string, ManifestEntry> | undefined => stateOf(manifest).entries.get(key);

/** Calls `visit` with every listed path and its entry, in no particular order (no lookup: the paths are the segments' own strings). */
export function forEachEntry(manifest: Manifest, visit: (path: string, entry: ManifestEntry) => void): void {
  for (const segment of stateOf(manifest).entries.values()) segment.forEach((entry, path) => visit(path, entry));
}

/** Every listed path, in no particular order. */
export function manifestPaths(manifest: Manifest): string[] {
  const paths: string[] = [];
  for (const segment of stateOf(manifest).entries.values()) for (const path of segment.keys()) paths.push(path);
  return paths;
}

/** The segment, tree and delta files `manifest` needs that its maker serialised (the others are already on disk): output-relative path and text. */
export function newSegmentFiles(manifest: Manifest): { path: string; text: string }[] {
  const { texts, treeTexts, deltaTexts } = stateOf(manifest);
  return [
    ...[...texts].map(([key, text]) => ({ path: segmentFile(manifest.segments[key]!.sha256), text })),
    ...[...(treeTexts ?? [])].map(([key, text]) => ({ path: segmentFile(manifest.trees[key]!.sha256), text })),
    ...[...(deltaTexts ?? [])].map(([part, text]) => ({ path: segmentFile(manifest.delta!.parts[part]!.sha256), text })),
  ];
}

/** The segment, tree and delta files a root names (output-relative). */
export const segmentFiles = (root: ManifestRoot): string[] => [...Object.values(root.segments), ...Object.values(root.trees), ...deltaFiles(root).map(([, ref]) => ref)].map((ref) => segmentFile(ref.sha256));

/** `manifest.json`'s text (keys sorted as `stableJson` would, the segments one a line). */
export function manifestJson(manifest: ManifestRoot): string {
  const { settings, counts } = manifest;
  const placeholder = '\u0000segments';
  const quotedPlaceholder = JSON.stringify(placeholder);
  const quotedDelta = JSON.stringify(`${placeholder}delta`);
  const skeleton = JSON.stringify(
    {
      counts: { files: counts.files, images: counts.images, records: counts.records },
      ...(manifest.delta ? { delta: `${placeholder}delta` } : {}),
      format: manifest.format,
      segments: placeholder,
      settings: { apiUrl: settings.apiUrl, baseUrl: settings.baseUrl, cdnUrl: settings.cdnUrl },
      trees: `${placeholder}trees`,
      version: manifest.version,
    },
    null,
    2,
  );
  const quotedTrees = JSON.stringify(`${placeholder}trees`);
  const withMembers = skeleton.replace(quotedPlaceholder, () => segmentsJson(directSegments(manifest.segments))).replace(quotedTrees, () => treesJson(manifest.trees));
  return `${manifest.delta ? withMembers.replace(quotedDelta, () => deltaRefJson(manifest.delta!)) : withMembers}\n`;
}

/** Whether two manifests agree on everything but their entries (format, version, settings, counts). */
export function sameHeader(a: ManifestRoot, b: ManifestRoot): boolean {
  const keys = (m: ManifestRoot) => JSON.stringify([m.format, m.version, m.settings.baseUrl, m.settings.apiUrl, m.settings.cdnUrl, m.counts.records, m.counts.images, m.counts.files]);
  return keys(a) === keys(b);
}

const SHA256 = /^[0-9a-f]{64}$/;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

/** An empty, `.` or `..` segment (a leading `/` is an empty first one): one regexp test instead of a split. */
const BAD_SEGMENT = /(?:^|\/)\.{0,2}(?:\/|$)/;
/** A path a build can have written: relative, no empty, `.` or `..` part, not the manifest itself nor a segment file. */
const isOutputPath = (path: string): boolean => path !== MANIFEST_FILE && !path.startsWith(`${SEGMENT_FOLDER}/`) && !BAD_SEGMENT.test(path);

/**
 * What is wrong with a parsed manifest.json, in words that follow the file's name, or null for
 * a root `createManifest` could have made: the one check of build, serve and publish.
 */
export function manifestShapeError(value: unknown): string | null {
  if (!isObject(value)) return 'is not a JSON object';
  if (value.format !== 3 && value.format !== 4 && value.format !== 5) return `has format ${JSON.stringify(value.format)}, this version of pepe reads formats 3 to 5`;
  if (value.format === 3 && value.delta !== undefined) return 'has format 3 and a "delta", which format 3 has not';
  return rootShapeError(value, true);
}

const badSegmentRef = (ref: Partial<SegmentRef> | null): boolean => !isObject(ref) || typeof ref.sha256 !== 'string' || !SHA256.test(ref.sha256) || !isCount(ref.files) || !isCount(ref.bytes);

/** `manifestShapeError` past the format: with `trees` (format 3), or without (format 2, where the segments count the files). */
function rootShapeError(value: Record<string, unknown>, withTrees: boolean): string | null {
  if (typeof value.version !== 'string') return 'has no "version" string';
  const { settings, counts, segments, trees } = value;
  if (!isObject(settings) || typeof settings.baseUrl !== 'string' || typeof settings.apiUrl !== 'string' || typeof settings.cdnUrl !== 'string') return 'has no "settings" object with baseUrl, apiUrl and cdnUrl';
  if (!isObject(counts) || !isCount(counts.records) || !isCount(counts.images) || !isCount(counts.files)) return 'has no "counts" object with records, images and files';
  if (!isObject(segments)) return 'has no "segments" object';
  let files = 0;
  for (const key in segments) {
    if (badSegmentRef(segments[key] as Partial<SegmentRef> | null)) return `lists segment "${key}" without a valid {sha256, files, bytes}`;
    if (withTrees && treeKeyOf(key) !== null) return `lists segment "${key}" outside its tree`;
    files += (segments[key] as SegmentRef).files;
  }
  if (!withTrees) {
    if (files !== counts.files) return `counts ${counts.files as number} files but its segments list ${files}`;
    return value.version === sha256Of(segmentsJson(segments as Record<string, SegmentRef>)) ? null : 'has a "version" that is not the sha256 of its "segments"';
  }
  if (!isObject(trees)) return 'has no "trees" object';
  const delta = value.delta as Partial<DeltaRef & DeltaRef4> | undefined;
  if (delta !== undefined && value.format === 4 && (badSegmentRef(delta as Partial<SegmentRef>) || !Number.isSafeInteger(delta.net))) return 'has a "delta" without a valid {sha256, files, bytes, net}';
  if (delta !== undefined && value.format === 5) {
    if (!isObject(delta) || !isCount(delta.files) || !Number.isSafeInteger(delta.net) || !isObject(delta.parts) || Object.keys(delta.parts).length === 0) return 'has a "delta" without a valid {files, net, parts}';
    for (const key in delta.parts) if (!DELTA_PART_KEY.test(key) || badSegmentRef(delta.parts[key] as Partial<SegmentRef> | null)) return `has delta part "${key}" without a valid {sha256, files, bytes}`;
  }
  for (const key in trees) {
    const ref = trees[key] as Partial<TreeRef> | null;
    if (!/^id:[0-9a-f]*$/.test(key) || !isObject(ref) || typeof ref.sha256 !== 'string' || !SHA256.test(ref.sha256) || !isCount(ref.segments) || !isCount(ref.bytes)) return `lists tree "${key}" without a valid {sha256, segments, bytes}`;
  }
  if (value.version !== catalogueVersion({ segments: segments as Record<string, SegmentRef>, trees: trees as Record<string, TreeRef>, ...(delta ? { delta: delta as DeltaRef | DeltaRef4 } : {}) })) return `has a "version" that is not the sha256 of its "segments"${delta ? ', "trees" and "delta"' : ' and "trees"'}`;
  return null;
}

/**
 * The object `member` of a tree's or segment's bytes, checked against the `ref` the manifest
 * names unless `trusted`; or a reason (words that follow the file's name) why it is not.
 */
function memberOf(bytes: Buffer, named: { kind: 'tree' | 'segment' | 'delta'; key: string; ref: { bytes: number; sha256: string }; member: string }, trusted: boolean): Record<string, unknown> | string {
  const { kind, key, ref, member } = named;
  if (!trusted && (bytes.length !== ref.bytes || sha256Of(bytes) !== ref.sha256)) return `is not the ${kind} "${key}" the manifest names (its sha256 or size differs)`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return 'is not valid JSON';
  }
  const value = isObject(parsed) ? parsed[member] : undefined;
  return isObject(value) ? value : `has no "${member}" object`;
}

/**
 * The segment refs of tree `key` from its file's `bytes`, or a reason (words that follow the
 * file's name) why they are not the tree `ref` names. `trusted`: bytes this build wrote.
 */
export function parseTree(bytes: Buffer, key: string, ref: TreeRef, trusted = false): Record<string, SegmentRef> | string {
  const segments = memberOf(bytes, { kind: 'tree', key, ref, member: 'segments' }, trusted);
  if (typeof segments === 'string') return segments;
  let count = 0;
  for (const segment in segments) {
    count++;
    if (trusted) continue;
    if (badSegmentRef(segments[segment] as Partial<SegmentRef> | null)) return `lists segment "${segment}" without a valid {sha256, files, bytes}`;
    if (!/^id:[0-9a-f]+$/.test(segment) || treeKeyOf(segment) !== key) return `lists segment "${segment}", which does not belong to tree "${key}"`;
  }
  if (count !== ref.segments) return `lists ${count} segments, the manifest says ${ref.segments}`;
  return segments as Record<string, SegmentRef>;
}

/**
 * The lines of the delta `ref` names from its file's `bytes`, or a reason (words that follow
 * the file's name) why they are not. `trusted`: bytes this build wrote.
 */
export function parseDelta(bytes: Buffer, ref: SegmentRef, digits: number, trusted = false, part = RECENT_PART): DeltaLines | string {
  const files = memberOf(bytes, { kind: 'delta', key: part, ref, member: 'files' }, trusted);
  if (typeof files === 'string') return files;
  const lines: DeltaLines = new Map();
  for (const path in files) {
    const entry = files[path] as Partial<ManifestEntry> | null;
    if (!trusted) {
      if (entry !== null && (!isObject(entry) || typeof entry.sha256 !== 'string' || !SHA256.test(entry.sha256) || !isCount(entry.size))) return `lists "${path}" without a valid {sha256, size} or null`;
      if (!isOutputPath(path) || !segmentKeyOf(path, digits).startsWith('id:')) return `lists "${path}", which is not a path of an id segment`;
      if (part !== RECENT_PART && partOf(segmentKeyOf(path, digits)) !== part) return `lists "${path}", which is not a path of delta part "${part}"`;
    }
    lines.set(path, entry as ManifestEntry | null);
  }
  if (lines.size !== ref.files) return `lists ${lines.size} files, the manifest says ${ref.files}`;
  return lines;
}

/**
 * The root with its trees' segments (`trees`: each tree's refs, from `parseTree`) in `segments`
 * and its delta's lines (`parseDelta` of each part, by part key; null without a delta), or why
 * not (words that follow the root's name): a tree or a delta part missing, or the files not adding up.
 */
export function mergeTrees(root: ManifestRoot, trees: ReadonlyMap<string, Record<string, SegmentRef>>, delta: ReadonlyMap<string, DeltaLines> | null = null): ManifestRoot | string {
  const segments: Record<string, SegmentRef> = { ...directSegments(root.segments) };
  for (const key in root.trees) {
    const refs = trees.get(key);
    if (refs === undefined) return `names tree "${key}", which was not read`;
    Object.assign(segments, refs);
  }
  let lines: DeltaLines | null = null;
  if (root.delta) {
    for (const key in root.delta.parts) if (!delta?.has(key)) return `names delta part "${key}", which was not read`;
    lines = mergedParts(delta!);
    if (lines.size !== root.delta.files) return `says its delta lists ${root.delta.files} files, its parts list ${lines.size}`;
  }
  let files = root.delta?.net ?? 0;
  for (const key in segments) files += segments[key]!.files;
  if (files !== root.counts.files) return `counts ${root.counts.files} files but its segments and delta list ${files}`;
  const merged = { ...root, segments };
  if (root.delta) {
    deltas.set(merged, lines!);
    deltaPartLines.set(merged, delta!);
  }
  return merged;
}

/** The entries of segment `key` of `root` (read with its trees): `base`, its file's entries, with the delta's lines of that segment applied. */
export function withDeltaLines(root: ManifestRoot, key: string, base: ReadonlyMap<string, ManifestEntry>): Map<string, ManifestEntry> {
  const entries = new Map(base);
  const lines = deltaOf(root);
  if (lines.size === 0) return entries;
  const digits = segmentDigits(root.counts.records);
  for (const [path, entry] of lines) {
    if (segmentKeyOf(path, digits) !== key) continue;
    if (entry === null) entries.delete(path);
    else entries.set(path, entry);
  }
  return entries;
}

/**
 * The lines of each delta part `root` names, by part key, from `get(ref)` (the file's bytes, null
 * when missing), or why not: `[file, reason]`. A part `known` has under the same hash is taken
 * from it, not read.
 */
export async function readDeltaParts(root: ManifestRoot, get: (ref: SegmentRef) => Promise<Buffer | null> | Buffer | null, known?: ManifestRoot): Promise<Map<string, DeltaLines> | [string, string]> {
  const parts = new Map<string, DeltaLines>();
  const knownParts = known ? deltaPartsOf(known) : NO_PARTS;
  for (const [part, ref] of deltaFiles(root)) {
    const same = known?.delta?.parts[part]?.sha256 === ref.sha256 ? knownParts.get(part) : undefined;
    if (same !== undefined) {
      parts.set(part, same);
      continue;
    }
    const bytes = await get(ref);
    const lines = bytes === null ? 'is missing' : parseDelta(bytes, ref, segmentDigits(root.counts.records), false, part);
    if (typeof lines === 'string') return [segmentFile(ref.sha256), lines];
    parts.set(part, lines);
  }
  return parts;
}

/** The bytes of a tree, segment or delta the root names; a missing one is an UnusableManifestError naming it. */
function readMember(outDir: string, ref: { sha256: string }, kind: 'tree' | 'segment' | 'delta', read: (file: string) => Buffer): { file: string; bytes: Buffer } {
  const file = join(outDir, segmentFile(ref.sha256));
  let bytes: Buffer | null;
  try {
    bytes = read(file);
  } catch (failure) {
    bytes = noFileOrThrow(file, failure);
  }
  if (bytes === null) throw new UnusableManifestError(file, `is missing (a ${kind} ${join(outDir, MANIFEST_FILE)} names)`);
  return { file, bytes };
}

/** A root's trees and delta read from `outDir` and merged (`mergeTrees`); throws UnusableManifestError naming the file at fault. */
export function readTreesSync(outDir: string, root: ManifestRoot, trusted = false, read: (file: string) => Buffer = readRegularFileSync): ManifestRoot {
  if (states.has(root) || flatRoots.has(root)) return root;
  const trees = new Map<string, Record<string, SegmentRef>>();
  for (const [key, ref] of Object.entries(root.trees)) {
    const { file, bytes } = readMember(outDir, ref, 'tree', read);
    const parsed = parseTree(bytes, key, ref, trusted);
    if (typeof parsed === 'string') throw new UnusableManifestError(file, parsed);
    trees.set(key, parsed);
  }
  const delta = root.delta ? new Map<string, DeltaLines>() : null;
  for (const [part, ref] of deltaFiles(root)) {
    const { file, bytes } = readMember(outDir, ref, 'delta', read);
    const parsed = parseDelta(bytes, ref, segmentDigits(root.counts.records), trusted, part);
    if (typeof parsed === 'string') throw new UnusableManifestError(file, parsed);
    delta!.set(part, parsed);
  }
  const merged = mergeTrees(root, trees, delta);
  if (typeof merged === 'string') throw new UnusableManifestError(join(outDir, MANIFEST_FILE), merged);
  return merged;
}

/**
 * The entries of segment `key` from its file's `bytes`, or a reason (words that follow the
 * file's name) why they are not the segment `ref` names. `trusted`: bytes this build wrote
 * (the hash and shape checks are skipped).
 */
export function parseSegment(bytes: Buffer, key: string, ref: SegmentRef, digits: number, trusted = false): Map<string, ManifestEntry> | string {
  const lines = trusted ? segmentLines(bytes.toString('utf8')) : null;
  if (lines !== null) return lines.size === ref.files ? lines : `lists ${lines.size} files, the manifest says ${ref.files}`;
  const files = memberOf(bytes, { kind: 'segment', key, ref, member: 'files' }, trusted);
  if (typeof files === 'string') return files;
  const entries = new Map<string, ManifestEntry>();
  for (const path in files) {
    const entry = files[path] as Partial<ManifestEntry> | null;
    if (!trusted) {
      if (!isObject(entry) || typeof entry.sha256 !== 'string' || !SHA256.test(entry.sha256) || !isCount(entry.size)) return `lists "${path}" without a valid {sha256, size}`;
      if (!isOutputPath(path)) return `lists an invalid path "${path}"`;
      if (segmentKeyOf(path, digits) !== key) return `lists "${path}", which belongs to segment "${segmentKeyOf(path, digits)}", not "${key}"`;
    }
    entries.set(path, entry as ManifestEntry);
  }
  if (entries.size !== ref.files) return `lists ${entries.size} files, the manifest says ${ref.files}`;
  return entries;
}

const SEGMENT_HEAD = '{"files":{\n';
const SEGMENT_TAIL = '\n}}\n';
const SHA256_AT = '":{"sha256":"';
const SIZE_AT = '","size":';

/**
 * The entries of a segment's text as `segmentJson` writes it, read line by line (several times
 * faster than JSON.parse and a copy into a map, with no object per line to collect); null for
 * any other text (a path with an escape in it), which JSON.parse then reads.
 */
function segmentLines(text: string): Map<string, ManifestEntry> | null {
  if (!text.startsWith(SEGMENT_HEAD) || !text.endsWith(SEGMENT_TAIL)) return null;
  const entries = new Map<string, ManifestEntry>();
  const end = text.length - SEGMENT_TAIL.length;
  for (let at = SEGMENT_HEAD.length; at < end; ) {
    const next = text.indexOf('\n', at);
    const close = text.charCodeAt(next - 1) === 44 ? next - 2 : next - 1;
    const mid = text.indexOf(SHA256_AT, at);
    if (text.charCodeAt(at) !== 34 || mid < 0 || mid > close || text.charCodeAt(close) !== 125) return null;
    const path = text.slice(at + 1, mid);
    const sizeAt = mid + SHA256_AT.length + 64;
    if (path.includes('\\') || !text.startsWith(SIZE_AT, sizeAt)) return null;
    const size = Number(text.slice(sizeAt + SIZE_AT.length, close));
    if (!Number.isSafeInteger(size)) return null;
    entries.set(path, { sha256: text.slice(mid + SHA256_AT.length, sizeAt), size });
    at = next + 1;
  }
  return entries;
}

/** A manifest.json (or one of its segments) that is there but cannot be used; the message names the file and says what is wrong with it. */
export class UnusableManifestError extends Error {
  constructor(
    readonly file: string,
    /** In words that follow the file's name: 'is not valid JSON (…)', 'has no "segments" object'. */
    readonly why: string,
  ) {
    super(`${file} ${why}`);
  }
}

/** null when reading `file` failed because there is none; else throws UnusableManifestError saying why. */
function noFileOrThrow(file: string, failure: unknown): null {
  const code = (failure as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return null;
  if (failure instanceof NotAFileError) throw new UnusableManifestError(file, `is ${failure.kind}, not a file`);
  throw new UnusableManifestError(file, code === 'EISDIR' ? 'is a folder, not a file' : `cannot be read (${code ?? String(failure)})`);
}

/** Roots of format 2 (every segment in the root, no trees), read so that the next build can reuse their output and write format 3. */
const flatRoots = new WeakSet<ManifestRoot>();

/**
 * A manifest.json of format 1 (one file listing every path, written by earlier versions),
 * read as a root without segment files so that the next build can reuse its output and write
 * format 2; null when `value` is not one.
 */
function legacyManifest(value: unknown): Manifest | null {
  if (!isObject(value) || value.format !== 1 || !isObject(value.files) || typeof value.version !== 'string') return null;
  const { settings, counts, files } = value as { settings: unknown; counts: unknown; files: Record<string, unknown> };
  if (!isObject(settings) || !isObject(counts) || !isCount(counts.records) || !isCount(counts.images)) return null;
  const digits = segmentDigits(counts.records as number);
  const entries = new Map<string, Map<string, ManifestEntry>>();
  for (const path in files) {
    const entry = files[path] as Partial<ManifestEntry> | null;
    if (!isObject(entry) || typeof entry.sha256 !== 'string' || !SHA256.test(entry.sha256) || !isCount(entry.size) || !isOutputPath(path)) return null;
    const key = segmentKeyOf(path, digits);
    let segment = entries.get(key);
    if (!segment) entries.set(key, (segment = new Map()));
    segment.set(path, { sha256: entry.sha256, size: entry.size! });
  }
  const root = { format: 3, version: value.version, settings, counts: { ...counts, files: Object.keys(files).length }, segments: {}, trees: {} } as unknown as ManifestRoot;
  return withState(root, { entries: new Segments(entries), texts: new Map() });
}

/** The root in `bytes` read from `file`, checked unless `trusted`; throws UnusableManifestError. */
export function parseManifestRoot(file: string, bytes: Buffer, trusted = false): ManifestRoot {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new UnusableManifestError(file, 'is not valid JSON');
  }
  const legacy = legacyManifest(parsed);
  if (legacy !== null) return legacy;
  if (isObject(parsed) && parsed.format === 2) {
    const why = rootShapeError(parsed, false);
    if (why !== null) throw new UnusableManifestError(file, why);
    const flat = { ...parsed, format: 3, trees: {} } as unknown as ManifestRoot;
    flatRoots.add(flat);
    return flat;
  }
  if (!trusted) {
    const why = manifestShapeError(parsed);
    if (why !== null) throw new UnusableManifestError(file, why);
  }
  return withDeltaParts(parsed as ManifestRoot);
}

/** A checked root with a format-4 root's one delta file read as format 5's `recent` part (its version stays the one it was written with). */
export function withDeltaParts(root: ManifestRoot): ManifestRoot {
  const delta = root.delta as DeltaRef | DeltaRef4 | undefined;
  if (delta === undefined || 'parts' in delta) return root;
  return { ...root, delta: { files: delta.files, net: delta.net, parts: { [RECENT_PART]: { sha256: delta.sha256, files: delta.files, bytes: delta.bytes } } } };
}

export interface LoadManifestOptions {
  /**
   * Asked after the root is read: whether it still has the stat the last build recorded when it
   * wrote it. Then the root and the segments it names are that build's own (segment files are
   * named by their hash and never written in place), and the hash and shape checks are skipped.
   */
  writtenByLastBuild?: () => boolean;
}

/** `<outDir>/manifest.json` and its trees (every segment's ref) without the segments, checked, or null when there is none. */
export async function loadManifestRoot(outDir: string): Promise<ManifestRoot | null> {
  const file = join(outDir, MANIFEST_FILE);
  const bytes = await readRegularFile(file).catch((failure: unknown) => noFileOrThrow(file, failure));
  return bytes === null ? null : readTreesSync(outDir, parseManifestRoot(file, bytes));
}

/**
 * The root with its segments: checked and read at once, or, `trusted` (the last build's own),
 * each read on first use, once every file the root names is seen to be there.
 */
function withSegments(outDir: string, root: ManifestRoot, read: (file: string) => Buffer, trusted: boolean): Manifest {
  if (states.has(root)) return root as Manifest; // a format-1 manifest, its entries read with it
  root = readTreesSync(outDir, root, trusted, read);
  const digits = segmentDigits(root.counts.records);
  const lines = groupedBySegment(deltaOf(root), digits);
  for (const key of lines.keys()) {
    if (root.segments[key] === undefined) throw new UnusableManifestError(join(outDir, MANIFEST_FILE), `has a delta that changes segment "${key}", which the manifest does not name`);
  }
  const bases = new Map<string, ReadonlyMap<string, ManifestEntry>>();
  const readSegment = (key: string): Entries => {
    const ref = root.segments[key]!;
    const { file, bytes } = readMember(outDir, ref, 'segment', read);
    const parsed = parseSegment(bytes, key, ref, digits, trusted);
    if (typeof parsed === 'string') throw new UnusableManifestError(file, parsed);
    const changed = lines.get(key);
    if (changed === undefined) return parsed;
    bases.set(key, parsed);
    const applied = new Map(parsed);
    for (const [path, entry] of changed) {
      if (entry === null) applied.delete(path);
      else applied.set(path, entry);
    }
    return applied;
  };
  const keys = Object.keys(root.segments);
  const base = (key: string) => bases.get(key);
  const deltaKeys = new Set(lines.keys());
  if (!trusted) return withState(root, { entries: new Segments(new Map(keys.map((key) => [key, readSegment(key)]))), base, deltaKeys, texts: new Map() });
  // A file gone (deleted by hand) makes the manifest unusable now, as a full read would, not halfway through a build.
  const present = new Set(keys.length === 0 ? [] : readdirSync(join(outDir, SEGMENT_FOLDER)));
  for (const key of keys) {
    const name = `${root.segments[key]!.sha256}.json`;
    if (!present.has(name)) throw new UnusableManifestError(join(outDir, SEGMENT_FOLDER, name), `is missing (a segment ${join(outDir, MANIFEST_FILE)} names)`);
  }
  return withState(root, { entries: new Segments(new Map(), new Set(keys), readSegment), base, deltaKeys, texts: new Map() });
}

/** `<outDir>/manifest.json` and its segments, checked, or null when there is none; throws UnusableManifestError when it is there but not a build's manifest. */
export async function loadManifest(outDir: string, options: LoadManifestOptions = {}): Promise<Manifest | null> {
  const file = join(outDir, MANIFEST_FILE);
  const bytes = await readRegularFile(file).catch((failure: unknown) => noFileOrThrow(file, failure));
  if (bytes === null) return null;
  const trusted = options.writtenByLastBuild?.() === true;
  return withSegments(outDir, parseManifestRoot(file, bytes, trusted), readRegularFileSync, trusted);
}

/** `loadManifest` for a synchronous caller. */
export function loadManifestSync(outDir: string): Manifest | null {
  const file = join(outDir, MANIFEST_FILE);
  let bytes: Buffer | null;
  try {
    bytes = readRegularFileSync(file);
  } catch (failure) {
    bytes = noFileOrThrow(file, failure);
  }
  return bytes === null ? null : withSegments(outDir, parseManifestRoot(file, bytes), readRegularFileSync, false);
}

/** `loadManifestSync` for a lazy getter: null when there is none or it is not usable. */
export function readManifestSync(outDir: string): Manifest | null {
  try {
    return loadManifestSync(outDir);
  } catch {
    return null;
  }
}

/** The root alone (its version, settings, counts; its trees not read), or null when there is none or it is not usable. */
export function readManifestRootSync(outDir: string): ManifestRoot | null {
  try {
    return parseManifestRoot(join(outDir, MANIFEST_FILE), readRegularFileSync(join(outDir, MANIFEST_FILE)));
  } catch {
    return null;
  }
}

/** The previous build's manifest, or null when there is none or it is not one of ours (`loadManifest` says why). */
export async function readManifest(outDir: string): Promise<Manifest | null> {
  return loadManifest(outDir).catch(() => null);
}

/** What changed between two manifests, found from their roots: only segments whose hash differs are read. */
export interface ManifestDiff {
  /** Paths `to` lists with another entry than `from`, or that `from` does not list. */
  changed: Map<string, ManifestEntry>;
  /** Paths `from` lists and `to` does not, with `from`'s entry. */
  removed: Map<string, ManifestEntry>;
  /** `from`'s entries of the changed paths it lists. */
  previous: Map<string, ManifestEntry>;
  /** Segment keys whose hash differs (on either side), or whose paths a delta changes. */
  segments: string[];
}

/**
 * The paths that differ between `from` and `to` (either may be a root of another build, a
 * bucket's), read with their trees and delta (`mergeTrees`), reading only the segments whose
 * hash differs, and those of a segment the deltas change differently where a path is in one
 * delta only; `read(side, key)` gives a segment file's entries. Works across a change of digits
 * (the keys then differ, the paths do not).
 */
export async function diffManifests(
  from: ManifestRoot,
  to: ManifestRoot,
  read: (side: 'from' | 'to', key: string, ref: SegmentRef) => Promise<ReadonlyMap<string, ManifestEntry>>,
): Promise<ManifestDiff> {
  const keys = new Set([...Object.keys(from.segments), ...Object.keys(to.segments)]);
  const differing = [...keys].filter((key) => from.segments[key]?.sha256 !== to.segments[key]?.sha256).sort(byCodeUnits);
  const fromLines = groupedBySegment(deltaOf(from), segmentDigits(from.counts.records));
  const toLines = groupedBySegment(deltaOf(to), segmentDigits(to.counts.records));
  const before = new Map<string, ManifestEntry>();
  const after = new Map<string, ManifestEntry>();
  const apply = (into: Map<string, ManifestEntry>, lines: ReadonlyMap<string, ManifestEntry | null> | undefined) => {
    for (const [path, entry] of lines ?? []) {
      if (entry === null) into.delete(path);
      else into.set(path, entry);
    }
  };
  const whole = async (side: 'from' | 'to', root: ManifestRoot, key: string, into: Map<string, ManifestEntry>) => {
    const entries = root.segments[key] ? new Map(await read(side, key, root.segments[key])) : new Map<string, ManifestEntry>();
    apply(entries, (side === 'from' ? fromLines : toLines).get(key));
    entries.forEach((entry, path) => into.set(path, entry));
  };
  const differ = new Set(differing);
  // A segment file both roots name, changed by either delta: only the paths the deltas name can differ.
  const sameFile = [...new Set([...fromLines.keys(), ...toLines.keys()])].filter((key) => !differ.has(key) && (from.segments[key] !== undefined || to.segments[key] !== undefined));
  await Promise.all([
    ...differing.flatMap((key) => [whole('from', from, key, before), whole('to', to, key, after)]),
    ...sameFile.map(async (key) => {
      const a = fromLines.get(key) ?? NO_LINES;
      const b = toLines.get(key) ?? NO_LINES;
      const paths = new Set([...a.keys(), ...b.keys()]);
      const base = [...paths].every((path) => a.has(path) && b.has(path)) ? NO_LINES : await read('to', key, to.segments[key]!);
      for (const path of paths) {
        const was = a.has(path) ? a.get(path)! : (base.get(path) ?? null);
        const now = b.has(path) ? b.get(path)! : (base.get(path) ?? null);
        if (was !== null) before.set(path, was);
        if (now !== null) after.set(path, now);
      }
    }),
  ]);
  const changed = new Map<string, ManifestEntry>();
  const removed = new Map<string, ManifestEntry>();
  const previous = new Map<string, ManifestEntry>();
  for (const [path, entry] of after) {
    const old = before.get(path);
    if (old !== undefined && old.sha256 === entry.sha256 && old.size === entry.size) continue;
    changed.set(path, entry);
    if (old !== undefined) previous.set(path, old);
  }
  for (const [path, entry] of before) if (!after.has(path)) removed.set(path, entry);
  return { changed, removed, previous, segments: [...new Set([...differing, ...sameFile])].sort(byCodeUnits) };
}

/** Writes `manifest` into `dir` as a build does (segments first, the root last), for tools that make a build folder without building (benchmarks, test fixtures). */
export async function writeManifestFiles(dir: string, manifest: Manifest): Promise<void> {
  const { mkdir, writeFile } = await import('node:fs/promises');
  await mkdir(join(dir, SEGMENT_FOLDER), { recursive: true });
  for (const segment of newSegmentFiles(manifest)) await writeFile(join(dir, segment.path), segment.text);
  await writeFile(join(dir, MANIFEST_FILE), manifestJson(manifest));
}
