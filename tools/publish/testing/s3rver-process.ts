/**
 * Starts a real s3rver on 127.0.0.1 (ephemeral port) in a child process started with
 * NODE_OPTIONS=--openssl-legacy-provider (see s3rver-child.mjs for why), with its own
 * temp directory. `stop()` kills that child (by its pid) and removes the directory.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface S3rverProcess {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

const CHILD = fileURLToPath(new URL('./s3rver-child.mjs', import.meta.url));

export async function startS3rver(buckets: string[]): Promise<S3rverProcess> {
  const directory = await mkdtemp(join(tmpdir(), 'pepe-s3rver-'));
  const child = spawn(process.execPath, [CHILD, directory, buckets.join(',')], {
    env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --openssl-legacy-provider`.trim() },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`s3rver child exited with ${code} before listening`)));
    child.once('error', reject);
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(directory, { recursive: true, force: true });
  };
  return { endpoint: `http://127.0.0.1:${port}`, port, stop };
}
