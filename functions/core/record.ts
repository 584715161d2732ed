import type { z } from 'zod';
import type { pepeRecord } from './schemas.js';

/**
 * One catalogue record as the build produces it and the API serves it: the normalised sidecar
 * plus what the build measured from the image (field rules: `pepeRecord` in schemas.ts). The
 * contract between `tools/catalogue` (producer) and `functions/core` (consumer). Type-only:
 * the function bundle never loads zod.
 */
export type PepeRecord = z.infer<typeof pepeRecord>;

export { IMAGE_TYPES } from './api-limits.js';
import type { IMAGE_TYPES } from './api-limits.js';

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
