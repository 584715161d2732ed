import { checkContent } from '../../catalogue/check-content.js';
import { parseFlags } from '../args.js';
import { CONTENT_FLAGS, contentPaths } from '../content-flags.js';
import type { Command } from '../../shared/io.js';
import { printProblems, printSummary, withProgress } from '../print-results.js';
import { withTunedDecoding } from '../tuned-decoding.js';

const usage = `Usage: pepe check [options]

Validates the content folder exactly as 'pepe build' does, and also fails on near-duplicate
images unless a sidecar acknowledges the pair with "distinct_from", on a date more than 10
minutes in the future and on an updated_at before created_at (build only warns of these).
Writes nothing (not even the build cache, which it reads when present). Meant for CI of
content changes.

Options:
  --content DIR    content folder (default: content)
  --cache DIR      build cache to read (default: .pepe-cache beside the content folder)
  -h, --help       show this help

Exit status: 0 valid (warnings allowed), 1 content errors, 2 usage errors.
`;

export default {
  name: 'check',
  summary: 'validate content/ like build does; near-duplicates are errors',
  usage,
  async run(argv, io) {
    const { values } = parseFlags(argv, CONTENT_FLAGS);
    const run = await withTunedDecoding(io, (beforeDecoding) => withProgress(io, (onProgress) => checkContent({ ...contentPaths(values, io.cwd), onProgress, beforeDecoding })));
    if ('rerun' in run) return run.rerun;
    const result = run.done;
    printProblems(io, result.problems);
    printSummary(io, result.ok ? 'content ok' : 'content has errors', result.stats);
    return result.ok ? 0 : 1;
  },
} satisfies Command;
