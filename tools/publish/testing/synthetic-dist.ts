/**
 * Writes a build output folder shaped like `pepe build`'s (tools/catalogue/README.md, "Build output": site/images, the
 * extensionless by-id JSON of both variants, openapi.json, a page, data/ and functions/,
 * manifest.json) without running the build: publish tests and the 10k benchmark need
 * many records and exact control over which bytes change, not real image analysis.
 * Image bytes are arbitrary (the publisher never decodes them).
 */
import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { makeFolders } from '../../shared/make-folders.js';
import { createManifest, loadManifest, newSegmentFiles, segmentFiles, writeManifestFiles } from '../../shared/manifest.js';

const SYNTHETIC_SETTINGS = { apiUrl: 'https://api.example.test', baseUrl: 'https://pepe.example.test', cdnUrl: 'https://cdn.example.test' };

export interface SyntheticRecord {
  id: string;
  ext: '.png' | '.jpg' | '.gif' | '.webp' | '.avif';
  image: Buffer;
  description?: string;
}

/** A deterministic UUID-shaped id for record number `n` (distinct for every n). */
function syntheticId(n: number, salt = ''): string {
  const h = createHash('sha256').update(`pepe-${salt}${n}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** `count` records with small distinct image bytes. */
export function syntheticRecords(count: number, salt = ''): SyntheticRecord[] {
  const exts = ['.png', '.jpg', '.gif', '.webp'] as const;
  return Array.from({ length: count }, (_, n) => ({
    id: syntheticId(n, salt),
    ext: exts[n % exts.length]!,
    image: Buffer.from(`synthetic image ${salt}${n} `.repeat(8 + (n % 5))),
    description: `pepe number ${n}`,
  }));
}

const stable = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/**
 * Replaces the folder's contents with a build and its manifest; returns the paths written
 * (relative to `dir`). `incremental`: the manifest made from the one in the folder, as a
 * rebuild makes it (id segments' changes in the delta), its unchanged segment files kept.
 */
export async function writeSyntheticDist(dir: string, records: SyntheticRecord[], options: { page?: string; extra?: Record<string, string>; incremental?: boolean } = {}): Promise<string[]> {
  const previous = options.incremental ? await loadManifest(dir) : null;
  const kept = new Map<string, Buffer>();
  for (const path of previous ? segmentFiles(previous) : []) kept.set(path, await readFile(join(dir, path)));
  const files = new Map<string, Buffer>();
  const s = SYNTHETIC_SETTINGS;
  const sorted = [...records].sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const r of sorted) {
    files.set(`site/images/${r.id}${r.ext}`, r.image);
    files.set(`site/api/pepe/${r.id}`, Buffer.from(JSON.stringify({ data: { id: r.id, url: `${s.baseUrl}/images/${r.id}${r.ext}`, description: r.description ?? null }, error: null })));
    files.set(`site/v1/pepe/${r.id}`, Buffer.from(JSON.stringify({ result: { id: r.id, url: `${s.cdnUrl}/images/${r.id}${r.ext}`, description: r.description ?? '' }, status: 'success' })));
  }
  files.set('site/api/openapi.json', Buffer.from(stable({ openapi: '3.1.0', info: { title: 'Pepe', version: '1' }, servers: [{ url: s.apiUrl }] })));
  files.set('site/index.html', Buffer.from(options.page ?? '<!doctype html><title>Pepe</title><script src="assets/app.js"></script>\n'));
  files.set('site/assets/app.js', Buffer.from('console.log("gallery");\n'));
  const catalogue = sorted.map((r) => ({ id: r.id, file_ext: r.ext }));
  files.set('data/catalogue.mjs', Buffer.from(`export default ${JSON.stringify(catalogue)};\n`));
  for (const [path, text] of Object.entries(options.extra ?? {})) files.set(path, Buffer.from(text));
  files.set('functions/pepe.mjs', Buffer.from(`export default () => new Response('{}');\nexport const config = { path: ['/api/*'], preferStatic: true };\n`));

  const entries = new Map<string, { sha256: string; size: number }>();
  await rm(dir, { recursive: true, force: true });
  for (const path of [...files.keys()].sort()) {
    const bytes = files.get(path)!;
    await makeFolders(dirname(join(dir, path)));
    await writeFile(join(dir, path), bytes);
    entries.set(path, { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length });
  }
  const changed = previous === null ? [] : [...entries.keys(), ...Object.keys(previous.files)].filter((path) => previous.files[path]?.sha256 !== entries.get(path)?.sha256);
  const manifest = createManifest(entries, s, { records: records.length, images: records.length }, previous ? { previous, changed } : undefined);
  const made = new Set(newSegmentFiles(manifest).map((file) => file.path));
  for (const path of segmentFiles(manifest)) {
    if (made.has(path)) continue;
    await makeFolders(dirname(join(dir, path)));
    await writeFile(join(dir, path), kept.get(path)!);
  }
  await writeManifestFiles(dir, manifest);
  return [...files.keys(), 'manifest.json', ...segmentFiles(manifest)];
}
