/**
 * Each S3 operation the publisher makes, as a small function over `S3Like.send`. A failed
 * request (after the SDK's retries) becomes an S3OperationError naming the operation, the
 * key and the status, which the publisher turns into a Problem.
 */
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import type { S3Like } from './types.js';

/** S3 returns at most 1,000 keys per ListObjectsV2 page. */
const LIST_PAGE_SIZE = 1000;
/** DeleteObjects accepts at most 1,000 keys per call. */
const MAX_BULK_DELETE = 1000;

export class S3OperationError extends Error {
  constructor(
    readonly operation: string,
    readonly key: string,
    readonly status: number | undefined,
    readonly errorName: string,
    readonly detail: string,
  ) {
    const remedy = remedyFor(status, errorName, detail);
    super(`${operation} ${key} failed: ${status ?? 'no response'} ${errorName}${detail ? ` (${detail})` : ''}${remedy ? `: ${remedy}` : ''}`);
  }

  /** Whether running again may succeed as it is (a network failure, throttling, a server error) rather than needing a fix first. */
  get transient(): boolean {
    // The detail counts: a refused connection or a missing region is named only there.
    return remedyFor(this.status, this.errorName, this.detail) === null && (this.status === undefined || this.status >= 500 || this.status === 429);
  }
}

const NEEDED_PERMISSIONS = 'the credentials need s3:ListBucket, GetObject, PutObject and DeleteObject on this bucket';
const ACCESS_DENIED = `access denied: ${NEEDED_PERMISSIONS}`;

/** Whether the failure names its cause: an S3 error code from a reply body, not a bare status (a HEAD's reply has no body). */
export function namesItsCause(error: S3OperationError): boolean {
  return error.status === undefined || !/^(Unknown|UnknownError|NotFound|Forbidden|\d+)$/.test(error.errorName);
}

/** What to do about a failure that retrying alone will not fix; null when retrying may. */
function remedyFor(status: number | undefined, errorName: string, detail: string): string | null {
  if (errorName === 'CredentialsProviderError' || /could not load credentials/i.test(detail)) {
    // A set AWS_PROFILE wins over AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY in the SDK's chain: the
    // advice to set those (already set, often) sent the user the wrong way.
    const profile = process.env.AWS_PROFILE;
    if (profile) return `no AWS credentials found for AWS_PROFILE=${profile}, which takes precedence over AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY: check that profile in ~/.aws/config and ~/.aws/credentials, or unset AWS_PROFILE`;
    return 'no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE';
  }
  if (/region is missing/i.test(detail)) return 'no region: pass --region or set AWS_REGION';
  if (/region not accepted/i.test(detail)) return 'the region is not a valid region name: check --region or AWS_REGION';
  // An https:// endpoint on a plain-HTTP server (EPROTO "wrong version number"), or a
  // certificate the client does not trust: as it is, every rerun fails the same way.
  if (/EPROTO|wrong version number|certificate|CERT_|SSL routines/i.test(detail)) {
    return 'the TLS (https) connection failed: check --endpoint (http:// for a server without TLS) and the server\'s certificate';
  }
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN/.test(detail)) return 'nothing answers at that address: check --endpoint (and that the server runs)';
  // A web page, a storage console or any other non-S3 server at --endpoint: its answer is not S3's XML.
  if (/XML parse error|Deserialization error/i.test(detail)) {
    return 'the server at that address does not answer as an S3 API (its reply is not S3 XML): check --endpoint (the S3 API address and port, not a web page or a storage console)';
  }
  if (errorName === 'NoSuchBucket') return 'the bucket does not exist: create it, or check --bucket and --endpoint';
  if (errorName === 'InvalidAccessKeyId' || errorName === 'SignatureDoesNotMatch') return 'the credentials were refused: check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY';
  if (errorName === 'AccessDenied') return ACCESS_DENIED;
  // A 403 without an S3 error code: the reply to a HEAD has no body, so an unknown access key
  // or a wrong secret looks exactly like a missing permission, so the message names both.
  if (status === 403) return `access denied or the credentials were refused (the reply names no reason): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and that ${NEEDED_PERMISSIONS}`;
  return null;
}

interface SdkErrorLike {
  name?: string;
  message?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number; attempts?: number };
}

function statusOf(cause: unknown): number | undefined {
  return (cause as SdkErrorLike | null)?.$metadata?.httpStatusCode;
}

/**
 * The SDK's message without its advice to programmers: an unparsable reply's message goes on
 * with "Deserialization error: to see the raw response, inspect the hidden field
 * {error}.$response on this object", which a CLI user cannot do.
 */
function sdkMessage(message: string): string {
  return message.replace(/\s*Deserialization error: to see the raw response, inspect the hidden field \{error\}\.\$response on this object\.?/, '').trim();
}

async function call<T>(operation: string, key: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (cause) {
    const e = (cause ?? {}) as SdkErrorLike;
    const attempts = e.$metadata?.attempts;
    const detail = [e.message && e.message !== e.name ? sdkMessage(e.message) : '', attempts && attempts > 1 ? `after ${attempts} attempts` : ''].filter(Boolean).join('; ');
    throw new S3OperationError(operation, key, statusOf(cause), e.name ?? e.Code ?? 'Error', detail);
  }
}

export interface ListedObject {
  key: string;
  etag: string;
  size: number;
  lastModified: Date;
}

/** Every key under the prefix. https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html */
export async function listAllObjects(client: S3Like, bucket: string, prefix: string): Promise<Map<string, ListedObject>> {
  const objects = new Map<string, ListedObject>();
  let token: string | undefined;
  do {
    const page = await call('ListObjectsV2', `${bucket}/${prefix}*`, () =>
      client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix || undefined, MaxKeys: LIST_PAGE_SIZE, ContinuationToken: token })),
    );
    for (const item of page.Contents ?? []) {
      if (!item.Key) continue;
      objects.set(item.Key, { key: item.Key, etag: String(item.ETag ?? ''), size: Number(item.Size ?? 0), lastModified: new Date(item.LastModified ?? 0) });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return objects;
}

export interface FetchedObject {
  bytes: Buffer;
  etag: string;
  lastModified: Date;
  metadata: Record<string, string>;
}

/** The object's bytes, or null when it does not exist. https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html */
export async function getObjectOrNull(client: S3Like, bucket: string, key: string): Promise<FetchedObject | null> {
  try {
    return await call('GetObject', key, async () => {
      const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      const bytes = Buffer.from(await answer.Body.transformToByteArray());
      return { bytes, etag: String(answer.ETag ?? ''), lastModified: new Date(answer.LastModified ?? 0), metadata: { ...(answer.Metadata ?? {}) } };
    });
  } catch (error) {
    if (error instanceof S3OperationError && (error.status === 404 || error.errorName === 'NoSuchKey')) return null;
    throw error;
  }
}

/** The sha256 the publisher stored in the object's metadata (null: no such object; '': object without it). */
export async function headSha256(client: S3Like, bucket: string, key: string): Promise<string | null> {
  const metadata = await headMetadata(client, bucket, key);
  return metadata === null ? null : (metadata.sha256 ?? '');
}

/** What HeadObject tells of a stored object, or null when it does not exist. https://docs.aws.amazon.com/AmazonS3/latest/API/API_HeadObject.html */
async function headObjectOrNull(client: S3Like, bucket: string, key: string): Promise<{ metadata: Record<string, string>; contentType: string; cacheControl: string; size: number } | null> {
  try {
    return await call('HeadObject', key, async () => {
      const answer = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return { metadata: { ...(answer.Metadata ?? {}) } as Record<string, string>, contentType: String(answer.ContentType ?? ''), cacheControl: String(answer.CacheControl ?? ''), size: Number(answer.ContentLength ?? -1) };
    });
  } catch (error) {
    if (error instanceof S3OperationError && (error.status === 404 || error.errorName === 'NotFound' || error.errorName === 'NoSuchKey')) return null;
    throw error;
  }
}

/** The sha256 the publisher stored with the object ('' without one) and the object's size, or null when it does not exist. */
export async function headStored(client: S3Like, bucket: string, key: string): Promise<{ sha256: string; size: number } | null> {
  const head = await headObjectOrNull(client, bucket, key);
  return head === null ? null : { sha256: head.metadata.sha256 ?? '', size: head.size };
}

/** The object's stored Content-Type and Cache-Control, or null when it does not exist. */
export async function headHeaders(client: S3Like, bucket: string, key: string): Promise<{ contentType: string; cacheControl: string } | null> {
  const head = await headObjectOrNull(client, bucket, key);
  return head === null ? null : { contentType: head.contentType, cacheControl: head.cacheControl };
}

/** The object's user metadata (x-amz-meta-*), or null when it does not exist. */
export async function headMetadata(client: S3Like, bucket: string, key: string): Promise<Record<string, string> | null> {
  return (await headObjectOrNull(client, bucket, key))?.metadata ?? null;
}

export interface PutRequest {
  key: string;
  body: Buffer;
  contentType: string;
  cacheControl: string;
  sha256: string;
  /** More x-amz-meta-* values (the manifest carries its publish run id). */
  metadata?: Record<string, string>;
  /** '*' = create only (412 when the key exists); an ETag = replace only that version. */
  ifNoneMatch?: '*';
  ifMatch?: string;
}

/** https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html (conditional writes: If-None-Match / If-Match). */
export async function putObject(client: S3Like, bucket: string, request: PutRequest): Promise<void> {
  await call('PutObject', request.key, () =>
    client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: request.key,
        Body: request.body,
        ContentLength: request.body.length,
        ContentType: request.contentType,
        CacheControl: request.cacheControl,
        Metadata: { ...request.metadata, sha256: request.sha256 },
        ...(request.ifNoneMatch ? { IfNoneMatch: request.ifNoneMatch } : {}),
        ...(request.ifMatch ? { IfMatch: request.ifMatch } : {}),
      }),
    ),
  );
}

/** Deletes keys in batches of MAX_BULK_DELETE; a key S3 reports as not deleted fails the call. https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObjects.html */
export async function deleteKeys(client: S3Like, bucket: string, keys: string[], onBatch?: (count: number) => void): Promise<void> {
  for (let start = 0; start < keys.length; start += MAX_BULK_DELETE) {
    const batch = keys.slice(start, start + MAX_BULK_DELETE);
    const answer = await call('DeleteObjects', `${batch[0]} (+${batch.length - 1} more)`, () =>
      client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } })),
    );
    const failed = (answer.Errors ?? []) as { Key?: string; Code?: string; Message?: string }[];
    if (failed.length > 0) {
      const first = failed[0]!;
      throw new S3OperationError('DeleteObjects', first.Key ?? '?', undefined, first.Code ?? 'Error', `${failed.length} key(s) not deleted${first.Message ? `: ${first.Message}` : ''}`);
    }
    onBatch?.(batch.length);
  }
}

/** True when a conditional write was refused because the condition did not hold. */
export function isPreconditionFailed(error: unknown): boolean {
  return error instanceof S3OperationError && (error.status === 412 || error.errorName === 'PreconditionFailed');
}
