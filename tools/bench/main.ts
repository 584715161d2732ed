/**
 * `npm run bench [-- [--quick] [--only images,search]]`: runs every benchmark module in
 * one process, one after another (never in parallel: they measure a shared 2-core machine),
 * prints markdown tables and writes them to .bench/results.md.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { rerunWithTunedAllocator } from '../cli/tuned-allocator.mjs';
import type { Bench, BenchContext } from './context.js';
import { makeFolders } from '../shared/make-folders.js';

const MODULES: Record<string, () => Promise<{ default: Bench }>> = {
  images: () => import('./images.bench.js'),
  build: () => import('./build.bench.js'),
  dupes: () => import('./dupes.bench.js'),
  search: () => import('./search.bench.js'),
  api: () => import('./api.bench.js'),
  serve: () => import('./serve.bench.js'),
  publish: () => import('./publish.bench.js'),
  gallery: () => import('./gallery.bench.js'),
  renditions: () => import('./renditions.bench.js'),
  attacks: () => import('./attacks.bench.js'),
  export: () => import('./export.bench.js'),
  change: () => import('./change.bench.js'),
};

function markdownTable(title: string, rows: Record<string, string | number>[]): string {
  if (rows.length === 0) return `### ${title}\n\n(no rows)\n`;
  const keys = Object.keys(rows[0]!);
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [`### ${title}`, '', line(keys), line(keys.map(() => '---')), ...rows.map((r) => line(keys.map((k) => r[k] ?? ''))), ''].join('\n');
}

async function main(): Promise<void> {
  // Measured under the allocator settings `pepe build` runs with (tuned-allocator.mjs).
  const status = rerunWithTunedAllocator(fileURLToPath(import.meta.url), process.argv.slice(2));
  if (status !== null) {
    process.exitCode = status;
    return;
  }
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } } });
  const names = values.only ? values.only.split(',') : Object.keys(MODULES);
  const unknown = names.filter((n) => !(n in MODULES));
  if (unknown.length) throw new Error(`unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(MODULES).join(', ')}`);
  const out: string[] = [`# Benchmarks (${new Date().toISOString()}, node ${process.version}${values.quick ? ', --quick' : ''})`, ''];
  for (const name of names) {
    const tmpRoot = await mkdtemp(join(tmpdir(), `pepe-bench-${name}-`));
    const ctx: BenchContext = {
      quick: values.quick ?? false,
      tmpRoot,
      table: (title, rows) => {
        const text = markdownTable(`${name}: ${title}`, rows);
        process.stdout.write(`${text}\n`);
        out.push(text);
      },
      log: (message) => process.stderr.write(`[${name}] ${message}\n`),
    };
    try {
      const bench = (await MODULES[name]!()).default;
      await bench.run(ctx);
    } finally {
      await rm(tmpRoot, { recursive: true, force: true });
    }
  }
  await makeFolders('.bench');
  await writeFile(join('.bench', 'results.md'), `${out.join('\n')}\n`);
}

await main();
