/**
 * `dist/manifest.json`: every output file with its sha256 and size, the catalogue version
 * (a hash over those lines), counts and the settings the build baked in. Publishing diffs
 * against it; the build reuses unchanged files from it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
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

/** Keys in code-unit order (what `.sort()` yields), sorting only when they are not already: checking 30k keys is ~20× cheaper than sorting them. */
function sortedKeys(keys: string[]): string[] {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return keys.sort();
  return keys;
}

/**
 * The catalogue version: sha256 of the lines `<path> <sha256> <size>\n`, sorted by path.
 * Two builds with the same output files have the same version, whatever else happened.
 */
export function catalogueVersion(files: Record<string, ManifestEntry>): string {
  // One string, one hash call: 30k `update` calls cost more than the hashing itself.
  const lines: string[] = [];
  for (const path of sortedKeys(Object.keys(files))) lines.push(`${path} ${files[path]!.sha256} ${files[path]!.size}\n`);
  return createHash('sha256').update(lines.join('')).digest('hex');
}

export function createManifest(files: Map<string, ManifestEntry>, settings: SiteUrls, counts: { records: number; images: number }): Manifest {
  const sorted: Record<string, ManifestEntry> = {};
  for (const path of sortedKeys([...files.keys()])) sorted[path] = files.get(path)!;
  return {
    format: 1,
    version: catalogueVersion(sorted),
    settings: { baseUrl: settings.baseUrl, apiUrl: settings.apiUrl, cdnUrl: settings.cdnUrl },
    counts: { ...counts, files: files.size },
    files: sorted,
  };
}

/**
 * `stableJson(manifest)` without its generic key sorting (the manifest's keys have a fixed
 * order, and `files` is sorted by createManifest, so it is not sorted again): the 30k-entry
 * object of a 10k catalogue is serialised without being copied twice. Tested byte-equal to
 * `stableJson`.
 */
export function manifestJson(manifest: Manifest): string {
  const { settings, counts } = manifest;
  const files: Record<string, ManifestEntry> = {};
  for (const path of sortedKeys(Object.keys(manifest.files))) {
    const entry = manifest.files[path]!;
    files[path] = { sha256: entry.sha256, size: entry.size };
  }
  const ordered = {
    counts: { files: counts.files, images: counts.images, records: counts.records },
    files,
    format: manifest.format,
    settings: { apiUrl: settings.apiUrl, baseUrl: settings.baseUrl, cdnUrl: settings.cdnUrl },
    version: manifest.version,
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** Whether two manifests agree on everything but `files` (format, version, settings, counts). */
export function sameHeader(a: Manifest, b: Manifest): boolean {
  const keys = (m: Manifest) => JSON.stringify([m.format, m.version, m.settings.baseUrl, m.settings.apiUrl, m.settings.cdnUrl, m.counts.records, m.counts.images, m.counts.files]);
  return keys(a) === keys(b);
}

const asManifest = (parsed: Manifest | null): Manifest | null => (parsed && parsed.format === 1 && typeof parsed.files === 'object' ? parsed : null);

/** `readManifest` for a lazy getter. */
export function readManifestSync(outDir: string): Manifest | null {
  try {
    return asManifest(JSON.parse(readFileSync(join(outDir, MANIFEST_FILE), 'utf8')) as Manifest);
  } catch {
    return null;
  }
}

/** The previous build's manifest, or null when there is none or it is not one of ours. */
export async function readManifest(outDir: string): Promise<Manifest | null> {
  try {
    return asManifest(JSON.parse(await readFile(join(outDir, MANIFEST_FILE), 'utf8')) as Manifest);
  } catch {
    return null;
  }
}
