/**
 * `pepe serve --workers N`: N copies of the server sharing one port through node:cluster
 * (the primary accepts connections and hands them out round-robin). One Node process
 * tops out at about one core; on a machine with more cores this is how the same chain
 * uses them. Each worker loads the build on its own, so memory grows N times.
 *
 * The primary only supervises: it waits for every worker to report ready (or the first
 * to report a set-up failure), re-forks a worker that dies unexpectedly, and on stop
 * sends SIGTERM to all and waits for their graceful close. When every worker is gone and none
 * could be restarted, `lost` says so (the CLI then exits 1).
 */
import cluster, { type Worker } from 'node:cluster';

export type WorkerMessage = { type: 'ready'; url: string; port: number } | { type: 'failed'; message: string };

export interface WorkerPool {
  url: string;
  port: number;
  /** SIGTERM to every worker; resolves when all have exited. */
  stop(): Promise<void>;
  /** Resolves with a message when no worker is left serving (the dead could not be restarted). */
  lost: Promise<string>;
}

/** A worker's report to the primary (no-op outside a cluster worker). */
export function reportToPrimary(message: WorkerMessage): void {
  if (cluster.isWorker && process.send) process.send(message);
}

export const isClusterWorker = (): boolean => cluster.isWorker;
/** This worker's id (1 for the first one started), or 0 outside a cluster. */
export const clusterWorkerId = (): number => cluster.worker?.id ?? 0;

/** Ends a worker's IPC channel, which would otherwise keep its process alive after the server closed. */
export function leaveCluster(): void {
  cluster.worker?.disconnect();
}

/**
 * Forks `count` workers running `exec` with `args` and resolves once all are ready.
 * Rejects with the first worker's set-up failure message. `onRestart` hears of workers
 * that died after start-up and were replaced.
 */
export async function startWorkers(options: { count: number; exec: string; args: string[]; onRestart?: (message: string) => void }): Promise<WorkerPool> {
  cluster.setupPrimary({ exec: options.exec, args: options.args, silent: false });
  let stopping = false;
  const ready = new Map<Worker, { url: string; port: number }>();
  let restarting = 0;
  let lose: (message: string) => void = () => {};
  const lost = new Promise<string>((done) => (lose = done));

  const fork = (): Promise<{ url: string; port: number }> =>
    new Promise((done, fail) => {
      const worker = cluster.fork();
      worker.on('message', (message: WorkerMessage) => {
        if (message.type === 'ready') {
          ready.set(worker, message);
          done(message);
        } else if (message.type === 'failed') {
          fail(new Error(message.message));
          // Its IPC channel would keep it alive, doing nothing, for as long as the primary runs.
          worker.process.kill('SIGTERM');
        }
      });
      worker.once('exit', (code, signal) => {
        const wasReady = ready.delete(worker);
        if (!wasReady) fail(new Error(`a server worker exited during start-up (${signal ?? `exit code ${code}`})`));
        else if (!stopping) {
          options.onRestart?.(`a server worker died (${signal ?? `exit code ${code}`}); starting another`);
          restarting += 1;
          fork()
            .catch((error: Error) => options.onRestart?.(`could not restart the worker: ${error.message}`))
            .finally(() => {
              restarting -= 1;
              // The primary would go on accepting connections that no worker ever answers.
              if (!stopping && restarting === 0 && ready.size === 0) lose('no server worker is left running; stopping');
            });
        }
      });
    });

  let first;
  try {
    [first] = await Promise.all(Array.from({ length: options.count }, fork));
  } catch (error) {
    stopping = true;
    await stopAllWorkers();
    throw error;
  }

  return {
    url: first!.url,
    port: first!.port,
    async stop() {
      stopping = true;
      await stopAllWorkers();
    },
    lost,
  };
}

/** SIGTERM to every live worker; resolves when all have exited. */
async function stopAllWorkers(): Promise<void> {
  const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((done) => {
          worker.once('exit', () => done());
          worker.process.kill('SIGTERM');
        }),
    ),
  );
}
