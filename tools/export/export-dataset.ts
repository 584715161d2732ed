/**
 * `pepe export` as a library function: mirrors a published catalogue's dataset into a folder:
 * `DIR/shards/<sha256>.jsonl` (the records, variant A, oldest first across the shards in index
 * order), `DIR/shards/<sha256>.sha256` (the images' checksums, `sha256sum -c` form from DIR),
 * `DIR/images/<file_name>` (every image) and, last, `DIR/manifest.json` (the published index).
 *
 * - Everything is checked: each shard against the index (size and sha256), each image against
 *   its record's `file_size` and its published sha256 (a missing one is an error).
 * - A mirror you can trust: nothing is written through a link (each download goes to a `.part`
 *   file created exclusively, never following a link; anything in DIR where the export writes
 *   that is not a regular file or folder is refused); every body is streamed under a byte cap
 *   from what is published and shards are parsed line by line, so memory stays flat; a request
 *   that sends nothing for IDLE_TIMEOUT_MS is given up; redirects are followed within the
 *   origin of `--from` only; only the build's own image names (`<uuid><ext>`) are written.
 * - Nothing half-written looks finished: each file is renamed to its name once verified; the
 *   manifest, written last, says the export is complete.
 * - Resumable, also across a change of the catalogue: a rerun reads the new index, keeps every
 *   shard and image already there and verified, and continues a partial download with an HTTP
 *   Range request where the server honours it (else starts it over).
 * - At most `concurrency` image downloads at once; a failed image or shard is a problem naming
 *   its URL, the others go on, and the export is then left incomplete (no manifest) for a rerun.
 *
 * Files are fetched from `--from`, not from each record's `url`: a mirror, or a local server of
 * a build made for another address, serves the same files under its own address.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DATASET, type DatasetFile, type DatasetIndex, type DatasetShard } from '../../functions/core/api-limits.js';
import { IMAGE_TYPES } from '../../functions/core/record.js';
import { makeFolders } from '../shared/make-folders.js';
import { error, type Problem } from '../shared/problems.js';

export const DEFAULT_CONCURRENCY = 8;
/** A request that sends nothing (no headers, no body bytes) for this long is given up; a rerun resumes it. */
export const IDLE_TIMEOUT_MS = 30_000;
/** The index is read whole: about 400 bytes a shard, so this holds some 10,000 shards (about 10M records). */
export const INDEX_MAX_BYTES = 4 * 1024 * 1024;
/** Records one shard may hold (the build cuts at 1,000): bounds the checksums held in memory at once. */
const SHARD_MAX_RECORDS = 100_000;
/** A record is a few KB; a longer line is no record, and is not buffered. */
const LINE_MAX_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 5;

export interface ExportOptions {
  /** Base URL of the published catalogue (its variant A base URL): http(s), no query. */
  from: string;
  /** Destination folder, created if needed. */
  to: string;
  concurrency?: number;
  /** Called after each image (fetched, kept or failed). */
  onProgress?: (progress: ExportProgress) => void;
  /** Stops the export: nothing in flight is finished, nothing unfinished is left under a final name. */
  signal?: AbortSignal;
  /** Default IDLE_TIMEOUT_MS; tests make it short. */
  idleTimeoutMs?: number;
}

export interface ExportProgress {
  done: number;
  total: number;
  /** Image bytes downloaded so far in this run. */
  bytes: number;
  failed: number;
  elapsedMs: number;
}

export interface ExportResult {
  ok: boolean;
  problems: Problem[];
  records: number;
  /** Images downloaded in this run, and those already there, verified. */
  fetched: number;
  kept: number;
  /** Image bytes downloaded in this run. */
  bytes: number;
  seconds: number;
}

/** A failure of one fetch or check, turned into a problem by the caller. */
class ExportFailure extends Error {
  constructor(
    message: string,
    readonly code = 'export-fetch',
  ) {
    super(message);
  }
}

const SHA256 = /^[0-9a-f]{64}$/;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** The only image names a build publishes: `<id><ext>`. */
const IMAGE_NAME = new RegExp(`^${UUID}(${Object.keys(IMAGE_TYPES).map((ext) => ext.replace('.', '\\.')).join('|')})$`);
const SHARD_URL = /^shards\/([0-9a-f]{64})\.(jsonl|sha256)$/;

function isPublished(value: unknown, ext: 'jsonl' | 'sha256', maxSize: number): value is DatasetFile {
  const v = value as DatasetFile | null;
  if (typeof v !== 'object' || v === null || typeof v.url !== 'string' || typeof v.sha256 !== 'string' || !SHA256.test(v.sha256)) return false;
  const match = SHARD_URL.exec(v.url);
  return match !== null && match[1] === v.sha256 && match[2] === ext && Number.isSafeInteger(v.size) && v.size >= 0 && v.size <= maxSize;
}

function isShard(value: unknown): value is DatasetShard {
  const v = value as DatasetShard;
  if (!isPublished(v, 'jsonl', Number.MAX_SAFE_INTEGER)) return false;
  const counted = Number.isSafeInteger(v.count) && v.count >= 1 && v.count <= SHARD_MAX_RECORDS && typeof v.first_id === 'string' && typeof v.last_id === 'string';
  return counted && (v.image_sha256 === undefined || isPublished(v.image_sha256, 'sha256', v.count * 256));
}

function parseIndex(text: string, url: string): DatasetIndex {
  let value: DatasetIndex;
  try {
    value = JSON.parse(text) as DatasetIndex;
  } catch {
    throw new ExportFailure(`${url} is not JSON: is --from the base URL of a Pepe Catalogue?`, 'export-invalid');
  }
  const valid = typeof value === 'object' && value !== null && Number.isSafeInteger(value.count) && typeof value.catalogue_version === 'string' && Array.isArray(value.shards) && value.shards.every(isShard);
  if (!valid) throw new ExportFailure(`${url} is not a dataset index (count, catalogue_version, shards [{url: "shards/<sha256>.jsonl", size, sha256, count, first_id, last_id, image_sha256}]): is --from the base URL of a Pepe Catalogue?`, 'export-invalid');
  const total = value.shards.reduce((sum, shard) => sum + shard.count, 0);
  if (total !== value.count) throw new ExportFailure(`${url} says ${value.count} records, but its shards hold ${total}: rerun (the catalogue may have changed meanwhile)`, 'export-invalid');
  return value;
}

/** What went wrong with a request, in a few words (undici hides the cause behind "fetch failed"). */
function networkCause(cause: unknown): string {
  const inner = (cause as { cause?: { code?: string; message?: string } }).cause;
  if (inner?.code) return inner.code;
  return inner?.message ?? (cause as Error).message ?? String(cause);
}

/** An AbortSignal that fires once nothing arrived for `ms`; `arm()` on every sign of life. */
class IdleTimer {
  readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  fired = false;
  constructor(private readonly ms: number) {
    this.arm();
  }
  arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.fired = true;
      this.controller.abort(new Error('idle'));
    }, this.ms);
  }
  stop(): void {
    clearTimeout(this.timer);
  }
}

interface Session {
  base: string;
  origin: string;
  signal: AbortSignal | undefined;
  idleMs: number;
}

/**
 * GET `url`, following redirects within the origin of `--from` only; a 2xx answer with its idle
 * timer running (the caller stops it). `range` asks for the bytes from that offset on.
 */
async function request(session: Session, url: string, range?: number): Promise<{ response: Response; idle: IdleTimer; url: string }> {
  let current = url;
  for (let hop = 0; ; hop++) {
    const idle = new IdleTimer(session.idleMs);
    const signal = session.signal ? AbortSignal.any([session.signal, idle.controller.signal]) : idle.controller.signal;
    const headers: Record<string, string> = range ? { range: `bytes=${range}-` } : {};
    let response: Response;
    try {
      response = await fetch(current, { signal, redirect: 'manual', headers });
    } catch (cause) {
      idle.stop();
      if (session.signal?.aborted) throw cause;
      throw new ExportFailure(`${current} could not be fetched (${idle.fired ? `no answer within ${session.idleMs / 1000} s` : networkCause(cause)})`);
    }
    if (response.status >= 300 && response.status < 400 && response.headers.has('location')) {
      idle.stop();
      await response.body?.cancel();
      const target = new URL(response.headers.get('location')!, current);
      if (target.origin !== session.origin) throw new ExportFailure(`${current} redirects to ${target.href}, another origin than --from (${session.origin}): refused; if you trust that address, export from it with --from`);
      if (hop >= MAX_REDIRECTS) throw new ExportFailure(`${url} redirects more than ${MAX_REDIRECTS} times`);
      current = target.href;
      continue;
    }
    if (!response.ok) {
      idle.stop();
      await response.body?.cancel();
      throw new ExportFailure(`${current} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
    }
    return { response, idle, url: current };
  }
}

/** Reads a body into memory, refusing more than `cap` bytes (for the index, which nothing else describes). */
async function fetchCapped(session: Session, url: string, cap: number): Promise<Buffer> {
  const { response, idle } = await request(session, url);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body! as unknown as AsyncIterable<Uint8Array>) {
      idle.arm();
      size += chunk.length;
      if (size > cap) throw new ExportFailure(`${url} is larger than ${cap} bytes: no dataset index is; is --from the base URL of a Pepe Catalogue?`, 'export-invalid');
      chunks.push(Buffer.from(chunk));
    }
  } catch (cause) {
    if (cause instanceof ExportFailure || session.signal?.aborted) throw cause;
    throw new ExportFailure(`${url} broke off after ${size} bytes (${idle.fired ? `nothing for ${session.idleMs / 1000} s` : networkCause(cause)})`);
  } finally {
    idle.stop();
    await response.body?.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks);
}

/** What lies at `path`: nothing, or a regular file; anything else (a link, a folder, a pipe) is refused, never written through. */
async function regularOrNothing(path: string): Promise<'none' | 'file'> {
  let info;
  try {
    info = await lstat(path);
  } catch (failure) {
    if ((failure as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw failure;
  }
  if (info.isFile()) return 'file';
  const what = info.isSymbolicLink() ? 'a symbolic link' : info.isDirectory() ? 'a folder' : 'not a regular file';
  throw new ExportFailure(`${path} is ${what}: pepe export never writes through one; remove it, or export to another --to`, 'export-folder');
}

/** A folder the export writes into: made if missing; a link or a file there is refused. */
async function ownFolder(path: string): Promise<void> {
  try {
    await mkdir(path);
  } catch (failure) {
    if ((failure as NodeJS.ErrnoException).code !== 'EEXIST') throw failure;
  }
  const info = await lstat(path);
  if (!info.isDirectory()) throw new ExportFailure(`${path} is ${info.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}: pepe export never writes through one; remove it, or export to another --to`, 'export-folder');
}

/** sha256 and size of a regular file (no link followed), or null when there is none. */
async function fileDigest(path: string): Promise<{ size: number; sha256: string } | null> {
  if ((await regularOrNothing(path)) === 'none') return null;
  const hash = createHash('sha256');
  const size = await hashInto(path, hash);
  return { size, sha256: hash.digest('hex') };
}

const WRITE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const WRITE_MORE = constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW;

/** Parses `Content-Range: bytes a-b/total`. */
const contentRange = (header: string | null) => /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header ?? '')?.slice(1).map(Number);

/** A read stream of `path` that never follows a link (the stream closes the file at its end). */
async function readNoFollow(path: string): Promise<AsyncIterable<Buffer>>;
async function readNoFollow(path: string, encoding: 'utf8'): Promise<AsyncIterable<string>>;
async function readNoFollow(path: string, encoding?: 'utf8'): Promise<AsyncIterable<Buffer | string>> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  return handle.createReadStream(encoding ? { encoding } : {});
}

/** Feeds a regular file's bytes (no link followed) into `hash`; returns its size. */
async function hashInto(path: string, hash: ReturnType<typeof createHash>): Promise<number> {
  let size = 0;
  for await (const chunk of await readNoFollow(path)) {
    hash.update(chunk);
    size += chunk.length;
  }
  return size;
}

/**
 * Streams `url` into `<target>.part` (created exclusively, or continued by a Range request when
 * a partial one is there), at most `size` bytes, checks size and sha256, then renames it to
 * `target`. A body broken off leaves the `.part` for a rerun; wrong bytes remove it.
 */
async function download(session: Session, url: string, target: string, size: number, sha256: string | undefined, onBytes: (n: number) => void): Promise<void> {
  const part = `${target}.part`;
  const hash = createHash('sha256');
  let have = 0;
  if ((await regularOrNothing(part)) === 'file') {
    have = await hashInto(part, hash);
    if (have === 0 || have >= size) return rm(part).then(() => download(session, url, target, size, sha256, onBytes));
  }
  const { response, idle } = await request(session, url, have > 0 ? have : undefined);
  if (have > 0) {
    const range = contentRange(response.headers.get('content-range'));
    const resumed = response.status === 206 && range !== undefined && range[0] === have && range[1] === size - 1 && range[2] === size;
    if (!resumed) {
      // No usable Range support: start over, from this answer when it is the whole file.
      await rm(part);
      if (response.status !== 200) {
        idle.stop();
        await response.body?.cancel();
        return download(session, url, target, size, sha256, onBytes);
      }
      return stream(session, url, response, idle, { part, target, size, sha256, onBytes, have: 0, hash: createHash('sha256') });
    }
  }
  return stream(session, url, response, idle, { part, target, size, sha256, onBytes, have, hash });
}

/** Writes a download's body after the `have` bytes already in `part`; see `download`. */
async function stream(
  session: Session,
  url: string,
  response: Response,
  idle: IdleTimer,
  job: { part: string; target: string; size: number; sha256: string | undefined; onBytes: (n: number) => void; have: number; hash: ReturnType<typeof createHash> },
): Promise<void> {
  const { part, target, size, sha256, onBytes, have, hash } = job;
  let handle: FileHandle | undefined;
  let received = have;
  /** Bytes that are not what was published: the `.part` goes. A body cut short stays, for a rerun to continue. */
  let wrong = false;
  try {
    const declared = Number(response.headers.get('content-length') ?? NaN);
    // Content-Length counts the encoded bytes: only an unencoded body's is compared.
    wrong = response.status === 200 && !response.headers.has('content-encoding') && declared > size;
    if (wrong) throw new ExportFailure(`${url} announces ${declared} bytes, but ${size} were published: rerun (the catalogue may have changed meanwhile)`);
    handle = await open(part, have > 0 ? WRITE_MORE : WRITE_NEW);
    try {
      for await (const chunk of response.body! as unknown as AsyncIterable<Uint8Array>) {
        idle.arm();
        received += chunk.length;
        wrong = received > size;
        if (wrong) throw new ExportFailure(`${url} sent more than the ${size} bytes published: rerun (the catalogue may have changed meanwhile)`);
        hash.update(chunk);
        await handle.write(chunk);
        onBytes(chunk.length);
      }
    } catch (cause) {
      if (cause instanceof ExportFailure || session.signal?.aborted) throw cause;
      throw new ExportFailure(`${url} broke off after ${received} of ${size} bytes (${idle.fired ? `nothing for ${session.idleMs / 1000} s` : networkCause(cause)}): rerun to resume`);
    }
    wrong = true;
    if (received !== size) throw new ExportFailure(`${url} has ${received} bytes, but ${size} were published: rerun (the catalogue may have changed meanwhile)`);
    const digest = hash.digest('hex');
    if (sha256 !== undefined && digest !== sha256) throw new ExportFailure(`${url} has sha256 ${digest}, but ${sha256} was published: rerun (the catalogue may have changed meanwhile)`);
  } catch (failure) {
    idle.stop();
    await response.body?.cancel().catch(() => undefined);
    await handle?.close();
    if (wrong) await rm(part, { force: true });
    throw failure;
  }
  idle.stop();
  await handle.close();
  await rename(part, target);
}

/** Lines of a local file, streamed; a line over LINE_MAX_BYTES or a missing last newline is an ExportFailure. */
async function* linesOf(path: string, name: string): AsyncGenerator<string> {
  let rest = '';
  for await (const chunk of await readNoFollow(path, 'utf8')) {
    rest += chunk;
    let start = 0;
    for (let end = rest.indexOf('\n'); end >= 0; end = rest.indexOf('\n', start)) {
      yield rest.slice(start, end);
      start = end + 1;
    }
    rest = rest.slice(start);
    if (rest.length > LINE_MAX_BYTES) throw new ExportFailure(`${name} has a line longer than ${LINE_MAX_BYTES} bytes: no record is`, 'export-invalid');
  }
  if (rest !== '') throw new ExportFailure(`${name} does not end with a newline`, 'export-invalid');
}

interface ImageJob {
  fileName: string;
  size: number;
  /** Undefined only when the catalogue publishes no checksums for the shard. */
  sha256: string | undefined;
  /** Set when the image cannot be fetched as published (a checksum missing). */
  refused?: string;
}

export async function exportDataset(options: ExportOptions): Promise<ExportResult> {
  const started = performance.now();
  const base = options.from.replace(/\/+$/, '');
  const { to, signal } = options;
  const session: Session = { base, origin: new URL(base).origin, signal, idleMs: options.idleTimeoutMs ?? IDLE_TIMEOUT_MS };
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  const result: ExportResult = { ok: false, problems: [], records: 0, fetched: 0, kept: 0, bytes: 0, seconds: 0 };
  const finish = (): ExportResult => ({ ...result, ok: result.problems.length === 0, seconds: (performance.now() - started) / 1000 });
  const fail = (failure: unknown, file?: string): void => {
    if (!(failure instanceof ExportFailure)) {
      const code = (failure as NodeJS.ErrnoException).code;
      if (typeof code !== 'string') throw failure;
      result.problems.push(error('export-folder', `cannot write ${file ? join(to, file) : to} (${code}): free some space or check the folder's permissions, then rerun`, file));
      return;
    }
    result.problems.push(error(failure.code, failure.message, file));
  };

  const indexUrl = `${base}${DATASET.index}`;
  const shardsDir = join(to, 'shards');
  const imagesDir = join(to, 'images');
  let index: DatasetIndex;
  try {
    index = parseIndex((await fetchCapped(session, indexUrl, INDEX_MAX_BYTES)).toString('utf8'), indexUrl);
    await makeFolders(to);
    for (const dir of [shardsDir, imagesDir]) await ownFolder(dir);
    // A manifest left by an earlier export says "complete": it goes first, and comes back last.
    if ((await regularOrNothing(join(to, 'manifest.json'))) === 'file') await rm(join(to, 'manifest.json'));
  } catch (failure) {
    if (signal?.aborted) throw failure;
    fail(failure);
    return finish();
  }
  result.records = index.count;
  const indexBase = indexUrl.slice(0, indexUrl.lastIndexOf('/') + 1);

  /** A published shard file in DIR/shards, fetched unless already there and intact. */
  const shardFile = async (file: DatasetFile): Promise<string> => {
    const target = join(to, file.url);
    const have = await fileDigest(target);
    if (!have || have.size !== file.size || have.sha256 !== file.sha256) await download(session, `${indexBase}${file.url}`, target, file.size, file.sha256, () => {});
    return target;
  };

  /** Every image of every shard, in order, read line by line: no more than one shard's checksums in memory. */
  async function* jobs(): AsyncGenerator<ImageJob> {
    for (const shard of index.shards) {
      const name = `${indexBase}${shard.url}`;
      let sums: Map<string, string> | null = null;
      let count = 0;
      try {
        const path = await shardFile(shard);
        if (shard.image_sha256) {
          sums = new Map();
          const sumsName = `${indexBase}${shard.image_sha256.url}`;
          for await (const line of linesOf(await shardFile(shard.image_sha256), sumsName)) {
            const match = /^([0-9a-f]{64}) {2}images\/(.+)$/.exec(line);
            if (!match || !IMAGE_NAME.test(match[2]!)) throw new ExportFailure(`${sumsName} line ${sums.size + 1} is not "<sha256>  images/<id><ext>"`, 'export-invalid');
            sums.set(match[2]!, match[1]!);
          }
        }
        let lastId = '';
        for await (const line of linesOf(path, name)) {
          count++;
          let record: { id?: unknown; file_name?: unknown; file_ext?: unknown; file_size?: unknown };
          try {
            record = JSON.parse(line) as typeof record;
          } catch {
            throw new ExportFailure(`${name} line ${count} is not JSON`, 'export-invalid');
          }
          const fileName = record.file_name;
          // A file name becomes a path here: only the catalogue's own `<id><ext>` names are taken.
          if (typeof fileName !== 'string' || !IMAGE_NAME.test(fileName) || fileName !== `${String(record.id)}${String(record.file_ext)}` || !Number.isSafeInteger(record.file_size) || (record.file_size as number) < 0) {
            throw new ExportFailure(`${name} line ${count} is not a pepe record the catalogue could publish (file_name "<id><ext>" of its id and file_ext, file_size): ${JSON.stringify(String(fileName)).slice(0, 80)}`, 'export-invalid');
          }
          if (count === 1 && record.id !== shard.first_id) throw new ExportFailure(`${name} starts with ${String(record.id)}, but the index says ${shard.first_id}`, 'export-invalid');
          lastId = record.id as string;
          const sha256 = sums?.get(fileName);
          const refused = sums && sha256 === undefined ? `${indexBase}${shard.image_sha256!.url} has no sha256 for images/${fileName}, though the catalogue publishes checksums: rerun later, or tell the catalogue's maintainers` : undefined;
          yield { fileName, size: record.file_size as number, sha256, refused };
        }
        if (count !== shard.count || lastId !== shard.last_id) throw new ExportFailure(`${name} holds ${count} records ending with ${lastId}, but the index says ${shard.count} ending with ${shard.last_id}: rerun`, 'export-invalid');
      } catch (failure) {
        if (signal?.aborted) return;
        fail(failure, shard.url);
        // The shard's images not yet listed count as failed, so the total still adds up.
        failed += Math.max(0, shard.count - count);
        done += Math.max(0, shard.count - count);
      }
    }
  }

  let done = 0;
  let failed = 0;
  const report = () => options.onProgress?.({ done, total: index.count, bytes: result.bytes, failed, elapsedMs: performance.now() - started });
  const queue = jobs();
  const worker = async (): Promise<void> => {
    while (!signal?.aborted) {
      const next = await queue.next();
      if (next.done) return;
      const job = next.value;
      const target = join(imagesDir, job.fileName);
      const url = `${base}/images/${job.fileName}`;
      try {
        if (job.refused) throw new ExportFailure(job.refused, 'export-image');
        const have = await fileDigest(target);
        if (have && have.size === job.size && (job.sha256 === undefined || have.sha256 === job.sha256)) result.kept++;
        else {
          await download(session, url, target, job.size, job.sha256, (n) => (result.bytes += n));
          result.fetched++;
        }
      } catch (failure) {
        if (signal?.aborted) break;
        failed++;
        fail(failure instanceof ExportFailure && failure.code === 'export-fetch' ? new ExportFailure(failure.message, 'export-image') : failure, `images/${job.fileName}`);
      }
      done++;
      report();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (signal?.aborted) {
    await queue.return(undefined);
    result.problems.push(error('export-interrupted', `interrupted after ${done} of ${index.count} images: rerun the same command to resume (finished images are kept)`));
    return finish();
  }
  if (result.problems.length > 0) return finish();
  try {
    await removeLeftovers(shardsDir, new Set(index.shards.flatMap((shard) => [shard.url, ...(shard.image_sha256 ? [shard.image_sha256.url] : [])].map((url) => url.slice('shards/'.length)))));
    await removeLeftovers(imagesDir, null);
    // The published index, which names the shards by the same relative paths in DIR.
    const manifest = join(to, 'manifest.json');
    const part = `${manifest}.part`;
    if ((await regularOrNothing(part)) === 'file') await rm(part);
    const handle = await open(part, WRITE_NEW);
    try {
      await handle.writeFile(`${JSON.stringify({ ...index, exported_from: base }, null, 1)}\n`);
    } finally {
      await handle.close();
    }
    await rename(part, manifest);
  } catch (failure) {
    fail(failure);
  }
  return finish();
}

/** `.part` files of downloads that did not finish, and (when `keep` is given) shards the index no longer lists: regular files only. */
async function removeLeftovers(dir: string, keep: Set<string> | null): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const stale = entry.name.endsWith('.part') || (keep !== null && SHARD_URL.test(`shards/${entry.name}`) && !keep.has(entry.name));
    if (stale && entry.isFile()) await rm(join(dir, entry.name));
  }
}
