/**
 * Deterministic synthetic catalogues for benchmarks (search, api, serve): realistic
 * metadata without images. Same (count, seed) → same records on every machine.
 */
import { compareRecords, type ImageExt, type PepeRecord } from '../../functions/core/record.js';
import { seededRandom } from '../shared/seeded-random.js';
import { ACCENTED, MEME_WORDS, buildVocabulary } from './synthetic-words.js';

/** Picks index k with probability ∝ 1 / (k + 1)^exponent (word frequencies in real text are roughly Zipfian). */
function zipfSampler(size: number, exponent: number, random: () => number): () => number {
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let k = 0; k < size; k++) cumulative[k] = total += 1 / (k + 1) ** exponent;
  return () => {
    const target = random() * total;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** A shuffled copy (Fisher–Yates) so frequency rank is not alphabetical or list order. */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

const HEX = '0123456789abcdef';
const BASE83 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~';
const EXTS: [ImageExt, number][] = [['.png', 0.5], ['.jpg', 0.3], ['.webp', 0.1], ['.gif', 0.08], ['.avif', 0.02]];
const START = Date.parse('2020-01-01T00:00:00.000Z');
const SPAN_MS = 6 * 365.25 * 24 * 3600 * 1000;

function hex(random: () => number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += HEX[Math.floor(random() * 16)];
  return out;
}

function base83(value: number, digits: number): string {
  let out = '';
  for (let i = digits - 1; i >= 0; i--) out += BASE83[Math.floor(value / 83 ** i) % 83];
  return out;
}

function uuid(random: () => number): string {
  const variant = HEX[8 + Math.floor(random() * 4)];
  return `${hex(random, 8)}-${hex(random, 4)}-4${hex(random, 3)}-${variant}${hex(random, 3)}-${hex(random, 12)}`;
}

/** A well-formed 4×3 blurhash: size flag 'L', max AC, 24-bit DC, 11 AC values (each < 19²). */
function blurhash(random: () => number): string {
  let out = `L${base83(Math.floor(random() * 83), 1)}${base83(Math.floor(random() * 0x1000000), 4)}`;
  for (let i = 0; i < 11; i++) out += base83(Math.floor(random() * 361), 2);
  return out;
}

function pickExt(random: () => number): ImageExt {
  let roll = random();
  for (const [ext, share] of EXTS) if ((roll -= share) < 0) return ext;
  return '.png';
}

/** `count` records in canonical order (ascending created_at, ties by id). */
export function syntheticRecords(count: number, seed = 1): PepeRecord[] {
  const random = seededRandom(seed);
  // The tag pool: meme words first (most frequent after shuffling among themselves), some English, a few phrases.
  const { base, derived } = buildVocabulary();
  const memeWords = base.slice(0, MEME_WORDS.length);
  const tagPool = [...shuffled(memeWords, seededRandom(seed + 1)), ...shuffled(base.slice(MEME_WORDS.length), seededRandom(seed + 3)).slice(0, 150), 'feels good man', 'rare pepe', 'smug-frog', 'sad frog', 'pepe the frog'];
  // Base words take the frequent Zipf ranks; derived forms ("frogged", "smugness") form the long tail.
  const descriptionWords = [...shuffled(base, seededRandom(seed + 2)), ...shuffled(derived, seededRandom(seed + 4))];
  const nextTag = zipfSampler(tagPool.length, 1.1, random);
  const nextWord = zipfSampler(descriptionWords.length, 1.0, random);

  const records: PepeRecord[] = [];
  for (let i = 0; i < count; i++) {
    let tags: string[] | null = null;
    if (random() >= 0.15) {
      const wanted = 1 + Math.floor(random() * 6);
      const set = new Set<string>();
      for (let t = 0; t < wanted; t++) set.add(tagPool[nextTag()]!);
      tags = [...set];
    }
    let description: string | null = null;
    if (random() >= 0.1) {
      const length = 5 + Math.floor(random() * 16);
      const words: string[] = [];
      for (let w = 0; w < length; w++) {
        const word = descriptionWords[nextWord()]!;
        words.push(ACCENTED[word] !== undefined && random() < 0.5 ? ACCENTED[word] : word);
      }
      const sentence = words.join(' ');
      description = `${sentence[0]!.toUpperCase()}${sentence.slice(1)}${random() < 0.2 ? '!' : '.'}`;
    }
    const created = START + Math.floor(random() * SPAN_MS);
    const updated = random() < 0.2 ? created + Math.floor(random() * (START + SPAN_MS - created)) : created;
    const width = 200 + Math.floor(random() * 1800);
    const height = 200 + Math.floor(random() * 1800);
    const file_ext = pickExt(random);
    records.push({
      id: uuid(random),
      file_ext,
      file_size: Math.max(512, Math.floor(width * height * (file_ext === '.png' ? 1.2 : 0.3) * (0.5 + random()))),
      tags,
      description,
      phash: hex(random, 16),
      created_at: new Date(created).toISOString(),
      updated_at: new Date(updated).toISOString(),
      width,
      height,
      blurhash: blurhash(random),
      thumbnails: [],
      // Credits from the index, not the random source, so every other field stays as it was generated before credits existed.
      artist: i % 3 === 0 ? `Artist ${i % 97}` : null,
      source_url: i % 3 === 0 ? `https://art.example/pepe/${i}` : null,
      license: i % 3 === 0 ? 'CC-BY-4.0' : null,
      // Not drawn from `random`, so every other field stays what it was before the filters existed.
      animated: file_ext === '.gif',
    });
  }
  return records.sort(compareRecords);
}
