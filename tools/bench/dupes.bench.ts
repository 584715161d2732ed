/**
 * Near-duplicate detection: accuracy on look-alike cartoons and their recolours, and speed on
 * 100k hashes.
 *
 * Accuracy: N distinct frog drawings (tools/sample, many differing in one detail); half of
 * them get a planted copy (the 17 edits of planted-copies.ts in turn: JPEG q40–85, WebP q75,
 * resized 50–150%, brightness and contrast ±15%, gamma 0.8 and 1.2, a 3% crop, GIF with a
 * palette), a quarter a recoloured variant (recolours of frog-variations.ts in turn: a
 * region's hue, clothes, skin, background, the whole palette), an eighth a local recolour
 * (the mouth, the eyes' whites, a badge), then emoji-like faces whose mouths alone differ in
 * colour and flat shapes in four colours (tools/sample/flat-pictures.ts), all analysed by the
 * real analyseImage. Recall = planted pairs found; distinct pairs = any other reported pair of
 * pictures drawn from different parameters, per 1,000 images, by kind. Speed: findNearDuplicates on 100k synthetic hashes vs the all-pairs
 * loop on the same smaller n, in the same run. `DUPES_PART=speed` or `accuracy` runs one half.
 */
import { analyseImage } from '../image/analyse-image.js';
import { CONFIRM_DEFAULTS, DEFAULT_PHASH_THRESHOLD, type DupeItem, type DupePair, findNearDuplicates, judgePair } from '../dupes/near-duplicates.js';
import { THUMB_KEY_RADIUS, thumbKey } from '../dupes/compare/key.js';
import { type Hash64, hammingDistance, pairsWithinDistance, parseHash } from '../../functions/core/multi-index.js';
import { referencePairs } from '../testing/search-reference.js';
import { renderFrog } from '../sample/draw-frog.js';
import { emojiFaces, type FlatParams, flatShapes, renderFlat } from '../sample/flat-pictures.js';
import { frogVariations, LOCAL_RECOLOURS, locallyRecoloured, RECOLOURS, recoloured } from '../sample/frog-variations.js';
import type { FrogParams } from '../sample/frog-params.js';
import { COPY_TRANSFORMS, plantedCopy, type CopyTransform } from '../sample/planted-copies.js';
import { seededRandom } from '../shared/seeded-random.js';
import { type Bench, type BenchContext, round } from './context.js';

const VARIANT_SIZE = 320;
/** Variants k ≡ 0, 1 (mod 4) get a planted copy, k ≡ 2 (mod 4) a recoloured variant: 50% and 25% of the drawings. */
const EVERY = 4;
/** Variants k ≡ 3 (mod 8) get a local recolour (mouth, eyes or a badge): 12.5% of the drawings. */
const LOCAL_EVERY = 8;

interface Corpus {
  items: DupeItem[];
  /**
   * The drawing parameters of each item (ids `v<k>` variant, `c<k>` its copy, `r<k>` its
   * recolour, `l<k>` and `m<k>` a local recolour's pair; `face<i>` emoji faces, `shape<i>`
   * flat shapes).
   */
  params: Map<string, FrogParams | FlatParams>;
  /** "idA|idB" (sorted) of every planted original/copy pair, with the edit used. */
  planted: Map<string, CopyTransform>;
  /** "idA|idB" (sorted) of every pair drawn as a recolour of the other, with its kind. */
  recolours: Map<string, string>;
}

/**
 * The corpus seed (`DUPES_SEED=N npm run bench -- --only dupes`): thresholds are chosen on the
 * default seed and checked on another, so they are not fitted to one set of drawings.
 */
const DEFAULT_SEED = 2024;

const pairKey = (a: string, b: string) => (a < b ? `${a}|${b}` : `${b}|${a}`);

async function analysedItem(id: string, file: string, bytes: Buffer): Promise<DupeItem> {
  const result = await analyseImage(bytes);
  if (!result.ok) throw new Error(`benchmark image ${file} failed analysis: ${result.message}`);
  return { id, file, phash: result.phash, thumb: result.thumb.rgb, texture: result.texture, width: result.width, height: result.height };
}

/**
 * `count` look-alike drawings (tools/sample/frog-variations.ts); half of them with a planted
 * copy (the edits cycle), a quarter with a recoloured variant (the recolours cycle), an eighth
 * with a local recolour (mouth, eyes, badge in turn). Then flat pictures
 * (tools/sample/flat-pictures.ts): emoji faces in four skin tones whose pairs differ only in
 * the mouth's colour, and single-colour shapes in four colours that a gamma or gain on every
 * channel makes of one another.
 */
export async function makeCorpus(count: number, log: (message: string) => void, seed = DEFAULT_SEED): Promise<Corpus> {
  const variants = frogVariations(count, seed);
  const rand = seededRandom(seed + 1);
  // Streams of their own, so that the frogs' recolours stay what they were before these kinds.
  const localRand = seededRandom(seed + 2);
  const corpus: Corpus = { items: [], params: new Map(), planted: new Map(), recolours: new Map() };
  const batch = 4;
  for (let start = 0; start < variants.length; start += batch) {
    const made = await Promise.all(
      variants.slice(start, start + batch).map(async (params, offset) => {
        const k = start + offset;
        // Drawn before any await: the order of the random draws is fixed.
        const local = k % LOCAL_EVERY === 3 ? locallyRecoloured(params, LOCAL_RECOLOURS[Math.floor(k / LOCAL_EVERY) % LOCAL_RECOLOURS.length]!, localRand) : null;
        const png = await renderFrog(params, VARIANT_SIZE).png().toBuffer();
        corpus.params.set(`v${k}`, params);
        const out = [await analysedItem(`v${k}`, `variants/${k}.png`, png)];
        const copyIndex = Math.floor(k / EVERY) * 2 + (k % EVERY);
        if (k % EVERY < 2) {
          const transform = COPY_TRANSFORMS[copyIndex % COPY_TRANSFORMS.length]!;
          corpus.params.set(`c${k}`, params);
          out.push(await analysedItem(`c${k}`, `copies/${k}-${transform}`, await plantedCopy(png, transform)));
          corpus.planted.set(pairKey(`v${k}`, `c${k}`), transform);
        } else if (k % EVERY === 2) {
          const kind = RECOLOURS[Math.floor(k / EVERY) % RECOLOURS.length]!;
          const other = recoloured(params, kind, rand);
          corpus.params.set(`r${k}`, other);
          out.push(await analysedItem(`r${k}`, `recoloured/${k}-${kind}.png`, await renderFrog(other, VARIANT_SIZE).png().toBuffer()));
          corpus.recolours.set(pairKey(`v${k}`, `r${k}`), `recolour: ${kind}`);
        } else if (local) {
          const { kind, pair } = local;
          // A badge is on both pictures (the variant has none): two more pictures, `l<k>` and `m<k>`.
          const [first, second] = kind === 'badge' ? ['l', 'm'] : ['v', 'l'];
          for (const [id, drawing] of [[`${first}${k}`, pair[0]], [`${second}${k}`, pair[1]]] as const) {
            if (id === `v${k}`) continue;
            corpus.params.set(id, drawing);
            out.push(await analysedItem(id, `local/${id}-${kind}.png`, await renderFrog(drawing, VARIANT_SIZE).png().toBuffer()));
          }
          corpus.recolours.set(pairKey(`${first}${k}`, `${second}${k}`), `local recolour: ${kind}`);
        }
        return out;
      }),
    );
    corpus.items.push(...made.flat());
    if (start % 100 === 0) log(`corpus ${start}/${count}`);
  }
  await addFlatPictures(corpus, count, seed);
  return corpus;
}

/** The flat pictures (emoji faces, single-colour shapes) and their recoloured pairs, added to `corpus`. */
export async function addFlatPictures(corpus: Corpus, count: number, seed: number): Promise<void> {
  const batch = 4;
  const flatRand = seededRandom(seed + 3);
  const { faces, mouthPairs } = emojiFaces(Math.max(2, Math.round(count / 110)), 4, flatRand);
  const shapes = flatShapes(Math.max(2, Math.round(count / 125)), flatRand);
  const flat = [...faces.map((p, i) => [`face${i}`, p] as const), ...shapes.map((p, i) => [`shape${i}`, p] as const)];
  for (let start = 0; start < flat.length; start += batch) {
    const made = await Promise.all(flat.slice(start, start + batch).map(async ([id, p]) => analysedItem(id, `flat/${id}-${p.kind}.png`, await renderFlat(p, VARIANT_SIZE).png().toBuffer())));
    corpus.items.push(...made);
  }
  for (const [id, p] of flat) corpus.params.set(id, p);
  for (const [i, j] of mouthPairs) corpus.recolours.set(pairKey(`face${i}`, `face${j}`), 'local recolour: an emoji face\'s mouth');
  // Each shape comes in four colours in a row: every pair of them is a recolour.
  for (let i = 0; i < shapes.length; i++) for (let j = i + 1; j < shapes.length && Math.floor(j / 4) === Math.floor(i / 4); j++) corpus.recolours.set(pairKey(`shape${i}`, `shape${j}`), 'flat shape in another colour');
}

const per1000 = (count: number, corpus: Corpus) => round((count * 1000) / corpus.items.length, 2);

/**
 * Two items drawn from the same parameters: a planted copy and its original, or two recolours
 * that happen to land on the same picture (seed 123 draws one picture twice, byte for byte).
 * Reporting them is right, so they never count as distinct pairs.
 */
function sameDrawing(corpus: Corpus, a: string, b: string): boolean {
  let keys = drawingKeys.get(corpus);
  if (!keys) drawingKeys.set(corpus, (keys = new Map([...corpus.params].map(([id, params]) => [id, JSON.stringify(params)]))));
  return keys.get(a) === keys.get(b);
}
/** Each corpus's parameters as JSON, made once: the phash-only figures compare up to 80k pairs. */
const drawingKeys = new WeakMap<Corpus, Map<string, string>>();
const distinctCount = (corpus: Corpus, pairs: readonly { a: string; b: string }[]) => pairs.filter((p) => !sameDrawing(corpus, p.a, p.b)).length;
const ids = (pairs: readonly DupePair[]) => pairs.map((p) => ({ a: p.a.id, b: p.b.id }));

/** What kind of pair two ids are: a planted copy's edit, one drawing made twice, a recolour, or two look-alike drawings. */
function pairKind(corpus: Corpus, a: string, b: string): { copy?: CopyTransform; same?: true; kind: string } {
  const key = pairKey(a, b);
  const copy = corpus.planted.get(key);
  if (copy) return { copy, kind: copy };
  if (sameDrawing(corpus, a, b)) return { same: true, kind: 'one drawing made twice (not counted)' };
  const recolour = corpus.recolours.get(key);
  if (recolour) return { kind: recolour };
  if (a.startsWith('face') && b.startsWith('face')) return { kind: 'emoji faces (another skin tone or design)' };
  return { kind: a.startsWith('shape') && b.startsWith('shape') ? 'flat shapes (another shape)' : 'look-alike drawings' };
}

/** What differs between the two pictures of each false pair at the defaults (to see what the detector cannot tell apart). */
function falsePairRows(corpus: Corpus, pairs: DupePair[]): Record<string, string | number>[] {
  return pairs
    .filter((p) => !corpus.planted.has(pairKey(p.a.id, p.b.id)))
    .map((p) => {
      const x: Record<string, unknown> = { ...corpus.params.get(p.a.id) };
      const y: Record<string, unknown> = { ...corpus.params.get(p.b.id) };
      const differs = Object.keys(x).filter((k) => JSON.stringify(x[k]) !== JSON.stringify(y[k]));
      const verdict = judgePair(corpus.items.find((i) => i.id === p.a.id)!, corpus.items.find((i) => i.id === p.b.id)!);
      return {
        a: p.a.file,
        b: p.b.file,
        kind: pairKind(corpus, p.a.id, p.b.id).kind,
        distance: p.distance,
        'changed / region px': `${verdict.comparison?.changedPixels} / ${verdict.comparison?.regionPixels}`,
        differs: differs.map((k) => `${k}: ${JSON.stringify(x[k])} vs ${JSON.stringify(y[k])}`).join('; ').replaceAll('|', '/'),
      };
    });
}

function accuracyRows(corpus: Corpus, thresholds: number[]): Record<string, string | number>[] {
  const hashes = corpus.items.map((item) => parseHash(item.phash)!);
  return thresholds.map((threshold) => {
    const candidates = pairsWithinDistance(hashes, threshold);
    const plantedCandidates = candidates.filter((p) => corpus.planted.has(pairKey(corpus.items[p.i]!.id, corpus.items[p.j]!.id))).length;
    const pairs = findNearDuplicates(corpus.items, { threshold });
    const found = pairs.filter((p) => corpus.planted.has(pairKey(p.a.id, p.b.id))).length;
    return {
      'phash threshold': threshold + (threshold === DEFAULT_PHASH_THRESHOLD ? ' (default)' : ''),
      images: corpus.items.length,
      planted: corpus.planted.size,
      'recall, phash only %': round((100 * plantedCandidates) / corpus.planted.size, 1),
      'distinct pairs /1000, phash only': per1000(distinctCount(corpus, candidates.map((p) => ({ a: corpus.items[p.i]!.id, b: corpus.items[p.j]!.id }))), corpus),
      'recall %': round((100 * found) / corpus.planted.size, 1),
      'distinct pairs /1000': per1000(distinctCount(corpus, ids(pairs)), corpus),
    };
  });
}

/** Where a planted copy the detector missed was lost: not a candidate, or which confirmation rule rejected it. */
function lossOf(distance: number, keyDistance: number, verdict: ReturnType<typeof judgePair>): string {
  if (distance > DEFAULT_PHASH_THRESHOLD && keyDistance > THUMB_KEY_RADIUS) return 'not a candidate';
  if (verdict.same) return 'found';
  if (verdict.layoutDifference === undefined) return 'shape';
  if (!verdict.comparison) return 'layout';
  if (verdict.rule.startsWith('one colour')) return 'one colour';
  if (verdict.comparison.regionPixels > CONFIRM_DEFAULTS.maxRegionPixels) return 'region';
  if (verdict.rule.startsWith('a small area differs')) return 'local recolour';
  if (verdict.rule.startsWith('a colour\'s hue turned')) return 'hue';
  // The texture rule comes last: a pair it rejects passed every colour rule.
  if (verdict.rule.startsWith('a pattern differs')) return 'pattern';
  return verdict.comparison.fineRegionPixels > CONFIRM_DEFAULTS.maxFineRegionPixels ? 'close shade' : 'scattered';
}

function perEditRows(corpus: Corpus, pairs: DupePair[]): Record<string, string | number>[] {
  const byId = new Map(corpus.items.map((item) => [item.id, item]));
  const found = new Set(pairs.map((p) => pairKey(p.a.id, p.b.id)));
  const rows = COPY_TRANSFORMS.map((transform) => {
    const keys = [...corpus.planted].filter(([, t]) => t === transform).map(([key]) => key);
    const sides = keys.map((key) => key.split('|').map((id) => byId.get(id)!) as [DupeItem, DupeItem]);
    const distances = sides.map(([a, b]) => hammingDistance(parseHash(a.phash)!, parseHash(b.phash)!));
    const keyDistances = sides.map(([a, b]) => hammingDistance(thumbKey(a.thumb), thumbKey(b.thumb)));
    const verdicts = sides.map(([a, b]) => judgePair(a, b));
    const losses = verdicts.map((verdict, k) => (found.has(keys[k]!) ? 'found' : lossOf(distances[k]!, keyDistances[k]!, verdict)));
    const lost = (loss: string) => losses.filter((l) => l === loss).length;
    return {
      edit: transform,
      copies: keys.length,
      found: keys.filter((k) => found.has(k)).length,
      'recall %': round((100 * keys.filter((k) => found.has(k)).length) / Math.max(1, keys.length), 1),
      'lost: not a candidate': lost('not a candidate'),
      'lost: shape': lost('shape'),
      'lost: layout': lost('layout'),
      'lost: region': lost('region'),
      'lost: close shade': lost('close shade'),
      'lost: local recolour': lost('local recolour'),
      'lost: one colour': lost('one colour'),
      'lost: hue': lost('hue'),
      'lost: pattern': lost('pattern'),
      'lost: scattered': lost('scattered'),
      'max phash bits': Math.max(...distances),
      [`phash ≤ ${DEFAULT_PHASH_THRESHOLD} %`]: round((100 * distances.filter((d) => d <= DEFAULT_PHASH_THRESHOLD).length) / Math.max(1, keys.length), 1),
      'max changed px': Math.max(...verdicts.map((v) => v.comparison?.changedPixels ?? 1024)),
      'max region px': Math.max(...verdicts.map((v) => v.comparison?.regionPixels ?? 1024)),
    };
  });
  const sum = (key: string) => rows.reduce((total, row) => total + (row[key as keyof typeof row] as number), 0);
  const copies = sum('copies');
  return [
    ...rows,
    {
      edit: 'all',
      copies,
      found: sum('found'),
      'recall %': round((100 * sum('found')) / Math.max(1, copies), 1),
      'lost: not a candidate': sum('lost: not a candidate'),
      'lost: shape': sum('lost: shape'),
      'lost: layout': sum('lost: layout'),
      'lost: region': sum('lost: region'),
      'lost: close shade': sum('lost: close shade'),
      'lost: local recolour': sum('lost: local recolour'),
      'lost: one colour': sum('lost: one colour'),
      'lost: hue': sum('lost: hue'),
      'lost: pattern': sum('lost: pattern'),
      'lost: scattered': sum('lost: scattered'),
      'max phash bits': Math.max(...rows.map((r) => r['max phash bits'])),
      [`phash ≤ ${DEFAULT_PHASH_THRESHOLD} %`]: round(rows.reduce((total, row) => total + (row[`phash ≤ ${DEFAULT_PHASH_THRESHOLD} %`] as number) * row.copies, 0) / Math.max(1, copies), 1),
      'max changed px': Math.max(...rows.map((r) => r['max changed px'])),
      'max region px': Math.max(...rows.map((r) => r['max region px'])),
    },
  ];
}

/** Distinct pairs reported, per kind: each recolour (against its original) and look-alike drawings. */
function distinctRows(corpus: Corpus, pairs: DupePair[]): Record<string, string | number>[] {
  const byId = new Map(corpus.items.map((item) => [item.id, item]));
  const reported = new Map<string, number>();
  for (const p of pairs) {
    const { copy, same, kind } = pairKind(corpus, p.a.id, p.b.id);
    if (!copy && !same) reported.set(kind, (reported.get(kind) ?? 0) + 1);
  }
  const rows = [...new Set([...RECOLOURS.map((r) => `recolour: ${r}`), ...corpus.recolours.values()])].map((recolour) => {
    const keys = [...corpus.recolours].filter(([, r]) => r === recolour).map(([key]) => key);
    const near = keys.filter((key) => {
      const [a, b] = key.split('|').map((id) => byId.get(id)!) as [DupeItem, DupeItem];
      return hammingDistance(parseHash(a.phash)!, parseHash(b.phash)!) <= DEFAULT_PHASH_THRESHOLD;
    }).length;
    const count = reported.get(recolour) ?? 0;
    return { kind: recolour, pairs: keys.length, [`phash ≤ ${DEFAULT_PHASH_THRESHOLD}`]: near, reported: count, 'reported /1000 images': per1000(count, corpus) };
  });
  const others = ['emoji faces (another skin tone or design)', 'flat shapes (another shape)', 'look-alike drawings'].map((kind) => {
    const count = reported.get(kind) ?? 0;
    return { kind: kind === 'look-alike drawings' ? 'look-alike drawings (any other pair)' : kind, pairs: '', [`phash ≤ ${DEFAULT_PHASH_THRESHOLD}`]: '', reported: count, 'reported /1000 images': per1000(count, corpus) };
  });
  return [...rows, ...others];
}

/**
 * The local recolour rule's figures, per kind of pair compared as they are (no edit undone,
 * no crop) with at least one pixel off by more than the fine tolerance: how many such pixels
 * and how large the box around every difference. Copies must stay above the box limit,
 * local recolours under it.
 */
function localRows(corpus: Corpus): Record<string, string | number>[] {
  const byId = new Map(corpus.items.map((item) => [item.id, item]));
  const groups = new Map<string, { local: number; box: number; decided: boolean }[]>();
  for (const [key, kind] of [...[...corpus.planted].map(([k, t]) => [k, `copy: ${t}`] as const), ...corpus.recolours]) {
    const [a, b] = key.split('|').map((id) => byId.get(id)!) as [DupeItem, DupeItem];
    const verdict = judgePair(a, b);
    const c = verdict.comparison;
    if (!c || c.crop || c.localPixels === 0 || c.tone.channels || c.tone.chroma !== 1 || c.tone.lightness.gain !== 1 || c.tone.lightness.offset !== 0 || c.tone.lightness.gamma !== 1) continue;
    const group = kind.startsWith('copy') ? 'planted copies' : kind;
    groups.set(group, [...(groups.get(group) ?? []), { local: c.localPixels, box: c.offBox, decided: verdict.rule.startsWith('a small area differs') }]);
  }
  return [...groups].map(([kind, rows]) => ({
    kind,
    'pairs compared as they are, off px > 0': rows.length,
    [`off px (ΔE ${CONFIRM_DEFAULTS.fineTolerance}) min–max`]: `${Math.min(...rows.map((r) => r.local))}–${Math.max(...rows.map((r) => r.local))}`,
    'box px min–max': `${Math.min(...rows.map((r) => r.box))}–${Math.max(...rows.map((r) => r.box))}`,
    [`box ≤ ${CONFIRM_DEFAULTS.maxLocalBox}`]: rows.filter((r) => r.box <= CONFIRM_DEFAULTS.maxLocalBox).length,
    'decided by the local rule': rows.filter((r) => r.decided).length,
  }));
}

/** Sweeps the confirmation settings on the phash candidates at the default threshold. */
function confirmationRows(corpus: Corpus): Record<string, string | number>[] {
  const rows: Record<string, string | number>[] = [];
  for (const maxChangedPixels of [2, 4, 8]) {
    for (const maxFineRegionPixels of [1024, 80, 32, 16]) {
      const pairs = findNearDuplicates(corpus.items, { confirm: { maxChangedPixels, maxFineRegionPixels } });
      const found = pairs.filter((p) => corpus.planted.has(pairKey(p.a.id, p.b.id))).length;
      const isDefault = maxFineRegionPixels === CONFIRM_DEFAULTS.maxFineRegionPixels && maxChangedPixels === CONFIRM_DEFAULTS.maxChangedPixels;
      rows.push({
        'max changed px (ΔE 4)': maxChangedPixels,
        [`max fine region px (ΔE ${CONFIRM_DEFAULTS.fineTolerance})`]: (maxFineRegionPixels === 1024 ? 'off' : maxFineRegionPixels) + (isDefault ? ' (default)' : ''),
        'recall %': round((100 * found) / corpus.planted.size, 1),
        'distinct pairs /1000': per1000(distinctCount(corpus, ids(pairs)), corpus),
      });
    }
  }
  return rows;
}

/** 100k items: uniform random hashes, or clustered ones (like a catalogue of similar cartoons). */
function syntheticItems(n: number, clustered: boolean, seed: number): DupeItem[] {
  const rand = seededRandom(seed);
  const u32 = () => Math.floor(rand() * 2 ** 32) >>> 0;
  // A thumbnail of its own for every item (one buffer, filled by xorshift: rand() per byte is
  // slow at 400 MB): shared thumbnails would share the thumbnail key and all be candidates.
  // Each item's 4 KB is its thumbnail then its texture map, as the build cache stores them.
  const thumbBytes = new Uint8Array(n * 4096);
  const words = new Uint32Array(thumbBytes.buffer);
  let x = (u32() | 1) >>> 0;
  for (let k = 0; k < words.length; k++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[k] = x >>> 0;
  }
  const centres = Array.from({ length: Math.ceil(n / 50) }, () => ({ hi: u32(), lo: u32() }));
  const hex = (h: Hash64) => h.hi.toString(16).padStart(8, '0') + h.lo.toString(16).padStart(8, '0');
  return Array.from({ length: n }, (_, k) => {
    let hash = { hi: u32(), lo: u32() };
    if (clustered) {
      // 12 random bits flipped from one of n/50 centres: look-alikes share long runs of bits.
      hash = { ...centres[Math.floor(rand() * centres.length)]! };
      for (let f = 0; f < 12; f++) {
        const bit = Math.floor(rand() * 64);
        if (bit < 32) hash.hi = (hash.hi ^ (1 << bit)) >>> 0;
        else hash.lo = (hash.lo ^ (1 << (bit - 32))) >>> 0;
      }
    }
    return { id: `s${k}`, file: `synthetic/${String(k).padStart(6, '0')}.png`, phash: hex(hash), thumb: thumbBytes.subarray(k * 4096, k * 4096 + 3072), texture: thumbBytes.subarray(k * 4096 + 3072, (k + 1) * 4096), width: 512, height: 512 };
  });
}

function timeMs(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

function speedRows(quick: boolean): Record<string, string | number>[] {
  const big = quick ? 20_000 : 100_000;
  const small = quick ? 4_000 : 10_000;
  const rows: Record<string, string | number>[] = [];
  for (const clustered of [false, true]) {
    const items = syntheticItems(big, clustered, clustered ? 7 : 3);
    const cpuBefore = process.cpuUsage();
    const fullMs = timeMs(() => findNearDuplicates(items));
    const cpu = process.cpuUsage(cpuBefore);
    const smallHashes = items.slice(0, small).map((item) => parseHash(item.phash)!);
    const indexedSmallMs = timeMs(() => pairsWithinDistance(smallHashes, DEFAULT_PHASH_THRESHOLD));
    const bruteSmallMs = timeMs(() => referencePairs(smallHashes, DEFAULT_PHASH_THRESHOLD));
    rows.push({
      hashes: clustered ? 'clustered' : 'uniform',
      n: big,
      'findNearDuplicates ms': round(fullMs, 0),
      // CPU time of this process: on a machine shared with other jobs, wall time overstates the work.
      'findNearDuplicates CPU ms': round((cpu.user + cpu.system) / 1000, 0),
      'small n': small,
      'indexed ms (small n)': round(indexedSmallMs, 1),
      'all-pairs ms (small n)': round(bruteSmallMs, 1),
      'speed-up (small n)': round(bruteSmallMs / indexedSmallMs, 1),
      'all-pairs ms at n, extrapolated': round(bruteSmallMs * (big / small) ** 2, 0),
    });
  }
  return rows;
}

export default {
  name: 'dupes',
  async run(ctx) {
    // DUPES_PART=speed times the search alone (the accuracy part redraws a corpus and searches it 16 times).
    const part = process.env.DUPES_PART ?? 'all';
    if (!['all', 'speed', 'accuracy'].includes(part)) throw new Error(`DUPES_PART must be all, speed or accuracy, got "${part}"`);
    if (part !== 'speed') await accuracy(ctx);
    if (part === 'accuracy') return;
    ctx.log('timing the candidate search');
    ctx.table('speed (one run, same process)', speedRows(ctx.quick));
  },
} satisfies Bench;

/** The corpus of the seed (`DUPES_SEED`) searched at the defaults and the sweeps: recall, distinct pairs and what decided. */
async function accuracy(ctx: BenchContext): Promise<void> {
  const count = ctx.quick ? 200 : 1000;
  const seed = process.env.DUPES_SEED ? Number(process.env.DUPES_SEED) : DEFAULT_SEED;
  if (!Number.isSafeInteger(seed)) throw new Error(`DUPES_SEED must be an integer, got "${process.env.DUPES_SEED}"`);
  ctx.log(`drawing and analysing ${count} frog variants, planted copies and recolours (seed ${seed})`);
  const corpus = await makeCorpus(count, ctx.log, seed);
  const title = `${corpus.items.length} images: ${count} drawings + ${corpus.planted.size} copies + ${corpus.recolours.size} recoloured pairs, seed ${seed}`;
  const pairs = findNearDuplicates(corpus.items);
  ctx.table(`accuracy by phash threshold (${title}, confirmation at defaults)`, accuracyRows(corpus, [6, 8, 10]));
  ctx.table('planted copies by edit (defaults)', perEditRows(corpus, pairs));
  ctx.table('distinct pairs reported, by kind (defaults)', distinctRows(corpus, pairs));
  ctx.table('distinct pairs reported at the defaults', falsePairRows(corpus, pairs));
  ctx.table('local recolour rule: pairs compared as they are', localRows(corpus));
  ctx.table(`confirmation settings (phash threshold ${DEFAULT_PHASH_THRESHOLD})`, confirmationRows(corpus));
}
