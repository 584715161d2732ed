/**
 * Small synthetic catalogues for the core's tests (no images needed): varied tags and
 * descriptions, untagged and undescribed records, equal created_at (ties broken by id),
 * accents, every file type.
 */
import { type CatalogueData, catalogueAnswerFiles, compileCatalogue, type CompiledCatalogue, recordAnswerFiles } from '../../functions/core/catalogue.js';
import { openCatalogue } from '../../functions/core/catalogue-runtime.js';
import type { ImageExt, PepeRecord, SiteUrls } from '../../functions/core/record.js';

export const TEST_URLS: SiteUrls = { baseUrl: 'https://pepe.example', apiUrl: 'https://api.pepe.example', cdnUrl: 'https://cdn.pepe.example' };

const EXTS: ImageExt[] = ['.png', '.jpg', '.gif', '.webp', '.avif'];
const TAGS = [['smug'], ['sad', 'rain'], null, ['happy', 'smug'], ['feels'], ['café', 'smug'], ['comfy']];
const DESCRIPTIONS = ['Smug pepe grinning', 'A sad frog in the rain', null, 'Happy pepe "quoted" \\ backslash', 'Feels good man', 'Pepe drinking café au lait', 'Comfy blanket frog'];

/** A deterministic id for record i (hex digits only, version-4 shape). */
export const testId = (i: number): string => {
  const hex = (i + 1).toString(16).padStart(12, '0');
  return `${(0xa0000000 + i * 7919).toString(16)}-1234-4abc-8def-${hex}`;
};

export function testRecords(count = 30): PepeRecord[] {
  const records: PepeRecord[] = [];
  for (let i = 0; i < count; i++) {
    // Every 5th record shares the created_at of the previous one, to exercise the id tie-break.
    const day = i % 5 === 4 ? i - 1 : i;
    const created = new Date(Date.UTC(2024, 0, 1 + day, 12)).toISOString();
    records.push({
      id: testId(i),
      file_ext: EXTS[i % EXTS.length]!,
      file_size: 1000 + i,
      tags: TAGS[i % TAGS.length] ?? null,
      description: DESCRIPTIONS[i % DESCRIPTIONS.length] ?? null,
      phash: (0x1000 + i).toString(16).padStart(16, '0'),
      created_at: created,
      updated_at: i % 3 === 0 ? created : new Date(Date.UTC(2024, 6, 1 + i)).toISOString(),
      // Portrait, landscape and square in turn (the orientation filter).
      width: i % 3 === 2 ? 150 : i % 3 === 1 ? 200 + i : 100 + i,
      height: i % 3 === 2 ? 150 : i % 3 === 1 ? 100 + i : 200 + i,
      blurhash: 'LEHV6nWB2yk8pyo0adR*.7kCMdnj',
      // Three records in four have one small copy (named as the build names them), the rest none.
      thumbnails: i % 4 === 3 ? [] : [{ file_name: `${testId(i)}-64w-${(0xf000 + i).toString(16).padStart(16, '0')}.webp`, width: 64, height: Math.round((64 * (200 + i)) / (100 + i)), type: 'image/webp' }],
      // Every 4th record fully credited, every 6th only by artist (with characters JSON and HTML must escape).
      artist: i % 4 === 0 ? `Artist ${i}` : i % 6 === 0 ? `Frog "${i}" & <co>` : null,
      source_url: i % 4 === 0 ? `https://art.example/pepe/${i}?from=catalogue&x=1` : null,
      license: i % 4 === 0 ? 'CC-BY-4.0' : null,
      animated: i % 4 === 2,
    });
  }
  // Shuffled input: compileCatalogue must sort.
  return records.reverse();
}

export const testCatalogue = (count = 30): CompiledCatalogue => compileCatalogue(testRecords(count), TEST_URLS);

/** Calls a handler like a client would: absolute URL on the test base. */
export async function call(
  handler: (request: Request) => Promise<Response>,
  path: string,
  init?: RequestInit,
): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const response = await handler(new Request(`${TEST_URLS.baseUrl}${path}`, init));
  const text = await response.text();
  let json: unknown = undefined;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** The records as the API orders them by default (created_at_desc). */
export function idsNewestFirst(count = 30): string[] {
  return testRecords(count)
    .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1))
    .map((r) => r.id)
    .reverse();
}

/** Variant A object as plain JSON.stringify makes it, keys in the seed's order, then the extensions: the oracle of the compact codec. */
export function recordJsonA(record: PepeRecord, urls: SiteUrls): string {
  const fileName = `${record.id}${record.file_ext}`;
  return JSON.stringify({
    id: record.id,
    file_name: fileName,
    file_ext: record.file_ext,
    file_size: record.file_size,
    tags: record.tags && record.tags.length > 0 ? record.tags : null,
    description: record.description,
    url: `${urls.baseUrl}/images/${fileName}`,
    phash: record.phash,
    created_at: record.created_at,
    updated_at: record.updated_at,
    width: record.width,
    height: record.height,
    blurhash: record.blurhash,
    thumbnails: record.thumbnails.map((t) => ({ url: `${urls.baseUrl}/images/${t.file_name}`, width: t.width, height: t.height, type: t.type })),
    artist: record.artist,
    source_url: record.source_url,
    license: record.license,
  });
}

/**
 * Every precomputed answer, each byte-equal to the handler's body for that URL (sorted by
 * path): the whole set the build plans incrementally (tools/catalogue/plan-answers.ts) from
 * the same two functions of functions/core/catalogue.ts.
 */
export function precomputedFiles(data: CatalogueData): { path: string; body: string }[] {
  const catalogue = openCatalogue(data);
  const files = catalogueAnswerFiles(catalogue);
  for (let rank = 0; rank < catalogue.count; rank++) {
    for (const file of recordAnswerFiles(catalogue, rank, catalogue.id(rank))) files.push({ path: file.path, body: file.body() });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
