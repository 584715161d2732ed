/** `pepe serve` flag errors: exit code 2 with a message naming the flag, before anything starts. */
import { describe, expect, it } from 'vitest';
import { runMain } from '../cli/main.js';
import { captureIo } from '../testing/capture-io.js';

describe('pepe serve flags', () => {
  it.each([
    [['--port', 'abc'], /--port must be a whole number from 0 to 65535 \(got "abc"\)/],
    [['--port', '70000'], /--port must be a whole number/],
    [['--workers', '0'], /--workers must be a whole number from 1 to 64/],
    [['--host', ''], /--host must not be empty/],
    [['--bogus'], /^pepe serve: unknown option '--bogus': this command has no such flag, its options are listed below\n/],
  ])('refuses %j with exit code 2 and the usage', async (argv, message) => {
    const io = captureIo();
    expect(await runMain(['serve', ...argv], io)).toBe(2);
    expect(io.err()).toMatch(message);
    expect(io.err()).toContain('Usage: pepe serve');
  });

  it.each(['eighty', '70000'])('refuses a PORT environment variable that is not a port number (%s), naming it', async (value) => {
    const io = captureIo({ env: { PORT: value } });
    expect(await runMain(['serve'], io)).toBe(2);
    expect(io.err()).toMatch(new RegExp(`PORT environment variable must be a whole number .* \\(got "${value}"\\)`));
    // Not the flag, which was not given (PORT=70000 was reported as "--port must be…").
    expect(io.err()).not.toContain('--port must be');
  });

  it('prints its help with --help', async () => {
    const io = captureIo();
    expect(await runMain(['serve', '--help'], io)).toBe(0);
    expect(io.out()).toMatch(/--workers N/);
    expect(io.out()).toMatch(/--no-cdn-cache/);
  });
});
