/** The real `pepe serve` in a child process, as a user starts it, for tests that speak HTTP to it. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** `pepe serve --dir DIR --port 0 …` on a free port, once it has printed its URL (without a trailing slash). */
export async function spawnServe(dir: string, extra: string[] = []) {
  const child = spawn(process.execPath, [join(REPO, 'tools/pepe.mjs'), 'serve', '--dir', dir, '--port', '0', ...extra], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const url = await new Promise<string>((done, fail) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output.stdout += chunk.toString();
      const found = /Serving .* at (http:\/\/\S+)/.exec(output.stdout);
      if (found && output.stdout.includes('Ctrl-C')) done(found[1]!.replace(/\/$/, ''));
    });
    child.once('exit', () => fail(new Error(`pepe serve exited early:\n${output.stdout}\n${output.stderr}`)));
  });
  return { child, url, port: Number(new URL(url).port), output, exited };
}
