import { resolve } from 'node:path';
import { checkContent } from '../../build/check-content.js';
import { formatProblem } from '../../build/problems.js';
import { formatSummary, ttyProgress } from '../../build/progress.js';
import { parseFlags } from '../args.js';
import type { Command } from '../io.js';

const usage = `Usage: pepe check [options]

Validates the content folder exactly as 'pepe build' does, and also fails on near-duplicate
images unless a sidecar acknowledges the pair with "distinct_from". Writes nothing (not even
the build cache, which it reads when present). Meant for CI of content changes.

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
    const { values } = parseFlags(argv, { content: { type: 'string' }, cache: { type: 'string' } });
    const progress = ttyProgress(io.stderr, io.isTTY);
    const result = await checkContent({
      contentDir: resolve(io.cwd, values.content ?? 'content'),
      ...(values.cache ? { cacheDir: resolve(io.cwd, values.cache) } : {}),
      onProgress: progress.onProgress,
    });
    progress.done();
    for (const problem of result.problems) io.stderr(`${formatProblem(problem)}\n`);
    const s = result.stats;
    io.stderr(`${formatSummary(result.ok ? 'content ok' : 'content has errors', { images: s.images, warnings: s.warnings, errors: s.errors, cacheHits: s.cacheHits, seconds: s.seconds })}\n`);
    return result.ok ? 0 : 1;
  },
} satisfies Command;
