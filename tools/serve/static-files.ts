/**
 * The static half of the chain: which files exist, and their bytes.
 *
 * The list of servable files is fixed at start-up, from the build's `dist/manifest.json`
 * (or, without one, a walk of the static root). A request is only ever looked up in that
 * list; no filesystem path is built from request text. Every listed path is checked to
 * resolve inside the static root when the list is loaded.
 *
 * Bodies up to MAX_CACHED_FILE_BYTES are read once and kept in memory, with their ETag
 * (a hash of the bytes) and, for text types, their compressed forms; larger files are
 * streamed from disk with an ETag from the manifest's sha256.
 */
import { createHash } from 'node:crypto';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { loadManifest, UnusableManifestError } from '../shared/manifest.js';
import { readRegularFile } from '../shared/read-regular-file.js';
import { compressBest, type Encoding, MIN_COMPRESS_BYTES } from './compression.js';
import { freshBuild } from './fresh-build.js';
import type { ReadyForms } from './response-headers.js';

/** Files above this are streamed rather than kept in memory. */
const MAX_CACHED_FILE_BYTES = 4 * 1024 * 1024;
/** Total bytes kept in memory (originals plus compressed forms); past it, files are streamed. */
const MAX_CACHE_BYTES = 512 * 1024 * 1024;

export interface StaticEntry {
  /** Decoded URL path, e.g. `/api/pepe/<id>`. */
  urlPath: string;
  /** Absolute file path, checked to be inside the static root. */
  file: string;
  size: number;
  /** From the manifest, when there is one. */
  sha256?: string;
}

export interface CachedBody {
  body: Buffer;
  etag: string;
  compressed: Partial<Record<Encoding, Promise<Buffer>>>;
  /** The compressed forms made so far, for the answers that never wait (static-response.ts `staticForm`). */
  compressedReady: Partial<Record<Encoding, Buffer>>;
  /** The 200 answer per form, built on first use (response-headers.ts `readyForm`). */
  forms?: ReadyForms;
}

/** Files Netlify itself reads and never serves. */
const NETLIFY_CONTROL_FILES = new Set(['/_redirects', '/_headers']);

export class StaticSite {
  private readonly cache = new Map<string, CachedBody>();
  /** Reads under way, by URL path: at most one per file (`body`). */
  private readonly reading = new Map<string, Promise<CachedBody>>();
  private cachedBytes = 0;

  private constructor(
    readonly root: string,
    private readonly entries: Map<string, StaticEntry>,
  ) {}

  /** Index from `<distDir>/manifest.json` when present, else a walk of `<distDir>/site`. */
  static async load(distDir: string): Promise<StaticSite> {
    const root = resolve(distDir, 'site');
    const manifestFile = join(distDir, 'manifest.json');
    const fromManifest = await listedFiles(distDir);
    const listed = fromManifest ?? (await walk(root));
    const entries = new Map<string, StaticEntry>();
    for (const item of listed) {
      const file = resolve(root, item.relPath);
      if (!isSafeRelativePath(item.relPath) || !file.startsWith(root + sep)) {
        throw new Error(`${manifestFile}: file "site/${item.relPath}" is outside the static root; rebuild with \`npx pepe build\``);
      }
      const urlPath = `/${item.relPath}`;
      if (NETLIFY_CONTROL_FILES.has(urlPath)) continue;
      entries.set(urlPath, { urlPath, file, size: item.size, ...(item.sha256 ? { sha256: item.sha256 } : {}) });
    }
    return new StaticSite(root, entries);
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The listed files that are not on disk (paths below the site folder, e.g. `index.html`),
   * for the start-up check: a build folder that lost some (deleted by hand, a partial copy)
   * must not be served as if whole.
   */
  async missingFiles(): Promise<string[]> {
    const missing: string[] = [];
    const list = [...this.entries.values()];
    for (let i = 0; i < list.length; i += 256) {
      await Promise.all(
        list.slice(i, i + 256).map((entry) =>
          lstat(entry.file).catch((error: NodeJS.ErrnoException) => {
            if (error.code === 'ENOENT' || error.code === 'ENOTDIR') missing.push(entry.urlPath.slice(1));
          }),
        ),
      );
    }
    return missing.sort();
  }

  /**
   * The file a URL pathname (as the URL parser leaves it, percent-encoded) names, or null.
   * Encoded slashes, backslashes and NUL never name a file; `/dir/` and `/dir` name
   * `/dir/index.html`.
   */
  lookup(rawPathname: string): StaticEntry | null {
    let decoded = rawPathname;
    if (rawPathname.includes('%') || rawPathname.includes('\\') || rawPathname.includes('\0')) {
      if (/%(2f|5c|00)|\\|\0/i.test(rawPathname)) return null;
      try {
        decoded = decodeURIComponent(rawPathname);
      } catch {
        return null;
      }
    }
    // The URL parser already folds dot segments; this guards decoded ones (`%2e%2e`) and other callers.
    if (decoded.includes('/.') && decoded.split('/').some((s) => s === '..' || s === '.')) return null;
    const direct = this.entries.get(decoded);
    if (direct) return direct;
    const index = decoded.endsWith('/') ? `${decoded}index.html` : `${decoded}/index.html`;
    return this.entries.get(index) ?? null;
  }

  /** The body if it is already in memory (the hot path: no promise, no await). */
  peek(entry: StaticEntry): CachedBody | undefined {
    return this.cache.get(entry.urlPath);
  }

  /**
   * The whole body in memory with its ETag, or null when the file is too large to cache (stream
   * it). Requests that arrive while the file is being read share that one read: a copy each
   * would let one connection pipelining requests for a file not yet read hold a copy per request.
   */
  body(entry: StaticEntry): Promise<CachedBody | null> {
    const cached = this.cache.get(entry.urlPath);
    if (cached) return Promise.resolve(cached);
    if (entry.size > MAX_CACHED_FILE_BYTES || this.cachedBytes + entry.size > MAX_CACHE_BYTES) return Promise.resolve(null);
    let pending = this.reading.get(entry.urlPath);
    if (!pending) {
      pending = this.read(entry).finally(() => this.reading.delete(entry.urlPath));
      this.reading.set(entry.urlPath, pending);
    }
    return pending;
  }

  private async read(entry: StaticEntry): Promise<CachedBody> {
    // Opened without blocking and refused unless a regular file: a named pipe would hold a thread-pool thread for ever.
    const body = await readRegularFile(entry.file);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    const fresh: CachedBody = { body, etag, compressed: {}, compressedReady: {} };
    this.cache.set(entry.urlPath, fresh);
    this.cachedBytes += body.length;
    return fresh;
  }

  /** The compressed form of a cached body, made once; null when compression would not pay. */
  compressed(cached: CachedBody, encoding: Encoding): Promise<Buffer> | null {
    if (cached.body.length < MIN_COMPRESS_BYTES) return null;
    let pending = cached.compressed[encoding];
    if (!pending) {
      pending = compressBest(cached.body, encoding).then((buffer) => {
        this.cachedBytes += buffer.length;
        cached.compressedReady[encoding] = buffer;
        return buffer;
      });
      cached.compressed[encoding] = pending;
    }
    return pending;
  }
}

/** ETag for a streamed (uncached) file: the manifest's hash, or a weak size+mtime tag without one. */
export async function streamEtag(entry: StaticEntry): Promise<string> {
  if (entry.sha256) return `"${Buffer.from(entry.sha256, 'hex').toString('base64url').slice(0, 27)}"`;
  const info = await stat(entry.file);
  return `W/"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`;
}

function isSafeRelativePath(relPath: string): boolean {
  return relPath.length > 0 && !relPath.startsWith('/') && !relPath.includes('\\') && !relPath.includes('\0') && relPath.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

interface ListedFile {
  relPath: string;
  size: number;
  sha256?: string;
}

/**
 * The site files `<distDir>/manifest.json` lists, or null when there is none. One that is
 * there but unusable stops the server, naming it: the build refuses to write over it (a
 * folder without a build's manifest), so the fix is a fresh build.
 */
async function listedFiles(distDir: string): Promise<ListedFile[] | null> {
  let manifest;
  try {
    manifest = await loadManifest(distDir);
  } catch (error) {
    if (error instanceof UnusableManifestError) throw new Error(`${error.message}: ${freshBuild(distDir)}`);
    throw error;
  }
  if (manifest === null) return null;
  return Object.entries(manifest.files)
    .filter(([path]) => path.startsWith('site/'))
    .map(([path, { size, sha256 }]) => ({ relPath: path.slice('site/'.length), size, sha256 }));
}

async function walk(root: string): Promise<ListedFile[]> {
  const found: ListedFile[] = [];
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    found.push({ relPath: relative(root, file).split(sep).join('/'), size: (await stat(file)).size });
  }
  return found.sort((a, b) => (a.relPath < b.relPath ? -1 : 1));
}
