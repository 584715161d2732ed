/**
 * A differential property test of the incremental build: after any short sequence of content
 * edits, each followed by a `buildCatalogue` into the same output and cache folders, the
 * output is byte for byte what a build from scratch (a fresh output folder and a fresh cache)
 * writes, with the same problems and records; and a build that fails leaves the output exactly
 * as it was (same bytes, inodes and mtimes). Every cache the build keeps (stat cache, features,
 * near-duplicate pairs, record encodings, search index, answer digests, the no-change paths)
 * is in play, so a stale key anywhere shows up as a difference here.
 *
 * After each build, the static listing walked from the built files alone, in both orders,
 * equals the function's order over the whole catalogue; and an edit that changes k records
 * writes at most 4k listing pages plus the head and at most 2k sitemap files plus the index
 * (files not written keep their inode and mtime).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import fg from 'fast-glob';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileCatalogue } from '../../functions/core/catalogue.js';
import { createHandler } from '../../functions/core/handler.js';
import type { SiteUrls } from '../../functions/core/record.js';
import { call } from '../testing/test-catalogue.js';
import { FIXTURE_URLS, fixtureId, fixtureImage, fixtureName, makeFixtureContent } from '../testing/fixture-catalogue.js';
import { manifestListing, snapshotDir } from '../testing/snapshot-dir.js';
import { makeTempDir, type TempDir } from '../testing/temp-dir.js';
import { buildCatalogue, type BuildResult } from './build-catalogue.js';
import { MANIFEST_FILE, readManifestSync, SEGMENT_FOLDER } from '../shared/manifest.js';
import type { Problem } from '../shared/problems.js';

const BASE_COUNT = 6;
/** Small pages, sitemap files and dataset shards (the newest in tail pieces), so that a dozen records make several of each (max high enough that no run of records reaches it). */
const CHUNKS = { listing: { mean: 3, max: 40 }, sitemaps: { mean: 3, max: 40 }, dataset: { mean: 5, max: 40, tail: { mean: 2, max: 3 } } };
/** Images an edit may add or put in place of another (fixtures 20–24: other pictures); the same one twice is a near-duplicate. */
const POOL = [20, 21, 22, 23, 24];
const URL_SETS: SiteUrls[] = [FIXTURE_URLS, { baseUrl: 'https://pepes.example', apiUrl: 'https://api.pepes.example', cdnUrl: 'https://cdn.pepes.example' }];
const FOLDERS = ['', 'sub/', 'sub/deeper/'];
const DESCRIPTIONS = [null, 'Frog', 'A frog in the rain', 'café frog', ''];
const TAG_SETS = [null, [], ['smug'], ['rain', 'Sad'], ['café', 'smug', 'new']];
/** Earlier than, between and later than the fixtures' dates (2019–2022), and one tie with a fixture. */
const DATES = ['2018-01-01T00:00:00Z', '2020-07-01T10:00:00Z', '2021-06-01T12:00:00+02:00', '2030-01-01T00:00:00Z'];

type Sidecar = { id: string; description: string | null; tags: string[] | null; created_at: string; updated_at?: string; distinct_from?: string[] };
interface Entry {
  /** Content-relative name without extension. */
  base: string;
  ext: string;
  sidecar: Sidecar;
  /** Which picture it shows: two entries showing one picture are a near-duplicate pair. */
  picture: string;
}

/** One edit; the numbers pick an entry, a variant, a value (taken modulo what there is to pick from). */
type Edit =
  | { kind: 'add'; image: number; folder: number; value: number; copy: boolean }
  | { kind: 'delete'; pick: number }
  | { kind: 'edit-sidecar'; pick: number; field: number; value: number }
  | { kind: 'distinct-from'; pick: number; value: number }
  | { kind: 'replace-image'; pick: number; reencode: boolean; image: number }
  | { kind: 'move'; pick: number; folder: number }
  | { kind: 'touch'; pick: number }
  | { kind: 'same-size-edit'; pick: number; value: number }
  | { kind: 'urls'; value: number }
  | { kind: 'break-then-fix'; pick: number; how: number; restoreMtime: boolean }
  | { kind: 'nothing' };

const n = fc.nat({ max: 20 });
const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), image: n, folder: n, value: n, copy: fc.boolean() }),
  fc.record({ kind: fc.constant('delete' as const), pick: n }),
  fc.record({ kind: fc.constant('edit-sidecar' as const), pick: n, field: n, value: n }),
  fc.record({ kind: fc.constant('distinct-from' as const), pick: n, value: n }),
  fc.record({ kind: fc.constant('replace-image' as const), pick: n, reencode: fc.boolean(), image: n }),
  fc.record({ kind: fc.constant('move' as const), pick: n, folder: n }),
  fc.record({ kind: fc.constant('touch' as const), pick: n }),
  fc.record({ kind: fc.constant('same-size-edit' as const), pick: n, value: n }),
  fc.record({ kind: fc.constant('urls' as const), value: n }),
  fc.record({ kind: fc.constant('break-then-fix' as const), pick: n, how: n, restoreMtime: fc.boolean() }),
  fc.constant({ kind: 'nothing' as const }),
);

let temp: TempDir;
let baseContent: string;
let baseEntries: Entry[];
const poolImages = new Map<number, { bytes: Buffer; ext: string }>();
const reencoded = new Map<string, Buffer>();
let idCounter = 0;
let runCounter = 0;
let touchCounter = 0;

const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const sidecarText = (s: Sidecar) => `${JSON.stringify(s, null, 2)}\n`;
const pickOf = <T>(list: readonly T[], k: number): T => list[k % list.length]!;

/** The same picture in the same format, encoded again (other bytes, so a new id). */
async function reencode(bytes: Buffer, ext: string): Promise<Buffer> {
  const key = sha(bytes);
  let out = reencoded.get(key);
  if (!out) {
    const img = sharp(bytes, { animated: true });
    out = ext === '.jpg' ? await img.jpeg({ quality: 60 }).toBuffer() : ext === '.webp' ? await img.webp({ quality: 50 }).toBuffer() : ext === '.gif' ? await img.gif({ colours: 32 }).toBuffer() : await img.png({ compressionLevel: 1 }).toBuffer();
    reencoded.set(key, out);
  }
  return out;
}

/** What a build from scratch makes of some content: memoised by the content's bytes and the URLs (runs start alike). */
interface Outcome {
  ok: boolean;
  problems: Problem[];
  records: BuildResult['records'];
  files: Record<string, string>;
}
const scratchMemo = new Map<string, Outcome>();

async function contentKey(contentDir: string, urls: SiteUrls): Promise<string> {
  const hash = createHash('sha256').update(JSON.stringify(urls));
  for (const path of (await fg('**/*', { cwd: contentDir, dot: true, onlyFiles: true })).sort()) hash.update(`${path}\n`).update(sha(await readFile(join(contentDir, path))));
  return hash.digest('hex');
}

/**
 * Every output file by sha256, the manifest's own files by what they list: an incremental build
 * may hold id segments' changes in the manifest's delta where a build from scratch writes them
 * into the segments (tools/shared/manifest.test.ts holds the folding to a full build's bytes).
 */
async function filesOf(dir: string): Promise<Record<string, string>> {
  const files = Object.entries(await snapshotDir(dir)).filter(([path]) => path !== MANIFEST_FILE && !path.startsWith(`${SEGMENT_FOLDER}/`));
  return Object.fromEntries([...files.map(([path, file]) => [path, file.sha256]), ['(manifest lists)', manifestListing(readManifestSync(dir))]]);
}

async function scratchBuild(contentDir: string, urls: SiteUrls): Promise<Outcome> {
  const key = await contentKey(contentDir, urls);
  const known = scratchMemo.get(key);
  if (known) return known;
  const dir = join(temp.path, `scratch-${scratchMemo.size}`);
  const result = await buildCatalogue({ contentDir, outDir: join(dir, 'dist'), cacheDir: join(dir, 'cache'), urls, chunks: CHUNKS });
  const outcome = { ok: result.ok, problems: result.problems, records: result.records, files: result.ok ? await filesOf(join(dir, 'dist')) : {} };
  await rm(dir, { recursive: true, force: true });
  scratchMemo.set(key, outcome);
  return outcome;
}

/** One run: a copy of the base content, its own output and cache folders, built once before the edits. */
class Run {
  readonly content: string;
  readonly out: string;
  readonly cache: string;
  entries: Entry[];
  urls: SiteUrls = FIXTURE_URLS;
  readonly log: string[] = [];

  constructor(readonly root: string) {
    this.content = join(root, 'content');
    this.out = join(root, 'dist');
    this.cache = join(root, 'cache');
    this.entries = baseEntries.map((e) => ({ ...e, sidecar: { ...e.sidecar } }));
  }

  abs = (entry: Entry, ext = entry.ext) => join(this.content, `${entry.base}${ext}`);
  writeSidecar = (entry: Entry) => writeFile(this.abs(entry, '.json'), sidecarText(entry.sidecar));
  newId = () => fixtureId(`property-${++idCounter}`);

  private builds = 0;
  // Every other build lists in a worker thread and reads the last build's cache meanwhile, as a large catalogue's does.
  build = () => buildCatalogue({ contentDir: this.content, outDir: this.out, cacheDir: this.cache, urls: this.urls, chunks: CHUNKS, listInWorkerFrom: this.builds++ % 2 === 0 ? undefined : 0 });

  /**
   * Builds incrementally and compares everything with a build from scratch; `changes`: how many
   * records the edit added, removed or changed (a new created_at or id counts twice), null when
   * every file may change (new URLs).
   */
  async buildAndCompare(what: string, changes: number | null = null): Promise<void> {
    const before = await listingSnapshot(this.out);
    const result = await this.build();
    if (result.stats.changed !== null) changeBuilds++;
    const scratch = await scratchBuild(this.content, this.urls);
    const context = `${what}; the edits so far:\n${this.log.join('\n')}`;
    expect(result.ok, context).toBe(scratch.ok);
    expect(result.problems, context).toEqual(scratch.problems);
    if (!scratch.ok) return;
    expect(result.records, context).toEqual(scratch.records);
    expect(await filesOf(this.out), context).toEqual(scratch.files);
    await expectListingInFunctionOrder(join(this.out, 'site'), this.urls, result.records, context);
    if (changes === null || Object.keys(before).length === 0) return;
    const after = await listingSnapshot(this.out);
    const written = Object.keys(after).filter((path) => before[path]?.ino !== after[path]!.ino || before[path]?.mtimeMs !== after[path]!.mtimeMs);
    const pages = written.filter((path) => path.startsWith('api/listing/') && path !== 'api/listing/head');
    const sitemaps = written.filter((path) => path.startsWith('sitemaps/'));
    expect(pages.length, `${context}\nlisting pages written: ${pages.join(' ')}`).toBeLessThanOrEqual(4 * changes);
    expect(sitemaps.length, `${context}\nsitemap files written: ${sitemaps.join(' ')}`).toBeLessThanOrEqual(2 * changes);
    expect(written.filter((path) => !pages.includes(path) && !sitemaps.includes(path) && path !== 'api/listing/head' && path !== 'sitemap.xml'), context).toEqual([]);
    // A page with the same records and links as before is the same file, not written again.
    for (const path of Object.keys(after).filter((p) => p.startsWith('api/listing/') && p !== 'api/listing/head' && before[p])) {
      if (pageSubstance(before[path]!.text) !== pageSubstance(after[path]!.text)) continue;
      expect(after[path]!.text, `${context}\n${path}`).toBe(before[path]!.text);
      expect(pages, `${context}\n${path} has the same records and links as before`).not.toContain(path);
    }
  }

  /** A build that must fail: same problems as from scratch, and the output left exactly as it was. */
  async buildFailing(what: string): Promise<void> {
    const before = await snapshotDir(this.out);
    const result = await this.build();
    const scratch = await scratchBuild(this.content, this.urls);
    const context = `${what}; the edits so far:\n${this.log.join('\n')}`;
    expect(result.ok, context).toBe(false);
    expect(result.problems, context).toEqual(scratch.problems);
    expect(await snapshotDir(this.out), context).toEqual(before);
  }

  /** Applies the edit; returns how many records it changes as buildAndCompare counts them. */
  async apply(edit: Edit): Promise<number | null> {
    const { entries } = this;
    const entry = 'pick' in edit && entries.length > 0 ? pickOf(entries, edit.pick) : undefined;
    this.log.push(JSON.stringify({ ...edit, entry: entry?.base }));
    switch (edit.kind) {
      case 'add': {
        // A new picture, or another copy of one already there (a near-duplicate pair).
        const copied = edit.copy && entries.length > 0 ? pickOf(entries, edit.image) : undefined;
        const { bytes, ext } = copied ? { bytes: await readFile(this.abs(copied)), ext: copied.ext } : poolImages.get(pickOf(POOL, edit.image))!;
        const added: Entry = {
          picture: copied?.picture ?? `pool-${pickOf(POOL, edit.image)}`,
          base: `${pickOf(FOLDERS, edit.folder)}added-${idCounter + 1}`,
          ext,
          sidecar: { id: this.newId(), description: pickOf(DESCRIPTIONS, edit.value), tags: pickOf(TAG_SETS, edit.value + 1), created_at: pickOf(DATES, edit.value) },
        };
        await mkdir(dirname(this.abs(added)), { recursive: true });
        await writeFile(this.abs(added), bytes);
        await this.writeSidecar(added);
        entries.push(added);
        return 1;
      }
      case 'delete':
        if (!entry) break;
        await rm(this.abs(entry));
        await rm(this.abs(entry, '.json'));
        entries.splice(entries.indexOf(entry), 1);
        return 1;
      case 'edit-sidecar': {
        if (!entry) break;
        const s = entry.sidecar;
        const field = edit.field % 4;
        if (field === 0) s.description = pickOf(DESCRIPTIONS, edit.value);
        else if (field === 1) s.tags = pickOf(TAG_SETS, edit.value);
        else if (field === 2) s.created_at = pickOf(DATES, edit.value);
        else if (edit.value % 2 === 0) delete s.updated_at;
        else s.updated_at = pickOf(DATES, edit.value);
        await this.writeSidecar(entry);
        // A new created_at moves the record: out of one place, into another.
        return field === 2 ? 2 : 1;
      }
      case 'distinct-from': {
        if (!entry) break;
        // The ids of the entries showing the same picture (silences their near-duplicate pairs:
        // an entry that has such twins, if any), another entry's id, one that is no record (a
        // warning), or none.
        const how = edit.value % 4;
        const target = how === 0 ? (entries.find((e) => entries.some((t) => t !== e && t.picture === e.picture)) ?? entry) : entry;
        const twins = entries.filter((e) => e !== target && e.picture === target.picture).map((e) => e.sidecar.id);
        const other = pickOf(entries, edit.value);
        if (how === 3) delete target.sidecar.distinct_from;
        else target.sidecar.distinct_from = [twins, other === target ? [] : [other.sidecar.id], [fixtureId('no-such-record')]][how];
        this.log.push(`  (distinct_from of ${target.base}: ${JSON.stringify(target.sidecar.distinct_from)})`);
        await this.writeSidecar(target);
        return 1;
      }
      case 'replace-image': {
        if (!entry) break;
        const current = await readFile(this.abs(entry));
        // A new picture may be of another format than the name says: an extension-mismatch warning.
        const bytes = edit.reencode ? await reencode(current, entry.ext) : poolImages.get(pickOf(POOL, edit.image))!.bytes;
        if (!edit.reencode) entry.picture = `pool-${pickOf(POOL, edit.image)}`;
        await writeFile(this.abs(entry), bytes);
        entry.sidecar.id = this.newId();
        await this.writeSidecar(entry);
        return 2;
      }
      case 'move': {
        if (!entry) break;
        const name = entry.base.slice(entry.base.lastIndexOf('/') + 1);
        const moved: Entry = { ...entry, base: `${pickOf(FOLDERS, edit.folder)}${name}` };
        if (entries.some((e) => e.base === moved.base)) break;
        await mkdir(dirname(this.abs(moved)), { recursive: true });
        await rename(this.abs(entry), this.abs(moved));
        await rename(this.abs(entry, '.json'), this.abs(moved, '.json'));
        entry.base = moved.base;
        break;
      }
      case 'touch': {
        if (!entry) break;
        const later = new Date(Date.now() + 5_000 + ++touchCounter * 1_000);
        await utimes(this.abs(entry), later, later);
        await utimes(this.abs(entry, '.json'), later, later);
        break;
      }
      case 'same-size-edit': {
        if (!entry) break;
        // Another created_at of the same length (the seconds), written in place (same inode),
        // and the file's mtime put back exactly as it was (touch -r, to the nanosecond): size,
        // mtime and inode all unchanged; only the ctime shows the edit (tools/catalogue/cache/README.md, "What counts
        // as unchanged"). An edit within the same timestamp tick is not generated: not covered.
        const file = this.abs(entry, '.json');
        const ref = join(this.root, 'mtime-ref');
        execFileSync('touch', ['-r', file, ref]);
        const s = entry.sidecar;
        const seconds = String(edit.value % 60).padStart(2, '0');
        const at = s.created_at.replace(/:(\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/, `:${seconds}$2$3`);
        s.created_at = at === s.created_at ? s.created_at.replace(/:(\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/, `:${seconds === '59' ? '58' : '59'}$2$3`) : at;
        await this.writeSidecar(entry);
        execFileSync('touch', ['-m', '-r', ref, file]);
        return 2;
      }
      case 'urls':
        this.urls = pickOf(URL_SETS, edit.value);
        return null;
      case 'break-then-fix': {
        if (!entry) break;
        const how = edit.how % 4;
        const file = how === 3 ? this.abs(entry) : this.abs(entry, '.json');
        const original = await readFile(file);
        const ref = join(this.root, 'mtime-ref');
        execFileSync('touch', ['-r', file, ref]);
        if (how === 0) await writeFile(file, '{"id": "x",');
        else if (how === 1) await writeFile(file, sidecarText({ ...entry.sidecar, descripton: 'typo' } as Sidecar));
        else if (how === 2) await writeFile(file, sidecarText({ ...entry.sidecar, id: pickOf(entries, entry === entries[0] ? 1 : 0).sidecar.id }));
        else await writeFile(file, Buffer.concat([original.subarray(0, 8), Buffer.alloc(200, 7)]));
        // With one entry there is no other id to duplicate: that content is valid.
        if (how === 2 && entries.length < 2) await this.buildAndCompare('duplicate id of itself');
        else await this.buildFailing('the broken build');
        await writeFile(file, original);
        if (edit.restoreMtime) execFileSync('touch', ['-m', '-r', ref, file]);
        break;
      }
      case 'nothing':
        break;
    }
    return 0;
  }
}

/** The listing's and the sitemaps' files of a build (site-relative), to tell which a build wrote and what they held. */
async function listingSnapshot(out: string): Promise<Record<string, { ino: number; mtimeMs: number; text: string }>> {
  const site = join(out, 'site');
  const snapshot: Record<string, { ino: number; mtimeMs: number; text: string }> = {};
  for (const path of await fg(['api/listing/**', 'sitemap.xml', 'sitemaps/**'], { cwd: site, onlyFiles: true })) {
    const [info, text] = await Promise.all([stat(join(site, path)), readFile(join(site, path), 'utf8')]);
    snapshot[path] = { ino: info.ino, mtimeMs: info.mtimeMs, text };
  }
  return snapshot;
}

/** A page's records (as parsed) and links: what its bytes must be a function of. */
const pageSubstance = (text: string): string => {
  const { data, meta } = JSON.parse(text) as Page;
  return JSON.stringify([data, meta.older, meta.newer, meta.listing]);
};

type Page = { data: { id: string }[]; meta: { older: string | null; newer: string | null; listing: string } };

/** The static listing, walked from its head by the pages' links alone, oldest first and newest first, equals the function's answers page after page. */
async function expectListingInFunctionOrder(site: string, urls: SiteUrls, records: BuildResult['records'], context: string): Promise<void> {
  const read = async (url: string) => JSON.parse(await readFile(join(site, url.slice(urls.baseUrl.length)), 'utf8'));
  const head = (await read(`${urls.baseUrl}/api/listing/head`)) as { data: { total_items: number; oldest: string | null; newest: string | null } };
  const walk = async (from: string | null, link: 'older' | 'newer') => {
    const seen: unknown[] = [];
    for (let url = from; url !== null; ) {
      const page = (await read(url)) as Page;
      expect(page.meta.listing, context).toBe(`${urls.baseUrl}/api/listing/head`);
      expect(url, context).toBe(`${urls.baseUrl}/api/listing/${page.data[0]!.id}`);
      seen.push(...(link === 'newer' ? page.data : [...page.data].reverse()));
      url = page.meta[link];
    }
    return seen;
  };
  const handler = createHandler(compileCatalogue(records, urls));
  const functionOrder = async (sort: string) => {
    const listed: unknown[] = [];
    for (let page = 1; ; page++) {
      const answer = (await call(handler, `/api/pepe?limit=25&page=${page}&sort=${sort}`)).json;
      listed.push(...answer.data);
      if (!answer.meta.pagination.has_next) return listed;
    }
  };
  expect(head.data.total_items, context).toBe(records.length);
  expect(await walk(head.data.oldest, 'newer'), context).toEqual(await functionOrder('created_at_asc'));
  expect(await walk(head.data.newest, 'older'), context).toEqual(await functionOrder('created_at_desc'));
}

beforeAll(async () => {
  temp = await makeTempDir('pepe-incremental-property-');
  baseContent = join(temp.path, 'base');
  await makeFixtureContent(baseContent, { count: BASE_COUNT });
  baseEntries = [];
  for (let index = 0; index < BASE_COUNT; index++) {
    const base = fixtureName(index);
    const [file] = await fg(`${base}.*`, { cwd: baseContent, ignore: ['*.json', '**/*.json'] });
    const sidecar = JSON.parse(await readFile(join(baseContent, `${base}.json`), 'utf8')) as Sidecar;
    baseEntries.push({ base, ext: file!.slice(base.length), sidecar, picture: `fixture-${index}` });
  }
  // The same picture as frog-000, encoded again: every run starts with a near-duplicate pair.
  const copy: Entry = { base: 'frog-000-again', ext: baseEntries[0]!.ext, picture: baseEntries[0]!.picture, sidecar: { id: fixtureId('frog-000-again'), description: 'Smug again', tags: null, created_at: '2022-01-01T00:00:00Z' } };
  await writeFile(join(baseContent, `${copy.base}${copy.ext}`), await reencode(await readFile(join(baseContent, `${baseEntries[0]!.base}${copy.ext}`)), copy.ext));
  await writeFile(join(baseContent, `${copy.base}.json`), sidecarText(copy.sidecar));
  baseEntries.push(copy);
  for (const index of POOL) poolImages.set(index, await fixtureImage(index));
}, 120_000);

afterAll(() => temp?.cleanup());

/** Builds that started from the last build's pairs, reading only the changed ones (analyse-content.ts): the runs must take that path too. */
let changeBuilds = 0;

describe('incremental builds (property)', () => {
  it('write what a build from scratch writes after any sequence of edits, and leave the output alone when they fail', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(editArb, { minLength: 1, maxLength: 6 }), async (edits) => {
        const root = join(temp.path, `run-${++runCounter}`);
        await mkdir(root);
        execFileSync('cp', ['-a', baseContent, join(root, 'content')]);
        const run = new Run(root);
        try {
          await run.buildAndCompare('the first build');
          for (const [step, edit] of edits.entries()) {
            const changes = await run.apply(edit);
            await run.buildAndCompare(`after edit ${step + 1} of ${edits.length}`, changes);
          }
        } finally {
          await rm(root, { recursive: true, force: true });
        }
      }),
      {
        numRuns: 25,
        seed: 20_261_124,
        endOnFailure: false,
        // The edges of planning only what a change touches (plan-answers.ts), besides the random runs:
        examples: [
          // A tag edit of a record with a near-duplicate twin: the twin's similar answer shows it.
          [[{ kind: 'edit-sidecar', pick: 0, field: 1, value: 3 }]],
          // The twin removed, then added back as a copy dated before every other (a back-dated add, first in the listing).
          [[{ kind: 'delete', pick: 0 }, { kind: 'add', image: 0, folder: 0, value: 0, copy: true }]],
          // A back-dated add in the middle, then an old record moved by a new created_at, then an edit of one in the middle (its dataset shard).
          [[{ kind: 'add', image: 1, folder: 1, value: 1, copy: false }, { kind: 'edit-sidecar', pick: 3, field: 2, value: 3 }, { kind: 'edit-sidecar', pick: 2, field: 0, value: 2 }]],
          // The image of a record with a twin replaced (a new id and phash), then new URLs: every file re-planned.
          [[{ kind: 'replace-image', pick: 0, reencode: false, image: 2 }, { kind: 'urls', value: 1 }, { kind: 'edit-sidecar', pick: 4, field: 1, value: 1 }]],
        ],
      },
    );
    expect(changeBuilds).toBeGreaterThan(25);
  }, 300_000);
});
