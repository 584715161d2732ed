/**
 * The writing steps of a publish: uploading one object (with the conditional write that
 * protects images), checking the bucket before the manifest goes up, and writing the manifest.
 */
import { error, type Problem } from '../shared/problems.js';
import { imageChanged } from './bucket-plan.js';
import { readVerified } from './local-build.js';
import { headSha256, isPreconditionFailed, listAllObjects, putObject, type PutRequest } from './s3-operations.js';
import { runPool } from './run-pool.js';
import type { PlannedObject, S3Like } from './types.js';

/** An expected failure that ends the publish; carries the Problem to report. */
export class PublishStop extends Error {
  constructor(readonly problem: Problem) {
    super(problem.message);
  }
}

/**
 * A conditional write that got 412 may still be our own: the SDK retries a PutObject whose
 * answer was lost, and the retry then finds the object it created. Same sha256 = success.
 */
async function putOrConfirm(client: S3Like, bucket: string, request: PutRequest, onConflict: () => Problem): Promise<void> {
  try {
    await putObject(client, bucket, request);
  } catch (cause) {
    if (!isPreconditionFailed(cause)) throw cause;
    if ((await headSha256(client, bucket, request.key)) === request.sha256) return;
    throw new PublishStop(onConflict());
  }
}

export async function uploadObject(client: S3Like, bucket: string, dir: string, object: PlannedObject): Promise<void> {
  const body = await readVerified(dir, object);
  if (!Buffer.isBuffer(body)) throw new PublishStop(body);
  const request: PutRequest = { key: object.key, body, contentType: object.contentType, cacheControl: object.cacheControl, sha256: object.sha256 };
  // A new image key is created only if it still does not exist: two publishers racing, or
  // a key that appeared since planning, can never replace an image's bytes (S3 honours
  // If-None-Match: * on writes; servers that ignore it are covered by the plan's check).
  if (object.group === 'image' && object.reason === 'new') request.ifNoneMatch = '*';
  await putOrConfirm(client, bucket, request, () => imageChanged(object));
}

/**
 * The manifest replaces exactly the version read at planning (If-Match its ETag), or is
 * created only if there was none: a concurrent publish makes this one stop, not interleave.
 */
export async function writeManifest(client: S3Like, bucket: string, manifest: PlannedObject, bytes: Buffer, previousEtag: string | null, runId: string, headers: string): Promise<void> {
  const request: PutRequest = { key: manifest.key, body: bytes, contentType: manifest.contentType, cacheControl: manifest.cacheControl, sha256: manifest.sha256, metadata: { run: runId, headers } };
  if (previousEtag) request.ifMatch = previousEtag;
  else request.ifNoneMatch = '*';
  await putOrConfirm(client, bucket, request, () =>
    error('concurrent-publish', `the bucket manifest ${manifest.key} changed while this publish ran (another publish?); run pepe publish again`, manifest.path),
  );
}

/**
 * Before the manifest: the keys are really in the bucket. With `prefix` the whole prefix is
 * listed once (cheap per key, for large runs); without, each key gets a HeadObject.
 */
export async function verifyBucket(client: S3Like, bucket: string, expected: Iterable<string>, how: { list: string } | { head: number }): Promise<void> {
  const keys = [...new Set(expected)].sort();
  let missing: string[];
  if ('list' in how) {
    const present = await listAllObjects(client, bucket, how.list);
    missing = keys.filter((key) => !present.has(key));
  } else {
    missing = [];
    const failure = await runPool(keys, how.head, async (key) => {
      if ((await headSha256(client, bucket, key)) === null) missing.push(key);
    });
    if (failure) throw failure;
    missing.sort();
  }
  if (missing.length > 0) {
    throw new PublishStop(
      error('verify-missing', `${missing.length} key(s) are missing from bucket ${bucket} after upload (first: ${missing.slice(0, 5).join(', ')}); the manifest was not written, run pepe publish again`),
    );
  }
}
