/**
 * A deterministic synthetic catalogue of realistic images for the benchmarks: mixed
 * PNG/JPEG/WebP/GIF (about 40/40/15/5%), sides 256–2048 px, 20 KB–1 MB per file.
 * Pictures are painted small (gradients + shapes), upscaled by sharp (soft edges like
 * drawings and photos have), and photo-like formats get film-grain noise so encoders
 * produce realistic sizes. Generating 10k takes minutes, so a complete corpus in `dir`
 * (marker file with the same parameters) is reused.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { paintPicture } from '../testing/paint-picture.js';
import { seededRandom } from '../shared/seeded-random.js';
import { makeFolders } from '../shared/make-folders.js';

const GENERATOR_VERSION = 2;
const MARKER = '.corpus-complete.json';
const MIN_BYTES = 20_000;
const MAX_BYTES = 1_000_000;

interface Marker {
  version: number;
  count: number;
  seed: number;
  files: string[];
  bytes: number;
}

type Kind = 'png' | 'jpeg' | 'webp' | 'gif';

/** One image; `effort` > 0 pushes the settings towards bigger files, < 0 towards smaller. */
async function makeImage(index: number, seed: number, effort: number): Promise<{ name: string; bytes: Buffer }> {
  const rnd = seededRandom(seed * 1_000_003 + index);
  const pick = rnd();
  const kind: Kind = pick < 0.4 ? 'png' : pick < 0.8 ? 'jpeg' : pick < 0.95 ? 'webp' : 'gif';
  const side = () => 256 + Math.floor(rnd() * (2048 - 256 + 1));
  let width = side();
  let height = side();
  if (kind === 'gif') {
    // Animated-sticker sized: GIF's LZW makes big noisy frames exceed 1 MB.
    width = 320 + Math.floor(rnd() * 480);
    height = 320 + Math.floor(rnd() * 480);
  }
  // Painted at 1/8 scale (painting is per-pixel JS), enlarged by sharp and softened:
  // the noise becomes photo-like grain, the shapes get soft edges.
  const small = { w: Math.ceil(width / 8), h: Math.ceil(height / 8) };
  const photoLike = kind === 'jpeg' || kind === 'webp';
  // Drawings (PNG/GIF) stay clean unless too small a file: noisy PNGs of 2048 px exceed 1 MB.
  const noise = photoLike ? Math.max(0, 6 + rnd() * 10 + effort * 6) : Math.max(0, effort * 8 + (kind === 'gif' ? 6 : 0));
  const picture = paintPicture(small.w, small.h, Math.floor(rnd() * 2 ** 31), { noise, shapes: 5 + Math.floor(rnd() * 8) });
  const img = sharp(picture, { raw: { width: small.w, height: small.h, channels: 3 } })
    .resize(small.w * 8, small.h * 8, { fit: 'fill', kernel: 'nearest' })
    .blur(1.2 + rnd() * 1.5)
    .extract({ left: 0, top: 0, width, height });
  const quality = Math.min(95, Math.max(30, 60 + Math.floor(rnd() * 30) + effort * 15));
  const name = `img-${String(index).padStart(6, '0')}`;
  switch (kind) {
    case 'png':
      return { name: `${name}.png`, bytes: await img.png({ compressionLevel: 6, palette: effort < 0 }).toBuffer() };
    case 'jpeg':
      return { name: `${name}.jpg`, bytes: await img.jpeg({ quality }).toBuffer() };
    case 'webp':
      return { name: `${name}.webp`, bytes: await img.webp({ quality, effort: 1 }).toBuffer() };
    case 'gif':
      return { name: `${name}.gif`, bytes: await img.gif({ colours: 128, dither: effort > 0 ? 1 : 0 }).toBuffer() };
  }
}

/** Tries up to three settings so the file lands in the 20 KB–1 MB window (the last try is kept regardless). */
async function makeImageInRange(index: number, seed: number): Promise<{ name: string; bytes: Buffer }> {
  let made = await makeImage(index, seed, 0);
  for (let attempt = 1; attempt <= 2; attempt++) {
    if (made.bytes.length > MAX_BYTES) made = await makeImage(index, seed, attempt === 1 ? -1 : -2);
    else if (made.bytes.length < MIN_BYTES) made = await makeImage(index, seed, attempt);
    else break;
  }
  return made;
}

async function readMarker(dir: string): Promise<Marker | null> {
  try {
    return JSON.parse(await readFile(join(dir, MARKER), 'utf8')) as Marker;
  } catch {
    return null;
  }
}

export async function syntheticImageCorpus(dir: string, count: number, seed = 1, onProgress?: (done: number) => void): Promise<{ files: string[]; bytes: number }> {
  const existing = await readMarker(dir);
  if (existing && existing.version === GENERATOR_VERSION && existing.count === count && existing.seed === seed) {
    return { files: existing.files.map((f) => join(dir, f)), bytes: existing.bytes };
  }
  await makeFolders(dir);
  const names: string[] = new Array(count);
  let bytes = 0;
  let next = 0;
  // Two generators in flight: the machine has two cores.
  const workerLoop = async () => {
    while (next < count) {
      const i = next++;
      const made = await makeImageInRange(i, seed);
      await writeFile(join(dir, made.name), made.bytes);
      names[i] = made.name;
      bytes += made.bytes.length;
      onProgress?.(i + 1);
    }
  };
  await Promise.all([workerLoop(), workerLoop()]);
  const marker: Marker = { version: GENERATOR_VERSION, count, seed, files: names, bytes };
  await writeFile(join(dir, MARKER), JSON.stringify(marker));
  return { files: names.map((f) => join(dir, f)), bytes };
}
