#!/usr/bin/env node
// The `pepe` command. The CLI is TypeScript. It runs from an esbuild bundle that is made on
// first use and again whenever a source changes (compiled-cli.mjs), or through tsx, which
// compiles each module on the fly, when no bundle can be made. Either way `npx pepe …` works
// on a fresh clone with no separate compile step.
import { fileURLToPath } from 'node:url';
import { loadCompiledCli } from './cli/compiled-cli.mjs';
import { rerunWithTunedAllocator } from './cli/tuned-allocator.mjs';

// The commands that decode images run with a tuned allocator (see tuned-allocator.mjs).
const DECODING_COMMANDS = new Set(['build', 'check', 'add', 'dupes']);
const args = process.argv.slice(2);
const status = DECODING_COMMANDS.has(args[0] ?? '') ? rerunWithTunedAllocator(fileURLToPath(import.meta.url), args) : null;
if (status !== null) {
  process.exitCode = status;
} else {
  const { runMain } = await loadCli();
  process.exitCode = await runMain(args);
}

/** The CLI's main module: from the bundle, else through tsx. `PEPE_CLI_DEBUG=1` says which. */
async function loadCli() {
  const debug = process.env.PEPE_CLI_DEBUG === '1' ? (message) => process.stderr.write(`pepe: ${message}\n`) : () => {};
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
