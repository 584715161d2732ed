/**
 * The sample catalogue as files: deterministic ids, dates and encoded pictures for each
 * entry of sample-catalogue.ts. Same inputs → same bytes.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { renderFrog } from './draw-frog.js';
import { withParams, type FrogParams } from './frog-params.js';
import { seededRandom } from '../shared/seeded-random.js';
import { SAMPLE_ENTRIES, type SampleEntry } from './sample-catalogue.js';
import { makeFolders } from '../shared/make-folders.js';

/** Changing the seed changes every id: only do it for a brand-new catalogue (published URLs use ids). */
const ID_SEED = 'pepe-catalogue-sample-v1';
const FIRST_DATE = Date.UTC(2021, 0, 4);
const LAST_DATE = Date.UTC(2025, 10, 1);
const OFFSETS = ['+00:00', '+02:00', '-05:00', '+09:00', '+05:30', '-08:00', '+01:00', '-03:00'];

/** A UUID (version 4 layout) from a hash, so re-running the script keeps every id. */
function deterministicUuid(seed: string, name: string): string {
  const bytes = createHash('sha256').update(`${seed}\0${name}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `2023-04-01T12:00:00+02:00`: the local wall time at that offset, as a maintainer would write it. */
function isoWithOffset(utcMs: number, offset: string): string {
  const sign = offset.startsWith('-') ? -1 : 1;
  const minutes = sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
  const local = new Date(utcMs + minutes * 60_000).toISOString().slice(0, 19);
  return `${local}${offset}`;
}

async function encodeEntry(entry: SampleEntry): Promise<Buffer> {
  const params = withParams(entry.frog);
  switch (entry.format) {
    case 'png':
      // Flat cartoons quantise to a palette with no visible loss and a third of the bytes.
      return renderFrog(params, entry.size).png({ palette: true, quality: 90, compressionLevel: 9, effort: 8 }).toBuffer();
    case 'jpg':
      return renderFrog(params, entry.size).jpeg({ quality: 82, mozjpeg: true }).toBuffer();
    case 'webp':
      return renderFrog(params, entry.size).webp({ quality: 80, effort: 5 }).toBuffer();
    case 'gif': {
      const frames = await Promise.all(
        (entry.frames ?? [{}]).map((frame) => renderFrog(mergeFrame(params, frame), entry.size).png().toBuffer()),
      );
      return sharp(frames, { join: { animated: true } }).gif({ delay: frames.map((_, i) => (i === 0 ? 900 : 300)), loop: 0, effort: 7 }).toBuffer();
    }
  }
}

function mergeFrame(base: FrogParams, frame: Partial<FrogParams>): FrogParams {
  return { ...base, ...frame, pose: { ...base.pose, ...frame.pose } };
}

export function sidecarFor(entry: SampleEntry, index: number): Record<string, unknown> {
  const rand = seededRandom(index * 7919 + 17);
  const created = FIRST_DATE + Math.floor(rand() * (LAST_DATE - FIRST_DATE));
  const offset = OFFSETS[Math.floor(rand() * OFFSETS.length)]!;
  const sidecar: Record<string, unknown> = {
    id: deterministicUuid(ID_SEED, entry.name),
    description: entry.description,
    tags: entry.tags,
    created_at: isoWithOffset(created, offset),
  };
  // About one in four was edited later.
  if (rand() < 0.25) sidecar.updated_at = isoWithOffset(created + Math.floor(rand() * 400 * 86_400_000), offset);
  return sidecar;
}

export interface WrittenSample {
  image: string;
  bytes: number;
}

/** Writes every sample image and its sidecar below `outDir`; returns what was written. */
export async function writeSampleContent(outDir: string, entries: readonly SampleEntry[] = SAMPLE_ENTRIES): Promise<WrittenSample[]> {
  const written: WrittenSample[] = [];
  for (const [index, entry] of entries.entries()) {
    // NFC: the same name must give the same file on every OS (macOS would otherwise decompose accents).
    const name = entry.name.normalize('NFC');
    const bytes = await encodeEntry(entry);
    const image = join(outDir, `${name}.${entry.format}`);
    await makeFolders(dirname(image));
    await writeFile(image, bytes);
    await writeFile(join(outDir, `${name}.json`), `${JSON.stringify(sidecarFor(entry, index), null, 2)}\n`);
    written.push({ image, bytes: bytes.length });
  }
  return written;
}
