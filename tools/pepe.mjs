#!/usr/bin/env node
// The `pepe` command. The CLI is TypeScript. It runs from an esbuild bundle that is made on
// first use and again whenever a source changes (compiled-cli.mjs), or through tsx, which
// compiles each module on the fly, when no bundle can be made. Either way `npx pepe …` works
// on a fresh clone with no separate compile step.
import { fileURLToPath } from 'node:url';
import { loadCompiledCli } from './cli/compiled-cli.mjs';
import { execWithServeFlags, execWithTunedAllocator, largeLastBuild, rerunWithTunedAllocator, setBuildFlags, tunedRerunPossible } from './cli/tuned-allocator.mjs';

const script = fileURLToPath(import.meta.url);
const args = process.argv.slice(2);
const debug = process.env.PEPE_CLI_DEBUG === '1' ? (message) => process.stderr.write(`pepe: ${message}\n`) : () => {};
// Commands that decode images run with glibc's malloc tuned for it (tuned-allocator.mjs):
// `add` and `dupes` move to a tuned process at once; `build` and `check` only once they know
// that many images need decoding (tuned-decoding.ts), so that a rebuild decoding nothing or
// little pays no second Node start-up. A `build` after a large one, which reads hundreds of MB
// of that build's state, replaces itself by a tuned process at once, where Node can.
const TUNED_AT_ONCE = new Set(['add', 'dupes']);
const TUNED_WHEN_DECODING = new Set(['build', 'check']);
// `serve` replaces itself at once by a process whose V8 young generation is bounded (its workers inherit the flags).
if (args[0] === 'serve') execWithServeFlags(script, args);
// The cheap test first: the replaced process, and a user who tunes malloc, read no file for it.
if (args[0] === 'build' && tunedRerunPossible() && largeLastBuild(args.slice(1))) execWithTunedAllocator(script, args);
// `build` keeps V8's young generation small, a flag V8 takes at run time (tuned-allocator.mjs).
if (args[0] === 'build') setBuildFlags();
const status = TUNED_AT_ONCE.has(args[0] ?? '') ? rerunWithTunedAllocator(script, args) : null;
if (status !== null) {
  process.exitCode = status;
} else {
  const main = await loadCli();
  const rerunTuned = () => {
    debug("many images to decode: running the command again with glibc's malloc tuned for it");
    return rerunWithTunedAllocator(script, args);
  };
  const io = TUNED_WHEN_DECODING.has(args[0] ?? '') && tunedRerunPossible() ? { ...main.processIo(), rerunTuned } : undefined;
  process.exitCode = await main.runMain(args, io);
}

/** The CLI's main module: from the bundle, else through tsx. `PEPE_CLI_DEBUG=1` says which. */
async function loadCli() {
  if (process.env.PEPE_CLI_TSX !== '1') {
    try {
      const { module, compiled, dir } = await loadCompiledCli();
      debug(`running from the bundle ${dir} (${compiled ? 'made now' : 'reused'})`);
      return module;
    } catch (error) {
      debug(`no bundle (${error instanceof Error ? error.message : String(error)}); running through tsx`);
    }
  } else {
    debug('PEPE_CLI_TSX=1: running through tsx');
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import('./cli/main.ts');
}
