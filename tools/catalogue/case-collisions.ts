/**
 * Content paths that differ only in letter case (`Frog.png` + `frog.webp`, whose sidecars
 * are `Frog.json` and `frog.json`). Linux keeps both, but the default filesystems of macOS and
 * Windows are case-insensitive: a maintainer cloning there gets one file where git has two,
 * and that checkout no longer builds. So they are an error here, where they are still cheap
 * to rename.
 */
import type { ContentScan } from './scan-content.js';
import { error, type Problem } from '../shared/problems.js';

/** The key under which a case-insensitive (and, as on macOS, normalisation-insensitive) filesystem stores a name. */
export const foldKey = (rel: string): string => rel.normalize('NFC').toLowerCase();

export function caseCollisions(scan: Pick<ContentScan, 'pairs' | 'loneSidecars'>): Problem[] {
  const byKey = new Map<string, string[]>();
  const add = (rel: string) => {
    const key = foldKey(rel);
    const same = byKey.get(key);
    if (same) same.push(rel);
    else byKey.set(key, [rel]);
  };
  for (const pair of scan.pairs) {
    add(pair.image.rel);
    add(pair.sidecar.rel);
  }
  for (const sidecar of scan.loneSidecars) add(sidecar.rel);
  const problems: Problem[] = [];
  for (const rels of byKey.values()) {
    if (rels.length < 2) continue;
    const names = [...rels].sort();
    problems.push(
      error('case-collision', `${names.join(' and ')} differ only in letter case: macOS and Windows checkouts keep one file for them (and then fail to build): rename one of them, and its image or sidecar with it`, names[0]),
    );
  }
  return problems;
}
