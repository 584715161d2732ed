/** The top level of `pepe`: which command runs, and the usage it prints otherwise. */
import { describe, expect, it } from 'vitest';
import { captureIo } from '../testing/capture-io.js';
import { runMain } from './main.js';

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
});
