/**
 * `pepe export` as a library function: mirrors a published catalogue's dataset into a folder,
 * `DIR/pepes.jsonl` (every record, variant A, oldest first), `DIR/images/<file_name>` (every
 * image), `DIR/images.sha256` (`sha256sum -c` form) and, last, `DIR/manifest.json`.
 *
 * - Everything is checked: the JSONL and the checksums against the published manifest (size and
 *   sha256), each image against its record's `file_size` and its published sha256.
 * - Nothing half-written looks finished: each file is written as `<name>.part` and renamed once
 *   verified; the manifest, written last, says the export is complete.
 * - Resumable: a rerun keeps every image already there with the right size and hash, and
 *   fetches only the rest (an interrupted download's `.part` is started again).
 * - At most `concurrency` downloads at once; a failed image is a problem naming its URL and what
 *   went wrong, the others go on, and the export is then left incomplete (no manifest) for a rerun.
 *
 * Images are fetched from `--from`, not from each record's `url`: a mirror, or a local server of
 * a build made for another address, serves the same files under its own address.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DATASET, type DatasetManifest } from '../../functions/core/api-limits.js';
import { sha256Of } from '../shared/manifest.js';
import { error, type Problem } from '../shared/problems.js';

export const DEFAULT_CONCURRENCY = 8;
/** A request that sends nothing for this long is given up (the rerun tries again). */
export const REQUEST_TIMEOUT_MS = 60_000;

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
}

export interface ExportProgress {
  done: number;
  total: number;
  /** Bytes downloaded so far in this run. */
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
  bytes: number;
  seconds: number;
}

type PublishedFile = DatasetManifest['jsonl'];
/** The published manifest (site-documents.ts); one without image checksums is taken too, images then checked by size alone. */
type Manifest = Omit<DatasetManifest, 'image_sha256'> & { image_sha256?: PublishedFile };

/** A failure of one fetch or check, turned into a problem by the caller. */
class ExportFailure extends Error {}

const isFile = (value: unknown): value is PublishedFile => {
  const v = value as PublishedFile | null;
  return typeof v === 'object' && v !== null && typeof v.path === 'string' && Number.isSafeInteger(v.size) && /^[0-9a-f]{64}$/.test(v.sha256);
};

function parseManifest(text: string, url: string): Manifest {
  let value: Partial<Manifest>;
  try {
    value = JSON.parse(text) as Partial<Manifest>;
  } catch {
    throw new ExportFailure(`${url} is not JSON: is --from the base URL of a Pepe Catalogue?`);
  }
  const valid = value !== null && typeof value === 'object' && Number.isSafeInteger(value.count) && typeof value.catalogue_version === 'string' && isFile(value.jsonl) && (value.image_sha256 === undefined || isFile(value.image_sha256));
  if (!valid) throw new ExportFailure(`${url} is not a dataset manifest (count, catalogue_version, jsonl {path, size, sha256}): is --from the base URL of a Pepe Catalogue?`);
  return value as Manifest;
}

/** What went wrong with a request, in a few words (undici hides the cause behind "fetch failed"). */
function networkCause(cause: unknown): string {
  const inner = (cause as { cause?: { code?: string; message?: string } }).cause;
  if (inner?.code) return inner.code;
  if ((cause as Error).name === 'TimeoutError') return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  return inner?.message ?? (cause as Error).message ?? String(cause);
}

async function request(url: string, signal: AbortSignal | undefined): Promise<Response> {
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetch(url, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout, redirect: 'follow' });
  } catch (cause) {
    if (signal?.aborted) throw cause;
    throw new ExportFailure(`${url} could not be fetched (${networkCause(cause)})`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new ExportFailure(`${url} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
  }
  return response;
}

async function fetchText(url: string, expected: PublishedFile | null, signal: AbortSignal | undefined): Promise<string> {
  const response = await request(url, signal);
  let bytes: Buffer;
  try {
    bytes = Buffer.from(await response.arrayBuffer());
  } catch (cause) {
    if (signal?.aborted) throw cause;
    throw new ExportFailure(`${url} broke off while downloading (${networkCause(cause)})`);
  }
  if (expected) checkBytes(url, bytes.length, sha256Of(bytes), expected.size, expected.sha256);
  return bytes.toString('utf8');
}

function checkBytes(what: string, size: number, sha256: string, expectedSize: number, expectedSha256: string | undefined): void {
  if (size !== expectedSize) throw new ExportFailure(`${what} has ${size} bytes, but ${expectedSize} were published: rerun (the catalogue may have changed meanwhile)`);
  if (expectedSha256 !== undefined && sha256 !== expectedSha256) throw new ExportFailure(`${what} has sha256 ${sha256}, but ${expectedSha256} was published: rerun (the catalogue may have changed meanwhile)`);
}

/** sha256 and size of a file, or null when there is none. */
async function fileDigest(path: string): Promise<{ size: number; sha256: string } | null> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return null;
  } catch {
    return null;
  }
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hash.digest('hex') };
}

/** Writes `bytes` to `<path>.part`, then renames it to `path`. */
async function writeFinished(path: string, bytes: string | Buffer): Promise<void> {
  const part = `${path}.part`;
  const handle = await open(part, 'w');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(part, path);
}

/** Streams one image into `<target>.part`, checking size and hash, then renames it; returns its bytes. */
async function downloadImage(url: string, target: string, expectedSize: number, expectedSha256: string | undefined, signal: AbortSignal | undefined): Promise<number> {
  const response = await request(url, signal);
  const part = `${target}.part`;
  const handle = await open(part, 'w');
  const hash = createHash('sha256');
  let size = 0;
  try {
    try {
      for await (const chunk of response.body! as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.length;
        // More than the record says: no point in reading on.
        if (size > expectedSize) break;
        hash.update(chunk);
        await handle.write(chunk);
      }
    } catch (cause) {
      if (signal?.aborted) throw cause;
      throw new ExportFailure(`${url} broke off after ${size} of ${expectedSize} bytes (${networkCause(cause)})`);
    }
    if (size > expectedSize) await response.body?.cancel().catch(() => undefined);
    checkBytes(url, size, hash.digest('hex'), expectedSize, expectedSha256);
    await handle.sync();
  } catch (failure) {
    await handle.close();
    await rm(part, { force: true });
    throw failure;
  }
  await handle.close();
  await rename(part, target);
  return size;
}

interface ImageJob {
  fileName: string;
  size: number;
  sha256: string | undefined;
}

/** The images the JSONL names, with their published size and hash; a line that is no record is an ExportFailure. */
function imageJobs(jsonl: string, sums: Map<string, string>, url: string): ImageJob[] {
  const lines = jsonl.split('\n');
  if (lines.pop() !== '') throw new ExportFailure(`${url} does not end with a newline: it was cut short; rerun`);
  return lines.map((line, index) => {
    let record: { file_name?: unknown; file_size?: unknown };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      throw new ExportFailure(`${url} line ${index + 1} is not JSON`);
    }
    const fileName = record.file_name;
    // A file name becomes a path here: only the catalogue's own `<uuid><ext>` names are taken.
    if (typeof fileName !== 'string' || !/^[0-9a-f-]{36}\.[a-z0-9]{2,5}$/.test(fileName) || !Number.isSafeInteger(record.file_size)) {
      throw new ExportFailure(`${url} line ${index + 1} is not a pepe record (file_name <id><ext>, file_size)`);
    }
    return { fileName, size: record.file_size as number, sha256: sums.get(fileName) };
  });
}

function parseSums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([0-9a-f]{64}) {2}images\/(.+)$/.exec(line);
    if (match) sums.set(match[2]!, match[1]!);
  }
  return sums;
}

export async function exportDataset(options: ExportOptions): Promise<ExportResult> {
  const started = performance.now();
  const base = options.from.replace(/\/+$/, '');
  const { to, signal } = options;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  const result: ExportResult = { ok: false, problems: [], records: 0, fetched: 0, kept: 0, bytes: 0, seconds: 0 };
  const finish = (): ExportResult => ({ ...result, ok: result.problems.length === 0, seconds: (performance.now() - started) / 1000 });

  let manifest: Manifest;
  let jsonl: string;
  let sumsText: string | null = null;
  try {
    const manifestUrl = `${base}${DATASET.manifest}`;
    manifest = parseManifest(await fetchText(manifestUrl, null, signal), manifestUrl);
    jsonl = await fetchText(`${base}/${manifest.jsonl.path}`, manifest.jsonl, signal);
    if (manifest.image_sha256) sumsText = await fetchText(`${base}/${manifest.image_sha256.path}`, manifest.image_sha256, signal);
  } catch (failure) {
    if (!(failure instanceof ExportFailure)) throw failure;
    result.problems.push(error('export-fetch', failure.message));
    return finish();
  }
  let jobs: ImageJob[];
  try {
    jobs = imageJobs(jsonl, parseSums(sumsText ?? ''), `${base}/${manifest.jsonl.path}`);
  } catch (failure) {
    if (!(failure instanceof ExportFailure)) throw failure;
    result.problems.push(error('export-invalid', failure.message));
    return finish();
  }
  result.records = jobs.length;
  if (jobs.length !== manifest.count) {
    result.problems.push(error('export-invalid', `${base}/${manifest.jsonl.path} holds ${jobs.length} records, but the manifest says ${manifest.count}: rerun`));
    return finish();
  }

  const imagesDir = join(to, 'images');
  try {
    await mkdir(imagesDir, { recursive: true });
  } catch (failure) {
    result.problems.push(error('export-folder', `cannot create the folder ${imagesDir} (${(failure as NodeJS.ErrnoException).code ?? String(failure)}): choose another --to`));
    return finish();
  }
  // A manifest left by an earlier export says "complete": it goes first, and comes back last.
  await rm(join(to, 'manifest.json'), { force: true });

  let next = 0;
  let done = 0;
  let failed = 0;
  const report = () => options.onProgress?.({ done, total: jobs.length, bytes: result.bytes, failed, elapsedMs: performance.now() - started });
  const worker = async (): Promise<void> => {
    while (next < jobs.length && !signal?.aborted) {
      const job = jobs[next++]!;
      const target = join(imagesDir, job.fileName);
      const url = `${base}/images/${job.fileName}`;
      try {
        const have = await fileDigest(target);
        if (have && have.size === job.size && (job.sha256 === undefined || have.sha256 === job.sha256)) result.kept++;
        else {
          result.bytes += await downloadImage(url, target, job.size, job.sha256, signal);
          result.fetched++;
        }
      } catch (failure) {
        if (signal?.aborted) break;
        const code = (failure as NodeJS.ErrnoException).code;
        if (!(failure instanceof ExportFailure) && typeof code !== 'string') throw failure;
        failed++;
        const message = failure instanceof ExportFailure ? failure.message : `cannot write ${target} (${code}): free some space or check the folder's permissions, then rerun`;
        result.problems.push(error('export-image', message, `images/${job.fileName}`));
      }
      done++;
      report();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, jobs.length)) }, worker));
  if (signal?.aborted) {
    result.problems.push(error('export-interrupted', `interrupted after ${done} of ${jobs.length} images: rerun the same command to resume (finished images are kept)`));
    return finish();
  }
  if (result.problems.length > 0) return finish();
  await removeParts(imagesDir);
  await writeFinished(join(to, 'pepes.jsonl'), jsonl);
  if (sumsText !== null) await writeFinished(join(to, 'images.sha256'), sumsText);
  // The published manifest, its paths made those of this folder.
  const local = { ...manifest, jsonl: { ...manifest.jsonl, path: 'pepes.jsonl' }, ...(manifest.image_sha256 ? { image_sha256: { ...manifest.image_sha256, path: 'images.sha256' } } : {}), exported_from: base };
  await writeFinished(join(to, 'manifest.json'), `${JSON.stringify(local, null, 2)}\n`);
  return finish();
}

/** `.part` files of downloads an earlier run did not finish. */
async function removeParts(dir: string): Promise<void> {
  for (const name of await readdir(dir)) if (name.endsWith('.part')) await rm(join(dir, name), { force: true });
}
