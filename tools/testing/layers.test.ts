// The layers of the code (tools/testing/README.md, "Layers"): each area imports only the areas below it,
// code that ships never imports test or bench code, and no module imports itself back through
// another. Read from the sources as text (relative imports only; npm packages are not layers).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Each area and the areas it may import (besides itself). Areas not listed may import anything. */
const ALLOWED: Record<string, readonly string[]> = {
  'functions/core': [],
  functions: ['functions/core'],
  'tools/shared': ['functions/core'],
  'tools/image': ['tools/shared', 'functions/core'],
  'tools/dupes': ['tools/image', 'tools/shared', 'functions/core'],
  'tools/gallery': ['tools/image', 'tools/shared', 'functions/core'],
  'tools/serve': ['tools/shared', 'functions/core'],
  'tools/publish': ['tools/shared', 'functions/core'],
  'tools/sample': ['tools/shared', 'functions/core'],
  'tools/export': ['tools/shared', 'functions/core'],
  'tools/catalogue': ['tools/dupes', 'tools/image', 'tools/gallery', 'tools/shared', 'functions/core'],
  'tools/cli': ['tools/catalogue', 'tools/dupes', 'tools/publish', 'tools/serve', 'tools/export', 'tools/sample', 'tools/image', 'tools/gallery', 'tools/shared', 'functions/core'],
  tools: ['tools/cli'],
  'tools/bin': ['tools'],
};

const isTestOnly = (file: string) => /\.test(-helper)?\.ts$/.test(file) || /(^|\/)testing\//.test(file) || file.startsWith('tools/bench/') || file.includes('/fixtures/');

function areaOf(file: string): string {
  if (file.startsWith('functions/core/')) return 'functions/core';
  const parts = file.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

const SOURCES = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'tools', 'functions'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => /\.(ts|mts|mjs)$/.test(f) && !f.endsWith('.d.ts') && !f.endsWith('.d.mts') && existsSync(join(ROOT, f)));

/** file → the repository files it imports at run time or for types (relative specifiers). */
function importsOf(file: string): string[] {
  const source = readFileSync(join(ROOT, file), 'utf8');
  const targets: string[] = [];
  for (const match of source.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) {
    const spec = (match[1] ?? match[2])!;
    const base = normalize(join(dirname(file), spec));
    const target = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts')].find((candidate) => existsSync(join(ROOT, candidate)));
    if (target) targets.push(target);
  }
  return targets;
}

const GRAPH = new Map(SOURCES.map((file) => [file, importsOf(file)]));

describe('layers', () => {
  it('reads the sources (the import scan is not empty)', () => {
    expect(SOURCES.length).toBeGreaterThan(100);
    expect(GRAPH.get('tools/cli/main.ts')?.length).toBeGreaterThan(3);
  });

  it('has no import from an area into one above it, and no shipped code importing test or bench code', () => {
    const wrong: string[] = [];
    for (const [file, targets] of GRAPH) {
      if (isTestOnly(file)) continue;
      const from = areaOf(file);
      for (const target of targets) {
        const to = areaOf(target);
        if (isTestOnly(target)) wrong.push(`${file} → ${target} (test or bench code)`);
        else if (to !== from && ALLOWED[from] && !ALLOWED[from]!.includes(to)) wrong.push(`${file} → ${target} (${from} may import ${ALLOWED[from]!.join(', ') || 'nothing else'})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('has no import cycle', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      path.push(file);
      for (const target of GRAPH.get(file) ?? []) {
        if (state.get(target) === 'open') cycles.push([...path.slice(path.indexOf(target)), target].join(' → '));
        else if (!state.has(target)) visit(target);
      }
      path.pop();
      state.set(file, 'done');
    };
    for (const file of GRAPH.keys()) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });
});
