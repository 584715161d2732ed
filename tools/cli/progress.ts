/** Text for the TTY progress line and the one-line summary (the CLI prints them through print-results.ts). */
import type { AnalyseProgress } from '../catalogue/analyse-content.js';

export function formatProgress(p: AnalyseProgress): string {
  const seconds = p.elapsedMs / 1000;
  const rate = seconds > 0 ? p.done / seconds : 0;
  const left = rate > 0 ? (p.total - p.done) / rate : 0;
  return `${p.done}/${p.total} images, ${rate.toFixed(0)} images/s, ${left.toFixed(0)} s left`;
}

/**
 * A progress callback that redraws the status line at most every `intervalMs`, and only on a
 * terminal (a CI log would otherwise fill with carriage returns).
 */
export function ttyProgress(draw: (line: string) => void, isTTY: boolean, intervalMs = 100): (p: AnalyseProgress) => void {
  let last = -Infinity;
  return (p) => {
    if (!isTTY) return;
    const now = performance.now();
    if (now - last < intervalMs && p.done !== p.total) return;
    last = now;
    draw(formatProgress(p));
  };
}

export interface SummaryFigures {
  images: number;
  warnings: number;
  errors: number;
  cacheHits: number;
  seconds: number;
}

export function formatSummary(verb: string, f: SummaryFigures): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `${verb}: ${plural(f.images, 'image')}, ${plural(f.warnings, 'warning')}, ${plural(f.errors, 'error')}, ${plural(f.cacheHits, 'cache hit')}, ${f.seconds.toFixed(2)} s`;
}
