/**
 * The dataset and share documents at 10k records (2k with --quick; PEPE_BENCH_EXPORT_SIZE
 * overrides): their sizes, the dataset's shards and the bytes one add or edit rewrites against
 * rewriting the whole dataset, the build's time to render them against the API's precomputed
 * answers (the baseline, same run), and `pepe export` from `pepe serve` on loopback against a
 * plain download of the same images with the same concurrency (no disk, no checks: the floor),
 * fresh and resumed, and the peak RSS of `pepe export` as a child process against a child that
 * downloads the same files plainly.
 *
 * Records are synthetic (synthetic-records.ts); each image is random bytes of 1–8 KB under
 * its record's name (export checks size and hash, not pixels), so the run writes ~45 MB.
 * `PEPE_BENCH_EXPORT_RSS_ONLY=1` measures only the peak RSS (minutes at 100k, not an hour).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { catalogueDataFiles, compileCatalogue } from '../../functions/core/catalogue.js';
import { precomputedFiles } from '../testing/test-catalogue.js';
import { openCatalogue } from '../../functions/core/catalogue-runtime.js';
import { bundleFunction } from '../catalogue/bundle-function.js';
import { datasetFiles } from '../catalogue/dataset-shards.js';
import { siteDocuments } from '../catalogue/site-documents.js';
import { exportDataset, DEFAULT_CONCURRENCY } from '../export/export-dataset.js';
import { startServer } from '../serve/server.js';
import { makeFolders } from '../shared/make-folders.js';
import { createManifest, type ManifestEntry, writeManifestFiles } from '../shared/manifest.js';
import { seededRandom } from '../shared/seeded-random.js';
import { median, round, type Bench } from './context.js';
import { syntheticRecords } from './synthetic-records.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const URLS = { baseUrl: 'http://127.0.0.1:8888', apiUrl: 'http://127.0.0.1:8888', cdnUrl: 'http://127.0.0.1:8888' };
const ROUNDS = 3;

const kb = (bytes: number) => round(bytes / 1024, 1);
const time = <T>(run: () => T): { value: T; ms: number } => {
  const start = performance.now();
  const value = run();
  return { value, ms: performance.now() - start };
};

export default {
  name: 'export',
  async run(ctx) {
    const count = Number(process.env.PEPE_BENCH_EXPORT_SIZE ?? (ctx.quick ? 2_000 : 10_000));
    const rssOnly = process.env.PEPE_BENCH_EXPORT_RSS_ONLY === '1';
    const random = seededRandom(0x5eed);
    const images = new Map<string, Buffer>();
    const records = syntheticRecords(count).map((record) => {
      const bytes = Buffer.alloc(1024 + Math.floor(random() * 7 * 1024), Math.floor(random() * 256));
      images.set(`${record.id}${record.file_ext}`, bytes);
      return { ...record, file_size: bytes.length };
    });
    const data = compileCatalogue(records, URLS);
    const sha = new Map([...images].map(([name, bytes]) => [name, createHash('sha256').update(bytes).digest('hex')]));

    // Rendering: the site documents against the API's precomputed answers, median of ROUNDS.
    const answerMs: number[] = [];
    const documentMs: number[] = [];
    let answers: { path: string; body: string }[] = [];
    let documents: { path: string; body?: string }[] = [];
    for (let r = 0; r < (rssOnly ? 1 : ROUNDS); r++) {
      const a = time(() => precomputedFiles(data));
      const d = time(() => siteDocuments(openCatalogue(data), { imageSha256: (name) => sha.get(name)! }));
      answers = a.value;
      documents = d.value;
      answerMs.push(a.ms);
      documentMs.push(d.ms);
    }
    const body = (path: string) => documents.find((file) => file.path === path)!.body!;
    const sizeOf = (prefix: string) => documents.filter((file) => file.path.startsWith(prefix)).reduce((sum, file) => sum + Buffer.byteLength(file.body!), 0);
    const shardBytes = documents.filter((file) => file.path.startsWith('dataset/shards/') && file.path.endsWith('.jsonl')).map((file) => Buffer.byteLength(file.body!)).sort((a, b) => a - b);
    const sumBytes = sizeOf('dataset/shards/') - shardBytes.reduce((sum, n) => sum + n, 0);
    const jsonl = documents.filter((file) => file.path.endsWith('.jsonl')).map((file) => file.body!).join('');
    if (!rssOnly) {
      ctx.table(`documents at ${count} records`, [
        { document: `dataset/shards/*.jsonl (${shardBytes.length} shards: min / median / max KB ${kb(shardBytes[0] ?? 0)} / ${kb(median(shardBytes))} / ${kb(shardBytes.at(-1) ?? 0)})`, 'KB': kb(Buffer.byteLength(jsonl)), 'gzip KB': kb(gzipSync(jsonl).length), 'bytes per record': round(Buffer.byteLength(jsonl) / count, 0) },
        { document: 'dataset/shards/*.sha256', 'KB': kb(sumBytes), 'gzip KB': '', 'bytes per record': round(sumBytes / count, 0) },
        { document: 'dataset/index.json', 'KB': kb(Buffer.byteLength(body('dataset/index.json'))), 'gzip KB': '', 'bytes per record': '' },
        { document: 'feed.xml (50)', 'KB': kb(Buffer.byteLength(body('feed.xml'))), 'gzip KB': kb(gzipSync(body('feed.xml')).length), 'bytes per record': '' },
        { document: 'feed.json (50)', 'KB': kb(Buffer.byteLength(body('feed.json'))), 'gzip KB': kb(gzipSync(body('feed.json')).length), 'bytes per record': '' },
        { document: 'p/<id> (all)', 'KB': kb(sizeOf('p/')), 'gzip KB': '', 'bytes per record': round(sizeOf('p/') / count, 0) },
        { document: 'oembed/<id>.json (all)', 'KB': kb(sizeOf('oembed/')), 'gzip KB': '', 'bytes per record': round(sizeOf('oembed/') / count, 0) },
        { document: 'sitemap.xml', 'KB': kb(Buffer.byteLength(body('sitemap.xml'))), 'gzip KB': kb(gzipSync(body('sitemap.xml')).length), 'bytes per record': '' },
      ]);
      ctx.table(`rendering at ${count} records (median of ${ROUNDS})`, [
        { case: 'baseline: precomputedFiles (by-id answers, tags, OpenAPI)', files: answers.length, ms: round(median(answerMs), 0), ratio: 1 },
        { case: 'siteDocuments (share pages, oEmbed, feeds, dataset, sitemap)', files: documents.length, ms: round(median(documentMs), 0), ratio: round(median(documentMs) / median(answerMs), 2) },
      ]);

      // What one change makes the dataset write: the files not there before (content-addressed) plus the index, against rewriting it whole.
      const datasetOf = (changed: typeof records) => {
        const catalogue = openCatalogue(compileCatalogue(changed, URLS));
        const lines = Array.from({ length: catalogue.count }, (_, rank) => catalogue.jsonA(rank));
        const rows = lines.map((line) => JSON.parse(line) as { id: string; file_name: string }).map((pepe, rank) => ({ id: pepe.id, fileName: pepe.file_name, line: lines[rank]! }));
        return time(() => new Map(datasetFiles(rows, { catalogueVersion: catalogue.data.version, imageSha256: (name) => sha.get(name) ?? '0'.repeat(64) }).map((file) => [file.path, file.body])));
      };
      const before = datasetOf(records);
      const whole = [...before.value.values()].reduce((sum, text) => sum + Buffer.byteLength(text), 0);
      const newest = records.reduce((latest, record) => (record.created_at > latest ? record.created_at : latest), '');
      const added = { ...records[0]!, id: '0f0e0d0c-0b0a-4908-8706-050403020100', created_at: new Date(Date.parse(newest) + 1000).toISOString() };
      const middle = records[records.length >> 1]!;
      const changes: [string, typeof records][] = [
        ['add one (newest)', [...records, { ...added, updated_at: added.created_at }]],
        ['edit one tag list', records.map((record) => (record === middle ? { ...record, tags: ['edited'] } : record))],
      ];
      ctx.table(`dataset bytes written per change at ${count} records`, [
        { change: 'baseline: the whole dataset rewritten (as pepes.jsonl + images.sha256 were)', files: before.value.size, 'KB written': kb(whole), ratio: 1 },
        ...changes.map(([change, changed]) => {
          const after = datasetOf(changed).value;
          const written = [...after].filter(([path, text]) => before.value.get(path) !== text);
          const bytes = written.reduce((sum, [, text]) => sum + Buffer.byteLength(text), 0);
          return { change, files: written.length, 'KB written': kb(bytes), ratio: round(bytes / whole, 3) };
        }),
      ]);
      // Rendering the dataset from its records' lines: the shards against the two whole files a build wrote before (baseline), interleaved.
      const rows = (() => {
        const catalogue = openCatalogue(data);
        return Array.from({ length: catalogue.count }, (_, rank) => {
          const line = catalogue.jsonA(rank);
          const pepe = JSON.parse(line) as { id: string; file_name: string };
          return { id: pepe.id, fileName: pepe.file_name, line };
        });
      })();
      const wholeMs: number[] = [];
      const shardMs: number[] = [];
      for (let r = 0; r < 2 * ROUNDS + 1; r++) {
        wholeMs.push(time(() => [rows.map((row) => `${row.line}\n`).join(''), rows.map((row) => `${sha.get(row.fileName)}  images/${row.fileName}\n`).join('')].map((text) => createHash('sha256').update(text).digest('hex'))).ms);
        shardMs.push(time(() => datasetFiles(rows, { catalogueVersion: data.version, imageSha256: (name) => sha.get(name)! })).ms);
      }
      ctx.table(`rendering the dataset at ${count} records, every build (median of ${2 * ROUNDS + 1}, interleaved)`, [
        { case: 'baseline: pepes.jsonl + images.sha256 whole, hashed', ms: round(median(wholeMs), 1), ratio: 1 },
        { case: 'datasetFiles: shards, their checksums, the index', ms: round(median(shardMs), 1), ratio: round(median(shardMs) / median(wholeMs), 2) },
      ]);
    }

    // A build folder as `pepe build` writes it, with the images.
    ctx.log(`writing ${count} images and the build`);
    const distDir = join(ctx.tmpRoot, 'dist');
    const entries = new Map<string, ManifestEntry>();
    const put = async (path: string, bytes: string | Buffer) => {
      await makeFolders(dirname(join(distDir, path)));
      await writeFile(join(distDir, path), bytes);
      entries.set(path, { sha256: createHash('sha256').update(bytes).digest('hex'), size: Buffer.byteLength(bytes) });
    };
    for (const { path, body: text } of catalogueDataFiles(data)) await put(path, text);
    for (const file of [...answers, ...documents]) await put(`site/${file.path}`, file.body!);
    for (const [name, bytes] of images) await put(`site/images/${name}`, bytes);
    await bundleFunction({ distDir });
    await writeManifestFiles(distDir, createManifest(entries, URLS, { records: count, images: count }));
    const server = await startServer({ dir: distDir, port: 0, host: '127.0.0.1', netlifyToml: join(REPO, 'netlify.toml') });
    try {
      const names = [...images.keys()];
      const floor = async (): Promise<number> => {
        const start = performance.now();
        let next = 0;
        const worker = async () => {
          while (next < names.length) {
            const response = await fetch(`${server.url}/images/${names[next++]!}`);
            await response.arrayBuffer();
          }
        };
        await Promise.all(Array.from({ length: DEFAULT_CONCURRENCY }, worker));
        return performance.now() - start;
      };
      if (!rssOnly) {
        const floorMs: number[] = [];
        const freshMs: number[] = [];
        const resumeMs: number[] = [];
        for (let r = 0; r < ROUNDS; r++) {
          ctx.log(`export round ${r + 1} of ${ROUNDS}`);
          floorMs.push(await floor());
          const to = join(ctx.tmpRoot, `export-${r}`);
          const fresh = await exportDataset({ from: server.url, to });
          if (!fresh.ok || fresh.fetched !== count) throw new Error(`export failed: ${fresh.problems.map((p) => p.message).join('; ')}`);
          freshMs.push(fresh.seconds * 1000);
          const resumed = await exportDataset({ from: server.url, to });
          if (!resumed.ok || resumed.kept !== count) throw new Error('resumed export fetched again');
          resumeMs.push(resumed.seconds * 1000);
        }
        const base = median(floorMs);
        const megabytes = [...images.values()].reduce((sum, bytes) => sum + bytes.length, 0) / 1e6;
        ctx.table(`pepe export of ${count} records (${round(megabytes, 1)} MB of images) from pepe serve on loopback, concurrency ${DEFAULT_CONCURRENCY}, median of ${ROUNDS}`, [
          { case: 'baseline: fetch every image, bodies read and dropped', s: round(base / 1000, 2), 'images/s': round(count / (base / 1000), 0), ratio: 1 },
          { case: 'pepe export, empty folder (index, shards, checks, every image written)', s: round(median(freshMs) / 1000, 2), 'images/s': round(count / (median(freshMs) / 1000), 0), ratio: round(median(freshMs) / base, 2) },
          { case: 'pepe export again, everything there (hash every file, fetch none)', s: round(median(resumeMs) / 1000, 2), 'images/s': round(count / (median(resumeMs) / 1000), 0), ratio: round(median(resumeMs) / base, 2) },
        ]);
      }
      // Peak RSS of `pepe export` as a user runs it, against a child that plainly downloads the same files (shards, then images) to disk.
      ctx.log('peak RSS of pepe export and of a plain download, as child processes');
      const list = join(ctx.tmpRoot, 'files.txt');
      const index = JSON.parse(body('dataset/index.json')) as { shards: { url: string; image_sha256: { url: string } }[] };
      await writeFile(list, [...index.shards.flatMap((shard) => [`dataset/${shard.url}`, `dataset/${shard.image_sha256.url}`]), ...names.map((name) => `images/${name}`)].join('\n'));
      const plain = `import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
        const [base, list, to] = process.argv.slice(1);
        const paths = readFileSync(list, 'utf8').split('\\n');
        mkdirSync(to + '/dataset/shards', { recursive: true }); mkdirSync(to + '/images', { recursive: true });
        let next = 0;
        const worker = async () => { while (next < paths.length) { const path = paths[next++]; writeFileSync(to + '/' + path, Buffer.from(await (await fetch(base + '/' + path)).arrayBuffer())); } };
        await Promise.all(Array.from({ length: ${DEFAULT_CONCURRENCY} }, worker));`;
      const peak = async (args: string[]): Promise<{ mb: number; s: number }> => {
        const start = performance.now();
        const stderr = await new Promise<string>((done, fail) => {
          const child = spawn('/usr/bin/time', ['-f', 'peak-rss-kb %M', process.execPath, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
          let text = '';
          child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
          child.on('close', (status) => (status === 0 ? done(text) : fail(new Error(`${args.join(' ')} failed: ${text}`))));
        });
        return { mb: Number(/peak-rss-kb (\d+)/.exec(stderr)![1]) / 1024, s: (performance.now() - start) / 1000 };
      };
      const plainRun = await peak(['--input-type=module', '-e', plain, server.url, list, join(ctx.tmpRoot, 'plain')]);
      const exportRun = await peak([join(REPO, 'tools/pepe.mjs'), 'export', '--from', server.url, '--to', join(ctx.tmpRoot, 'export-child')]);
      ctx.table(`peak RSS at ${count} records, child processes, concurrency ${DEFAULT_CONCURRENCY}`, [
        { case: 'baseline: plain download of the same files to disk (fetch, write, nothing checked)', 'peak RSS MB': round(plainRun.mb, 0), s: round(plainRun.s, 1), ratio: 1 },
        { case: '`pepe export` (streamed, capped, every file checked)', 'peak RSS MB': round(exportRun.mb, 0), s: round(exportRun.s, 1), ratio: round(exportRun.mb / plainRun.mb, 2) },
      ]);
    } finally {
      await server.close();
    }
  },
} satisfies Bench;
