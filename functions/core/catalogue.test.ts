import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CHUNK_SIZE } from './catalogue-data.js';
import { catalogueDataFiles, catalogueModuleSource, compileCatalogue, type CatalogueData, type CompiledCatalogue } from './catalogue.js';
import { compareRecords } from './record.js';
import { openCatalogue } from './catalogue-runtime.js';
import { piecesFileReader } from './piece-file.js';
import type { PieceSource } from './catalogue-data.js';
import { numberAt } from './packed-numbers.js';
import { idKey } from './record-codec.js';
import { createHandler } from './handler.js';
import { call, precomputedFiles, recordJsonA, testRecords, TEST_URLS } from '../../tools/testing/test-catalogue.js';

const tricky = testRecords(12);
tricky[0]!.description = 'line one\nline two \u2028 it\'s "quoted" \\ back\\slash ${x} `tick` </script>';
tricky[1]!.description = 'emoji 🐸 and ünïcödé';
const data = compileCatalogue(tricky, TEST_URLS);
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

/** Writes the data's two files as the build does, imports the module and opens its pieces file, as the function does. */
async function importData(compiled: CompiledCatalogue): Promise<{ data: CatalogueData; pieces: PieceSource }> {
  const dir = await mkdtemp(join(tmpdir(), 'pepe-catalogue-'));
  dirs.push(dir);
  for (const { path, body } of catalogueDataFiles(compiled)) await writeFile(join(dir, path.replace('data/', '')), body);
  const data: CatalogueData = (await import(pathToFileURL(join(dir, 'catalogue.mjs')).href)).default;
  return { data, pieces: piecesFileReader(data.piecesFile, data.pieceLengths, [pathToFileURL(`${dir}/`)]) };
}

describe('compileCatalogue', () => {
  it('orders records by created_at then id, whatever the input order', () => {
    const same = compileCatalogue([...tricky].reverse(), TEST_URLS);
    expect({ ...same, pieces: same.pieces() }).toEqual({ ...data, pieces: data.pieces() });
    const catalogue = openCatalogue(data);
    const ids = Array.from({ length: catalogue.count }, (_, rank) => catalogue.id(rank));
    const sorted = [...tricky].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id)).map((r) => r.id);
    expect(ids).toEqual(sorted);
  });

  it('refuses a record whose id is not a lowercase UUID (a build bug)', () => {
    const bad = testRecords(2);
    bad[0]!.id = bad[0]!.id.toUpperCase();
    expect(() => compileCatalogue(bad, TEST_URLS)).toThrow(/not a lowercase UUID/);
  });

  it('changes its version whenever an answer may change', () => {
    const changed = testRecords(12);
    changed[5]!.file_size += 1;
    expect(compileCatalogue(changed, TEST_URLS).version).not.toBe(compileCatalogue(testRecords(12), TEST_URLS).version);
    expect(compileCatalogue(testRecords(12), { ...TEST_URLS, cdnUrl: 'https://other.example' }).version).not.toBe(compileCatalogue(testRecords(12), TEST_URLS).version);
  });
});

describe('catalogueModuleSource and the pieces file', () => {
  it('round-trip every field and piece exactly through a real module import and file, tricky characters included', async () => {
    const imported = await importData(data);
    // The ids in rank order are the build's own (plan-answers.ts), and the pieces are in their file: neither is in the module.
    const { ids, pieces, ...moduleData } = data;
    expect(ids).toHaveLength(12);
    expect(imported.data).toEqual(moduleData);
    expect(imported.data.piecesFile).toBe(`pieces-${data.version}.txt`);
    // Last piece first: reading one needs none of the others.
    const order = pieces().map((_, i) => pieces().length - 1 - i);
    expect(order.map((i) => imported.pieces(i))).toEqual(order.map((i) => pieces()[i]));
  });

  it('keeps the module small whatever the catalogue holds: its size grows only with the number of pieces', () => {
    const big = compileCatalogue(testRecords(3 * CHUNK_SIZE), TEST_URLS);
    const [module, file] = catalogueDataFiles(big);
    expect(module!.body.length).toBeLessThan(4000);
    expect(file!.body.length).toBeGreaterThan(20 * module!.body.length);
    expect(file!.body.toString('latin1')).toMatch(/^[\t\x20-\x7e]*$/); // a character is a byte: pieces are read at byte offsets
  });

  it('is deterministic', () => {
    expect(catalogueModuleSource(compileCatalogue(testRecords(12), TEST_URLS))).toBe(catalogueModuleSource(compileCatalogue(testRecords(12), TEST_URLS)));
  });
});

describe('precomputedFiles', () => {
  const files = precomputedFiles(data);

  it('lists both by-id answers and the similar pepes of every record, the tags and the OpenAPI document, sorted', () => {
    expect(files).toHaveLength(3 * 12 + 2);
    const paths = files.map((f) => f.path);
    expect(paths).toEqual([...paths].sort());
    expect(paths).toContain('api/openapi.json');
    expect(paths).toContain('api/tags');
    for (const record of tricky) {
      expect(paths).toContain(`api/pepe/${record.id}`);
      expect(paths).toContain(`v1/pepe/${record.id}`);
      expect(paths).toContain(`api/similar/${record.id}`);
    }
  });

  it('holds bodies byte-equal to what the handler (loaded from the generated module) answers', async () => {
    const imported = await importData(data);
    const handler = createHandler(imported.data, { pieces: imported.pieces });
    for (const file of files) {
      const r = await call(handler, `/${file.path}`);
      expect(r.status, file.path).toBe(200);
      expect(r.text, file.path).toBe(file.body);
    }
  });

  it('keeps tricky descriptions intact in both variants', async () => {
    const byId = new Map(files.map((f) => [f.path, f.body]));
    expect(JSON.parse(byId.get(`api/pepe/${tricky[0]!.id}`)!).data.description).toBe(tricky[0]!.description);
    expect(JSON.parse(byId.get(`v1/pepe/${tricky[1]!.id}`)!).result.description).toBe('emoji 🐸 and ünïcödé');
  });
});

describe('records spread over several chunks', () => {
  const many = testRecords(2 * CHUNK_SIZE + 37);
  const big = compileCatalogue(many, TEST_URLS);
  const newestLast = [...many].sort(compareRecords);

  it('holds full chunks and one partial last chunk', () => {
    expect(big.dictionary).toBe(3); // the chunks are pieces 0-2, the other texts follow
    expect(big.count).toBe(many.length);
  });

  it('finds every record by rank and by id, across chunk boundaries, after a real module import', async () => {
    const imported = await importData(big);
    const catalogue = openCatalogue(imported.data, imported.pieces);
    newestLast.forEach((record, rank) => {
      expect(catalogue.id(rank)).toBe(record.id);
      expect(catalogue.rankOf(record.id)).toBe(rank);
      expect(catalogue.jsonA(rank)).toBe(recordJsonA(record, TEST_URLS));
    });
  });

  it('points each record offset into the chunk as written (escaped), so a request unescapes only the records it returns', () => {
    // Escapes early in every chunk: with offsets that counted the unescaped text, every later record of the chunk would be misplaced.
    const escaped = testRecords(2 * CHUNK_SIZE + 37);
    const ranked = [...escaped].sort(compareRecords);
    for (let rank = 0; rank < ranked.length; rank += 7) ranked[rank]!.description = `é \\ it's \u2028 🐸 ${rank}`;
    const compiled = compileCatalogue(escaped, TEST_URLS);
    const chunks = compiled.pieces().slice(0, compiled.dictionary);
    // Already in source form: nothing a bundler would escape.
    expect(chunks.every((chunk) => /^[\t\x20-\x7e]*$/.test(chunk) && !/['\\]/.test(chunk))).toBe(true);
    ranked.forEach((record, rank) => {
      const chunk = chunks[Math.floor(rank / CHUNK_SIZE)]!;
      const i = rank % CHUNK_SIZE;
      const records = Math.min(CHUNK_SIZE, ranked.length - rank + i);
      const start = records * compiled.offsetWidth + numberAt(chunk, compiled.offsetWidth, i);
      expect(chunk.slice(start, start + idKey(record.id)!.length), `rank ${rank}`).toBe(idKey(record.id));
      expect(start === records * compiled.offsetWidth || chunk[start - 1] === '\t', `rank ${rank}`).toBe(true);
    });
    const catalogue = openCatalogue(compiled);
    ranked.forEach((record, rank) => expect(catalogue.jsonA(rank)).toBe(recordJsonA(record, TEST_URLS)));
  });

  it('refuses data whose record count does not match its chunks (a build bug), naming the fix', () => {
    expect(() => openCatalogue({ ...big, count: big.count + CHUNK_SIZE })).toThrow(/holds 3 chunks of 256 records but says 805 records; rebuild the catalogue/);
    expect(() => openCatalogue({ ...big, count: big.count - CHUNK_SIZE })).toThrow(/rebuild the catalogue/);
    expect(() => openCatalogue({ ...big, format: 3 } as never)).toThrow(/format 3 is not supported; rebuild/);
  });

  it('finds no rank for ids that are not there (before, between and after the known ones)', () => {
    const catalogue = openCatalogue(big);
    const known = new Set(many.map((r) => r.id));
    const probes = ['00000000-0000-4000-8000-000000000000', 'ffffffff-ffff-4fff-bfff-ffffffffffff', ...many.slice(0, 50).map((r) => `${r.id.slice(0, 35)}${r.id.endsWith('0') ? '1' : '0'}`)];
    for (const probe of probes.filter((p) => !known.has(p))) expect(catalogue.rankOf(probe)).toBe(-1);
    expect(catalogue.rankOf('not-a-uuid')).toBe(-1);
  });
});

describe('the texts of the data', () => {
  const many = testRecords(2 * CHUNK_SIZE + 37);

  it('answer alike whatever the piece size (ids, search postings and offsets cut into many pieces), after a real module import and file reads', async () => {
    const wholeData = await importData(compileCatalogue(many, TEST_URLS));
    const whole = createHandler(wholeData.data, { pieces: wholeData.pieces });
    const smallData = compileCatalogue(many, TEST_URLS, { maxPiece: 48 });
    const { idOrder, searchIndex } = smallData;
    expect(searchIndex.description.offsets.first - searchIndex.description.postings).toBeGreaterThan(10);
    expect(searchIndex.terms - idOrder.first).toBeGreaterThan(2); // idOrder in several pieces
    const imported = await importData(smallData);
    const small = createHandler(imported.data, { pieces: imported.pieces });
    const urls = [
      '/api/openapi.json',
      '/api/pepe?limit=25',
      ...many.slice(0, 60).map((record) => `/api/pepe/${record.id}`),
      ...many.slice(0, 20).map((record) => `/v1/pepe/${record.id}`),
      ...['smug', 'frog sad', 'rain', 'smgu', 'hap', 'zzz'].flatMap((q) => [`/api/pepe?limit=25&search=${q}`, `/api/pepe?limit=25&sort=relevance&search=${q}`]),
    ];
    for (const url of urls) {
      const [a, b] = [await call(whole, url), await call(small, url)];
      expect(b.status, url).toBe(a.status);
      expect(b.text, url).toBe(a.text);
    }
    // Variant B picks at random among the matches: the same set of matches, all of them with limit=100.
    const matchIds = (r: { json: { result: { id: string }[] } }) => r.json.result.map((record) => record.id).sort();
    for (const q of ['smug', 'frog sad', 'smgu']) {
      const url = `/v1/pepe?limit=100&search=${q}`;
      const expected = matchIds(await call(whole, url));
      expect(expected.length, url).toBeLessThan(100); // else a random subset
      expect(matchIds(await call(small, url)), url).toEqual(expected);
    }
  });
});
