/**
 * A small in-memory S3 for the tests s3rver cannot serve: it implements conditional writes
 * (If-None-Match: * and If-Match on PutObject, 412 PreconditionFailed as S3 does), and can
 * hand out opaque, non-MD5 ETags like SSE-KMS buckets do. Errors carry the SDK's shape
 * (`name`, `$metadata.httpStatusCode`). Only the five operations the publisher uses exist.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import type { S3Like } from '../types.js';

export interface StoredObject {
  bytes: Buffer;
  etag: string;
  contentType?: string;
  cacheControl?: string;
  metadata: Record<string, string>;
  lastModified: Date;
}

function s3Error(name: string, status: number): Error {
  return Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
}

export class MemoryS3 implements S3Like {
  readonly objects = new Map<string, StoredObject>();
  /** Operation name → count, to assert what a publish did. */
  readonly calls: Record<string, number> = {};
  /** Every object write gets a later time than the one before (S3's 1-second resolution is not needed here). */
  private tick = Date.parse('2030-01-01T00:00:00Z');

  constructor(
    readonly bucket: string,
    private readonly options: { opaqueEtags?: boolean } = {},
  ) {}

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async send(command: any): Promise<any> {
    const name = String(command.constructor.name).replace(/Command$/, '');
    this.calls[name] = (this.calls[name] ?? 0) + 1;
    const input = command.input;
    if (input.Bucket !== this.bucket) throw s3Error('NoSuchBucket', 404);
    if (command instanceof PutObjectCommand) return this.put(input);
    if (command instanceof GetObjectCommand || command instanceof HeadObjectCommand) {
      const object = this.objects.get(input.Key);
      if (!object) throw s3Error(command instanceof HeadObjectCommand ? 'NotFound' : 'NoSuchKey', 404);
      const answer = { ETag: object.etag, LastModified: object.lastModified, ContentType: object.contentType, CacheControl: object.cacheControl, Metadata: object.metadata, ContentLength: object.bytes.length };
      return command instanceof HeadObjectCommand ? answer : { ...answer, Body: { transformToByteArray: async () => new Uint8Array(object.bytes) } };
    }
    if (command instanceof ListObjectsV2Command) {
      const keys = [...this.objects.keys()].filter((k) => k.startsWith(input.Prefix ?? '')).sort();
      const start = input.ContinuationToken ? keys.findIndex((k) => k > input.ContinuationToken) : 0;
      const page = (start < 0 ? [] : keys.slice(start)).slice(0, Math.min(input.MaxKeys ?? 1000, 1000));
      const truncated = start >= 0 && start + page.length < keys.length;
      return {
        Contents: page.map((Key) => ({ Key, ETag: this.objects.get(Key)!.etag, Size: this.objects.get(Key)!.bytes.length, LastModified: this.objects.get(Key)!.lastModified })),
        IsTruncated: truncated,
        ...(truncated ? { NextContinuationToken: page.at(-1) } : {}),
      };
    }
    if (command instanceof DeleteObjectsCommand) {
      const keys: { Key: string }[] = input.Delete.Objects;
      if (keys.length > 1000) throw s3Error('MalformedXML', 400);
      for (const { Key } of keys) this.objects.delete(Key);
      return { Errors: [] };
    }
    throw new Error(`MemoryS3 does not implement ${name}`);
  }

  private put(input: Record<string, unknown>): object {
    const key = input.Key as string;
    const existing = this.objects.get(key);
    // https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html
    if (input.IfNoneMatch === '*' && existing) throw s3Error('PreconditionFailed', 412);
    if (input.IfMatch !== undefined) {
      if (!existing) throw s3Error('NoSuchKey', 404);
      if (existing.etag !== input.IfMatch) throw s3Error('PreconditionFailed', 412);
    }
    const bytes = Buffer.from(input.Body as Buffer);
    const etag = `"${this.options.opaqueEtags ? createHash('md5').update(randomUUID()).digest('hex') : createHash('md5').update(bytes).digest('hex')}"`;
    this.tick += 1000;
    this.objects.set(key, {
      bytes,
      etag,
      contentType: input.ContentType as string | undefined,
      cacheControl: input.CacheControl as string | undefined,
      metadata: { ...((input.Metadata as Record<string, string>) ?? {}) },
      lastModified: new Date(this.tick),
    });
    return { ETag: etag };
  }
}
