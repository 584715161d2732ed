/**
 * Conditional writes (If-None-Match: * for new images, If-Match for the manifest) and the
 * hash sources other than MD5 ETags, against the in-memory double: s3rver ignores
 * conditional headers and always returns MD5 ETags.
 */
import { DeleteObjectsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { publishBuild } from './publish.js';
import { MemoryS3 } from './testing/memory-s3.js';
import { syntheticRecords, writeSyntheticDist } from './testing/synthetic-dist.js';
import type { S3Like } from './types.js';

const NETLIFY_TOML = join(import.meta.dirname, '../../netlify.toml');
let temp: TempDir;
let n = 0;
beforeAll(async () => {
  temp = await makeTempDir('pepe-publish-conditional-');
});
afterAll(async () => temp?.cleanup());

async function freshDist(count = 3, salt = '') {
  const dir = join(temp.path, `d${n++}`);
  const records = syntheticRecords(count, salt);
  await writeSyntheticDist(dir, records);
  return { dir, records };
}
const publish = (dir: string, client: S3Like) => publishBuild({ bucket: 'pepe-cond', dir, netlifyToml: NETLIFY_TOML }, { client });

/** Runs `before` once, just before the first PutObject whose key matches. */
function interceptFirstPut(store: MemoryS3, matches: (key: string) => boolean, before: () => Promise<void>): S3Like {
  let done = false;
  return {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async send(command: any) {
      if (!done && command instanceof PutObjectCommand && matches(command.input.Key!)) {
        done = true;
        await before();
      }
      return store.send(command);
    },
  };
}

describe('conditional writes', () => {
  it('never replaces an image that appeared with other bytes after planning (If-None-Match: *)', async () => {
    const { dir, records } = await freshDist();
    const store = new MemoryS3('pepe-cond');
    const r = records[0]!;
    const key = `images/${r.id}${r.ext}`;
    const racing = interceptFirstPut(store, (k) => k === key, async () => {
      await store.send(new PutObjectCommand({ Bucket: 'pepe-cond', Key: key, Body: Buffer.from('someone else') }));
    });
    const result = await publish(dir, racing);
    expect(result.ok).toBe(false);
    expect(result.problems[0]!.code).toBe('image-changed');
    expect(result.problems[0]!.message).toContain(r.id);
    expect(store.objects.get(key)!.bytes.toString()).toBe('someone else');
    expect(store.objects.has(`api/pepe/${r.id}`)).toBe(false); // stopped before any JSON
  });

  it('takes a 412 on its own earlier write (a retried request) as success', async () => {
    const { dir, records } = await freshDist();
    const store = new MemoryS3('pepe-cond');
    const key = `images/${records[1]!.id}${records[1]!.ext}`;
    // As if the first attempt landed but its answer was lost, and the SDK sent it again.
    const retried: S3Like = {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      async send(command: any) {
        if (command instanceof PutObjectCommand && command.input.Key === key) await store.send(command);
        return store.send(command);
      },
    };
    const result = await publish(dir, retried);
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('stops when another publish replaced the manifest meanwhile (If-Match), leaving that manifest', async () => {
    const first = await freshDist(3);
    const store = new MemoryS3('pepe-cond');
    expect((await publish(first.dir, store)).ok).toBe(true);
    const second = await freshDist(4);
    const other = await freshDist(2, 'other');
    const concurrent = interceptFirstPut(store, (k) => k === '_build/manifest.json', async () => {
      expect((await publish(other.dir, store)).ok).toBe(true);
    });
    const result = await publish(second.dir, concurrent);
    expect(result.ok).toBe(false);
    expect(result.problems[0]!.code).toBe('concurrent-publish');
    const manifest = JSON.parse(store.objects.get('_build/manifest.json')!.bytes.toString()) as { counts: { records: number } };
    expect(manifest.counts.records).toBe(2);
  });
});

describe('without MD5 ETags (SSE-KMS-like buckets)', () => {
  it('skips unchanged objects by the bucket manifest, and by x-amz-meta-sha256 when the manifest is gone', async () => {
    const { dir } = await freshDist(3);
    const store = new MemoryS3('pepe-cond', { opaqueEtags: true });
    expect((await publish(dir, store)).ok).toBe(true);
    const puts = () => store.calls.PutObject ?? 0;
    const heads = () => store.calls.HeadObject ?? 0;
    let before = { puts: puts(), heads: heads() };
    const byManifest = await publish(dir, store);
    expect(byManifest.counts.uploaded).toBe(0);
    expect(puts()).toBe(before.puts);
    expect(heads() - before.heads).toBe(1); // the run marker only

    await store.send(new DeleteObjectsCommand({ Bucket: 'pepe-cond', Delete: { Objects: [{ Key: '_build/manifest.json' }] } }));
    before = { puts: puts(), heads: heads() };
    const byMetadata = await publish(dir, store);
    expect(byMetadata.ok).toBe(true);
    expect(byMetadata.plan!.uploads.map((o) => o.key)).toEqual(['_build/manifest.json']);
    // The marker, then each object's x-amz-meta-sha256, then (no manifest: no headers fingerprint) its Content-Type and Cache-Control.
    expect(heads() - before.heads).toBe(1 + 2 * byMetadata.counts.skipped);
  });
});

describe('a damaged publish state (_build/publish-state.json)', () => {
  it('restarts the clock of an entry with no readable time and ignores a deleted-image hash that is none, rather than failing the run or refusing the image', async () => {
    const first = await freshDist(3);
    const store = new MemoryS3('pepe-cond');
    const now = new Date('2030-06-01T12:00:00Z');
    const run = (dir: string) => publishBuild({ bucket: 'pepe-cond', dir, netlifyToml: NETLIFY_TOML, deleteStale: true }, { client: store, now: () => now });
    expect((await run(first.dir)).ok).toBe(true);
    // Record 2 removed: its by-id answers go at once, its image waits for a run that sees no stale document.
    const second = await freshDist(2);
    expect((await run(second.dir)).ok).toBe(true);
    const removed = first.records[2]!;
    const removedImage = `images/${removed.id}${removed.ext}`;
    expect(store.objects.has(removedImage)).toBe(true);

    const added = syntheticRecords(1, 'added')[0]!;
    const addedImage = `images/${added.id}${added.ext}`;
    // Hand-edited or torn: a time that is no time, a hash that is no sha256.
    const damaged = { format: 1, retired: { [removedImage]: 'yesterday' }, gone: { [addedImage]: 'not a sha256' } };
    await store.send(new PutObjectCommand({ Bucket: 'pepe-cond', Key: '_build/publish-state.json', Body: Buffer.from(JSON.stringify(damaged)) }));
    const third = join(temp.path, `d${n++}`);
    await writeSyntheticDist(third, [...syntheticRecords(2), added]);
    const result = await run(third);
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
    expect(store.objects.has(addedImage)).toBe(true);
    // (Besides the manifest segments the runs replaced, build files on their own clock.)
    const site = (keys: string[]) => keys.filter((key) => !key.startsWith('_build/manifest/'));
    expect(site(result.plan!.kept.map((k) => k.key))).toEqual([removedImage]);
    const state = JSON.parse(store.objects.get('_build/publish-state.json')!.bytes.toString()) as { retired: Record<string, string>; gone?: Record<string, string> };
    expect(Object.fromEntries(Object.entries(state.retired).filter(([key]) => site([key]).length > 0))).toEqual({ [removedImage]: now.toISOString() });
    expect(state.gone).toBeUndefined();
  });
});

describe('which objects the bucket manifest may vouch for', () => {
  it('uploads again a document written in the same second as the bucket manifest (S3 times are whole seconds: it may come from a later, interrupted run)', async () => {
    const { dir, records } = await freshDist(3);
    const store = new MemoryS3('pepe-cond');
    expect((await publish(dir, store)).ok).toBe(true);
    // An interrupted later run replaced a by-id answer within the manifest's own second, then stopped.
    const key = `api/pepe/${records[0]!.id}`;
    const good = store.objects.get(key)!.bytes;
    await store.send(new PutObjectCommand({ Bucket: 'pepe-cond', Key: key, Body: Buffer.from('{"from":"the interrupted run"}') }));
    store.objects.get(key)!.lastModified = store.objects.get('_build/manifest.json')!.lastModified;
    const result = await publishBuild({ bucket: 'pepe-cond', dir, netlifyToml: NETLIFY_TOML, verify: true }, { client: store });
    expect(result.ok).toBe(true);
    expect(result.plan!.uploads.map((o) => o.key)).toContain(key);
    expect(store.objects.get(key)!.bytes.equals(good)).toBe(true);
  });

  it('accepts an image some other tool uploaded with the same bytes (no sha256 metadata, opaque ETag) by hashing its bytes', async () => {
    const { dir, records } = await freshDist(2);
    const store = new MemoryS3('pepe-cond', { opaqueEtags: true });
    const r = records[0]!;
    const key = `images/${r.id}${r.ext}`;
    await store.send(new PutObjectCommand({ Bucket: 'pepe-cond', Key: key, Body: r.image }));
    const result = await publish(dir, store);
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
    // Its bytes are the build's; only its Content-Type and Cache-Control (none were stored) are written again.
    expect(result.plan!.uploads.find((o) => o.key === key)?.reason).toBe('metadata');
    expect(store.objects.get(key)!.bytes.equals(r.image)).toBe(true);
  });
});

describe('headers changed in netlify.toml, bytes unchanged', () => {
  it('writes an object again when only its Content-Type changed, and uploads one that vanished since the manifest was written', async () => {
    const { dir, records } = await freshDist(3);
    const store = new MemoryS3('pepe-cond');
    expect((await publish(dir, store)).ok).toBe(true);
    const png = records.find((r) => r.ext === '.png')!;
    const pngKey = `images/${png.id}.png`;
    const byId = `api/pepe/${records[1]!.id}`;
    await store.send(new DeleteObjectsCommand({ Bucket: 'pepe-cond', Delete: { Objects: [{ Key: byId }] } }));
    // Only a Content-Type changes: the Cache-Control of every object stays what it was.
    const toml = join(temp.path, `netlify-${n++}.toml`);
    const text = await readFile(NETLIFY_TOML, 'utf8');
    expect(text).toContain('Content-Type = "image/png"');
    await writeFile(toml, text.replace('Content-Type = "image/png"', 'Content-Type = "image/apng"'));
    const result = await publishBuild({ bucket: 'pepe-cond', dir, netlifyToml: toml }, { client: store });
    expect(result.ok).toBe(true);
    const reasons = Object.fromEntries(result.plan!.uploads.map((o) => [o.key, o.reason]));
    expect(reasons[pngKey]).toBe('metadata');
    expect(store.objects.get(pngKey)!.contentType).toBe('image/apng');
    expect(reasons[byId]).toBe('new');
    expect(store.objects.has(byId)).toBe(true);
  });
});
