import { analyseContent, defaultCacheDir } from '../../catalogue/analyse-content.js';
import { printable } from '../../shared/problems.js';
import { unwritableFolder } from '../../catalogue/write-access.js';
import { dupeItems } from '../../catalogue/near-duplicate-problems.js';
import { DEFAULT_PHASH_THRESHOLD, findNearDuplicates, type DupePair } from '../../dupes/near-duplicates.js';
import { intFlag, parseFlags } from '../args.js';
import { CONTENT_FLAGS, contentPaths } from '../content-flags.js';
import type { Command } from '../../shared/io.js';
import { printProblems, withProgress } from '../print-results.js';

/** Above this the candidate search degenerates towards all pairs (segments of 3 bits). */
const MAX_THRESHOLD = 16;

const usage = `Usage: pepe dupes [options]

Lists near-duplicate image pairs in the content folder: the same picture again (re-encoded,
resized, recompressed, slightly brightened). Candidates come from the phash; each is
confirmed on a 32×32 colour thumbnail, so look-alike but different pictures are not listed.
Pairs acknowledged by a sidecar's "distinct_from" are left out. Uses the build cache.

Options:
  --content DIR     content folder (default: content)
  --cache DIR       build cache (default: .pepe-cache beside the content folder)
  --threshold N     max phash distance in bits for a candidate, 0..${MAX_THRESHOLD} (default: ${DEFAULT_PHASH_THRESHOLD})
  --json            print [{"a": {"id", "file"}, "b": {"id", "file"}, "distance"}] on stdout
  -h, --help        show this help

Exit status: 0 listed (pairs or not), 1 content errors (pairs among the valid images are
still listed; nothing is listed when no image is valid), 2 usage errors.
`;

function formatPairs(pairs: DupePair[], threshold: number): string {
  if (pairs.length === 0) return `No near-duplicates (phash threshold ${threshold}).\n`;
  const lines = pairs.map((p) => `${printable(p.a.file)}  ~  ${printable(p.b.file)}  (distance ${p.distance})\n    ids ${p.a.id}, ${p.b.id}\n`);
  return `${pairs.length} near-duplicate pair${pairs.length === 1 ? '' : 's'} (phash threshold ${threshold}):\n${lines.join('')}`;
}

export default {
  name: 'dupes',
  summary: 'list near-duplicate image pairs in content/',
  usage,
  async run(argv, io) {
    const { values } = parseFlags(argv, { ...CONTENT_FLAGS, threshold: { type: 'string' }, json: { type: 'boolean' } });
    const threshold = intFlag('threshold', values.threshold, DEFAULT_PHASH_THRESHOLD, 0, MAX_THRESHOLD);
    const paths = contentPaths(values, io.cwd);
    // The cache only saves time here: one this user cannot write (a read-only checkout) is read, not updated.
    const writeCache = unwritableFolder([paths.cacheDir ?? defaultCacheDir(paths.contentDir)]) === null;
    const analysis = await withProgress(io, (onProgress) => analyseContent({ ...paths, writeCache, onProgress }));
    printProblems(io, analysis.problems);
    const failed = analysis.problems.some((p) => p.severity === 'error');
    // No valid image (a missing or unreadable content folder…): there is no list to print, not an empty one.
    if (failed && analysis.items.length === 0) return 1;
    const pairs = findNearDuplicates(dupeItems(analysis.items), { threshold });
    if (values.json) {
      // Exactly the documented shape, key order fixed, one pair per line for diffs.
      const rows = pairs.map((p) => JSON.stringify({ a: { id: p.a.id, file: p.a.file }, b: { id: p.b.id, file: p.b.file }, distance: p.distance }));
      io.stdout(rows.length === 0 ? '[]\n' : `[\n  ${rows.join(',\n  ')}\n]\n`);
    } else {
      io.stdout(formatPairs(pairs, threshold));
    }
    return failed ? 1 : 0;
  },
} satisfies Command;
