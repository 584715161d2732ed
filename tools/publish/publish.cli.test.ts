/** `pepe publish` through the CLI's top level, against a real s3rver: output, exit codes, usage errors. */
import { spawnSync } from 'node:child_process';
import { rm, symlink } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Io } from '../shared/io.js';
import { runMain } from '../cli/main.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { startS3rver, type S3rverProcess } from './testing/s3rver-process.js';
import { syntheticRecords, writeSyntheticDist } from './testing/synthetic-dist.js';

let s3: S3rverProcess;
let temp: TempDir;
const ROOT = join(import.meta.dirname, '../..');

// The command takes credentials from the SDK's standard chain, which reads process.env.
const savedEnv = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
beforeAll(async () => {
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  [s3, temp] = await Promise.all([startS3rver(['pepe-cli']), makeTempDir('pepe-publish-cli-')]);
  await writeSyntheticDist(join(temp.path, 'dist'), syntheticRecords(3));
});
afterAll(async () => {
  for (const [name, value] of [['AWS_ACCESS_KEY_ID', savedEnv.id], ['AWS_SECRET_ACCESS_KEY', savedEnv.secret]] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await s3?.stop();
  await temp?.cleanup();
});

async function run(...argv: string[]) {
  return runWithEnv({}, ...argv);
}

/** `extra` goes into the command's environment and, for the SDK (which reads process.env), into process.env for the run. */
async function runWithEnv(extra: Record<string, string>, ...argv: string[]) {
  const saved = Object.fromEntries(Object.keys(extra).map((name) => [name, process.env[name]]));
  Object.assign(process.env, extra);
  try {
    return await runIo(extra, ...argv);
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

async function runIo(extra: Record<string, string>, ...argv: string[]) {
  let out = '';
  let err = '';
  const io: Io = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    isTTY: false,
    env: { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', ...extra },
    cwd: temp.path,
  };
  const code = await runMain(['publish', ...argv], io);
  return { code, out, err };
}

describe('pepe publish (CLI)', () => {
  const common = () => ['--bucket', 'pepe-cli', '--endpoint', s3.endpoint, '--netlify-toml', join(ROOT, 'netlify.toml')];

  it('prints the plan on --dry-run, writes nothing, then publishes and prints a summary line', async () => {
    const dry = await run(...common(), '--dry-run');
    expect(dry.err).toBe('');
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(/^upload {2}images\//m);
    // The site's 12 files, the manifest's segments and its root (the function's data and bundle stay out of the bucket).
    const planned = Number(/plan: (\d+) uploads \([\d.]+ MB\), 0 unchanged, 0 deletions, 0 stale kept/.exec(dry.out)?.[1]);
    expect(planned).toBeGreaterThan(13);
    const again = await run(...common(), '--dry-run');
    expect(again.out).toContain(`plan: ${planned} uploads`);

    const real = await run(...common());
    expect(real.code).toBe(0);
    expect(real.out).toMatch(new RegExp(`^published to s3://pepe-cli/: ${planned} uploaded .* 0 unchanged, 0 deleted, 0 stale kept, in [\\d.]+ s\n$`));
    const noop = await run(...common());
    expect(noop.out).toContain(`: 0 uploaded (0.00 MB), ${planned} unchanged`);
  });

  it('exits 1 naming the problem when the build folder is missing', async () => {
    const result = await run(...common(), '--dir', 'nope');
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/nope\/manifest\.json: cannot read the build manifest .*\[missing-manifest\]/);
  });

  // A device in a listed file's place never ends: the check of the build read it for ever
  // (and the memory with it) before anything was uploaded. A real process with a time limit,
  // since such a read holds the thread that would run a test timeout.
  it.skipIf(process.platform === 'win32')('exits 1 at once, before any upload, when a listed file is a device (a symlink to /dev/zero or /dev/urandom), naming it', async () => {
    const dir = join(temp.path, 'dist-device');
    const records = syntheticRecords(2);
    await writeSyntheticDist(dir, records);
    const listed = join(dir, `site/images/${records[1]!.id}${records[1]!.ext}`);
    for (const device of ['/dev/zero', '/dev/urandom']) {
      await rm(listed);
      await symlink(device, listed);
      const started = Date.now();
      // --verify: a plain run checks only the files its diff against the bucket's root names, and this one is unchanged there.
      const child = spawnSync(process.execPath, [join(ROOT, 'tools/pepe.mjs'), 'publish', ...common(), '--dir', dir, '--verify'], {
        encoding: 'utf8',
        env: { ...process.env, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' },
        timeout: 30_000,
        killSignal: 'SIGKILL',
      });
      expect(child.signal, `${device}: still running after ${Date.now() - started} ms`).toBeNull();
      expect(child.status, child.stderr).toBe(1);
      expect(child.stderr).toContain(`error: ${listed}: listed in manifest.json but it is a device, not a file: delete the build folder and build again with 'pepe build' [missing-file]\n`);
      expect(child.stderr).toContain('stopped before writing anything');
    }
  }, 90_000);

  it('exits 2 with usage for a missing bucket or a bad flag value', async () => {
    expect((await run()).code).toBe(2);
    const bad = await run('--bucket', 'pepe-cli', '--concurrency', '0');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--concurrency must be a whole number from 1 to 64');
    expect((await run('--bucket', 'pepe-cli', '--endpoint', 'localhost:9000')).err).toContain('--endpoint must be an http(s) URL');
    for (const endpoint of ['http://[bad', 'http://127.0.0.1:99999']) {
      const result = await run('--bucket', 'pepe-cli', '--endpoint', endpoint);
      expect(result.code, endpoint).toBe(2);
      expect(result.err, endpoint).toContain(`--endpoint must be an http(s) URL such as http://127.0.0.1:9000 (got "${endpoint}")`);
    }
    const withBucket = await run('--bucket', 'pepe-cli', '--endpoint', `${s3.endpoint}/pepe-cli`);
    expect(withBucket.code).toBe(2);
    expect(withBucket.err).toContain('the bucket goes in --bucket');
  });

  it('exits 2 naming the flag when --dir, --netlify-toml, --prefix or --region is empty (an unset shell variable) or --prefix/--region is malformed', async () => {
    // Unchecked, --dir '' would read the working folder as the build, --netlify-toml '' the
    // working folder as the config, --prefix '' publish at the bucket root, --region '' take
    // the default; --prefix a//b would fail as "not an S3 API", --region 'us east' as "run again".
    for (const [flag, value, message] of [
      ['--dir', '', '--dir is empty: name the build folder (is a shell variable unset?)'],
      ['--netlify-toml', '', '--netlify-toml is empty: name the netlify.toml file (is a shell variable unset?)'],
      ['--prefix', '', '--prefix is empty: leave --prefix out to publish at the bucket root (is a shell variable unset?)'],
      ['--region', '', '--region is empty: leave --region out for the default (is a shell variable unset?)'],
      ['--prefix', 'a//b', '--prefix must not contain an empty segment ("//") (got "a//b")'],
      ['--region', 'us east', '--region must be a region name such as us-east-1 (letters, digits and hyphens) (got "us east")'],
    ] as const) {
      const argv = ['--bucket', 'pepe-cli', '--endpoint', s3.endpoint, '--dry-run', ...(flag === '--dir' ? [] : ['--dir', join(temp.path, 'dist')]), ...(flag === '--netlify-toml' ? [] : ['--netlify-toml', join(ROOT, 'netlify.toml')]), flag, value];
      const result = await run(...argv);
      expect(result.code, `${flag} "${value}"`).toBe(2);
      expect(result.err, `${flag} "${value}"`).toContain(`pepe publish: ${message}\n`);
      expect(result.out).toBe('');
    }
  });

  it('refuses an --endpoint with a user name or password (exit 2) and never prints the password', async () => {
    const argv = ['--bucket', 'pepe-cli', '--dir', join(temp.path, 'dist'), '--netlify-toml', join(ROOT, 'netlify.toml'), '--dry-run'];
    for (const [endpoint, shown, message] of [
      // Accepted before (the password ignored, requests signed with the chain's keys).
      [s3.endpoint.replace('//', '//admin:hunter2@'), s3.endpoint.replace('//', '//***@'), 'must not hold a user name or password'],
      // Refused before, echoing the password.
      [`${s3.endpoint.replace('//', '//admin:hunter2@')}/pepe-cli`, `${s3.endpoint.replace('//', '//***@')}/pepe-cli`, 'must not hold a user name or password'],
      ['http://admin:hunter2@[bad', 'http://***@[bad', 'must be an http(s) URL'],
      ['admin:hunter2@127.0.0.1:9000', '***@127.0.0.1:9000', 'must be an http(s) URL'],
    ] as const) {
      const result = await run(...argv, '--endpoint', endpoint);
      expect(result.code, endpoint).toBe(2);
      expect(result.err, endpoint).toContain(`--endpoint ${message}`);
      expect(result.err, endpoint).toContain(`(got "${shown}")`);
      expect(result.err + result.out, endpoint).not.toContain('hunter2');
    }
  });

  it('takes AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL as --endpoint (path-style, default region), the flag winning, and checks it the same way', async () => {
    // A host name, as MinIO has in CI (http://minio:9000): without path-style addressing the SDK
    // asked for pepe-cli.localhost ("nothing answers at that address: check --endpoint").
    const byName = s3.endpoint.replace('127.0.0.1', 'localhost');
    const argv = ['--bucket', 'pepe-cli', '--dir', join(temp.path, 'dist'), '--netlify-toml', join(ROOT, 'netlify.toml'), '--dry-run'];
    for (const name of ['AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL']) {
      const result = await runWithEnv({ [name]: byName }, ...argv);
      expect(result.err, name).toBe('');
      expect(result.code, name).toBe(0);
      expect(result.out, name).toContain('dry run: nothing written to s3://pepe-cli/');
    }
    const flagWins = await runWithEnv({ AWS_ENDPOINT_URL: 'http://127.0.0.1:9' }, ...argv, '--endpoint', byName);
    expect(flagWins.code).toBe(0);
    const bad = await runWithEnv({ AWS_ENDPOINT_URL: `${byName}/pepe-cli` }, ...argv);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(`AWS_ENDPOINT_URL must be the server's URL without a path (got "${byName}/pepe-cli")`);
  });

  it('prints no AWS SDK Node-version warning in a real process (Node 20 is pinned on purpose)', async () => {
    const child = spawnSync(process.execPath, [join(ROOT, 'tools/pepe.mjs'), 'publish', '--bucket', 'pepe-cli', '--endpoint', s3.endpoint, '--dry-run', '--dir', join(temp.path, 'dist'), '--netlify-toml', join(ROOT, 'netlify.toml')], {
      encoding: 'utf8',
      env: { ...process.env, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: '' },
    });
    expect(child.status, child.stderr).toBe(0);
    expect(child.stdout).toContain('dry run: nothing written');
    expect(child.stderr).not.toContain('NodeVersionSupportWarning');
  });

  it('says what to fix when the bucket does not exist or nothing answers, and does not advise a plain rerun', async () => {
    const missing = await run('--bucket', 'no-such-bucket', '--endpoint', s3.endpoint, '--netlify-toml', join(ROOT, 'netlify.toml'));
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('NoSuchBucket');
    expect(missing.err).toContain('the bucket does not exist: create it, or check --bucket and --endpoint');
    expect(missing.err).toMatch(/stopped before writing anything \([\d.]+ s\): fix the problem above, then run again\n$/);
    const nobody = await run('--bucket', 'pepe-cli', '--endpoint', 'http://127.0.0.1:9', '--netlify-toml', join(ROOT, 'netlify.toml'));
    expect(nobody.code).toBe(1);
    expect(nobody.err).toContain('nothing answers at that address: check --endpoint');
    expect(nobody.err).toMatch(/stopped before writing anything \([\d.]+ s\): fix the problem above, then run again\n$/);
  });

  it('says the credentials were refused, not that they lack a permission, when the access key is unknown; names TLS and the region when those are wrong; never advises a plain rerun', async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, region: process.env.AWS_REGION };
    const args = ['--bucket', 'pepe-cli', '--netlify-toml', join(ROOT, 'netlify.toml')];
    const rerun = /stopped before writing anything \([\d.]+ s\): fix the problem above, then run again\n$/;
    try {
      // The marker's HEAD fails first, and its 403 has no body: reported as such, it would read
      // "access denied: the credentials need s3:ListBucket…" for a key that does not exist.
      process.env.AWS_ACCESS_KEY_ID = 'NO-SUCH-KEY';
      for (let i = 0; i < 3; i += 1) {
        const refused = await run(...args, '--endpoint', s3.endpoint);
        expect(refused.code).toBe(1);
        expect(refused.err).toContain('InvalidAccessKeyId');
        expect(refused.err).toContain('the credentials were refused: check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
        expect(refused.err).not.toContain('NO-SUCH-KEY');
        expect(refused.err).toMatch(rerun);
      }
      process.env.AWS_ACCESS_KEY_ID = saved.id;
      // https:// on a plain-HTTP server: EPROTO, which said "run again".
      const tls = await run(...args, '--endpoint', s3.endpoint.replace('http:', 'https:'));
      expect(tls.code).toBe(1);
      expect(tls.err).toContain('the TLS (https) connection failed: check --endpoint (http:// for a server without TLS)');
      expect(tls.err).toMatch(rerun);
      // A region from the environment the SDK refuses (fails before any connection): said "run again".
      process.env.AWS_REGION = 'us east';
      const region = await run(...args);
      expect(region.code).toBe(1);
      expect(region.err).toContain('the region is not a valid region name: check --region or AWS_REGION');
      expect(region.err).toMatch(rerun);
    } finally {
      process.env.AWS_ACCESS_KEY_ID = saved.id;
      if (saved.region === undefined) delete process.env.AWS_REGION;
      else process.env.AWS_REGION = saved.region;
    }
  });

  it('names AWS_PROFILE when a profile without credentials wins over the keys in the environment', async () => {
    const missing = join(temp.path, 'no-such-aws-file');
    const result = await runWithEnv(
      { AWS_PROFILE: 'pepe-no-such-profile', AWS_CONFIG_FILE: missing, AWS_SHARED_CREDENTIALS_FILE: missing, AWS_EC2_METADATA_DISABLED: 'true' },
      '--bucket', 'pepe-cli', '--endpoint', s3.endpoint, '--dir', join(temp.path, 'dist'), '--netlify-toml', join(ROOT, 'netlify.toml'),
    );
    expect(result.code).toBe(1);
    // Not "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE": all three are set.
    expect(result.err).toContain('no AWS credentials found for AWS_PROFILE=pepe-no-such-profile, which takes precedence over AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY: check that profile in ~/.aws/config and ~/.aws/credentials, or unset AWS_PROFILE');
    expect(result.err).not.toContain('S3RVER');
    expect(result.err).toMatch(/stopped before writing anything \([\d.]+ s\): fix the problem above, then run again\n$/);
  });

  it('says the endpoint is not an S3 API when a web server answers there, without the SDK\'s advice to programmers', async () => {
    // A web page or a storage console (MinIO's is one port above its API) at --endpoint: HTML, 404 or 200.
    for (const status of [404, 200]) {
      const web = createServer((_req, res) => res.writeHead(status, { 'content-type': 'text/html' }).end('<!doctype html><html><head><meta charset="utf-8"></head><body>console</body></html>'));
      await new Promise<void>((done) => web.listen(0, '127.0.0.1', done));
      try {
        const endpoint = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
        const result = await run('--bucket', 'pepe-cli', '--endpoint', endpoint, '--netlify-toml', join(ROOT, 'netlify.toml'));
        expect(result.code, String(status)).toBe(1);
        expect(result.err, String(status)).toMatch(/^error: ListObjectsV2 .* failed: .*: the server at that address does not answer as an S3 API \(its reply is not S3 XML\): check --endpoint \(the S3 API address and port, not a web page or a storage console\) \[s3-request-failed\]$/m);
        expect(result.err, String(status)).not.toMatch(/\$response|hidden field|\\n/);
        expect(result.err, String(status)).toMatch(/stopped before writing anything \([\d.]+ s\): fix the problem above, then run again\n$/);
      } finally {
        await new Promise((done) => web.close(done));
      }
    }
  });

  it('ends a failed --dry-run with a summary line that says what to do, as a failed publish does', async () => {
    const missing = await run('--bucket', 'no-such-bucket', '--endpoint', s3.endpoint, '--netlify-toml', join(ROOT, 'netlify.toml'), '--dry-run');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('the bucket does not exist: create it, or check --bucket and --endpoint');
    expect(missing.err).toMatch(/\ndry run for s3:\/\/no-such-bucket\/ stopped, no plan made \([\d.]+ s\): fix the problem above, then run again\n$/);
    expect(missing.out).toBe('');
  });
});
