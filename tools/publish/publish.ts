/**
 * `publishBuild`: puts a validated build on an S3-compatible bucket, uploading only what
 * changed, in an order that never lets a published JSON point at a missing image:
 * validate → read bucket → plan → images → assets → JSON → pages → feeds and sitemaps → build files → verify →
 * manifest (last, conditional) → stale deletions (only with --delete-stale, only after all
 * of that succeeded, only once safe: stale-policy.ts). Any failure stops the run and leaves
 * the previous catalogue readable; rerunning converges.
 */
import { randomUUID } from 'node:crypto';
import { JSON_OBJECT_STORAGE_MAX_AGE_SECONDS } from '../../functions/core/cache-policy.js';
import type { SiteUrls } from '../../functions/core/record.js';
import { error, type Problem, warning } from '../shared/problems.js';
import { join } from 'node:path';
import { headersFingerprint, planObjects, recheckMetadata, type RemoteManifest } from './bucket-plan.js';
import { type DeltaLines, diffManifests, MANIFEST_FILE, type ManifestDiff, type ManifestEntry, type ManifestRoot, manifestShapeError, mergeTrees, parseSegment, parseTree, readDeltaParts, segmentDigits, segmentFile, segmentFiles, type SegmentRef, sha256Of, treeKeyOf, withDeltaLines, withDeltaParts } from '../shared/manifest.js';
import { readRegularFileSync } from '../shared/read-regular-file.js';
import { readLocalBuild, readLocalRoot, readVerified } from './local-build.js';
import { type LocalObject, localObjects } from './local-objects.js';
import { GROUP_ORDER, RUN_MARKER_NAME, STATE_NAME, isBucketPath, keyForPath, normalisePrefix } from './object-keys.js';
import { DEFAULT_CONCURRENCY } from './concurrency.js';
import { runPool } from './run-pool.js';
import { createS3Client } from './s3-client.js';
import { S3OperationError, deleteKeys, namesItsCause, getObjectOrNull, headMetadata, listAllObjects, putObject } from './s3-operations.js';
import { decideStale, parseState, stateText } from './stale-policy.js';
import type { PlannedObject, PublishDeps, PublishOptions, PublishPlan, PublishProgress, PublishResult, S3Like } from './types.js';
import { PublishStop, uploadObject, verifyBucket, writeManifest } from './upload-steps.js';
import { ownStaleKeys } from './own-keys.js';


/**
 * Expected failures become Problems; anything else is a bug and propagates. Every error of
 * a request (network ones included) arrives as an S3OperationError (s3-operations.ts).
 */
function toProblem(cause: unknown): Problem {
  if (cause instanceof PublishStop) return cause.problem;
  if (cause instanceof S3OperationError) return error('s3-request-failed', cause.message);
  throw cause;
}

/**
 * A build made with the default URLs (`http://localhost:8888`) publishes JSON whose image
 * URLs point at the publisher's own machine: allowed (a test bucket), but said out loud.
 */
function localUrlWarnings(settings: SiteUrls): Problem[] {
  const local = Object.entries(settings).filter(([, url]) => {
    try {
      return ['localhost', '127.0.0.1', '[::1]', '0.0.0.0'].includes(new URL(url).hostname);
    } catch {
      return false;
    }
  });
  if (local.length === 0) return [];
  const named = local.map(([name, url]) => `${name} ${url}`).join(', ');
  return [warning('local-urls', `the build's URLs point at this machine (${named}), so the published JSON links there: build with --base-url, --api-url and --cdn-url (or PEPE_BASE_URL…) for a real deployment`, 'manifest.json')];
}

/**
 * Like Promise.all, but when several fail, the failure that names its cause is thrown: the
 * marker's HEAD fails first and its reply has no body, so refused credentials read as
 * "access denied" while the GETs beside it said InvalidAccessKeyId or SignatureDoesNotMatch.
 */
async function settled<T extends readonly unknown[]>(promises: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const results = await Promise.allSettled(promises);
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failures.length > 0) throw failures.find((f) => f instanceof S3OperationError && namesItsCause(f)) ?? failures[0];
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

async function defaultHeaders(file: string): Promise<(urlPath: string) => Record<string, string>> {
  const { loadNetlifyConfig, headersForPath } = await import('../shared/netlify-config.js');
  const config = await loadNetlifyConfig(file);
  return (urlPath) => headersForPath(config, urlPath);
}

/**
 * The bucket's root with its trees' segments and its delta; a tree or delta the local root
 * also has (same hash) is taken from it, so only the trees a change touched and a new delta are
 * read. Unreadable, or a tree or the delta missing or not what the root names: no root, and
 * every key is then checked against its own metadata.
 */
async function readRemoteManifest(client: S3Like, bucket: string, prefix: string, local: ManifestRoot, concurrency: number): Promise<RemoteManifest | null> {
  const fetched = await getObjectOrNull(client, bucket, keyForPath(prefix, MANIFEST_FILE));
  if (!fetched) return null;
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(fetched.bytes.toString('utf8'));
  } catch {
    // Unreadable: as a root of another shape.
  }
  let root: ManifestRoot | null = null;
  if (manifestShapeError(parsed) === null) {
    const remote = withDeltaParts(parsed as ManifestRoot);
    // The segments of each tree the build shares with the bucket: taken from the build, not fetched.
    const localTrees = new Map<string, Record<string, SegmentRef>>();
    for (const [key, ref] of Object.entries(local.segments)) {
      const tree = treeKeyOf(key);
      if (tree === null || local.trees[tree]?.sha256 !== remote.trees[tree]?.sha256) continue;
      let refs = localTrees.get(tree);
      if (!refs) localTrees.set(tree, (refs = {}));
      refs[key] = ref;
    }
    const trees = new Map<string, Record<string, SegmentRef>>();
    let usable = true;
    const failure = await runPool(Object.entries(remote.trees), concurrency, async ([key, ref]) => {
      if (local.trees[key]?.sha256 === ref.sha256) return void trees.set(key, localTrees.get(key) ?? {});
      const object = await getObjectOrNull(client, bucket, keyForPath(prefix, segmentFile(ref.sha256)));
      const refs = object === null ? 'is missing' : parseTree(object.bytes, key, ref);
      if (typeof refs === 'string') usable = false;
      else trees.set(key, refs);
    });
    if (failure) throw failure;
    const delta = remote.delta ? await readDeltaParts(remote, async (ref) => (await getObjectOrNull(client, bucket, keyForPath(prefix, segmentFile(ref.sha256))))?.bytes ?? null, local) : null;
    if (Array.isArray(delta)) usable = false;
    const merged = usable ? mergeTrees(remote, trees, delta as Map<string, DeltaLines> | null) : null;
    root = typeof merged === 'string' ? null : merged;
  }
  return { root, sha256: sha256Of(fetched.bytes), etag: fetched.etag, lastModified: fetched.lastModified, run: fetched.metadata.run ?? '', headers: fetched.metadata.headers ?? '' };
}

/** A segment the bucket's root names that is missing or not what it names: the run lists instead of diffing. */
class RemoteSegmentUnusable extends Error {}

/** The entries of the bucket's segment `key`, checked against the hash its root gives. */
async function readRemoteSegment(client: S3Like, bucket: string, prefix: string, root: ManifestRoot, key: string, ref: SegmentRef): Promise<Map<string, ManifestEntry>> {
  const fetched = await getObjectOrNull(client, bucket, keyForPath(prefix, segmentFile(ref.sha256)));
  const parsed = fetched === null ? 'is missing' : parseSegment(fetched.bytes, key, ref, segmentDigits(root.counts.records));
  if (typeof parsed === 'string') throw new RemoteSegmentUnusable(`segment ${key} of the bucket's manifest ${parsed}`);
  return parsed;
}

/** Every entry of the bucket's manifest (a listing run: what it says of objects whose ETag is not an MD5). */
async function remoteEntriesOf(client: S3Like, bucket: string, prefix: string, root: ManifestRoot, concurrency: number): Promise<Map<string, ManifestEntry> | null> {
  const entries = new Map<string, ManifestEntry>();
  const failure = await runPool(Object.entries(root.segments), concurrency, async ([key, ref]) => {
    for (const [path, entry] of withDeltaLines(root, key, await readRemoteSegment(client, bucket, prefix, root, key, ref))) entries.set(path, entry);
  });
  if (failure instanceof RemoteSegmentUnusable) return null;
  if (failure) throw failure;
  return entries;
}

/** Files of one record: its original and renditions (`images/<id>…`) and its documents. */
const RECORD_DOCUMENTS = (id: string): string[] => [`p/${id}`, `oembed/${id}.json`, `api/pepe/${id}`, `v1/pepe/${id}`, `api/similar/${id}`];
const isRecordDocument = (prefix: string, key: string): boolean => /^(?:p|api\/pepe|v1\/pepe|api\/similar)\/[^/]+$|^oembed\/[^/]+\.json$/.test(key.slice(prefix.length));

export async function publishBuild(options: PublishOptions, deps: PublishDeps = {}): Promise<PublishResult> {
  const timings: Record<string, number> = {};
  let phaseStart = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    timings[name] = Math.round(now - phaseStart);
    phaseStart = now;
  };
  const dryRun = options.dryRun ?? false;
  let bytesDone = 0;
  let retryable = false;
  let takedown: PublishResult['takedown'];
  const result = (ok: boolean, problems: Problem[], plan?: PublishPlan, uploaded = 0, deleted = 0): PublishResult => ({
    ok,
    dryRun,
    problems,
    ...(plan ? { plan } : {}),
    ...(takedown ? { takedown } : {}),
    counts: { uploaded, skipped: (plan?.skips.length ?? 0) + (plan?.unread ?? 0), deleted, kept: plan?.kept.length ?? 0 },
    bytes: { uploaded: bytesDone, total: plan?.uploadBytes ?? 0 },
    timings,
    retryable,
  });
  const progress = (p: PublishProgress) => options.onProgress?.(p);
  const prefix = normalisePrefix(options.prefix);
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const dir = options.dir ?? 'dist';

  progress({ phase: 'reading-build', objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0 });
  const localRoot = await readLocalRoot(dir);
  if (!localRoot.ok) return result(false, localRoot.problems);
  let headersForPath = deps.headersForPath;
  if (!headersForPath) {
    try {
      headersForPath = await defaultHeaders(options.netlifyToml ?? 'netlify.toml');
    } catch (cause) {
      const file = options.netlifyToml ?? 'netlify.toml';
      const message = cause instanceof Error ? cause.message : String(cause);
      // The problem names the file already: not a second time in its message.
      return result(false, [error('netlify-config', message.startsWith(`${file}: `) ? message.slice(file.length + 2) : message, file)]);
    }
  }
  const headers = headersFingerprint(headersForPath);
  const warnings = localUrlWarnings(localRoot.root.settings);
  const takedownIds = [...new Set(options.takedown ?? [])];
  lap('readBuild');

  const client = deps.client ?? createS3Client({ endpoint: options.endpoint, region: options.region, maxAttempts: options.maxAttempts });
  const { bucket } = options;
  const stateKey = `${prefix}${STATE_NAME}`;
  let plan: PublishPlan | undefined;
  let uploaded = 0;
  let deleted = 0;
  try {
    progress({ phase: 'reading-bucket', objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0 });
    const markerKey = `${prefix}${RUN_MARKER_NAME}`;
    const rootKey = keyForPath(prefix, MANIFEST_FILE);
    // The state is read on every run: its record of deleted images guards their keys (bucket-plan.ts).
    const [remoteManifest, marker, previousStateText] = await settled([
      readRemoteManifest(client, bucket, prefix, localRoot.root, concurrency),
      headMetadata(client, bucket, markerKey),
      getObjectOrNull(client, bucket, stateKey).then((state) => state?.bytes.toString('utf8') ?? null),
    ] as const);
    const previousState = parseState(previousStateText);
    const remoteRoot = remoteManifest?.root ?? null;
    // Diff path: the last run that wrote anything finished (see RUN_MARKER_NAME), so the
    // bucket's root describes it exactly, and the headers rules are those it was written
    // with: only the segments whose hash differs are read, and only the files they name are
    // checked and planned. --verify lists and checks everything (objects deleted behind the
    // publisher's back are uploaded again); so does a run without a usable root.
    const rootTrusted = !options.verify && remoteRoot !== null && remoteManifest!.run !== '' && marker?.run === remoteManifest!.run && remoteManifest!.headers === headers;
    let diff: ManifestDiff | null = null;
    if (rootTrusted) {
      diff = await diffManifests(remoteRoot, localRoot.root, (side, key, ref) =>
        side === 'from' ? readRemoteSegment(client, bucket, prefix, remoteRoot, key, ref) : Promise.resolve(localSegment(key)),
      ).catch((cause: unknown) => {
        if (cause instanceof RemoteSegmentUnusable || cause instanceof LocalSegmentProblem) return null;
        throw cause;
      });
    }
    // The local segments a diff reads, checked against their hash (a problem stops the run below, with the full check's words).
    function localSegment(key: string): Map<string, ManifestEntry> {
      const ref = localRoot.ok ? localRoot.root.segments[key] : undefined;
      const file = join(dir, segmentFile(ref!.sha256));
      let parsed: Map<string, ManifestEntry> | string;
      try {
        parsed = parseSegment(readRegularFileSync(file), key, ref!, segmentDigits(localRoot.ok ? localRoot.root.counts.records : 0));
      } catch {
        parsed = 'cannot be read';
      }
      if (typeof parsed === 'string') throw new LocalSegmentProblem(parsed);
      return parsed;
    }
    const local = await readLocalBuild(dir, localRoot, diff ? { paths: diff.changed, segmentsNotIn: remoteRoot! } : undefined);
    if (!local.ok) return result(false, local.problems);
    const built = localObjects(local.build, prefix, headersForPath);
    if (built.problems.length > 0) return result(false, built.problems);
    // A takedown is refused while the build still holds the record: its documents would come back.
    const stillBuilt = takedownIds.filter((id) => ['site/p/', 'site/api/pepe/'].some((folder) => local.build.lists(`${folder}${id}`)));
    if (stillBuilt.length > 0) {
      return result(false, stillBuilt.map((id) => error('takedown-still-built', `record ${id} is still in the build (${dir}): remove its image and sidecar from the content folder, run pepe build, then pepe publish --takedown ${id}`)));
    }
    // --delete-stale and --takedown list: they must also find keys no manifest ever listed (left by interrupted runs).
    const listing = diff !== null && !options.deleteStale && takedownIds.length === 0 ? null : await listAllObjects(client, bucket, prefix);
    const readLocal = async (object: LocalObject) => {
      const bytes = await readVerified(local.build.dir, object);
      return Buffer.isBuffer(bytes) ? bytes : null;
    };
    // What the bucket's manifest says of the planned paths: from the diff, or (a listing run) every entry.
    const remoteEntries = diff !== null ? diff.previous : remoteRoot !== null ? await remoteEntriesOf(client, bucket, prefix, remoteRoot, concurrency) : null;
    const planned = await planObjects({ client, bucket, prefix, objects: built.objects, listing: diff !== null ? null : listing, remoteManifest, remoteEntries, concurrency, deletedImages: previousState.gone, readLocal });
    if (planned.error) throw planned.error;
    if (planned.problems.length > 0) return result(false, planned.problems);
    // Same bytes do not mean same headers: when Content-Type / Cache-Control may differ from
    // what the manifest's publish stored (netlify.toml or the cache policy changed), check each skipped object.
    const headersChanged = remoteManifest?.headers !== headers;
    const rechecked = headersChanged ? await recheckMetadata(client, bucket, planned.planned, concurrency) : { planned: planned.planned, error: null };
    if (rechecked.error) throw rechecked.error;

    const order = (o: PlannedObject) => GROUP_ORDER.indexOf(o.group);
    const uploads = rechecked.planned.filter((o) => o.reason !== 'unchanged').sort((a, b) => order(a) - order(b) || (a.key < b.key ? -1 : 1));
    const skips = rechecked.planned.filter((o) => o.reason === 'unchanged');
    // The manifest goes up whenever anything else did, so its date again covers every object (see
    // bucket-plan.ts), and when the headers fingerprint it carries is not this build's.
    const manifestChanged = remoteManifest?.sha256 !== built.manifest.sha256 || remoteManifest?.headers !== headers;
    if (uploads.length > 0 || manifestChanged) uploads.push({ ...built.manifest, reason: remoteManifest ? 'changed' : 'new' });
    else skips.push({ ...built.manifest, reason: 'unchanged' });

    // Keys this build no longer wants: from the listing (every key the build does not list), or from the diff.
    const localSegments = new Set(segmentFiles(local.build.root));
    const oldSegmentKeys = remoteRoot === null ? [] : segmentFiles(remoteRoot).filter((path) => !localSegments.has(path)).map((path) => keyForPath(prefix, path));
    let candidates: string[];
    if (listing !== null) {
      const named = new Set(segmentFiles(local.build.root).map((path) => keyForPath(prefix, path)));
      const wanted = (key: string): boolean => {
        if (key === rootKey || key === stateKey || key === markerKey || named.has(key)) return true;
        if (key.startsWith(`${prefix}_build/`)) return false;
        return local.build.lists(`site/${key.slice(prefix.length)}`);
      };
      candidates = [...listing.keys()].filter((key) => !wanted(key));
    } else {
      candidates = [...(diff?.removed.keys() ?? [])].filter(isBucketPath).map((path) => keyForPath(prefix, path)).concat(oldSegmentKeys);
    }
    const takedownKeys = takedownIds.length === 0 || listing === null ? new Set<string>() : new Set(candidates.filter((key) => takedownIds.some((id) => isKeyOfRecord(prefix, key, id))));
    const remoteKnown = new Set([...(remoteEntries?.keys() ?? [])].map((path) => keyForPath(prefix, path)));
    // Only keys this publication wrote are ever deleted (own-keys.ts); on the diff path every candidate came from its manifest.
    const ownership =
      listing === null || (!options.deleteStale && takedownKeys.size === 0)
        ? { owned: candidates, foreign: [] }
        : await ownStaleKeys({
            staleKeys: candidates,
            prefix,
            known: new Set([...remoteKnown, ...oldSegmentKeys, ...[...(diff?.removed.keys() ?? [])].map((path) => keyForPath(prefix, path)), ...Object.keys(previousState.retired)]),
            listed: listing.keys(),
            head: (key) => headMetadata(client, bucket, key),
            concurrency,
          });
    const clock = deps.now ?? (() => new Date());
    const decide = () => {
      const decision = decideStale({
        staleKeys: ownership.owned.filter((key) => !takedownKeys.has(key)),
        isImageKey: (key) => key.startsWith(`${prefix}images/`),
        // Every per-record document goes at once: nothing points at it once its record is gone, and a removed record must stop being served.
        isLeafDocument: (key) => isRecordDocument(prefix, key),
        // Stored no-store (object-metadata.ts): no cache can serve them once deleted.
        isUncacheable: (key) => key.startsWith(`${prefix}_build/`),
        deleteStale: options.deleteStale ?? false,
        previous: previousState,
        now: clock(),
        maxAgeSeconds: JSON_OBJECT_STORAGE_MAX_AGE_SECONDS,
      });
      // A takedown deletes its record's keys now, whatever their clocks, and forgets those clocks.
      const owned = new Set(ownership.owned);
      const taken = [...takedownKeys].filter((key) => owned.has(key)).sort();
      for (const key of taken) delete decision.state.retired[key];
      return { ...decision, deleteNow: [...decision.deleteNow, ...taken] };
    };
    let decision = decide();
    // On the diff path, the objects its segments name that it never had to read: unchanged by construction.
    // The delta changes only id segments' paths, all of them bucket files.
    const bucketFiles = Object.entries(local.build.root.segments).reduce((n, [key, ref]) => n + (key === 'site' || key.startsWith('site/') || key.startsWith('id:') ? ref.files : 0), local.build.root.delta?.net ?? 0);
    const unread = diff === null ? 0 : bucketFiles + segmentFiles(local.build.root).length - built.objects.length;
    plan = { uploads, skips, unread, deletions: decision.deleteNow, kept: [...decision.keep, ...ownership.foreign], uploadBytes: uploads.reduce((n, o) => n + o.size, 0) };
    lap('readBucket');
    if (dryRun) return result(true, warnings, plan);

    const runId = randomUUID();
    const writeMarker = (run: string) =>
      putObject(client, bucket, { key: markerKey, body: Buffer.from(`${run}\n`), contentType: 'text/plain; charset=utf-8', cacheControl: 'no-store', sha256: sha256Of(`${run}\n`), metadata: { run } });
    if (uploads.length > 0) {
      // Before the first upload: from now until the manifest carries this id, the bucket may hold objects the manifest does not describe.
      await writeMarker(runId);
    } else if (listing !== null && remoteManifest?.run && marker?.run !== remoteManifest.run) {
      // A run died after its marker and wrote nothing since: this run listed the bucket and
      // found every object as the manifest describes it, so the manifest's run is marked
      // finished again and the next run may take the diff path (else every later run lists).
      await writeMarker(remoteManifest.run);
    }
    const report = (phase: PublishProgress['phase']) =>
      progress({ phase, objectsDone: uploaded, objectsTotal: uploads.length, bytesDone, bytesTotal: plan!.uploadBytes });
    for (const group of GROUP_ORDER.filter((g) => g !== 'manifest')) {
      const failure = await runPool(uploads.filter((o) => o.group === group), concurrency, async (object) => {
        await uploadObject(client, bucket, local.build.dir, object);
        uploaded += 1;
        bytesDone += object.size;
        report('uploading');
      });
      if (failure) throw failure;
    }
    lap('upload');
    if (uploads.length > 0) {
      report('verifying');
      // Large runs: list everything once. Small runs: HEAD every uploaded key and every image the uploaded JSON points at.
      const uploadedJson = uploads.filter((o) => o.group === 'json').map((o) => o.key);
      const referenced = uploadedJson.flatMap((key) => built.references.get(key) ?? []);
      const expected = [...uploads.filter((o) => o.group !== 'manifest').map((o) => o.key), ...referenced, ...(diff === null ? built.objects.map((o) => o.key) : [])];
      const full = diff === null || expected.length > 1000;
      await verifyBucket(client, bucket, expected, full ? { list: prefix } : { head: concurrency });
      await writeManifest(client, bucket, uploads.at(-1)!, local.build.rootBytes, remoteManifest?.etag ?? null, runId, headers);
      uploaded += 1;
      bytesDone += built.manifest.size;
      report('uploading');
      lap('verifyAndManifest');
    }

    // Decided again now that the JSON of this run is in place: a clock started by this run
    // counts from when the documents that no longer point at its key were replaced, not from
    // the plan (a long upload would otherwise eat into the cache-expiry margin).
    const deleting = options.deleteStale || takedownKeys.size > 0;
    if (deleting && uploads.length > 0) {
      decision = decide();
      plan.deletions = decision.deleteNow;
      plan.kept = [...decision.keep, ...ownership.foreign];
    }
    if (deleting && (decision.deleteNow.length > 0 || stateText(decision.state) !== (previousStateText ?? stateText(parseState(null))))) {
      progress({ phase: 'deleting', objectsDone: 0, objectsTotal: decision.deleteNow.length, bytesDone: 0, bytesTotal: 0 });
      // Each deleted image's bytes are remembered, so that its key never comes back with others.
      const deletedImages = decision.deleteNow.filter((key) => key.startsWith(`${prefix}images/`));
      const remembered = await runPool(deletedImages, concurrency, async (key) => {
        const sha256 = (await headMetadata(client, bucket, key))?.sha256;
        if (sha256 && /^[0-9a-f]{64}$/.test(sha256)) decision.state.gone[key] = sha256;
      });
      if (remembered) throw remembered;
      // The state goes up before the deletions, not after: a run killed (or a state PUT
      // failing) after DeleteObjects would otherwise forget the deleted images' bytes, and
      // their keys could come back with others. Written first, the worst a failure leaves is
      // a `gone` entry for an image still there (harmless: it may only keep its bytes) and
      // clocks of keys not yet deleted restarting on the next run (a later deletion, never an earlier one).
      const body = Buffer.from(stateText(decision.state));
      await putObject(client, bucket, { key: stateKey, body, contentType: 'application/json; charset=utf-8', cacheControl: 'no-store', sha256: sha256Of(body) });
      await deleteKeys(client, bucket, decision.deleteNow, (count) => {
        deleted += count;
        progress({ phase: 'deleting', objectsDone: deleted, objectsTotal: decision.deleteNow.length, bytesDone: 0, bytesTotal: 0 });
      });
      lap('delete');
    }
    if (takedownIds.length > 0) {
      const keys = decision.deleteNow.filter((key) => takedownKeys.has(key));
      const { baseUrl, cdnUrl } = local.build.root.settings;
      const bases = [...new Set([baseUrl, cdnUrl].map((url) => url.replace(/\/+$/, '')))];
      const urls = keys.flatMap((key) => {
        const path = key.slice(prefix.length);
        return path.startsWith('images/') ? bases.map((base) => `${base}/${path}`) : [`${bases[0]}/${path}`];
      });
      takedown = { ids: takedownIds, deleted: keys, urls };
    }
    return result(true, warnings, plan, uploaded, deleted);
  } catch (cause) {
    retryable = cause instanceof S3OperationError && cause.transient;
    return result(false, [toProblem(cause)], plan, uploaded, deleted);
  }
}

/** A local segment a diff needs that is not what the root names: the full check then says which and why. */
class LocalSegmentProblem extends Error {}

/** Whether `key` is one of record `id`'s: its original or a rendition (`images/<id>.<ext>`, `images/<id>-…`), or a per-record document. */
function isKeyOfRecord(prefix: string, key: string, id: string): boolean {
  const path = key.slice(prefix.length);
  if (path.startsWith(`images/${id}.`) || path.startsWith(`images/${id}-`)) return true;
  return RECORD_DOCUMENTS(id).includes(path);
}
