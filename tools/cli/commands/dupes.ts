import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type AnalysedItem, analyseContent, defaultCacheDir } from '../../catalogue/analyse-content.js';
import { analyseImage } from '../../image/analyse-image.js';
import { printable } from '../../shared/problems.js';
import { unwritableFolder } from '../../catalogue/write-access.js';
import { dupeItems } from '../../catalogue/near-duplicate-problems.js';
import { CONFIRM_DEFAULTS, DEFAULT_PHASH_THRESHOLD, type DupeItem, type DupePair, findNearDuplicates, judgePair } from '../../dupes/near-duplicates.js';
import { THUMB_KEY_RADIUS, thumbKey } from '../../dupes/compare/key.js';
import { TEXTURE_PATTERNED, TEXTURE_PLAIN } from '../../dupes/compare/texture.js';
import { hammingDistance, parseHash } from '../../../functions/core/multi-index.js';
import { intFlag, parseFlags } from '../args.js';
import { CONTENT_FLAGS, contentPaths } from '../content-flags.js';
import { type Command, type Io, UsageError } from '../../shared/io.js';
import { printProblems, withProgress } from '../print-results.js';

/** Above this the candidate search degenerates towards all pairs (segments of 3 bits). */
const MAX_THRESHOLD = 16;

const usage = `Usage: pepe dupes [options]
       pepe dupes --explain A B [options]

Lists near-duplicate image pairs in the content folder: the same picture again (re-encoded,
resized, recompressed, slightly brightened). Candidates come from the phash; each is
confirmed on a 32×32 colour thumbnail after undoing a global brightness, contrast or gamma
edit: what still differs must be scattered edges, not a region, and a pattern (dots, stripes)
must not stand where the other is plain, so look-alikes and recolours (another skin, shirt or
background colour or pattern) are not listed.
Pairs acknowledged by a sidecar's "distinct_from" are left out. Uses the build cache.

Options:
  --content DIR     content folder (default: content)
  --cache DIR       build cache (default: .pepe-cache beside the content folder)
  --threshold N     max phash distance in bits for a candidate, 0..${MAX_THRESHOLD} (default: ${DEFAULT_PHASH_THRESHOLD})
  --json            print [{"a": {"id", "file"}, "b": {"id", "file"}, "distance"}] on stdout
  --explain A B     for two images (each an id, a content-relative file or a path to any
                    image file), print the distances and the rule that decided
  -h, --help        show this help

Exit status: 0 listed (pairs or not), 1 content errors (pairs among the valid images are
still listed; nothing is listed when no image is valid), 2 usage errors.
`;

function formatPairs(pairs: DupePair[], threshold: number): string {
  if (pairs.length === 0) return `No near-duplicates (phash threshold ${threshold}).\n`;
  const lines = pairs.map((p) => `${printable(p.a.file)}  ~  ${printable(p.b.file)}  (distance ${p.distance})\n    ids ${p.a.id}, ${p.b.id}\n`);
  return `${pairs.length} near-duplicate pair${pairs.length === 1 ? '' : 's'} (phash threshold ${threshold}):\n${lines.join('')}`;
}

/** An item of the catalogue by id (any letter case) or file (content-relative, or a path to it), else any image file, analysed here. */
async function explainedItem(ref: string, items: AnalysedItem[], io: Io): Promise<DupeItem | string> {
  const abs = resolve(io.cwd, ref);
  const item = items.find((i) => i.record.id.toLowerCase() === ref.toLowerCase()) ?? items.find((i) => i.file === ref || i.abs === abs);
  if (item) return dupeItems([item])[0]!;
  let bytes: Buffer;
  try {
    bytes = await readFile(abs);
  } catch {
    return `"${printable(ref)}" is neither an id nor an image of the content folder, nor a readable file: give an id, a content-relative path or a path to an image file`;
  }
  const result = await analyseImage(bytes);
  if (!result.ok) return `${printable(ref)}: ${result.message}`;
  return { id: '(not in the catalogue)', file: ref, phash: result.phash, thumb: result.thumb.rgb, texture: result.texture, width: result.width, height: result.height };
}

const percent = (share: number) => `${(100 * share).toFixed(1)}%`;

/** The figures of one pair and the rule that decided, for people. */
function explanation(a: DupeItem, b: DupeItem, threshold: number): string {
  const distance = hammingDistance(parseHash(a.phash)!, parseHash(b.phash)!);
  const keyDistance = hammingDistance(thumbKey(a.thumb), thumbKey(b.thumb));
  const verdict = judgePair(a, b);
  const lines = [
    `A: ${printable(a.file)} (id ${a.id}), ${a.width}×${a.height}, phash ${a.phash}`,
    `B: ${printable(b.file)} (id ${b.id}), ${b.width}×${b.height}, phash ${b.phash}`,
    `phash distance: ${distance} bits (a candidate at most ${threshold})`,
    `thumbnail key distance: ${keyDistance} bits (a candidate at most ${THUMB_KEY_RADIUS})`,
    `aspect ratios differ by ${percent(Math.exp(verdict.aspectDifference) - 1)} (at most ${percent(Math.exp(CONFIRM_DEFAULTS.maxAspectDifference) - 1)})`,
  ];
  if (verdict.layoutDifference !== undefined) lines.push(`grey layouts differ by ${verdict.layoutDifference.toFixed(3)} (at most ${CONFIRM_DEFAULTS.maxLayoutDifference})`);
  const c = verdict.comparison;
  if (c) {
    const { gain, offset, gamma } = c.tone.lightness;
    const curve = c.tone.channels;
    lines.push(
      curve
        ? `tone undone, ${curve.reversed ? 'lighter → darker' : 'darker → lighter'} thumbnail: each sRGB channel v → ${curve.gain.toFixed(3)}·v^${curve.gamma.toFixed(3)} ${curve.offset < 0 ? '−' : '+'} ${Math.abs(curve.offset).toFixed(3)}`
        : `tone undone, darker → lighter thumbnail: lightness ×${gain.toFixed(3)} ${offset < 0 ? '−' : '+'} ${Math.abs(offset).toFixed(2)}, gamma ${gamma.toFixed(3)}; chroma ×${c.tone.chroma.toFixed(3)}`,
      c.crop
        ? `crop undone: ${c.crop.cropped === 'a' ? 'A' : 'B'} is cut ${percent(c.crop.left)} left, ${percent(c.crop.right)} right, ${percent(c.crop.top)} top, ${percent(c.crop.bottom)} bottom`
        : 'crop undone: none',
      c.crop
        ? `changed thumbnail pixels: ${c.changedPixels} of 1,024 once the crop is undone, ${c.uncroppedChangedPixels} before (colour off by more than ΔE ${CONFIRM_DEFAULTS.tolerance} from the range of the cells it lies between; at most ${CONFIRM_DEFAULTS.maxCroppedChangedPixels} when at least ${CONFIRM_DEFAULTS.minUncroppedChangedPixels} changed before, at most ${percent(CONFIRM_DEFAULTS.maxCroppedShare)} of them remain and the mean difference is at most ${CONFIRM_DEFAULTS.maxCroppedMeanDifference}, else ${CONFIRM_DEFAULTS.maxChangedPixels})`
        : `changed thumbnail pixels: ${c.changedPixels} of 1,024 (colour off by more than ΔE ${CONFIRM_DEFAULTS.tolerance}; at most ${CONFIRM_DEFAULTS.maxChangedPixels})`,
      `of which in a region (all 3×3 neighbours changed too): ${c.regionPixels} (at most ${CONFIRM_DEFAULTS.maxRegionPixels})`,
      `in an area off by a close shade (ΔE ${CONFIRM_DEFAULTS.fineTolerance}, all 3×3 neighbours too): ${c.fineRegionPixels} (at most ${CONFIRM_DEFAULTS.maxFineRegionPixels})`,
      `mean colour difference: ΔE ${c.meanDifference.toFixed(2)}`,
      c.crop
        ? 'local recolour: not looked for with a crop'
        : `local recolour: ${c.localPixels} thumbnail pixels off by more than ΔE ${CONFIRM_DEFAULTS.fineTolerance}, every difference within a box of ${c.offBox} pixels, the drawing's box ${c.drawingBox} (a local recolour when compared as they are: at least ${CONFIRM_DEFAULTS.minLocalPixels} in at most ${CONFIRM_DEFAULTS.maxLocalBox} and ${percent(CONFIRM_DEFAULTS.maxLocalShare)} of the drawing's)`,
      `colours besides white and black: ${c.oneColour ? `one, so no edit was undone (a flat shape in another colour is a recolour); its area off at all (ΔE 1, all 3×3 neighbours too): ${c.exactRegionPixels} pixels (at most ${CONFIRM_DEFAULTS.maxOneColourPixels})` : 'two or more (or no edit to undo)'}`,
      verdict.hueShift
        ? `hue turned in one colour's area once the tone is undone: ΔH ${verdict.hueShift.deltaH.toFixed(2)} over ${verdict.hueShift.cells} thumbnail pixels (at most ${CONFIRM_DEFAULTS.maxHueShift})`
        : 'hue turned in one colour\'s area: not measured (a crop, or another rule decided first)',
      `cells patterned in one picture where the other is plain (texture maps: at least ${TEXTURE_PATTERNED}, at most ${TEXTURE_PLAIN} with all 3×3 neighbours, no colour step): ${verdict.textureCells}${c.crop ? ' once the crop is undone' : ''} (at most ${c.crop ? CONFIRM_DEFAULTS.maxCroppedTextureCells : CONFIRM_DEFAULTS.maxTextureCells})`,
    );
  }
  const acknowledged = (a.distinctFrom ?? []).some((id) => id.toLowerCase() === b.id.toLowerCase()) || (b.distinctFrom ?? []).some((id) => id.toLowerCase() === a.id.toLowerCase());
  const decision =
    distance > threshold && keyDistance > THUMB_KEY_RADIUS
      ? `not a near-duplicate: the phash distance ${distance} is over ${threshold} bits and the thumbnail key distance ${keyDistance} over ${THUMB_KEY_RADIUS}, so the pair is never a candidate (the thumbnails alone would say: ${verdict.rule})`
      : `${verdict.same ? 'a near-duplicate' : 'not a near-duplicate'}: ${verdict.rule}`;
  lines.push(`verdict: ${decision}`);
  if (acknowledged) lines.push('listed: no, a sidecar acknowledges the pair with "distinct_from"');
  return `${lines.join('\n')}\n`;
}

export default {
  name: 'dupes',
  summary: 'list near-duplicate image pairs in content/',
  usage,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { ...CONTENT_FLAGS, threshold: { type: 'string' }, json: { type: 'boolean' }, explain: { type: 'boolean' } }, true);
    if (values.explain ? positionals.length !== 2 : positionals.length > 0) {
      throw new UsageError(values.explain ? `--explain takes two images (ids or files), got ${positionals.length}` : `unexpected argument "${printable(positionals[0]!)}": to compare two images, use --explain A B`);
    }
    if (values.explain && values.json) throw new UsageError('--explain prints for people: leave out --json');
    const threshold = intFlag('threshold', values.threshold, DEFAULT_PHASH_THRESHOLD, 0, MAX_THRESHOLD);
    const paths = contentPaths(values, io.cwd);
    // The cache only saves time here: one this user cannot write (a read-only checkout) is read, not updated.
    const writeCache = unwritableFolder([paths.cacheDir ?? defaultCacheDir(paths.contentDir)]) === null;
    const analysis = await withProgress(io, (onProgress) => analyseContent({ ...paths, writeCache, onProgress }));
    printProblems(io, analysis.problems);
    const failed = analysis.problems.some((p) => p.severity === 'error');
    // No valid image (a missing or unreadable content folder…): there is no list to print, not an empty one.
    if (failed && analysis.items.length === 0) return 1;
    if (values.explain) {
      const sides = await Promise.all(positionals.map((ref) => explainedItem(ref, analysis.items, io)));
      const missing = sides.filter((side) => typeof side === 'string');
      for (const message of missing) io.stderr(`error: ${message} [explain-not-found]\n`);
      if (missing.length > 0) return 1;
      io.stdout(explanation(sides[0] as DupeItem, sides[1] as DupeItem, threshold));
      return failed ? 1 : 0;
    }
    const pairs = findNearDuplicates(dupeItems(analysis.items), { threshold });
    if (values.json) {
      // Exactly the documented shape, key order fixed, one pair per line for diffs.
      const rows = pairs.map((p) => JSON.stringify({ a: { id: p.a.id, file: p.a.file }, b: { id: p.b.id, file: p.b.file }, distance: p.distance }));
      io.stdout(rows.length === 0 ? '[]\n' : `[\n  ${rows.join(',\n  ')}\n]\n`);
    } else {
      io.stdout(formatPairs(pairs, threshold));
    }
    return failed ? 1 : 0;
  },
} satisfies Command;
