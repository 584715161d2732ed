/**
 * `pepe check` as a library function: everything the build validates, plus near-duplicates
 * (unless acknowledged with `distinct_from`) and implausible dates as errors. Writes nothing,
 * not even the build cache: CI may run it on a read-only checkout, and "check" must not have
 * side effects.
 */
import { type AnalyseContentOptions, type AnalyseStats, analyseContent, dateProblems, defaultCacheDir, sortProblems } from './analyse-content.js';
import { nearDuplicateProblems } from './near-duplicate-problems.js';
import type { Problem } from '../shared/problems.js';

export interface CheckResult {
  ok: boolean;
  problems: Problem[];
  stats: AnalyseStats & { records: number; warnings: number; errors: number; seconds: number };
  /** Set when `beforeDecoding` declined: the images that wait to be decoded. */
  declined?: number;
}

export async function checkContent(options: Omit<AnalyseContentOptions, 'writeCache'>): Promise<CheckResult> {
  const started = performance.now();
  const analysis = await analyseContent({ ...options, writeCache: false });
  if (analysis.declined !== undefined) return { ok: false, problems: [], stats: { ...analysis.stats, records: 0, warnings: 0, errors: 0, seconds: (performance.now() - started) / 1000 }, declined: analysis.declined };
  const cacheDir = options.cacheDir ?? defaultCacheDir(options.contentDir);
  const problems = sortProblems([...analysis.problems, ...dateProblems(analysis.items, 'error'), ...(await nearDuplicateProblems(analysis.items, 'error', { dir: cacheDir, write: false }))]);
  const errors = problems.filter((p) => p.severity === 'error').length;
  return {
    ok: errors === 0,
    problems,
    stats: { ...analysis.stats, records: analysis.items.length, warnings: problems.length - errors, errors, seconds: (performance.now() - started) / 1000 },
  };
}
