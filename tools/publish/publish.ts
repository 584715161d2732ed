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
import { headersFingerprint, planObjects, recheckMetadata, type RemoteManifest } from './bucket-plan.js';
import { type Manifest, manifestShapeError, sha256Of } from '../shared/manifest.js';
import { readLocalBuild, readVerified } from './local-build.js';
import { type LocalObject, localObjects } from './local-objects.js';
import { GROUP_ORDER, RUN_MARKER_NAME, STATE_NAME, keyForPath, normalisePrefix } from './object-keys.js';
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

async function readRemoteManifest(client: S3Like, bucket: string, key: string): Promise<RemoteManifest | null> {
  const fetched = await getObjectOrNull(client, bucket, key);
  if (!fetched) return null;
  let manifest: Manifest | null = null;
  try {
    const parsed: unknown = JSON.parse(fetched.bytes.toString('utf8'));
    if (manifestShapeError(parsed) === null) manifest = parsed as Manifest;
  } catch {
    // Unreadable: every key is then checked against its own metadata instead.
  }
  return { manifest, sha256: sha256Of(fetched.bytes), etag: fetched.etag, lastModified: fetched.lastModified, run: fetched.metadata.run ?? '', headers: fetched.metadata.headers ?? '' };
}

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
  const result = (ok: boolean, problems: Problem[], plan?: PublishPlan, uploaded = 0, deleted = 0): PublishResult => ({
    ok,
    dryRun,
    problems,
    ...(plan ? { plan } : {}),
    counts: { uploaded, skipped: plan?.skips.length ?? 0, deleted, kept: plan?.kept.length ?? 0 },
    bytes: { uploaded: bytesDone, total: plan?.uploadBytes ?? 0 },
    timings,
    retryable,
  });
  const progress = (p: PublishProgress) => options.onProgress?.(p);
  const prefix = normalisePrefix(options.prefix);
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;

  progress({ phase: 'reading-build', objectsDone: 0, objectsTotal: 0, bytesDone: 0, bytesTotal: 0 });
  const local = await readLocalBuild(options.dir ?? 'dist');
  if (!local.ok) return result(false, local.problems);
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
  const built = localObjects(local.build, prefix, headersForPath);
  if (built.problems.length > 0) return result(false, built.problems);
  const warnings = localUrlWarnings(local.build.manifest.settings);
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
    // The state is read on every run: its record of deleted images guards their keys (bucket-plan.ts).
    const [remoteManifest, marker, previousStateText] = await settled([
      readRemoteManifest(client, bucket, built.manifest.key),
      headMetadata(client, bucket, markerKey),
      getObjectOrNull(client, bucket, stateKey).then((state) => state?.bytes.toString('utf8') ?? null),
    ] as const);
    const previousState = parseState(previousStateText);
    // Fast path: the last run that wrote anything finished (see RUN_MARKER_NAME), so the
    // manifest is the bucket's exact description. --delete-stale always lists: it must
    // also find keys no manifest ever listed (left by interrupted runs); --verify lists to
    // find objects deleted behind the publisher's back, which are then uploaded again.
    const fast = !options.deleteStale && !options.verify && remoteManifest?.manifest != null && remoteManifest.run !== '' && marker?.run === remoteManifest.run;
    const listing = fast ? null : await listAllObjects(client, bucket, prefix);
    const readLocal = async (object: LocalObject) => {
      const bytes = await readVerified(local.build.dir, object);
      return Buffer.isBuffer(bytes) ? bytes : null;
    };
    const planned = await planObjects({ client, bucket, prefix, objects: built.objects, listing, remoteManifest, concurrency, deletedImages: previousState.gone, readLocal });
    if (planned.error) throw planned.error;
    if (planned.problems.length > 0) return result(false, planned.problems);
    // Same bytes do not mean same headers: when Content-Type / Cache-Control may differ from
    // what the manifest's publish stored (netlify.toml or the cache policy changed), check each skipped object.
    const headers = headersFingerprint(built.objects);
    const headersChanged = remoteManifest?.headers !== headers;
    const rechecked = headersChanged ? await recheckMetadata(client, bucket, planned.planned, concurrency) : { planned: planned.planned, error: null };
    if (rechecked.error) throw rechecked.error;

    const order = (o: PlannedObject) => GROUP_ORDER.indexOf(o.group);
    const uploads = rechecked.planned.filter((o) => o.reason !== 'unchanged').sort((a, b) => order(a) - order(b) || (a.key < b.key ? -1 : 1));
    const skips = rechecked.planned.filter((o) => o.reason === 'unchanged');
    // The manifest goes up whenever anything else did, so its date again covers every object (see
    // bucket-plan.ts), and when the headers fingerprint it carries is not this build's.
    const manifestChanged = remoteManifest?.sha256 !== built.manifest.sha256 || headersChanged;
    if (uploads.length > 0 || manifestChanged) uploads.push({ ...built.manifest, reason: remoteManifest ? 'changed' : 'new' });
    else skips.push({ ...built.manifest, reason: 'unchanged' });

    const wanted = new Set([...built.objects.map((o) => o.key), built.manifest.key, stateKey, markerKey]);
    // On the fast path only the previous manifest's keys are known: enough to report them.
    const bucketKeys = listing ? [...listing.keys()] : Object.keys(remoteManifest?.manifest?.files ?? {}).map((path) => keyForPath(prefix, path));
    const candidates = bucketKeys.filter((key) => !wanted.has(key));
    // Only keys this publication wrote are ever deleted (own-keys.ts); on the fast path every candidate came from its manifest.
    const ownership =
      listing === null || !options.deleteStale
        ? { owned: candidates, foreign: [] }
        : await ownStaleKeys({
            staleKeys: candidates,
            prefix,
            known: new Set([...Object.keys(remoteManifest?.manifest?.files ?? {}).map((path) => keyForPath(prefix, path)), ...Object.keys(previousState.retired)]),
            listed: listing.keys(),
            head: (key) => headMetadata(client, bucket, key),
            concurrency,
          });
    const clock = deps.now ?? (() => new Date());
    const decide = () =>
      decideStale({
        staleKeys: ownership.owned,
        isImageKey: (key) => key.startsWith(`${prefix}images/`),
        isLeafDocument: (key) => key.startsWith(`${prefix}api/pepe/`) || key.startsWith(`${prefix}v1/pepe/`) || key.startsWith(`${prefix}api/similar/`),
        // Stored no-store (object-metadata.ts): no cache can serve them once deleted.
        isUncacheable: (key) => key.startsWith(`${prefix}_build/`),
        deleteStale: options.deleteStale ?? false,
        previous: previousState,
        now: clock(),
        maxAgeSeconds: JSON_OBJECT_STORAGE_MAX_AGE_SECONDS,
      });
    let decision = decide();
    plan = { uploads, skips, deletions: decision.deleteNow, kept: [...decision.keep, ...ownership.foreign], uploadBytes: uploads.reduce((n, o) => n + o.size, 0) };
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
      // finished again and the next run may take the fast path (else every later run lists).
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
      // Large runs: list everything once. Small runs: HEAD every image the uploaded JSON points at.
      const uploadedJson = uploads.filter((o) => o.group === 'json').map((o) => o.key);
      const referenced = uploadedJson.flatMap((key) => built.references.get(key) ?? []);
      const full = listing === null ? referenced.length + uploads.length > 1000 : true;
      await verifyBucket(client, bucket, full ? [...built.objects.map((o) => o.key), ...referenced] : [...uploads.filter((o) => o.group !== 'manifest').map((o) => o.key), ...referenced], full ? { list: prefix } : { head: concurrency });
      await writeManifest(client, bucket, uploads.at(-1)!, local.build.manifestBytes, remoteManifest?.etag ?? null, runId, headers);
      uploaded += 1;
      bytesDone += built.manifest.size;
      report('uploading');
      lap('verifyAndManifest');
    }

    // Decided again now that the JSON of this run is in place: a clock started by this run
    // counts from when the documents that no longer point at its key were replaced, not from
    // the plan (a long upload would otherwise eat into the cache-expiry margin).
    if (options.deleteStale && uploads.length > 0) {
      decision = decide();
      plan.deletions = decision.deleteNow;
      plan.kept = [...decision.keep, ...ownership.foreign];
    }
    if (options.deleteStale && (decision.deleteNow.length > 0 || stateText(decision.state) !== (previousStateText ?? stateText(parseState(null))))) {
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
    return result(true, warnings, plan, uploaded, deleted);
  } catch (cause) {
    retryable = cause instanceof S3OperationError && cause.transient;
    return result(false, [toProblem(cause)], plan, uploaded, deleted);
  }
}

