/**
 * The parts of startServer around the chain: netlify.toml redirects applied between the
 * function and the static files, set-up errors a maintainer can act on, graceful close,
 * and the `pepe serve` command itself in a child process (signals, printed URLs).
 */
import { createManifest, loadManifest, writeManifestFiles } from '../shared/manifest.js';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { cp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogue } from '../catalogue/build-catalogue.js';
import { buildFixtureSite, FIXTURE_URLS, type FixtureSite } from '../testing/fixture-catalogue.js';
import { AT_ONCE_MS, makeNamedPipe, timed } from '../testing/named-pipe.js';
import { runMain } from '../cli/main.js';
import { SERVE_V8_FLAGS } from '../cli/tuned-allocator.mjs';
import { captureIo } from '../testing/capture-io.js';
import { spawnServe as spawnPepeServe } from '../testing/serve-process.js';
import { closeClient, json, raw } from './http-client.test-helper.js';
import { freshBuild } from './fresh-build.js';
import { ServeSetupError, startServer } from './server.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
let site: FixtureSite;

beforeAll(async () => {
  site = await buildFixtureSite({ count: 3 });
}, 120_000);

afterAll(async () => {
  closeClient();
  await site?.cleanup();
});

async function withConfig(toml: string): Promise<string> {
  const file = join(site.root, `netlify-${Math.random().toString(36).slice(2)}.toml`);
  await writeFile(file, toml);
  return file;
}

/**
 * Serves a copy of the fixture build in a `pepe serve` child, answers `probe`, commits a build
 * it cannot load into the folder (`commitBroken`, which returns what the log must say), and
 * checks that the log says it without a stack trace and that `probe` is still answered by the
 * previous build.
 */
async function expectReloadRefused(name: string, probe: string, commitBroken: (dir: string) => Promise<string>): Promise<void> {
  const dir = join(site.root, name);
  await cp(site.distDir, dir, { recursive: true });
  const { child, url, output, exited } = await spawnServe([], dir);
  try {
    expect((await raw(url, probe)).status).toBe(200);
    const says = await commitBroken(dir);
    await expect.poll(() => output.stderr, { timeout: 10_000 }).toContain(says);
    expect(output.stderr).toContain('a new build in the served folder could not be loaded; still serving the previous one');
    expect(output.stderr).not.toMatch(/\n\s+at /);
    expect((await raw(url, probe)).status).toBe(200);
    closeClient();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

describe('netlify.toml redirects in the chain', () => {
  it('redirects, rewrites to static files and functions, and 404s a rewrite to a missing file', async () => {
    const netlifyToml = await withConfig(`
[[redirects]]
from = "/old-api/*"
to = "/api/:splat"
status = 301
[[redirects]]
from = "/gallery"
to = "/index.html"
status = 200
[[redirects]]
from = "/frogs"
to = "/api/pepe?limit=2"
status = 200
[[redirects]]
from = "/broken"
to = "/nope.html"
status = 200
[[redirects]]
from = "/index.html"
to = "/elsewhere"
`);
    const server = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml });
    try {
      const moved = await raw(server.url, '/old-api/pepe?limit=3');
      expect(moved.status).toBe(301);
      expect(moved.headers.location).toBe('/api/pepe?limit=3');

      const gallery = await raw(server.url, '/gallery');
      expect(gallery.status).toBe(200);
      expect(gallery.headers['content-type']).toBe('text/html; charset=utf-8');

      const frogs = await raw(server.url, '/frogs');
      expect(frogs.status).toBe(200);
      expect((json(frogs) as { data: unknown[] }).data).toHaveLength(2);

      expect((await raw(server.url, '/broken')).status).toBe(404);
      // A static file shadows a rule without force.
      expect((await raw(server.url, '/index.html')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('refuses a rule it cannot reproduce, naming it', async () => {
    const netlifyToml = await withConfig('[[redirects]]\nfrom = "/x/*"\nto = "https://example.com/:splat"\nstatus = 200\n');
    await expect(startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml })).rejects.toThrow(/"\/x\/\*".*proxying/);
  });
});

describe('without the CDN cache', () => {
  it('runs the function for every request', async () => {
    const server = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: join(REPO, 'netlify.toml'), cdnCache: false });
    try {
      for (let i = 0; i < 2; i++) expect((await raw(server.url, '/api/pepe?limit=2')).headers['cache-status']).toBe('"pepe serve"; fwd=miss');
    } finally {
      await server.close();
    }
  });
});

describe('set-up errors', () => {
  it('says to run the build when the folder holds no build', async () => {
    const error = await startServer({ dir: join(site.root, 'missing'), port: 0, host: '127.0.0.1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServeSetupError);
    expect(String(error)).toMatch(/no build found at .*missing.*npx pepe build/);
  });

  it('names the function bundle and says to build again when it cannot be loaded (a damaged or hand-edited file)', async () => {
    const damaged = join(site.root, 'damaged-dist');
    await cp(site.distDir, damaged, { recursive: true });
    for (const [text, why] of [
      // The syntax error's own words differ under vitest's loader and Node's: only that it is quoted.
      ['export default {{\n', /: the function bundle cannot be loaded \(.+\)/],
      ['export default 1;\n', /the default export must be the function handler/],
    ] as const) {
      await writeFile(join(damaged, 'functions', 'pepe.mjs'), text);
      const error = await startServer({ dir: damaged, port: 0, host: '127.0.0.1', netlifyToml: join(REPO, 'netlify.toml') }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServeSetupError);
      expect(String((error as Error).message)).toMatch(new RegExp(`^${join(damaged, 'functions', 'pepe.mjs').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
      expect(String((error as Error).message)).toMatch(why);
      // Not "run `npx pepe build` again": over this intact folder, whose content did not change, a build writes nothing and the bundle stayed damaged.
      expect(String((error as Error).message)).toMatch(new RegExp(`[:;] delete ${damaged.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} and build again with \`npx pepe build --out ${damaged.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\`$`));
    }
  });

  // Started anyway, it would answer every search and list with a 500.
  it('refuses a build whose function pieces file is missing or damaged, naming the file and the fix', async () => {
    const broken = join(site.root, 'no-pieces-dist');
    await cp(site.distDir, broken, { recursive: true });
    const pieces = join(broken, 'data', readdirSync(join(broken, 'data')).find((name) => /^pieces-[0-9a-f]+\.txt$/.test(name))!);
    const intact = await readFile(pieces);
    for (const [damage, why] of [
      [() => rm(pieces), `catalogue pieces file ${basename(pieces)} not found (looked for ${pieces}, `],
      [() => writeFile(pieces, intact.subarray(1)), `catalogue pieces file ${pieces} holds ${intact.length - 1} bytes, not the ${intact.length} its data module lists: `],
    ] as const) {
      await damage();
      const error = await startServer({ dir: broken, port: 0, host: '127.0.0.1', netlifyToml: join(REPO, 'netlify.toml') }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServeSetupError);
      expect((error as Error).message).toContain(why);
      expect((error as Error).message).toContain('delete the build folder (dist, or the --out of `pepe build`) and build again with `pepe build`');
    }
    // Intact again: it serves.
    await writeFile(pieces, intact);
    const server = await startServer({ dir: broken, port: 0, host: '127.0.0.1', netlifyToml: join(REPO, 'netlify.toml') });
    try {
      expect((await raw(server.url, '/api/pepe?limit=3&search=frog')).status).toBe(200);
    } finally {
      closeClient();
      await server.close();
    }
  });

  // It started, printed the gallery's URL and answered it with a 404, without a word.
  it('refuses a build folder whose listed files are missing, naming them and the fix', async () => {
    const dir = join(site.root, 'files-missing-dist');
    await cp(site.distDir, dir, { recursive: true });
    await rm(join(dir, 'site', 'index.html'));
    const serve = () => startServer({ dir, port: 0, host: '127.0.0.1', netlifyToml: join(REPO, 'netlify.toml') });
    const error = await serve().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServeSetupError);
    expect((error as Error).message).toBe(`${join(dir, 'manifest.json')} lists a file that is not in the build folder (site/index.html): delete ${dir} and build again with \`npx pepe build --out ${dir}\``);
    for (const image of readdirSync(join(dir, 'site', 'images'))) await rm(join(dir, 'site', 'images', image));
    expect(String(await serve().catch((e: unknown) => e))).toMatch(/lists \d+ files that are not in the build folder \(site\/images\/[^,]+, site\/images\/[^,]+, site\/images\/[^,]+ and \d+ more\)/);
  });

  // `pepe serve --dir elsewhere` said `npx pepe build`, which writes ./dist: the folder served stayed broken.
  it('names the folder to build into when it is not ./dist', () => {
    expect(freshBuild('dist')).toBe('delete dist and build again with `npx pepe build`');
    expect(freshBuild(resolve('dist'))).toBe(`delete ${resolve('dist')} and build again with \`npx pepe build\``);
    expect(freshBuild('/srv/pepe/build')).toBe('delete /srv/pepe/build and build again with `npx pepe build --out /srv/pepe/build`');
    expect(freshBuild('/srv/my builds/dist')).toBe("delete /srv/my builds/dist and build again with `npx pepe build --out '/srv/my builds/dist'`");
  });

  // It said "run `npx pepe build` again", which over this folder writes nothing: the build trusts its manifest, and the content did not change.
  it('says to delete the build folder and build again when the function bundle is missing, and that fix works', async () => {
    const out = join(site.root, 'bundle-deleted-dist');
    const build = () => buildCatalogue({ contentDir: site.contentDir, outDir: out, cacheDir: join(site.root, 'bundle-deleted-cache'), urls: FIXTURE_URLS });
    expect((await build()).ok).toBe(true);
    const bundle = join(out, 'functions', 'pepe.mjs');
    await rm(bundle);
    expect((await build()).changed).toBe(false);
    const serve = () => startServer({ dir: out, port: 0, host: '127.0.0.1', netlifyToml: join(REPO, 'netlify.toml') });
    const error = await serve().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServeSetupError);
    expect((error as Error).message).toBe(`no function bundle at ${bundle}: the build looks incomplete; delete ${out} and build again with \`npx pepe build --out ${out}\``);
    await rm(out, { recursive: true });
    expect((await build()).ok).toBe(true);
    const server = await serve();
    try {
      expect((await raw(server.url, '/api/pepe?limit=2&search=frog')).status).toBe(200);
    } finally {
      closeClient();
      await server.close();
    }
  }, 60_000);

  // A named pipe there blocked `pepe serve` for ever in open(), waiting for a writer.
  it.skipIf(process.platform === 'win32')('names a manifest.json that is a named pipe, at once', async () => {
    const piped = join(site.root, 'piped-dist');
    await cp(site.distDir, piped, { recursive: true });
    const manifest = join(piped, 'manifest.json');
    const pipe = makeNamedPipe(manifest);
    try {
      const { ms, error } = await timed(() => startServer({ dir: piped, port: 0, host: '127.0.0.1', netlifyToml: join(REPO, 'netlify.toml') }));
      expect(ms).toBeLessThan(AT_ONCE_MS);
      expect(error).toBeInstanceOf(ServeSetupError);
      expect((error as Error).message).toBe(`${manifest} is a named pipe (FIFO), not a file: delete ${piped} and build again with \`npx pepe build --out ${piped}\``);
    } finally {
      pipe.remove();
    }
  }, 20_000);

  // Its import() waited for a writer for ever (a pipe) or read without end (a device): `pepe serve` never started, nor said why.
  it.skipIf(process.platform === 'win32')('names a function bundle that is a named pipe or a device, at once', async () => {
    const odd = join(site.root, 'odd-bundle-dist');
    await cp(site.distDir, odd, { recursive: true });
    const bundle = join(odd, 'functions', 'pepe.mjs');
    for (const [kind, make] of [
      ['a named pipe (FIFO)', async () => makeNamedPipe(bundle).remove],
      ['a device', async () => (await symlink('/dev/zero', bundle), () => undefined)],
    ] as const) {
      await rm(bundle, { force: true });
      const cleanup = await make();
      try {
        const { ms, error } = await timed(() => startServer({ dir: odd, port: 0, host: '127.0.0.1', netlifyToml: join(REPO, 'netlify.toml') }));
        expect(ms, kind).toBeLessThan(AT_ONCE_MS);
        expect(error, kind).toBeInstanceOf(ServeSetupError);
        expect((error as Error).message).toBe(`${bundle} is ${kind}, not a file: delete ${odd} and build again with \`npx pepe build --out ${odd}\``);
      } finally {
        cleanup();
      }
    }
  }, 20_000);

  // A null entry stopped start-up with "Cannot read properties of null"; a missing "settings" was not noticed at all.
  it('names a damaged manifest.json and what is wrong with it', async () => {
    const damaged = join(site.root, 'damaged-manifest-dist');
    await cp(site.distDir, damaged, { recursive: true });
    const file = join(damaged, 'manifest.json');
    const good = JSON.parse(await readFile(file, 'utf8')) as { segments: Record<string, unknown>; settings?: unknown };
    for (const [manifest, why] of [
      [{ ...good, segments: { ...good.segments, site: null } }, 'lists segment "site" without a valid {sha256, files, bytes}'],
      [{ ...good, settings: undefined }, 'has no "settings" object with baseUrl, apiUrl and cdnUrl'],
    ] as const) {
      await writeFile(file, JSON.stringify(manifest));
      const error = await startServer({ dir: damaged, port: 0, host: '127.0.0.1', netlifyToml: join(REPO, 'netlify.toml') }).catch((e: unknown) => e);
      expect(error, why).toBeInstanceOf(ServeSetupError);
      expect((error as Error).message, why).toBe(`${file} ${why}: delete ${damaged} and build again with \`npx pepe build --out ${damaged}\``);
    }
  });

  it('names the port when it is taken', async () => {
    const first = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: join(REPO, 'netlify.toml') });
    try {
      await expect(startServer({ dir: site.distDir, port: first.port, host: '127.0.0.1', netlifyToml: join(REPO, 'netlify.toml') })).rejects.toThrow(
        new RegExp(`port ${first.port} .* already in use`),
      );
    } finally {
      await first.close();
    }
  });

  it('says to choose another port with PORT, not --port, when the taken port did not come from --port (`npm start`)', async () => {
    const first = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: join(REPO, 'netlify.toml') });
    try {
      // As `npm start` runs it: no --port, the port from $PORT (or the default). Following
      // "pass --port" there, `npm start --port 9000` gives npm the flag, not pepe, and
      // `npm start -- --port 9000` serves a build whose answers link to the taken port.
      const io = captureIo({ env: { PORT: String(first.port) } });
      expect(await runMain(['serve', '--dir', site.distDir], io)).toBe(1);
      expect(io.err()).toMatch(new RegExp(`port ${first.port} on 127\\.0\\.0\\.1 is already in use; choose another with the PORT variable`));
      expect(io.err()).toContain('`PORT=9000 npm start`');
      expect(io.err()).not.toContain('pass --port');
      // Given --port, the advice is --port.
      const flagged = captureIo();
      expect(await runMain(['serve', '--dir', site.distDir, '--port', String(first.port)], flagged)).toBe(1);
      expect(flagged.err()).toContain('pass --port with another number');
    } finally {
      await first.close();
    }
  });
});

/**
 * `/big.bin`, 48 MB, in the fixture build: a file too large to keep in memory is streamed; a
 * client that stops reading holds the response in flight for as long as the test wants.
 */
async function addStreamedFile(): Promise<number> {
  const size = 48 * 1024 * 1024;
  await writeFile(join(site.distDir, 'site', 'big.bin'), Buffer.alloc(size, 7));
  const manifest = (await loadManifest(site.distDir))!;
  await writeManifestFiles(site.distDir, createManifest(new Map(Object.entries(manifest.files)).set('site/big.bin', { sha256: 'ab'.repeat(32), size }), manifest.settings, manifest.counts));
  return size;
}

/** The files this process holds open whose path ends with `name` (Linux). */
const openFiles = (name: string): number =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).endsWith(name);
    } catch {
      return false; // closed meanwhile
    }
  }).length;

describe('streamed files', () => {
  it('closes the file when the client goes away mid-answer', async () => {
    await addStreamedFile();
    const server = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: join(REPO, 'netlify.toml') });
    try {
      const before = openFiles('/big.bin');
      for (let i = 0; i < 5; i++) {
        const client = connect(server.port, '127.0.0.1');
        client.write('GET /big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n');
        await once(client, 'data');
        client.destroy();
      }
      const deadline = Date.now() + 3_000;
      while (openFiles('/big.bin') > before && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50));
      // Each aborted download left its file open for as long as the process ran.
      expect(openFiles('/big.bin')).toBe(before);
      expect((await raw(server.url, '/api/pepe?limit=1')).status).toBe(200);
    } finally {
      closeClient();
      await server.close();
    }
  }, 30_000);
});

describe('a client that stops reading', () => {
  it('is cut off after the stall timeout, on its first request as on a later one of a keep-alive connection', async () => {
    const size = await addStreamedFile();
    const server = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: join(REPO, 'netlify.toml'), stalledTimeoutMs: 500 });
    try {
      const before = openFiles('/big.bin');
      const first = connect(server.port, '127.0.0.1');
      first.write('GET /big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await once(first, 'data');
      first.pause();
      const later = connect(server.port, '127.0.0.1');
      later.write('GET /api/pepe?limit=1 HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await once(later, 'data');
      later.write('GET /big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await once(later, 'data');
      later.pause();
      expect(openFiles('/big.bin')).toBe(before + 2);
      // Polled, not a fixed wait: on a loaded machine the 500 ms timers fire late.
      const deadline = Date.now() + 10_000;
      while (openFiles('/big.bin') > before && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50));
      // Both held their connection, and the file, for as long as the process ran.
      expect(openFiles('/big.bin')).toBe(before);
      for (const client of [first, later]) {
        let received = 0;
        client.on('data', (chunk: Buffer) => (received += chunk.length));
        client.on('error', () => {});
        client.resume();
        await once(client, 'close');
        expect(received).toBeLessThan(size);
      }
      expect((await raw(server.url, '/api/pepe?limit=1')).status).toBe(200);
    } finally {
      closeClient();
      await server.close();
    }
  }, 30_000);
});

describe('graceful close', () => {
  it('lets a response in flight finish, ignores idle keep-alive connections, then refuses new ones', async () => {
    const size = await addStreamedFile();

    // A grace period far beyond the test's own time: if close waited for it instead of ending the
    // connection when its response was done, the test would time out (a 5 s bound against the default
    // 10 s grace failed under load, when streaming the file alone took over 5 s).
    const server = await startServer({ dir: site.distDir, port: 0, host: '127.0.0.1', netlifyToml: join(REPO, 'netlify.toml'), closeGraceMs: 120_000 });
    const idle = connect(server.port, '127.0.0.1');
    idle.resume();
    const idleClosed = once(idle, 'close');
    const slow = connect(server.port, '127.0.0.1');
    await Promise.all([once(idle, 'connect'), once(slow, 'connect')]);
    slow.write('GET /big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await once(slow, 'data');
    slow.pause();

    const started = Date.now();
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await idleClosed;
    await new Promise((done) => setTimeout(done, 300));
    expect(closed).toBe(false);
    await expect(raw(server.url, '/api/pepe')).rejects.toThrow(/ECONNREFUSED/);

    let received = 0;
    slow.on('data', (chunk: Buffer) => (received += chunk.length));
    slow.resume();
    await closing;
    if (!slow.destroyed) await once(slow, 'close');
    expect(received).toBeGreaterThan(size - 1024 * 1024);
    // Well before the grace period: the connection was ended as soon as its response was done.
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 90_000);
});

const spawnServe = (extra: string[] = [], dir = site.distDir) => spawnPepeServe(dir, extra);

describe('pepe serve (child process)', () => {
  it('stops at once on a second signal of the other kind (Ctrl-C, then SIGTERM from a supervisor) while a client holds up the graceful close', async () => {
    const { child, port, exited } = await spawnServe();
    try {
      // Headers that never finish: the graceful close waits for this request (up to its 10 s grace).
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      socket.on('error', () => {});
      socket.write('GET /api/pepe?limit=1 HTTP/1.1\r\nHost: localhost\r\n');
      await new Promise((done) => setTimeout(done, 200));
      child.kill('SIGINT');
      await new Promise((done) => setTimeout(done, 500));
      expect(child.exitCode).toBeNull();
      const sent = Date.now();
      child.kill('SIGTERM');
      await exited;
      // The SIGTERM was ignored: the server went on waiting for the slow client.
      expect(Date.now() - sent).toBeLessThan(3_000);
      socket.destroy();
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 30_000);

  it('answers a request whose headers are still arriving at SIGTERM, then closes its connection', async () => {
    const { child, port, exited } = await spawnServe();
    try {
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      const socketClosed = once(socket, 'close');
      socket.write('GET /api/pepe?limit=1 HTTP/1.1\r\nHost: localhost\r\n');
      await new Promise((done) => setTimeout(done, 200));
      child.kill('SIGTERM');
      await new Promise((done) => setTimeout(done, 300));
      socket.write('\r\n');
      await socketClosed;
      // It was closed at once without a word: an empty reply, which a CDN turns into a 502.
      expect(received).toMatch(/^HTTP\/1\.1 200 /);
      expect(received).toMatch(/\r\nconnection: close\r\n/i);
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 30_000);


  it.each([
    ['one process', []],
    ['2 worker processes', ['--workers', '2']],
  ])('prints both variants\' URLs, serves, and exits 0 on SIGTERM (%s)', async (label, extra) => {
    const child = spawn(process.execPath, [join(REPO, 'tools/pepe.mjs'), 'serve', '--dir', site.distDir, '--port', '0', ...extra], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    try {
      const url = await new Promise<string>((done, fail) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const found = /Serving .* at (http:\/\/\S+)/.exec(stdout);
          if (found && stdout.includes('Ctrl-C')) done(found[1]!);
        });
        child.once('exit', () => fail(new Error(`pepe serve exited early:\n${stdout}\n${stderr}`)));
      });
      const port = new URL(url).port;
      expect(stdout).toContain(`(${label})`);
      // Every serving process has V8's young generation bounded: the one started (replaced in
      // place, same pid) and each worker. Where Node has no process.execve it runs as started.
      const workers = extra.length === 0 ? [] : execFileSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' }).trim().split('\n').map(Number);
      expect(workers).toHaveLength(extra.length === 0 ? 0 : 2);
      for (const pid of [child.pid!, ...workers]) {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        expect(argv.slice(0, argv.indexOf(join(REPO, 'tools/pepe.mjs')))).toEqual([process.execPath, ...(typeof (process as { execve?: unknown }).execve === 'function' ? SERVE_V8_FLAGS : [])]);
      }
      expect(stdout).toContain(`http://localhost:${port}/api/pepe?limit=5`);
      expect(stdout).toContain(`http://localhost:${port}/v1/pepe?limit=5`);
      // The fixture links to localhost:8888: the note gives the command that makes the answers
      // link here (it said only "rebuild with matching URLs"), with the folder being served.
      expect(stdout).toContain(`Note: this build's answers link to http://localhost:8888, not here; to make them link here, build again with \`PORT=${port} npx pepe build --out ${site.distDir}\``);
      for (let i = 0; i < 4; i++) expect((await raw(url, '/v1/pepe?limit=2')).status).toBe(200);
      closeClient();
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stderr).toContain('SIGTERM received');
      expect(stderr).toContain('stopped.');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);

  it('says so when a new build links to another port than the one served, as it does at start-up', async () => {
    const dir = join(site.root, 'dist-other-port');
    await cp(site.distDir, dir, { recursive: true });
    const { child, port, output, exited } = await spawnServe([], dir);
    const build = async (baseUrl: string) => {
      const urls = { baseUrl, apiUrl: baseUrl, cdnUrl: baseUrl };
      expect((await buildCatalogue({ contentDir: site.contentDir, outDir: dir, cacheDir: join(site.root, 'dist-other-port-cache'), urls })).ok).toBe(true);
    };
    const note = `pepe serve: Note: this build's answers link to http://localhost:8888, not here; to make them link here, build again with \`PORT=${port} npx pepe build --out ${dir}\``;
    try {
      // Built for this port: the reload says nothing more.
      await build(`http://localhost:${port}`);
      await expect.poll(() => output.stderr.match(/now serving catalogue/g)?.length ?? 0, { timeout: 10_000 }).toBe(1);
      await new Promise((done) => setTimeout(done, 300));
      expect(output.stderr).not.toContain('Note:');
      // Built for another port (PORT set in the terminal that built): said at once, with the fix.
      await build('http://localhost:8888');
      await expect.poll(() => output.stderr, { timeout: 10_000 }).toContain(note);
      closeClient();
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);

  it('reports a new build it cannot load by its message, without a stack trace, and keeps serving', async () => {
    await expectReloadRefused('dist-for-reload', '/api/pepe?limit=1', async (dir) => {
      // The manifest rename a build ends with, of a manifest that is not JSON.
      await writeFile(join(dir, 'manifest.next'), '{"files": 5');
      await rename(join(dir, 'manifest.next'), join(dir, 'manifest.json'));
      return `${join(dir, 'manifest.json')} is not valid JSON: delete ${dir} and build again with \`npx pepe build --out ${dir}\``;
    });
  }, 30_000);

  it('keeps serving the previous build when a new one has lost its pieces file, and says which file and what to do', async () => {
    // The previous build's handler still holds its (deleted) file open, so it goes on answering searches.
    await expectReloadRefused('dist-lost-pieces', '/api/pepe?limit=2&search=frog', async (dir) => {
      const pieces = join(dir, 'data', readdirSync(join(dir, 'data')).find((name) => /^pieces-[0-9a-f]+\.txt$/.test(name))!);
      // A build committed without its pieces file (the manifest's rename is the commit signal).
      await rm(pieces);
      await cp(join(dir, 'manifest.json'), join(dir, 'manifest.next'));
      await rename(join(dir, 'manifest.next'), join(dir, 'manifest.json'));
      return `catalogue pieces file ${basename(pieces)} not found (looked for ${pieces}, `;
    });
  }, 30_000);

  it('exits 1 when every worker has died and none can be restarted (--workers 2)', async () => {
    const dir = join(site.root, 'dist-for-workers');
    await cp(site.distDir, dir, { recursive: true });
    const { child, output, exited } = await spawnServe(['--workers', '2'], dir);
    try {
      const workers = execFileSync('pgrep', ['-P', String(child.pid), '-f', 'pepe.mjs serve'], { encoding: 'utf8' }).trim().split('\n').map(Number);
      expect(workers).toHaveLength(2);
      await rm(dir, { recursive: true });
      for (const pid of workers) process.kill(pid, 'SIGKILL');
      // It stayed up, accepting connections no worker ever answered, the failed workers idle beside it.
      expect(await Promise.race([exited, new Promise((done) => setTimeout(() => done('still running after 15 s'), 15_000))])).toBe(1);
      expect(output.stderr.match(/could not restart the worker: no build found/g)).toHaveLength(2);
      expect(output.stderr).toContain('no server worker is left running; stopping');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 30_000);

  it.each([[[]], [['--workers', '2']]])('exits 1 with one message pointing at `npx pepe build` when dist/ is missing (%j)', async (extra) => {
    const child = spawn(process.execPath, [join(REPO, 'tools/pepe.mjs'), 'serve', '--dir', join(site.root, 'nowhere'), '--port', '0', ...extra], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    expect(code).toBe(1);
    expect(stderr.match(/run `npx pepe build` first/g)).toHaveLength(1);
  }, 60_000);
});
