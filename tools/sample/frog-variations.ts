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

/**
 * Recolours: the same drawing with other colours, a distinct picture a curator keeps (a red
 * pepe, a blue hoodie, another background). None of their colours is one of frog-params.ts's
 * lists, so a recoloured variant never coincides with another variant.
 */
export const RECOLOURS = ['region-hue', 'clothes', 'skin', 'background', 'palette'] as const;
export type Recolour = (typeof RECOLOURS)[number];

const OTHER_SKINS = ['#c0392b', '#3b6fd1', '#8e44ad', '#e1c340', '#9a9a9a', '#e38fb0', '#3a9d8f', '#d97a2b'] as const;
const OTHER_SHIRTS = ['#f5f5f5', '#111111', '#e85d9a', '#5bc0eb', '#9bc53d', '#fde74c', '#8b5a2b', '#ff7f11'] as const;
const OTHER_BACKGROUNDS = ['#ffffff', '#c8e6ff', '#ffe0e0', '#e8ffe0', '#333333', '#a0c4ff', '#fdffb6', '#d7c4f0'] as const;

/** `#rrggbb` ↔ hue (degrees), saturation and lightness (0..1). */
function toHsl(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.slice(1), 16);
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => v / 255) as [number, number, number];
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  const h = max === r ? ((g - b) / d + (g < b ? 6 : 0)) * 60 : max === g ? ((b - r) / d + 2) * 60 : ((r - g) / d + 4) * 60;
  return [h, s, l];
}

function fromHsl(h: number, s: number, l: number): string {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))));
  return `#${((f(0) << 16) | (f(8) << 8) | f(4)).toString(16).padStart(6, '0')}`;
}

/** The colour with its hue turned by `degrees`; a greyish colour gets some saturation, so that it changes too. */
function turnHue(hex: string, degrees: number): string {
  const [h, s, l] = toHsl(hex);
  return fromHsl((h + degrees + 360) % 360, Math.max(s, 0.45), l);
}

/** `params` recoloured one way (`rand` picks the colours): the drawing is the same, the picture is not. */
export function recoloured(params: FrogParams, kind: Recolour, rand: () => number): FrogParams {
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
  const angle = 60 + Math.floor(rand() * 240);
  switch (kind) {
    case 'region-hue':
      return { ...params, shirt: turnHue(params.shirt, angle) };
    case 'clothes':
      return { ...params, shirt: pick(OTHER_SHIRTS) };
    case 'skin':
      return { ...params, skin: pick(OTHER_SKINS) };
    case 'background': {
      const color = pick(OTHER_BACKGROUNDS);
      const [h, s, l] = toHsl(color);
      return { ...params, background: { ...params.background, color, accent: fromHsl(h, s, l > 0.5 ? l - 0.1 : l + 0.1) } };
    }
    case 'palette':
      // Every colour of the picture turned by one angle: a green pepe in a blue shirt becomes a purple one in a yellow shirt.
      return {
        ...params,
        skin: turnHue(params.skin, angle),
        lips: turnHue(params.lips, angle),
        iris: turnHue(params.iris, angle),
        shirt: turnHue(params.shirt, angle),
        background: { ...params.background, color: turnHue(params.background.color, angle), accent: turnHue(params.background.accent, angle) },
      };
  }
}

/**
 * Local recolours: one small feature (1–5% of the picture) in another colour on an otherwise
 * identical drawing: the mouth, the eyes' whites, a badge on the shirt. Another picture too,
 * though only a handful of thumbnail cells show it.
 */
export const LOCAL_RECOLOURS = ['mouth', 'eyes', 'badge'] as const;
export type LocalRecolour = (typeof LOCAL_RECOLOURS)[number];

const OTHER_LIPS = ['#6b3a2a', '#d6336c', '#8b5a2b', '#e0245e', '#5a2d82'] as const;
const EYE_WHITES = ['#f4c2c2', '#fff0a0', '#cfe8ff', '#dcdcdc', '#ffd8b0'] as const;
const BADGES = ['#e0245e', '#f2c12e', '#2f8f86', '#ffffff', '#7b4bb3', '#e85d1a'] as const;

/**
 * The pair of a local recolour: `params` and the same drawing with one feature in another
 * colour. A badge is drawn on both, in two colours (the variant itself has none). Eyes that
 * sunglasses or a sleepy lid hide get their mouth recoloured instead.
 */
export function locallyRecoloured(params: FrogParams, wanted: LocalRecolour, rand: () => number): { kind: LocalRecolour; pair: [FrogParams, FrogParams] } {
  const hidden = params.expression === 'sleepy' || params.accessories.includes('sunglasses');
  const kind = wanted === 'eyes' && hidden ? 'mouth' : wanted;
  return { kind, pair: recolouredPair(params, kind, rand) };
}

function recolouredPair(params: FrogParams, kind: LocalRecolour, rand: () => number): [FrogParams, FrogParams] {
  const pick = <T>(list: readonly T[], not?: T) => {
    const choices = list.filter((x) => x !== not);
    return choices[Math.floor(rand() * choices.length)]!;
  };
  switch (kind) {
    case 'mouth':
      return [params, { ...params, lips: pick(OTHER_LIPS) }];
    case 'eyes':
      return [params, { ...params, eyeWhite: pick(EYE_WHITES) }];
    case 'badge': {
      const first = pick(BADGES);
      return [{ ...params, badge: first }, { ...params, badge: pick(BADGES, first) }];
    }
  }
}
