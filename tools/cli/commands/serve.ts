import { loadManifestRoot } from '../../shared/manifest.js';
import { outFlag } from '../../serve/fresh-build.js';
import { intFlag, parseFlags } from '../args.js';
import { type Command, type Io, UsageError } from '../../shared/io.js';
import { collectOldGeneration } from '../tuned-allocator.mjs';

const DEFAULT_PORT = 8888;

/**
 * How to pick another port when the one from $PORT or the default is taken. Not "pass
 * --port": `npm start --port 9000` is read by npm, not by pepe, and `npm start -- --port 9000`
 * serves there a build whose answers link to the old port. PORT sets both (see `pepe build`).
 */
const OTHER_PORT_VIA_ENV =
  'choose another with the PORT variable, which the build also uses for the URLs in its answers: ' +
  '`PORT=9000 npm start`, or `PORT=9000 npx pepe build && PORT=9000 npx pepe serve` (--port 0 serves on any free port)';

const usage = `Usage: pepe serve [--dir DIR] [--port N] [--host H] [--workers N] [--no-cdn-cache]

Serves a build exactly as production does: the function bundle by its config.path
(preferStatic), the netlify.toml redirects, the static files with the netlify.toml
headers, then 404. Stops gracefully on SIGTERM / SIGINT (Ctrl-C).

Options:
  --dir DIR    build output folder (default: dist)
  --port N     port, 0 for any free one (default: $PORT, else ${DEFAULT_PORT})
  --host H     address to listen on (default: 127.0.0.1; 0.0.0.0 to accept other machines,
               e.g. behind a CDN or reverse proxy)
  --workers N  server processes sharing the port (default 1; one per core when
               self-hosting: a Node process uses about one core)
  --no-cdn-cache
               run the function for every request instead of keeping its cacheable
               answers (Netlify-CDN-Cache-Control) until restart, as Netlify's CDN does
  -h, --help   show this help
`;

/** The URLs worth clicking, shown with `localhost` for loopback addresses. */
function exampleUrls(url: string): string[] {
  const base = url.replace('//127.0.0.1:', '//localhost:').replace('//[::1]:', '//localhost:');
  return [
    `  variant A  ${base}/api/pepe?limit=5`,
    `             ${base}/api/pepe?search=smug&limit=5`,
    `  variant B  ${base}/v1/pepe?limit=5`,
    `  OpenAPI    ${base}/api/openapi.json`,
    `  gallery    ${base}/`,
  ];
}

/** The answers link to the URLs baked in at build time; say so when they point elsewhere. */
async function bakedBaseUrl(dir: string): Promise<string | null> {
  return (await loadManifestRoot(dir).catch(() => null))?.settings.baseUrl ?? null;
}

/**
 * The note for a build whose answers link to another local port, with the command that makes
 * them link here (not just "rebuild with matching URLs": PORT sets the build's URLs, see
 * `pepe build --help`, and this server picks the new build up by itself); null when they link here.
 */
async function otherPortNote(dir: string, port: number): Promise<string | null> {
  const baked = await bakedBaseUrl(dir);
  if (!baked || new URL(baked).port === String(port) || !/localhost|127\.0\.0\.1/.test(baked)) return null;
  return `Note: this build's answers link to ${baked}, not here; to make them link here, build again with \`PORT=${port} npx pepe build${outFlag(dir)}\` (this server picks the new build up).\n`;
}

async function printBanner(io: Io, dir: string, url: string, port: number, processes: string): Promise<void> {
  io.stdout(`Serving ${dir} at ${url} (${processes})\n${exampleUrls(url).join('\n')}\n`);
  const note = await otherPortNote(dir, port);
  if (note) io.stdout(note);
  io.stdout('Press Ctrl-C to stop.\n');
}

/**
 * Resolves on the first SIGINT or SIGTERM. With `once`, a second signal of either kind gets
 * Node's default (immediate exit), so a second Ctrl-C, or a supervisor's SIGTERM after a
 * Ctrl-C, stops a server stuck on slow clients.
 */
function stopSignal(once: boolean): Promise<NodeJS.Signals> {
  return new Promise((done) => {
    const signals = ['SIGINT', 'SIGTERM'] as const;
    const handlers = signals.map((signal) => {
      const handler = () => {
        if (once) for (const [other, otherHandler] of handlers) process.off(other, otherHandler);
        done(signal);
      };
      process.on(signal, handler);
      return [signal, handler] as const;
    });
  });
}

export default {
  name: 'serve',
  summary: 'serve a build locally exactly as production does',
  usage,
  async run(argv: string[], io: Io): Promise<number> {
    const { values } = parseFlags(argv, { dir: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, 'no-cdn-cache': { type: 'boolean' }, workers: { type: 'string' } });
    const dir = values.dir ?? 'dist';
    const envPort = io.env.PORT;
    // Checked here, out of range too, so the message names PORT and not a --port the user never gave.
    if (values.port === undefined && envPort !== undefined && (!/^\d+$/.test(envPort) || Number(envPort) > 65535)) {
      throw new UsageError(`the PORT environment variable must be a whole number from 0 to 65535 (got "${envPort}")`);
    }
    const port = intFlag('port', values.port ?? envPort, DEFAULT_PORT, 0, 65535);
    const host = values.host ?? '127.0.0.1';
    if (host.trim() === '') throw new UsageError('--host must not be empty');

    const workers = intFlag('workers', values.workers, 1, 1, 64);
    const cdnCache = values['no-cdn-cache'] !== true;

    // Loaded here, not at the top, so `pepe --help` stays instant.
    const { clusterWorkerId, isClusterWorker, leaveCluster, reportToPrimary, startWorkers } = await import('../../serve/cluster.js');
    if (workers > 1 && !isClusterWorker()) {
      let pool;
      try {
        pool = await startWorkers({ count: workers, exec: process.argv[1]!, args: process.argv.slice(2), onRestart: (message) => io.stderr(`pepe serve: ${message}\n`) });
      } catch (error) {
        io.stderr(`pepe serve: ${error instanceof Error ? error.message : String(error)}\n`);
        return 1;
      }
      // Listening before the banner says "Press Ctrl-C": a signal right after it stops the server gracefully.
      const stopping = stopSignal(true);
      await printBanner(io, dir, pool.url, pool.port, `${workers} worker processes`);
      const stop = await Promise.race([stopping.then((signal) => ({ signal })), pool.lost.then((lost) => ({ lost }))]);
      if ('lost' in stop) {
        // Exit non-zero, so a supervisor (systemd, Docker) restarts it or an operator sees it.
        io.stderr(`pepe serve: ${stop.lost}\n`);
        await pool.stop();
        return 1;
      }
      io.stderr(`pepe serve: ${stop.signal} received, finishing in-flight requests…\n`);
      await pool.stop();
      io.stderr('pepe serve: stopped.\n');
      return 0;
    }

    const { ServeSetupError, startServer } = await import('../../serve/server.js');
    let server;
    /** Known once listening (port 0 picks one); the reload note compares the new build's URLs with it. */
    let servedPort: number | null = null;
    try {
      server = await startServer({
        dir,
        port,
        host,
        cdnCache,
        collect: collectOldGeneration,
        ...(values.port === undefined ? { otherPort: OTHER_PORT_VIA_ENV } : {}),
        // A new build that cannot be loaded is the operator's to fix: its message, without a stack trace.
        onError: (message, error) => io.stderr(`pepe serve: ${message}\n${error instanceof ServeSetupError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`),
        // Each worker reloads on its own; the primary's terminal hears it from the first one only.
        onReload: ({ version }) => {
          if (isClusterWorker() && clusterWorkerId() !== 1) return;
          io.stderr(`pepe serve: a new build is in ${dir}; now serving catalogue ${version ?? '(unknown version)'}\n`);
          // Said at once, as at start-up: a build made for another port links to one nothing may listen on.
          if (servedPort === null) return;
          void otherPortNote(dir, servedPort).then(
            (note) => {
              if (note !== null) io.stderr(`pepe serve: ${note}`);
            },
            () => {},
          );
        },
      });
    } catch (error) {
      if (error instanceof ServeSetupError) {
        // In a cluster the primary prints the message once.
        if (isClusterWorker()) reportToPrimary({ type: 'failed', message: error.message });
        else io.stderr(`pepe serve: ${error.message}\n`);
        return 1;
      }
      throw error;
    }
    servedPort = server.port;

    if (isClusterWorker()) {
      reportToPrimary({ type: 'ready', url: server.url, port: server.port });
      // The primary and a terminal's Ctrl-C may both signal a worker: close once, ignore the rest.
      await stopSignal(false);
      await server.close();
      leaveCluster();
      return 0;
    }
    const stopping = stopSignal(true);
    await printBanner(io, dir, server.url, server.port, 'one process');
    const signal = await stopping;
    io.stderr(`pepe serve: ${signal} received, finishing in-flight requests…\n`);
    await server.close();
    io.stderr('pepe serve: stopped.\n');
    return 0;
  },
} satisfies Command;
