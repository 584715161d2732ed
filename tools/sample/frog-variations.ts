/**
 * Many distinct frog pictures that look alike: the hard case for near-duplicate detection.
 * Each variant differs from every other in at least one thing a viewer sees (expression,
 * accessory, skin, shirt, background colour or pattern, pose). Mirror images are left out on
 * purpose: whether a flipped picture is "the same" is a policy question, not a test case.
 */
import { ACCESSORIES, BACKGROUNDS, EXPRESSIONS, PATTERNS, SHIRTS, SKINS, withParams, type FrogParams } from './frog-params.js';
import { seededRandom } from '../shared/seeded-random.js';

const POSES: readonly FrogParams['pose'][] = [
  { zoom: 1, tilt: 0, shiftX: 0, flip: false },
  { zoom: 0.9, tilt: -5, shiftX: 15, flip: false },
  { zoom: 1.1, tilt: 4, shiftX: -10, flip: false },
];

/** The attribute choices, in mixed-radix order: a variant is one number below their product. */
const AXES = [EXPRESSIONS.length, ACCESSORIES.length + 1, SKINS.length, SHIRTS.length, BACKGROUNDS.length, PATTERNS.length, POSES.length];
const VARIANT_SPACE = AXES.reduce((product, size) => product * size, 1);

function variantParams(code: number): FrogParams {
  const digits: number[] = [];
  let rest = code;
  for (const size of AXES) {
    digits.push(rest % size);
    rest = Math.floor(rest / size);
  }
  const [expression, accessory, skin, shirt, background, pattern, pose] = digits as [number, number, number, number, number, number, number];
  return withParams({
    expression: EXPRESSIONS[expression]!,
    accessories: accessory === 0 ? [] : [ACCESSORIES[accessory - 1]!],
    skin: SKINS[skin]!,
    shirt: SHIRTS[shirt]!,
    background: { ...BACKGROUNDS[background]!, pattern: PATTERNS[pattern]! },
    pose: POSES[pose]!,
  });
}

/**
 * `count` distinct variants chosen with a seed. Half of them are built as neighbours of
 * earlier ones (one attribute changed), so the set is full of look-alike pairs, not only
 * random, very different combinations.
 */
export function frogVariations(count: number, seed = 1): FrogParams[] {
  const rand = seededRandom(seed);
  const codes: number[] = [];
  const seen = new Set<number>();
  while (codes.length < count) {
    let code = Math.floor(rand() * VARIANT_SPACE);
    if (codes.length > 0 && rand() < 0.5) {
      // A neighbour: change one digit of an earlier variant.
      const base = codes[Math.floor(rand() * codes.length)]!;
      const axis = Math.floor(rand() * AXES.length);
      const weight = AXES.slice(0, axis).reduce((product, size) => product * size, 1);
      const digit = Math.floor(base / weight) % AXES[axis]!;
      const other = (digit + 1 + Math.floor(rand() * (AXES[axis]! - 1))) % AXES[axis]!;
      code = base + (other - digit) * weight;
    }
    if (seen.has(code)) continue;
    seen.add(code);
    codes.push(code);
  }
  return codes.map(variantParams);
}
