/**
 * `dist/manifest.json`: every output file with its sha256 and size, the catalogue version
 * (a hash over those lines), counts and the settings the build baked in. Publishing diffs
 * against it; the build reuses unchanged files from it.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SiteUrls } from '../../functions/core/record.js';

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
 * The catalogue version: sha256 of the lines `<path> <sha256> <size>\n`, sorted by path.
 * Two builds with the same output files have the same version, whatever else happened.
 */
export function catalogueVersion(files: Record<string, ManifestEntry>): string {
  const hash = createHash('sha256');
  for (const path of Object.keys(files).sort()) hash.update(`${path} ${files[path]!.sha256} ${files[path]!.size}\n`);
  return hash.digest('hex');
}

export function createManifest(files: Map<string, ManifestEntry>, settings: SiteUrls, counts: { records: number; images: number }): Manifest {
  const sorted: Record<string, ManifestEntry> = {};
  for (const path of [...files.keys()].sort()) sorted[path] = files.get(path)!;
  return {
    format: 1,
    version: catalogueVersion(sorted),
    settings: { baseUrl: settings.baseUrl, apiUrl: settings.apiUrl, cdnUrl: settings.cdnUrl },
    counts: { ...counts, files: files.size },
    files: sorted,
  };
}

/** The previous build's manifest, or null when there is none or it is not one of ours. */
export async function readManifest(outDir: string): Promise<Manifest | null> {
  try {
    const parsed = JSON.parse(await readFile(join(outDir, MANIFEST_FILE), 'utf8')) as Manifest;
    return parsed && parsed.format === 1 && typeof parsed.files === 'object' ? parsed : null;
  } catch {
    return null;
  }
}
