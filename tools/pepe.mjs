#!/usr/bin/env node
// The `pepe` command. The CLI is TypeScript; tsx compiles it on the fly so that
// `npx pepe …` works on a fresh clone with no separate compile step.
import { register } from 'tsx/esm/api';

register();
const { runMain } = await import('./cli/main.ts');
process.exitCode = await runMain(process.argv.slice(2));
