/**
 * The dataset and share documents at 10k records (2k with --quick): their sizes, the build's
 * time to render them against the API's precomputed answers (the baseline, same run), and
 * `pepe export` from `pepe serve` on loopback against a plain download of the same images
 * with the same concurrency (no disk, no checks: the floor), fresh and resumed.
 *
 * Records are synthetic (synthetic-records.ts); each image is random bytes of 1–8 KB under
 * its record's name (export checks size and hash, not pixels), so the run writes ~45 MB.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { catalogueDataFiles, compileCatalogue, precomputedFiles } from '../../functions/core/catalogue.js';
import { openCatalogue } from '../../functions/core/catalogue-runtime.js';
import { bundleFunction } from '../catalogue/bundle-function.js';
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
    const count = ctx.quick ? 2_000 : 10_000;
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
    for (let r = 0; r < ROUNDS; r++) {
      const a = time(() => precomputedFiles(data));
      const d = time(() => siteDocuments(openCatalogue(data), { imageSha256: (name) => sha.get(name)! }));
      answers = a.value;
      documents = d.value;
      answerMs.push(a.ms);
      documentMs.push(d.ms);
    }
    const body = (path: string) => documents.find((file) => file.path === path)!.body!;
    const sizeOf = (prefix: string) => documents.filter((file) => file.path.startsWith(prefix)).reduce((sum, file) => sum + Buffer.byteLength(file.body!), 0);
    const jsonl = body('dataset/pepes.jsonl');
    ctx.table(`documents at ${count} records`, [
      { document: 'dataset/pepes.jsonl', 'KB': kb(Buffer.byteLength(jsonl)), 'gzip KB': kb(gzipSync(jsonl).length), 'bytes per record': round(Buffer.byteLength(jsonl) / count, 0) },
      { document: 'dataset/images.sha256', 'KB': kb(Buffer.byteLength(body('dataset/images.sha256'))), 'gzip KB': kb(gzipSync(body('dataset/images.sha256')).length), 'bytes per record': round(Buffer.byteLength(body('dataset/images.sha256')) / count, 0) },
      { document: 'dataset/manifest.json', 'KB': kb(Buffer.byteLength(body('dataset/manifest.json'))), 'gzip KB': '', 'bytes per record': '' },
      { document: 'feed.xml (50)', 'KB': kb(Buffer.byteLength(body('feed.xml'))), 'gzip KB': kb(gzipSync(body('feed.xml')).length), 'bytes per record': '' },
      { document: 'feed.json (50)', 'KB': kb(Buffer.byteLength(body('feed.json'))), 'gzip KB': kb(gzipSync(body('feed.json')).length), 'bytes per record': '' },
      { document: 'p/<id> (all)', 'KB': kb(sizeOf('p/')), 'gzip KB': '', 'bytes per record': round(sizeOf('p/') / count, 0) },
      { document: 'oembed/<id>.json (all)', 'KB': kb(sizeOf('oembed/')), 'gzip KB': '', 'bytes per record': round(sizeOf('oembed/') / count, 0) },
      { document: 'sitemap.xml', 'KB': kb(Buffer.byteLength(body('sitemap.xml'))), 'gzip KB': kb(gzipSync(body('sitemap.xml')).length), 'bytes per record': '' },
    ]);
    ctx.table(`rendering at ${count} records (median of ${ROUNDS})`, [
      { case: 'baseline: precomputedFiles (by-id answers, sorted pages, OpenAPI)', files: answers.length, ms: round(median(answerMs), 0), ratio: 1 },
      { case: 'siteDocuments (share pages, oEmbed, feeds, dataset, sitemap)', files: documents.length, ms: round(median(documentMs), 0), ratio: round(median(documentMs) / median(answerMs), 2) },
    ]);

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
        { case: 'pepe export, empty folder (JSONL + checks + every image written)', s: round(median(freshMs) / 1000, 2), 'images/s': round(count / (median(freshMs) / 1000), 0), ratio: round(median(freshMs) / base, 2) },
        { case: 'pepe export again, everything there (hash every file, fetch none)', s: round(median(resumeMs) / 1000, 2), 'images/s': round(count / (median(resumeMs) / 1000), 0), ratio: round(median(resumeMs) / base, 2) },
      ]);
    } finally {
      await server.close();
    }
  },
} satisfies Bench;
