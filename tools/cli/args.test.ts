/** Command-line flags through the CLI's top level: what a wrong command line prints and exits with. */
import { describe, expect, it } from 'vitest';
import { captureIo } from '../testing/capture-io.js';
import { runMain } from './main.js';

describe('a flag with a value given twice', () => {
  it.each([
    [['add', 'a.png', '--tags', 'smug', '--tags=happy'], 'pepe add: --tags was given 2 times ("smug", "happy"): give it once (several tags go in one, comma-separated: --tags a,b)\n'],
    [['build', '--content', 'a', '--content', 'b'], 'pepe build: --content was given 2 times ("a", "b"): give it once\n'],
    [['dupes', '--threshold', '4', '--threshold', '4'], 'pepe dupes: --threshold was given 2 times ("4", "4"): give it once\n'],
  ])('is a usage error naming it and its values (exit 2), not the last one silently: %j', async (argv, message) => {
    const io = captureIo();
    expect(await runMain(argv, io)).toBe(2);
    expect(io.err().startsWith(`${message}\nUsage: pepe ${argv[0]}`)).toBe(true);
    expect(io.out()).toBe('');
  });

  it('passes for a repeated flag without a value, which means the same as one', async () => {
    const io = captureIo();
    // Reaches the command: the missing build folder is the error, not the repeated flag.
    expect(await runMain(['serve', '--no-cdn-cache', '--no-cdn-cache', '--dir', 'no-such-build'], io)).toBe(1);
    expect(io.err()).toMatch(/^pepe serve: no build found at .*no-such-build/);
  });
});

describe('an unknown flag', () => {
  it('is named, with where the valid ones are, and not as a file to add', async () => {
    const add = captureIo();
    expect(await runMain(['add', 'frog.png', '--json'], add)).toBe(2);
    expect(add.err()).toMatch(/^pepe add: unknown option '--json': this command has no such flag, its options are listed below; a file name that starts with "-" goes after "--"\n\nUsage: pepe add /);
    // Not Node's text, which offered '-- "--json' (quote unclosed) as if --json were a file name.
    expect(add.err()).not.toContain('positional argument');
    const build = captureIo();
    expect(await runMain(['build', '--jsno'], build)).toBe(2);
    expect(build.err()).toMatch(/^pepe build: unknown option '--jsno': this command has no such flag, its options are listed below\n\nUsage: pepe build /);
  });
});
