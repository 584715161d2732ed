/** The top level of `pepe`: which command runs, and the usage it prints otherwise. */
import { describe, expect, it, vi } from 'vitest';
import { captureIo } from '../testing/capture-io.js';
import { runMain } from './main.js';

// Each command loads its modules on first use, on a machine shared with other jobs.
vi.setConfig({ testTimeout: 60_000 });

describe('pepe <command>', () => {
  it.each(['constructor', 'toString', '__proto__', 'bogus'])('calls %s an unknown command (exit 2, the usage), with no stack trace', async (name) => {
    const io = captureIo();
    expect(await runMain([name], io)).toBe(2);
    expect(io.err()).toContain(`pepe: unknown command '${name}'.`);
    expect(io.err()).toContain('Usage: pepe <command> [options]');
  });

  it("prints a command's usage for `pepe help <command>`, as `pepe <command> --help` does", async () => {
    const viaHelp = captureIo();
    const viaFlag = captureIo();
    expect(await runMain(['help', 'dupes'], viaHelp)).toBe(0);
    expect(await runMain(['dupes', '--help'], viaFlag)).toBe(0);
    expect(viaHelp.out()).toMatch(/^Usage: pepe dupes/);
    expect(viaHelp.out()).toBe(viaFlag.out());
  });

  it('prints the list of commands for `pepe help`, `pepe help <unknown>` and no command (exit 2)', async () => {
    for (const argv of [['help'], ['help', 'nope'], ['--help']]) {
      const io = captureIo();
      expect(await runMain(argv, io)).toBe(0);
      expect(io.out()).toContain('Usage: pepe <command> [options]');
    }
    const none = captureIo();
    expect(await runMain([], none)).toBe(2);
    // A usage error, like an unknown command: on stderr, nothing on stdout.
    expect(none.out()).toBe('');
    expect(none.err()).toMatch(/^pepe: name a command\.\n\nUsage: pepe <command> \[options\]/);
  });

  // ESC sequences that clear the screen and retitle the window, BEL, a C1 CSI, a bidi override.
  const HOSTILE = '\u001b[2J\u001b]0;pwned\u0007\u009b1A\u202egnp.exe';
  const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
  it.each([
    ['an unknown command', [HOSTILE]],
    ['pepe build --base-url', ['build', '--base-url', HOSTILE]],
    ['pepe add --into', ['add', 'x.png', '--into', HOSTILE]],
    ['pepe dupes --threshold', ['dupes', '--threshold', HOSTILE]],
    ['pepe serve --port', ['serve', '--port', HOSTILE]],
    ['pepe publish --bucket', ['publish', '--bucket', HOSTILE]],
    ['pepe export --from', ['export', '--from', HOSTILE, '--to', 'x']],
  ])('echoes a hostile value in %s escaped, never as raw control or bidi characters', async (_what, argv) => {
    const io = captureIo({ cwd: '/nonexistent' });
    expect(await runMain(argv, io)).toBe(2);
    expect(io.err()).toContain('\\u001b[2J\\u001b]0;pwned\\u0007\\u009b1A\\u202egnp.exe');
    expect(io.out() + io.err()).not.toMatch(UNSAFE);
  });
});
