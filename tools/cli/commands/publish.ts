import { resolve } from 'node:path';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY, MIN_CONCURRENCY } from '../../publish/concurrency.js';
import { checkBucketName, normalisePrefix } from '../../publish/object-keys.js';
import type { PublishProgress, PublishResult } from '../../publish/types.js';
import { intFlag, parseFlags } from '../args.js';
import { type Command, type Io, UsageError } from '../../shared/io.js';
import { printProblems, type StatusLine, statusLine } from '../print-results.js';
import { refuseEmptyFlags } from '../content-flags.js';

const usage = `Usage: pepe publish --bucket NAME [options]

Uploads a build (default: dist/) to an S3-compatible bucket: site/X → key <prefix>X, the
function bundle and data → <prefix>_build/…, the manifest → <prefix>_build/manifest.json
(written last). Only objects whose content hash changed are uploaded; images first, then
the JSON that points at them. An image key never gets different bytes (a changed image
needs a new id). Credentials come from the standard AWS chain (AWS_ACCESS_KEY_ID /
AWS_SECRET_ACCESS_KEY, AWS_PROFILE, SSO, instance roles).

Options:
  --bucket NAME         bucket to publish to (required)
  --prefix P            key prefix, e.g. "pepe/" (default: bucket root)
  --dir DIR             build output folder (default: dist)
  --endpoint URL        S3-compatible endpoint (MinIO, R2, s3rver…); turns on path-style addressing
                        (default: AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, taken the same way)
  --region R            region (default: from the AWS chain; us-east-1 with --endpoint)
  --concurrency N       parallel requests, ${MIN_CONCURRENCY}–${MAX_CONCURRENCY} (default: ${DEFAULT_CONCURRENCY})
  --dry-run             read the bucket and print the plan; write nothing
  --delete-stale        delete keys the build no longer lists, once no cached JSON can
                        point at them (two runs ≥ 5 minutes apart; see the README); a
                        removed record's documents go on the first run
  --takedown ID…        delete these removed records' images, renditions and documents
                        now (remove them from the content and build first); prints the
                        URLs whose CDN copies must be purged
  --verify              list the bucket even when the last run finished, and upload again
                        any object missing from it (deleted by a lifecycle rule or by hand);
                        without it a run trusts the manifest the last finished run wrote
  --netlify-toml FILE   where Content-Type / Cache-Control come from (default: netlify.toml)
  -h, --help            show this help

Exit status: 0 the bucket holds the build (dry run: plan made), 1 refused or failed
(the previous catalogue stays readable; run again to finish), 2 usage errors.
`;

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;

/**
 * An http(s) URL with a host and a valid port, no path and no user name or password: the
 * bucket goes in --bucket, the credentials come from the AWS chain. The value is echoed with
 * anything before an "@" of its authority masked, so that a password there never reaches a CI log.
 */
function checkEndpoint(raw: string, source = '--endpoint'): void {
  const shown = raw.replace(/^((?:[a-z][a-z0-9+.-]*:)?\/\/)?[^/?#]*@/i, '$1***@');
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // reported below
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    throw new UsageError(`${source} must be an http(s) URL such as http://127.0.0.1:9000 (got "${shown}")`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(`${source} must not hold a user name or password (got "${shown}"): S3 requests are signed with AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or the AWS chain`);
  }
  if (url.pathname !== '/' || url.search !== '') {
    throw new UsageError(`${source} must be the server's URL without a path (got "${shown}"); the bucket goes in --bucket`);
  }
}

/** One overwritten status line on a terminal, at most every 100 ms. */
function progressLine(line: StatusLine): (p: PublishProgress) => void {
  // Rates count from the first upload, not from reading the build and the bucket.
  let started = 0;
  let last = 0;
  return (p) => {
    const now = Date.now();
    if (started === 0 && p.phase === 'uploading') started = now;
    if (now - last < 100 && p.objectsDone !== p.objectsTotal) return;
    last = now;
    const seconds = Math.max(0.001, (now - (started || now)) / 1000);
    const detail =
      p.phase === 'uploading' || p.phase === 'verifying' || p.phase === 'deleting'
        ? ` ${p.objectsDone}/${p.objectsTotal} objects, ${mb(p.bytesDone)}/${mb(p.bytesTotal)}, ${(p.objectsDone / seconds).toFixed(0)} obj/s, ${mb(p.bytesDone / seconds)}/s`
        : '';
    line.draw(`${p.phase}${detail}`);
  };
}

function printPlan(io: Io, result: PublishResult): void {
  const plan = result.plan;
  if (!plan) return;
  for (const o of plan.uploads) io.stdout(`upload  ${o.key}  (${o.reason}, ${o.size} B, ${o.contentType})\n`);
  for (const key of plan.deletions) io.stdout(`delete  ${key}\n`);
  for (const k of plan.kept) io.stdout(`keep    ${k.key}  (${k.reason})\n`);
  io.stdout(`plan: ${plan.uploads.length} uploads (${mb(plan.uploadBytes)}), ${plan.skips.length} unchanged, ${plan.deletions.length} deletions, ${plan.kept.length} stale kept\n`);
}

/** The stale keys a run kept (the first few and a count), and when a `--delete-stale` run can delete the first of them. */
function printKept(io: Io, result: PublishResult, deleteStale: boolean): void {
  const kept = result.plan?.kept ?? [];
  if (kept.length === 0) return;
  const shown = kept.slice(0, 5).map((k) => k.key).join(', ');
  io.stdout(`stale kept: ${shown}${kept.length > 5 ? ` and ${kept.length - 5} more` : ''}\n`);
  if (!deleteStale) {
    io.stdout('run pepe publish --delete-stale to delete them once no cached document can point at them\n');
    return;
  }
  const due = kept.flatMap((k) => (k.until ? [Date.parse(k.until)] : []));
  if (due.length === 0) io.stdout('run pepe publish --delete-stale again: stale documents still in the bucket hold the images\' clocks back until they are deleted\n');
  else {
    const at = Math.min(...due);
    const minutes = Math.max(0, Math.ceil((at - Date.now()) / 60_000));
    io.stdout(`run pepe publish --delete-stale again after ${new Date(at).toISOString()} (in ${minutes} min) to delete the first of them\n`);
  }
}

/** What a takedown deleted, and the purge a CDN needs: its cached copies of these immutable URLs outlive the deletion. */
function printTakedown(io: Io, result: PublishResult): void {
  const t = result.takedown;
  if (!t) return;
  io.stdout(`takedown of ${t.ids.join(', ')}: ${t.deleted.length} key(s) deleted\n`);
  for (const key of t.deleted) io.stdout(`deleted ${key}\n`);
  io.stdout(
    'CDN caches may keep these URLs for up to 30 days (images are served immutable): purge them now.\n' +
      '  Netlify: a new deploy clears its CDN (deploy again after this takedown).\n' +
      '  A CDN in front of the bucket: purge these URLs (e.g. a CloudFront invalidation, a Cloudflare purge by URL):\n',
  );
  for (const url of t.urls) io.stdout(`  ${url}\n`);
}

export default {
  name: 'publish',
  summary: 'sync a build to an S3-compatible bucket',
  usage,
  async run(argv, io) {
    const { values } = parseFlags(argv, {
      bucket: { type: 'string' },
      prefix: { type: 'string' },
      dir: { type: 'string' },
      endpoint: { type: 'string' },
      region: { type: 'string' },
      concurrency: { type: 'string' },
      'dry-run': { type: 'boolean' },
      'delete-stale': { type: 'boolean' },
      takedown: { type: 'string', multiple: true },
      verify: { type: 'boolean' },
      'netlify-toml': { type: 'string' },
    });
    if (values.bucket === undefined) throw new UsageError('--bucket NAME is required');
    // An empty value (`--dir "$DIST"` with DIST unset) would mean the current folder, the bucket root or the default region: refused, naming the flag.
    refuseEmptyFlags(values, { dir: 'name the build folder', 'netlify-toml': 'name the netlify.toml file', prefix: 'leave --prefix out to publish at the bucket root', region: 'leave --region out for the default' });
    checkBucketName(values.bucket);
    const prefix = normalisePrefix(values.prefix);
    // The SDK takes a region only as a hostname component and otherwise fails every request, as if the network had.
    if (values.region !== undefined && !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(values.region)) {
      throw new UsageError(`--region must be a region name such as us-east-1 (letters, digits and hyphens) (got "${values.region}")`);
    }
    // AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL (MinIO in CI) is taken as --endpoint is, the flag winning: left to the SDK it gets no path-style addressing.
    const envName = values.endpoint !== undefined || io.env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS === 'true' ? undefined : (['AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL'] as const).find((name) => io.env[name]);
    const endpoint = values.endpoint ?? (envName ? io.env[envName] : undefined);
    if (endpoint !== undefined) checkEndpoint(endpoint, envName ?? '--endpoint');
    // `--takedown a b` and `--takedown a --takedown b` alike; each must be a record id.
    const takedown = (values.takedown ?? []).flatMap((value) => value.split(/[\s,]+/)).filter((id) => id !== '');
    for (const id of takedown) if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) throw new UsageError(`--takedown takes record ids (lowercase UUIDs, as in the sidecars), got "${id}"`);
    const { publishBuild } = await import('../../publish/publish.js');
    const started = Date.now();
    const status = statusLine(io);
    const result = await publishBuild({
      bucket: values.bucket,
      prefix,
      dir: resolve(io.cwd, values.dir ?? 'dist'),
      ...(endpoint ? { endpoint } : {}),
      ...(values.region ? { region: values.region } : {}),
      concurrency: intFlag('concurrency', values.concurrency, DEFAULT_CONCURRENCY, MIN_CONCURRENCY, MAX_CONCURRENCY),
      dryRun: values['dry-run'] ?? false,
      deleteStale: values['delete-stale'] ?? false,
      ...(takedown.length > 0 ? { takedown } : {}),
      verify: values.verify ?? false,
      netlifyToml: resolve(io.cwd, values['netlify-toml'] ?? 'netlify.toml'),
      ...(io.isTTY ? { onProgress: progressLine(status) } : {}),
    });
    status.clear();
    printProblems(io, result.problems);
    const target = `s3://${values.bucket}/${prefix}`;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (result.dryRun) {
      printPlan(io, result);
      if (result.ok) io.stdout(`dry run: nothing written to ${target}\n`);
      else io.stderr(`dry run for ${target} stopped, no plan made (${seconds} s): ${result.retryable ? 'run again' : 'fix the problem above, then run again'}\n`);
    } else if (result.ok) {
      const c = result.counts;
      io.stdout(`published to ${target}: ${c.uploaded} uploaded (${mb(result.bytes.uploaded)}), ${c.skipped} unchanged, ${c.deleted} deleted, ${c.kept} stale kept, in ${seconds} s\n`);
      printKept(io, result, values['delete-stale'] ?? false);
      printTakedown(io, result);
    } else if (result.counts.uploaded === 0) {
      io.stderr(`publish to ${target} stopped before writing anything (${seconds} s): ${result.retryable ? 'run again' : 'fix the problem above, then run again'}\n`);
    } else {
      io.stderr(`publish to ${target} failed after ${result.counts.uploaded} upload(s) in ${seconds} s; the previous catalogue is still readable, ${result.retryable ? 'run again to finish' : 'fix the problem above, then run again to finish'}\n`);
    }
    return result.ok ? 0 : 1;
  },
} satisfies Command;
