#!/usr/bin/env node
// The `pepe` command. The CLI is TypeScript; tsx compiles it on the fly so that
// `npx pepe …` works on a fresh clone with no separate compile step.
import { fileURLToPath } from 'node:url';
import { rerunWithTunedAllocator } from './cli/tuned-allocator.mjs';

// The commands that decode images run with a tuned allocator (see tuned-allocator.mjs).
const DECODING_COMMANDS = new Set(['build', 'check', 'add', 'dupes']);
const args = process.argv.slice(2);
const status = DECODING_COMMANDS.has(args[0] ?? '') ? rerunWithTunedAllocator(fileURLToPath(import.meta.url), args) : null;
if (status !== null) {
  process.exitCode = status;
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { runMain } = await import('./cli/main.ts');
  process.exitCode = await runMain(args);
}
