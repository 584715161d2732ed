/**
 * One catalogue record as the build produces it and the API serves it: the
 * normalised sidecar plus what the build measured from the image. This is the
 * contract between `tools/build` (producer) and `functions/core` (consumer).
 */
export interface PepeRecord {
  /** Canonical lowercase UUID. */
  id: string;
  /** From the detected format (magic bytes), never from the content file's name. */
  file_ext: ImageExt;
  /** Bytes of the published image (the content file, unchanged). */
  file_size: number;
  /** Trimmed, lowercased, de-duplicated, first-seen order; null when untagged (or empty). */
  tags: string[] | null;
  /** Trimmed; null when absent or empty. */
  description: string | null;
  /** 64-bit DCT perceptual hash, 16 lowercase hex characters. */
  phash: string;
  /** ISO 8601 in UTC with milliseconds (`new Date(x).toISOString()`). */
  created_at: string;
  /** Same format; equals created_at when the sidecar has none. */
  updated_at: string;
  /** Upright (after EXIF orientation) pixel size. */
  width: number;
  height: number;
  /** Blurhash with 4×3 components. */
  blurhash: string;
}

export const IMAGE_TYPES = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
} as const;

export type ImageExt = keyof typeof IMAGE_TYPES;

/** Public URLs the build bakes into every answer. No trailing slash. */
export interface SiteUrls {
  /** Variant A: API and images. */
  baseUrl: string;
  /** Variant B: API. */
  apiUrl: string;
  /** Variant B: images. */
  cdnUrl: string;
}

/** Ascending created_at, ties by id: the one canonical order (created_at_desc is its exact reverse). */
export function compareRecords(a: Pick<PepeRecord, 'created_at' | 'id'>, b: Pick<PepeRecord, 'created_at' | 'id'>): number {
  const ta = Date.parse(a.created_at);
  const tb = Date.parse(b.created_at);
  if (ta !== tb) return ta - tb;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
