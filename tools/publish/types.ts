/**
 * The shapes `publishBuild` takes and returns. The library never prints: the CLI turns a
 * PublishResult into text and an exit code.
 */
import type { Problem } from '../shared/problems.js';

/** The subset of S3Client the publisher uses, so tests can wrap or replace it (fault injection, conditional-write double). */
export interface S3Like {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  send(command: any, options?: any): Promise<any>;
}

export interface PublishOptions {
  bucket: string;
  /** Key prefix, '' or ending with '/' (normalised by `normalisePrefix`). */
  prefix?: string;
  /** The build output folder (holds manifest.json, site/, data/, functions/). Default 'dist'. */
  dir?: string;
  /** S3-compatible endpoint URL; turns on path-style addressing. */
  endpoint?: string;
  region?: string;
  /** Parallel requests. Default 8. */
  concurrency?: number;
  /** Plan only: read the bucket, write nothing. */
  dryRun?: boolean;
  /** Delete keys the build no longer lists, once safe (see stale-policy.ts). */
  deleteStale?: boolean;
  /**
   * Record ids already removed from the build: their original, renditions and documents are
   * deleted at once, after this run's documents are up (no clock), and each image's sha256 is
   * remembered as `gone`. Refused while the build still holds the record.
   */
  takedown?: string[];
  /**
   * List the bucket even when the last run finished: the fast path trusts the bucket's
   * manifest, so an object deleted behind the publisher's back (a lifecycle rule, a manual
   * cleanup) is found and uploaded again only by a run that lists.
   */
  verify?: boolean;
  /** netlify.toml to take Content-Type / Cache-Control from. Default 'netlify.toml' in the working directory. */
  netlifyToml?: string;
  /** SDK attempts per request (first try included), standard retry mode with backoff. Default 5. */
  maxAttempts?: number;
  onProgress?: (progress: PublishProgress) => void;
}

export interface PublishDeps {
  /** Replaces the S3 client built from the options (tests: fault injection, counting, test doubles). */
  client?: S3Like;
  /** Wall clock for the stale-key policy (tests move time forward). */
  now?: () => Date;
  /** Content-Type / Cache-Control per URL path; default from netlify.toml via tools/shared/netlify-config.ts. */
  headersForPath?: (urlPath: string) => Record<string, string>;
}

export interface PublishProgress {
  phase: 'reading-build' | 'reading-bucket' | 'uploading' | 'verifying' | 'deleting';
  objectsDone: number;
  objectsTotal: number;
  bytesDone: number;
  bytesTotal: number;
}

/** The upload groups, in the order they reach the bucket. */
export type UploadGroup = 'image' | 'asset' | 'json' | 'page' | 'listing' | 'head' | 'build' | 'manifest';

/** One object of the build as it will be stored. */
export interface PlannedObject {
  key: string;
  /** Path relative to the build folder ('site/images/x.png', 'manifest.json'). */
  path: string;
  group: UploadGroup;
  size: number;
  sha256: string;
  md5: string;
  contentType: string;
  cacheControl: string;
  /**
   * Why it is uploaded ('new', 'changed', 'manifest'; 'metadata': same bytes, but stored with
   * another Content-Type or Cache-Control than the build gives it; 'repair': an image key holds
   * what an interrupted upload left, bucket-plan.ts `isIncompleteUpload`) or skipped ('unchanged').
   */
  reason: 'new' | 'changed' | 'unchanged' | 'unconfirmed' | 'metadata' | 'repair';
}

export interface PublishPlan {
  uploads: PlannedObject[];
  skips: PlannedObject[];
  /** Objects a run that diffs the roots knows unchanged without reading them (the segments that did not change name them). */
  unread?: number;
  /** Stale keys deleted by this run (empty without --delete-stale). */
  deletions: string[];
  /** Stale keys kept for now: without --delete-stale, or not yet safe to delete (cached JSON may still reference them). */
  kept: { key: string; reason: string; until?: string }[];
  uploadBytes: number;
}

export interface PublishResult {
  /** True only when the bucket holds the build (or, in a dry run, when the plan could be made). */
  ok: boolean;
  dryRun: boolean;
  problems: Problem[];
  /** Absent when the build folder itself was invalid. */
  plan?: PublishPlan;
  counts: { uploaded: number; skipped: number; deleted: number; kept: number };
  bytes: { uploaded: number; total: number };
  /** Milliseconds per phase, for the summary and the benchmark. */
  timings: Record<string, number>;
  /** What a takedown deleted, and the public URLs whose CDN copies must be purged. */
  takedown?: { ids: string[]; deleted: string[]; urls: string[] };
  /** A failure that running again as it is may get past (network, throttling, a server error); false for refusals and failures that need a fix. */
  retryable: boolean;
}
