import { resolve } from 'node:path';
import { DEFAULT_CONCURRENCY, type ExportProgress, exportDataset } from '../../export/export-dataset.js';
import { type Command, UsageError } from '../../shared/io.js';
import { intFlag, parseFlags } from '../args.js';
import { printProblems, statusLine } from '../print-results.js';

const MAX_CONCURRENCY = 64;

const usage = `Usage: pepe export --from URL --to DIR [--concurrency N]

Mirrors a published catalogue's dataset for offline use: DIR/shards/<sha256>.jsonl (the
records, variant A fields, oldest first across the shards in DIR/manifest.json's order),
DIR/shards/<sha256>.sha256 (check with \`cd DIR && cat shards/*.sha256 | sha256sum -c\`),
DIR/images/<id><ext> (every image) and DIR/manifest.json, written last once everything is
there and verified (size and sha256 of each file as published).

Interrupted or failed, or the catalogue changed? Run the same command again: what is there
and intact is kept, a partial image is continued where the server allows, the rest is
fetched. Unfinished downloads are *.part files, never final names; links in DIR are refused.

Options:
  --from URL         base URL of the catalogue (its variant A base, e.g. https://pepe.example.org)
  --to DIR           destination folder (created if needed)
  --concurrency N    downloads at once, 1..${MAX_CONCURRENCY} (default ${DEFAULT_CONCURRENCY})
  -h, --help         show this help

Exit status: 0 complete, 1 something could not be fetched or verified (listed), 2 usage errors.
`;

function baseUrl(raw: string | undefined): string {
  if (raw === undefined || raw === '') throw new UsageError('--from is required: the base URL of a published catalogue, e.g. --from https://pepe.example.org');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--from must be an absolute URL such as https://pepe.example.org (got "${raw}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--from must start with http:// or https:// (got "${raw}")`);
  if (url.search || url.hash) throw new UsageError(`--from must not contain a query or fragment (got "${raw}")`);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

export function formatExportProgress(p: ExportProgress): string {
  const seconds = p.elapsedMs / 1000;
  const failed = p.failed > 0 ? `, ${p.failed} failed` : '';
  return `${p.done}/${p.total} images, ${megabytes(p.bytes)} fetched${failed}, ${seconds.toFixed(0)} s`;
}

export default {
  name: 'export',
  summary: 'download a published catalogue: its dataset shards and every image, verified, resumable',
  usage,
  async run(argv, io) {
    const { values } = parseFlags(argv, { from: { type: 'string' }, to: { type: 'string' }, concurrency: { type: 'string' } });
    const from = baseUrl(values.from);
    if (values.to === undefined || values.to === '') throw new UsageError('--to is required: the folder to write the dataset into');
    const to = resolve(io.cwd, values.to);
    const concurrency = intFlag('concurrency', values.concurrency, DEFAULT_CONCURRENCY, 1, MAX_CONCURRENCY);
    // One line, redrawn on a terminal at most every 200 ms; elsewhere (a CI log) every 10 %.
    const line = statusLine(io);
    let lastDraw = -Infinity;
    let lastTenth = -1;
    const onProgress = (p: ExportProgress) => {
      const now = performance.now();
      if (io.isTTY) {
        if (now - lastDraw < 200 && p.done !== p.total) return;
        lastDraw = now;
        line.draw(formatExportProgress(p));
      } else {
        const tenth = Math.floor((p.done / p.total) * 10);
        if (tenth === lastTenth) return;
        lastTenth = tenth;
        io.stderr(`${formatExportProgress(p)}\n`);
      }
    };
    const result = await exportDataset({ from, to, concurrency, onProgress });
    line.clear();
    printProblems(io, result.problems);
    const figures = `${result.records} records, ${result.fetched} images fetched (${megabytes(result.bytes)}), ${result.kept} already there, ${result.seconds.toFixed(1)} s`;
    if (result.ok) {
      io.stdout(`Exported ${from} to ${to}: ${figures}\n`);
      return 0;
    }
    io.stderr(`Export incomplete: ${figures}; ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'}. Run the same command again to resume.\n`);
    return 1;
  },
} satisfies Command;
