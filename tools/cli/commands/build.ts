import { resolve } from 'node:path';
import { buildCatalogue } from '../../build/build-catalogue.js';
import { formatProblem } from '../../build/problems.js';
import { formatSummary, ttyProgress } from '../../build/progress.js';
import { resolveSiteUrls } from '../../build/site-urls.js';
import { parseFlags } from '../args.js';
import { type Command, UsageError } from '../io.js';

const usage = `Usage: pepe build [options]

Validates content/, analyses every new or changed image and writes the static API
(images, precomputed answers, function bundle, gallery, manifest) to the output folder.
On any error the output folder is left exactly as it was.

Options:
  --content DIR    content folder (default: content)
  --out DIR        output folder (default: dist); replaced as a whole by each build
  --cache DIR      build cache (default: .pepe-cache beside the content folder)
  --base-url URL   variant A API and image URLs (env PEPE_BASE_URL, default http://localhost:8888)
  --api-url URL    variant B API URL (env PEPE_API_URL, default http://localhost:8888)
  --cdn-url URL    variant B image URL (env PEPE_CDN_URL, default http://localhost:8888)
  -h, --help       show this help

Exit status: 0 built (warnings allowed), 1 content errors, 2 usage errors.
`;

export default {
  name: 'build',
  summary: 'content/ → dist/',
  usage,
  async run(argv, io) {
    const { values } = parseFlags(argv, {
      content: { type: 'string' },
      out: { type: 'string' },
      cache: { type: 'string' },
      'base-url': { type: 'string' },
      'api-url': { type: 'string' },
      'cdn-url': { type: 'string' },
    });
    const urls = resolveSiteUrls({ baseUrl: values['base-url'], apiUrl: values['api-url'], cdnUrl: values['cdn-url'] }, io.env);
    if (!urls.ok) throw new UsageError(urls.message);
    const progress = ttyProgress(io.stderr, io.isTTY);
    const result = await buildCatalogue({
      contentDir: resolve(io.cwd, values.content ?? 'content'),
      outDir: resolve(io.cwd, values.out ?? 'dist'),
      ...(values.cache ? { cacheDir: resolve(io.cwd, values.cache) } : {}),
      urls: urls.urls,
      onProgress: progress.onProgress,
    });
    progress.done();
    for (const problem of result.problems) io.stderr(`${formatProblem(problem)}\n`);
    const s = result.stats;
    const verb = !result.ok ? 'build failed, output left unchanged' : result.changed ? `built ${values.out ?? 'dist'}` : 'nothing changed';
    io.stderr(`${formatSummary(verb, { images: s.images, warnings: s.warnings, errors: s.errors, cacheHits: s.cacheHits, seconds: s.seconds })}\n`);
    return result.ok ? 0 : 1;
  },
} satisfies Command;
