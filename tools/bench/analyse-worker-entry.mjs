// Plain-JS entry for analyse-pool's workers: Node 20 does not apply a parent's (or an
// execArgv `--import`) TypeScript loader to worker threads reliably, so the worker
// loads its TypeScript module through tsx's API instead.
import { tsImport } from 'tsx/esm/api';

await tsImport('./analyse-worker.ts', import.meta.url);
