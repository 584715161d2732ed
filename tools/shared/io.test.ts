import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const IO_MODULE = fileURLToPath(new URL('./io.ts', import.meta.url));

describe('processIo', () => {
  it('outlives a reader that closes stdout early (| head): no EPIPE stack trace, the command runs to its end', async () => {
    // Far more than a pipe buffer, so writes go on after the reader has gone.
    const script = `const { processIo } = await import(${JSON.stringify(IO_MODULE)}); const io = processIo();
      for (let i = 0; i < 20000; i++) io.stdout('upload  images/' + i + '.png  (new, 1234 B, image/png)\\n');
      await new Promise((r) => setTimeout(r, 200));
      for (let i = 0; i < 20000; i++) io.stdout('more ' + i + '\\n');
      io.stderr('finished\\n');`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Read the first chunk, then close the pipe as `head -1` does.
    await new Promise<void>((done) => child.stdout.once('data', () => done()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect(stderr).not.toContain('EPIPE');
    expect(stderr).toContain('finished');
    expect(code).toBe(0);
  });
});
