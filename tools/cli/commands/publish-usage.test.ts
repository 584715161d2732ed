/** `pepe publish --help` states the --concurrency default and range the command and publishBuild really use. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY, MIN_CONCURRENCY } from '../../publish/concurrency.js';
import type { Io } from '../../shared/io.js';
import { runMain } from '../main.js';

async function help(): Promise<string> {
  let out = '';
  const io: Io = { stdout: (t) => void (out += t), stderr: () => undefined, isTTY: false, env: {}, cwd: process.cwd() };
  expect(await runMain(['publish', '--help'], io)).toBe(0);
  return out;
}

describe('pepe publish usage', () => {
  it('shows the default and the bounds of --concurrency from the constants the code uses', async () => {
    const line = (await help()).split('\n').find((l) => l.trimStart().startsWith('--concurrency'));
    expect(line).toBeDefined();
    expect(line).toContain(`${MIN_CONCURRENCY}–${MAX_CONCURRENCY} (default: ${DEFAULT_CONCURRENCY})`);
  });
});
