import { resolve } from 'node:path';
import { buildCatalogue } from '../../catalogue/build-catalogue.js';
import { resolveSiteUrls } from '../../catalogue/site-urls.js';
import { parseFlags } from '../args.js';
import { CONTENT_FLAGS, contentPaths, refuseEmptyFolderFlags } from '../content-flags.js';
import { type Command, UsageError } from '../../shared/io.js';
import { printProblems, printSummary, withProgress } from '../print-results.js';
import { withTunedDecoding } from '../tuned-decoding.js';

const usage = `Usage: pepe build [options]

Validates content/, analyses every new or changed image and writes the static API
(images, precomputed answers, function bundle, gallery, manifest) to the output folder.
On any error the output folder is left exactly as it was.

Options:
  --content DIR    content folder (default: content)
  --out DIR        output folder (default: dist); only files whose bytes changed are rewritten
  --cache DIR      build cache (default: .pepe-cache beside the content folder)
  --base-url URL   variant A API and image URLs (env PEPE_BASE_URL)
  --api-url URL    variant B API URL (env PEPE_API_URL)
  --cdn-url URL    variant B image URL (env PEPE_CDN_URL)
                   Each defaults to http://localhost:$PORT when PORT is set, else
                   http://localhost:8888: what \`pepe serve\` listens on.
  -h, --help       show this help

Exit status: 0 built (warnings allowed), 1 content errors, 2 usage errors.
`;

export default {
  name: 'build',
  summary: 'content/ → dist/',
  usage,
  async run(argv, io) {
    const { values } = parseFlags(argv, {
      ...CONTENT_FLAGS,
      out: { type: 'string' },
      'base-url': { type: 'string' },
      'api-url': { type: 'string' },
      'cdn-url': { type: 'string' },
    });
    refuseEmptyFolderFlags(values, ['out']);
    const paths = contentPaths(values, io.cwd);
    const urls = resolveSiteUrls({ baseUrl: values['base-url'], apiUrl: values['api-url'], cdnUrl: values['cdn-url'] }, io.env);
    if (!urls.ok) throw new UsageError(urls.message);
    const run = await withTunedDecoding(io, (beforeDecoding) =>
      withProgress(io, (onProgress) =>
        buildCatalogue({
          ...paths,
          outDir: resolve(io.cwd, values.out ?? 'dist'),
          urls: urls.urls,
          onProgress,
          beforeDecoding,
        }),
      ),
    );
    if ('rerun' in run) return run.rerun;
    const result = run.done;
    printProblems(io, result.problems);
    const verb = !result.ok ? 'build failed, output left unchanged' : result.changed ? `built ${values.out ?? 'dist'}` : 'nothing changed';
    printSummary(io, verb, result.stats);
    return result.ok ? 0 : 1;
  },
} satisfies Command;
