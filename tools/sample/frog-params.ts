/**
 * The parameters of an original pepe-style cartoon frog. Every picture in `content/` and in
 * the near-duplicate benchmark is one of these objects drawn by `drawFrogSvg`.
 */

export const EXPRESSIONS = ['smug', 'sad', 'happy', 'angry', 'surprised', 'crying', 'thinking', 'sleepy', 'neutral', 'love'] as const;
export type Expression = (typeof EXPRESSIONS)[number];

export const ACCESSORIES = [
  'top-hat', 'beanie', 'cap', 'party-hat', 'santa-hat', 'crown', 'wizard-hat',
  'glasses', 'sunglasses', 'tea', 'headphones', 'scarf', 'bowtie', 'flower', 'pumpkin', 'heart',
] as const;
export type Accessory = (typeof ACCESSORIES)[number];

export const PATTERNS = ['solid', 'dots', 'stripes', 'checks', 'rays', 'gradient', 'snow'] as const;
export type Pattern = (typeof PATTERNS)[number];

export const DETAILS = ['blush', 'sweat', 'freckles', 'hand', 'zzz', 'bubble', 'confetti', 'sparkles'] as const;
export type Detail = (typeof DETAILS)[number];

export interface FrogParams {
  expression: Expression;
  /** Skin, the darker outline is derived from it. */
  skin: string;
  lips: string;
  /** Iris colour (pepe's are brown, some variants are not). */
  iris: string;
  shirt: string;
  accessories: readonly Accessory[];
  /** `color: 'none'` draws a transparent sticker. */
  background: { color: string; pattern: Pattern; accent: string };
  pose: {
    /** 1 = the frog fills the frame as designed; < 1 shows more background. */
    zoom: number;
    /** Degrees, positive = clockwise. */
    tilt: number;
    /** Horizontal shift in viewBox units (-60..60). */
    shiftX: number;
    /** Mirror image: smirks and gaze go the other way. */
    flip: boolean;
  };
  details: readonly Detail[];
  /** The eyes' whites; undefined = the usual off-white. */
  eyeWhite?: string;
  /** A round badge on the shirt, in this colour; undefined = none. */
  badge?: string;
  /** Where the pupils look, each -1..1 (x right, y down); undefined = per expression. */
  gaze?: { x: number; y: number };
}

/** Pepe's classic look; variants override parts of it. */
const CLASSIC: FrogParams = {
  expression: 'smug',
  skin: '#5f9e3a',
  lips: '#b4533a',
  iris: '#4a2b12',
  shirt: '#2f62b0',
  accessories: [],
  background: { color: '#f3ecd8', pattern: 'solid', accent: '#e2d6b4' },
  pose: { zoom: 1, tilt: 0, shiftX: 0, flip: false },
  details: [],
};

export const SKINS = ['#5f9e3a', '#4f8f2f', '#77b24a', '#6aa84f', '#3f7f3a', '#8cbf4a'] as const;
export const LIPS = ['#b4533a', '#a0442f', '#c46a4a', '#8e3b2b'] as const;
export const SHIRTS = ['#2f62b0', '#c23b3b', '#3a3a3a', '#e0a526', '#7b4bb3', '#2f8f86'] as const;
export const BACKGROUNDS: readonly { color: string; accent: string }[] = [
  { color: '#f3ecd8', accent: '#e2d6b4' },
  { color: '#bfe3f5', accent: '#9ccbe6' },
  { color: '#f7d3dc', accent: '#eab0bf' },
  { color: '#fff3a8', accent: '#f2df6b' },
  { color: '#d9f0c8', accent: '#b9dd9f' },
  { color: '#2c2f4a', accent: '#454a73' },
  { color: '#ffd8a8', accent: '#f5b56b' },
  { color: '#e6e6e6', accent: '#cfcfcf' },
];

export function withParams(overrides: Partial<FrogParams>): FrogParams {
  return { ...CLASSIC, ...overrides, pose: { ...CLASSIC.pose, ...overrides.pose } };
}
