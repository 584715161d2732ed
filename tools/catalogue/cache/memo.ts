/**
 * The one shape of every JSON file in the cache folder: a name, a guard of its shape, a key
 * that must equal the current build's for it to be used, and a save that replaces it whole,
 * or, for a memo saved by what changed (`deltas`), appends the change to the value it loaded
 * (cache-log.ts framing: the full document, then deltas).
 */
import { lstat, appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CacheLog, cacheFrames, frameDocument, frameHead } from './cache-log.js';
import { makeFolders } from '../../shared/make-folders.js';
import { readAheadDone, readRegularFile, withFileBytes } from '../../shared/read-regular-file.js';
import { replaceFile, replaceFileSync, type TextParts } from '../../shared/replace-file.js';

export interface CacheMemo<T> {
  /** The file's name in the cache folder (listed in CACHE_FILE_NAMES). */
  readonly file: string;
  /** The saved value; null when missing, torn, not a regular file, of another shape, or saved under another `key`. */
  load(cacheDir: string, key?: string): Promise<T | null>;
  /**
   * Written to a temporary file and renamed into place: a reader sees the old file or the new
   * one. A memo saved by deltas given `loaded` (what `load` returned) appends what changed
   * since, while the file is the one it was read from and its deltas stay small.
   */
  save(cacheDir: string, value: T, loaded?: T | null): Promise<void>;
}

/** Below this, deltas are appended whatever the size of the full document. */
const LOG_FLOOR_BYTES = 256 * 1024;

/** How a value saved by deltas was read: the file's log and stat then, which an append must still find. */
interface LoadedLog {
  file: string;
  log: CacheLog;
  stat: string;
}
const loadedLogs = new WeakMap<object, LoadedLog>();

const statOf = async (file: string): Promise<string | null> => {
  const info = await lstat(file, { bigint: true }).catch(() => null);
  return info?.isFile() ? `${info.size} ${info.mtimeNs} ${info.ctimeNs} ${info.ino}` : null;
};

/** The memo `file`: trusted when `isShape` accepts it and, if `load` is given a key, `keyOf` of it is that key. */
export function cacheMemo<T>(file: string, isShape: (value: unknown) => value is T, keyOf?: (saved: T) => string, options: { deltas?: boolean } = {}): CacheMemo<T> {
  return {
    file,
    async load(cacheDir, key) {
      const path = join(cacheDir, file);
      const saved = options.deltas ? ((await takeParsedAhead(path)) ?? (await readCacheLog(path))) : await readCacheJson(path);
      if (!isShape(saved)) return null;
      return key === undefined || keyOf?.(saved) === key ? saved : null;
    },
    async save(cacheDir, value, loaded) {
      await makeFolders(cacheDir);
      const path = join(cacheDir, file);
      if (!options.deltas) return replaceFile(path, JSON.stringify(value));
      const read = loaded !== null && typeof loaded === 'object' ? loadedLogs.get(loaded) : undefined;
      if (read !== undefined && read.file === path && read.log.appends && (await statOf(path)) === read.stat) {
        const frame = frameDocument(deltaOf(loaded, value), false);
        // Deltas near the document's own size save little and cost every later read.
        if (read.log.takes(frame.length)) {
          await appendFile(path, frame);
          read.log.appended(frame.length);
          loadedLogs.set(value as object, { ...read, stat: (await statOf(path))! });
          return;
        }
      }
      const frame = framedMemo(value);
      replaceFileSync(path, frame.parts);
      const log = new CacheLog(LOG_FLOOR_BYTES);
      log.rewritten(frame.bytes);
      loadedLogs.set(value as object, { file: path, log, stat: (await statOf(path))! });
    },
  };
}

/** Memos saved by deltas parsed ahead (`parseMemosAhead`), by path, with the file's stat once parsed. */
const parsedAhead = new Map<string, Promise<{ value: unknown; stat: string | null }>>();

/**
 * Parses the memos saved by deltas at `paths` now (from memory, if they were read ahead), for a
 * build that will load them: their `load` takes the value once, while the file keeps its stat.
 */
export function parseMemosAhead(paths: readonly string[]): void {
  for (const path of paths) parsedAhead.set(path, readCacheLog(path).then(async (value) => ({ value, stat: await statOf(path) })));
}

/** Drops the memos parsed ahead and not taken (a build that did not need them). */
export function forgetParsedAhead(): void {
  parsedAhead.clear();
}

/** The value parsed ahead for `path`, taken once; undefined when there is none, or the file changed since. */
async function takeParsedAhead(path: string): Promise<unknown> {
  const ahead = parsedAhead.get(path);
  if (ahead === undefined) return undefined;
  parsedAhead.delete(path);
  const { value, stat } = await ahead;
  return stat !== null && (await statOf(path)) === stat ? value : undefined;
}

/** A memo saved by deltas: its first document with each delta applied; null when not a cache log, and when a delta does not apply. */
async function readCacheLog(path: string): Promise<unknown> {
  await readAheadDone(path);
  let read: { value: unknown; log: CacheLog; bytes: number } | null;
  try {
    read = withFileBytes(path, (bytes) => {
      const walked = cacheFrames(bytes);
      // A torn or damaged delta: none, as a torn JSON file is (the next save rewrites it).
      if (walked === null || walked.validBytes !== bytes.length || walked.frames.length < 2) return null;
      const [[headStart, headEnd], [rawStart, rawEnd]] = walked.frames as [[number, number], [number, number]];
      let value: unknown;
      try {
        value = unframedMemo(JSON.parse(bytes.toString('utf8', headStart, headEnd)), bytes.subarray(rawStart, rawEnd));
        const texts: SplicedAt[] = [];
        for (const [start, end] of walked.frames.slice(2)) value = applyDelta(value, JSON.parse(bytes.toString('utf8', start, end)), texts);
        value = joinedTexts(value, texts);
      } catch {
        return null;
      }
      const log = new CacheLog(LOG_FLOOR_BYTES);
      log.loaded({ documents: [], validBytes: walked.validBytes, baseBytes: rawEnd }, bytes.length);
      return { value, log, bytes: bytes.length };
    });
  } catch {
    return null;
  }
  if (read === null || read.value === null || typeof read.value !== 'object') return null;
  const { value, log } = read;
  const stat = await statOf(path);
  // Read whole and unchanged since: a later save may append to it.
  if (stat !== null && stat.startsWith(`${read.bytes} `)) loadedLogs.set(value, { file: path, log, stat });
  return value;
}

/**
 * The first document of a memo saved by deltas, as two frames: a JSON head, the value with its
 * long ASCII strings and lists of ASCII strings left out (null), and those texts raw, end to end,
 * in a second frame. Reading slices them out of the bytes: JSON-parsing every digest and the
 * escaped chunk texts was most of a memo's read. Any other head (the layout before) reads as none.
 */
const MEMO_LAYOUT = 'pepe-memo-2';

/** A string this long or longer, and a list of strings this long or longer, goes raw. */
const RAW_STRING = 512;
const RAW_LIST = 32;

/** Where a raw text goes back: its path from the value, its bytes in the raw frame, and for a list, every item's length or their one `width`. */
type RawText = [path: (string | number)[], start: number, end: number, lengths?: number[] | number];

function framedMemo(value: unknown): { parts: TextParts; bytes: number } {
  const texts: string[] = [];
  const raw: RawText[] = [];
  let at = 0;
  const take = (text: string): [number, number] | null => {
    // Raw only when ASCII (a byte a character), so a list's items are cut by their lengths.
    if (Buffer.byteLength(text, 'utf8') !== text.length) return null;
    texts.push(text);
    at += text.length;
    return [at - text.length, at];
  };
  const path: (string | number)[] = [];
  const strip = (item: unknown): unknown => {
    if (typeof item === 'string') {
      const range = item.length >= RAW_STRING ? take(item) : null;
      if (range === null) return item;
      raw.push([[...path], ...range]);
      return null;
    }
    if (Array.isArray(item)) {
      if (item.length >= RAW_LIST && item.every((entry) => typeof entry === 'string')) {
        const range = take(item.join(''));
        if (range !== null) {
          const width = (item[0] as string).length;
          raw.push([[...path], ...range, width > 0 && item.every((entry) => entry.length === width) ? width : item.map((entry) => entry.length)]);
          return null;
        }
      }
      let copy: unknown[] | null = null;
      for (let i = 0; i < item.length; i++) {
        const entry = item[i];
        if (entry === null || (typeof entry !== 'object' && (typeof entry !== 'string' || entry.length < RAW_STRING))) continue;
        path.push(i);
        const stripped = strip(entry);
        path.pop();
        if (stripped !== entry) (copy ??= [...item])[i] = stripped;
      }
      return copy ?? item;
    }
    if (item === null || typeof item !== 'object') return item;
    const copy: Record<string, unknown> = {};
    for (const [name, entry] of Object.entries(item)) {
      path.push(name);
      copy[name] = strip(entry);
      path.pop();
    }
    return copy;
  };
  const head = frameDocument({ layout: MEMO_LAYOUT, value: strip(value), raw }, true);
  // The texts go to the file as they are (`replaceFileSync`), never joined into one buffer.
  return { parts: [head, frameHead(at, false), ...texts], bytes: head.length + 4 + at };
}

/** `framedMemo`'s inverse; throws on a head that is not one, or a text out of the raw frame's bounds. */
function unframedMemo(head: unknown, bytes: Buffer): unknown {
  const { layout, value, raw } = head as { layout?: unknown; value?: unknown; raw?: unknown };
  if (layout !== MEMO_LAYOUT || !Array.isArray(raw)) throw new Error('not a memo');
  const root = { value };
  for (const [path, start, end, lengths] of raw as RawText[]) {
    if (!Array.isArray(path) || !(Number.isSafeInteger(start) && Number.isSafeInteger(end) && start >= 0 && start <= end && end <= bytes.length)) throw new Error('bad raw text');
    const text = bytes.toString('latin1', start, end);
    let item: unknown = text;
    if (typeof lengths === 'number') {
      if (!(Number.isSafeInteger(lengths) && lengths > 0 && text.length % lengths === 0)) throw new Error('bad raw list');
      const list = new Array<string>(text.length / lengths);
      for (let i = 0; i < list.length; i++) list[i] = text.slice(i * lengths, (i + 1) * lengths);
      item = list;
    } else if (lengths !== undefined) {
      if (!Array.isArray(lengths)) throw new Error('bad raw list');
      let from = 0;
      item = lengths.map((length) => text.slice(from, (from += length)));
      if (from !== text.length || !lengths.every((length) => Number.isSafeInteger(length) && length >= 0)) throw new Error('bad raw list');
    }
    let holder: unknown = root;
    const names: (string | number)[] = ['value', ...path];
    for (const name of names.slice(0, -1)) holder = (holder as Record<string | number, unknown>)?.[name];
    const last = names[names.length - 1]!;
    if (holder === null || typeof holder !== 'object' || !Object.hasOwn(holder, last) || (holder as Record<string | number, unknown>)[last] !== null) throw new Error('bad raw path');
    (holder as Record<string | number, unknown>)[last] = item;
  }
  return root.value;
}

/**
 * What turns `before` into `after` (JSON values): members of an object by name, an array or a
 * string as one splice between their common head and tail (an add, a removal or an edit
 * changes one run of a list in rank order), or an array's items changed in place when fewer,
 * anything else replaced whole.
 */
type Delta =
  | { '=': unknown }
  | { '{': Record<string, Delta> }
  | { '[': [start: number, removed: number, items: unknown[]] }
  | { '#': [replaced: [at: number, items: unknown[]][], start: number, removed: number, items: unknown[]] }
  | { '"': [start: number, removed: number, text: string] };

function deltaOf(before: unknown, after: unknown): Delta {
  if (typeof before === 'string' && typeof after === 'string') {
    const start = commonHead(before, after);
    const tail = commonTail(before, after, start);
    return { '"': [start, before.length - tail - start, after.slice(start, after.length - tail)] };
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const [start, end, endAfter] = changedRun(before.length, after.length, (i, j) => sameItem(before[i], after[j]));
    // Items changed in place, index by index, then one splice past the shorter run: smaller when
    // the changes are spread and nothing moved (an added record's neighbours' similar lists).
    const both = Math.min(end, endAfter);
    const replaced: [number, unknown[]][] = [];
    let items = endAfter - both;
    for (let i = start; i < both && items < endAfter - start; i++) {
      if (sameItem(before[i], after[i])) continue;
      const last = replaced[replaced.length - 1];
      if (last !== undefined && last[0] + last[1].length === i) last[1].push(after[i]);
      else replaced.push([i, [after[i]]]);
      items++;
    }
    if (items < endAfter - start) return { '#': [replaced, both, end - both, after.slice(both, endAfter)] };
    return { '[': [start, end - start, after.slice(start, endAfter)] };
  }
  if (isPlainObject(before) && isPlainObject(after)) {
    const names = Object.keys(after);
    if (names.length === Object.keys(before).length && names.every((name) => Object.hasOwn(before, name))) {
      const members: Record<string, Delta> = {};
      // Each member compared once, by its own delta: a list of 100k entries is walked once, not first checked whole.
      for (const name of names) {
        if (before[name] === after[name]) continue;
        const member = deltaOf(before[name], after[name]);
        if (!isNoChange(member)) members[name] = member;
      }
      return { '{': members };
    }
  }
  return { '=': after };
}

/** Whether a delta changes nothing (two equal lists or strings). */
function isNoChange(delta: Delta): boolean {
  if ('"' in delta) return delta['"'][1] === 0 && delta['"'][2] === '';
  if ('[' in delta) return delta['['][1] === 0 && delta['['][2].length === 0;
  if ('#' in delta) return delta['#'][0].length === 0 && delta['#'][2] === 0 && delta['#'][3].length === 0;
  if ('{' in delta) return Object.keys(delta['{']).length === 0;
  return false;
}

/**
 * What a build knows of its records against the last one's, to line a memo up with them
 * (`linedUpByChange`): the digest sum of the build the changes are told against (build-extras.ts
 * `buildInputs`), this build's, and the ids whose digest is not that build's.
 */
export interface LineUp {
  before?: string;
  after: string;
  changed?: ReadonlySet<string>;
}

/**
 * A memo's saved record (or -1) for each record, and the records' digests in rank order, when the
 * memo was saved by the build the changes are told against (its digest sum is that build's: the
 * same records): lined up by id, the changed ids apart, so only a changed record's digest is
 * looked up (a look-up per record, in a map of them all, cost a change build more than its
 * search). Null when the memo may be another build's: then line up by digest.
 */
export function linedUpByChange(saved: { digests: readonly string[]; ids?: readonly string[]; sum?: string }, records: readonly { id: string }[], digests: ReadonlyMap<string, string>, lineUp: LineUp | undefined): { savedAt: Int32Array; digests: string[]; ids: string[] } | null {
  if (lineUp?.before === undefined || lineUp.changed === undefined || saved.sum !== lineUp.before || saved.ids?.length !== saved.digests.length) return null;
  // Every memo saved by that build holds the same ids and digests (its digest sum stands for them): lined up once a compile.
  const made = linedUp.get(records);
  if (made !== undefined && made.lineUp === lineUp && made.digests === digests) return { ...made.result, savedAt: made.result.savedAt.slice() };
  const ids = records.map((record) => record.id);
  const savedAt = matchedIndexes(saved.ids, ids);
  const inOrder = new Array<string>(records.length);
  for (let rank = 0; rank < records.length; rank++) {
    const at = savedAt[rank]!;
    if (at !== -1 && !lineUp.changed.has(ids[rank]!)) inOrder[rank] = saved.digests[at]!;
    else {
      savedAt[rank] = -1;
      const digest = digests.get(ids[rank]!);
      if (digest === undefined) throw new Error(`linedUpByChange: no digest for record ${ids[rank]}`);
      inOrder[rank] = digest;
    }
  }
  const result = { savedAt, digests: inOrder, ids };
  linedUp.set(records, { lineUp, digests, result: { ...result, savedAt: savedAt.slice() } });
  return result;
}

/** The line-up of a records list (`linedUpByChange`), by the change and digests it was made for. */
const linedUp = new WeakMap<readonly { id: string }[], { lineUp: LineUp; digests: ReadonlyMap<string, string>; result: { savedAt: Int32Array; digests: string[]; ids: string[] } }>();

/** The fields a memo lined up by the change keeps (`LineUp`): absent in a memo saved before they were kept, else each id a string, one per digest. */
export function hasLineUpFields(saved: { digests: readonly unknown[]; ids?: unknown; sum?: unknown }): boolean {
  return (saved.ids === undefined || (Array.isArray(saved.ids) && saved.ids.length === saved.digests.length && saved.ids.every((id) => typeof id === 'string'))) && (saved.sum === undefined || typeof saved.sum === 'string');
}

/** Each record's digest in rank order, made once per records list and digests map for every memo of a compile. */
const digestLists = new WeakMap<readonly { id: string }[], { digests: ReadonlyMap<string, string>; list: string[] }>();

/** `records.map(record => digests.get(record.id))`, shared by the memos of one compile; throws naming `who` on a record without a digest. */
export function digestsInOrder(records: readonly { id: string }[], digests: ReadonlyMap<string, string>, who: string): string[] {
  const made = digestLists.get(records);
  if (made?.digests === digests) return made.list;
  const list = records.map((record) => {
    const digest = digests.get(record.id);
    if (digest === undefined) throw new Error(`${who}: no digest for record ${record.id}`);
    return digest;
  });
  digestLists.set(records, { digests, list });
  return list;
}

/**
 * For each key of `after`, its index in `before`, or -1 (keys distinct within each list): the
 * common head and tail match in place and only the run between them goes through a map, so
 * lining up a build's records with the last build's costs what changed, not a map of them all.
 */
export function matchedIndexes(before: readonly string[], after: readonly string[]): Int32Array {
  const at = new Int32Array(after.length).fill(-1);
  const [start, end, endAfter] = changedRun(before.length, after.length, (i, j) => before[i] === after[j]);
  for (let j = 0; j < start; j++) at[j] = j;
  for (let j = endAfter; j < after.length; j++) at[j] = j - endAfter + end;
  if (start < end && start < endAfter) {
    const index = new Map<string, number>();
    for (let i = start; i < end; i++) index.set(before[i]!, i);
    for (let j = start; j < endAfter; j++) at[j] = index.get(after[j]!) ?? -1;
  }
  return at;
}

/** The common head and tail of two sequences: [first changed index, end of the changed run in `before`, in `after`]. */
function changedRun(lengthBefore: number, lengthAfter: number, same: (i: number, j: number) => boolean): [number, number, number] {
  let start = 0;
  while (start < lengthBefore && start < lengthAfter && same(start, start)) start++;
  let end = lengthBefore;
  let endAfter = lengthAfter;
  while (end > start && endAfter > start && same(end - 1, endAfter - 1)) {
    end--;
    endAfter--;
  }
  return [start, end, endAfter];
}

/** Strings are compared a block at a time (a native compare), then a character at a time within the first block that differs. */
const BLOCK = 4096;

function commonHead(a: string, b: string): number {
  const most = Math.min(a.length, b.length);
  let at = 0;
  while (at + BLOCK <= most && a.slice(at, at + BLOCK) === b.slice(at, at + BLOCK)) at += BLOCK;
  while (at < most && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  return at;
}

/** Characters that end both strings alike, leaving `head` characters at the start of each alone. */
function commonTail(a: string, b: string, head: number): number {
  const most = Math.min(a.length, b.length) - head;
  let tail = 0;
  while (tail + BLOCK <= most && a.slice(a.length - tail - BLOCK, a.length - tail) === b.slice(b.length - tail - BLOCK, b.length - tail)) tail += BLOCK;
  while (tail < most && a.charCodeAt(a.length - tail - 1) === b.charCodeAt(b.length - tail - 1)) tail++;
  return tail;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Equal primitives, or arrays of equal primitives (a similar list); other objects compare as different. */
function sameItem(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] || (a[i] !== null && typeof a[i] === 'object')) return false;
  return true;
}

/**
 * A string the deltas of a memo splice, kept as pieces until every delta is applied and then
 * joined once: a memo's raw texts are megabytes, and each splice of a joined string copied all
 * of it (V8 flattens a concatenation before slicing it), once per delta read.
 */
class SplicedText {
  private pieces: string[];
  length: number;

  constructor(text: string) {
    this.pieces = [text];
    this.length = text.length;
  }

  splice(start: number, removed: number, text: string): void {
    this.pieces = [...this.range(0, start), text, ...this.range(start + removed, this.length)];
    this.length += text.length - removed;
  }

  joined(): string {
    return this.pieces.join('');
  }

  /** The pieces of characters [from, to), sliced where they cut a piece (a slice of a flat string copies nothing). */
  private range(from: number, to: number): string[] {
    const out: string[] = [];
    let at = 0;
    for (const piece of this.pieces) {
      const start = Math.max(from - at, 0);
      const end = Math.min(to - at, piece.length);
      if (start < end) out.push(start === 0 && end === piece.length ? piece : piece.slice(start, end));
      at += piece.length;
    }
    return out;
  }
}

/** Where `applyDelta` left a `SplicedText`: the object and member that hold it. */
type SplicedAt = [holder: Record<string, unknown>, name: string];

/** `value` with every `SplicedText` the deltas left (`texts`) joined. */
function joinedTexts(value: unknown, texts: readonly SplicedAt[]): unknown {
  for (const [holder, name] of texts) {
    const text = holder[name];
    if (text instanceof SplicedText) holder[name] = text.joined();
  }
  return value instanceof SplicedText ? value.joined() : value;
}

/**
 * `deltaOf`'s inverse; throws on a delta that does not fit `value` (a damaged file). Applied in
 * place to a value the read owns (just parsed); a spliced string is left as a `SplicedText`,
 * listed in `texts` (`joinedTexts` ends the fold).
 */
function applyDelta(value: unknown, delta: unknown, texts: SplicedAt[]): unknown {
  const change = delta as Record<string, unknown>;
  if (change === null || typeof change !== 'object') throw new Error('not a delta');
  if ('=' in change) return change['='];
  if ('"' in change) {
    const [start, removed, text] = change['"'] as [number, number, string];
    const spliced = value instanceof SplicedText ? value : typeof value === 'string' ? new SplicedText(value) : null;
    if (spliced === null || typeof text !== 'string' || !(start >= 0 && removed >= 0 && start + removed <= spliced.length)) throw new Error('bad string delta');
    spliced.splice(start, removed, text);
    return spliced;
  }
  if ('[' in change) {
    const [start, removed, items] = change['['] as [number, number, unknown[]];
    if (!Array.isArray(value) || !Array.isArray(items) || !(start >= 0 && removed >= 0 && start + removed <= value.length)) throw new Error('bad array delta');
    return spliced(value, start, removed, items);
  }
  if ('#' in change) {
    const [replaced, start, removed, items] = change['#'] as [[number, unknown[]][], number, number, unknown[]];
    if (!Array.isArray(value) || !Array.isArray(replaced) || !Array.isArray(items) || !(start >= 0 && removed >= 0 && start + removed <= value.length)) throw new Error('bad array delta');
    const out = spliced(value, start, removed, items);
    for (const [at, run] of replaced) {
      if (!(Number.isSafeInteger(at) && at >= 0 && Array.isArray(run) && at + run.length <= start)) throw new Error('bad array delta');
      for (let i = 0; i < run.length; i++) out[at + i] = run[i];
    }
    return out;
  }
  if ('{' in change && isPlainObject(value) && !(value instanceof SplicedText) && isPlainObject(change['{'])) {
    for (const [name, member] of Object.entries(change['{'])) {
      if (!Object.hasOwn(value, name)) throw new Error('bad object delta');
      const applied = applyDelta(value[name], member, texts);
      value[name] = applied;
      if (applied instanceof SplicedText) texts.push([value, name]);
    }
    return value;
  }
  throw new Error('not a delta');
}

/**
 * `value` with `removed` items at `start` replaced by `items`, in place: the value is the one
 * just parsed, owned by the read, and a splice moves its tail natively where spreading copied
 * every item of a 100k-record list once per delta.
 */
function spliced(value: unknown[], start: number, removed: number, items: unknown[]): unknown[] {
  if (removed === items.length) for (let i = 0; i < removed; i++) value[start + i] = items[i];
  else if (items.length <= 10_000) value.splice(start, removed, ...items);
  else return [...value.slice(0, start), ...items, ...value.slice(start + removed)];
  return value;
}

/** A shape guard: an object whose named members are of the given `typeof`, and not null. */
export const hasMembers =
  <T>(members: Record<string, 'string' | 'number' | 'object'>) =>
  (value: unknown): value is T =>
    typeof value === 'object' &&
    value !== null &&
    Object.entries(members).every(([name, type]) => {
      const member = (value as Record<string, unknown>)[name];
      return typeof member === type && member !== null;
    });

/**
 * Anything that is not a regular file holding JSON reads as null: the caller rebuilds what it
 * held. Opened without blocking, since a named pipe would wait for a writer for ever and a
 * symlink to /dev/zero would never end.
 */
async function readCacheJson(file: string): Promise<unknown> {
  try {
    return JSON.parse((await readRegularFile(file)).toString('utf8'));
  } catch {
    return null;
  }
}
