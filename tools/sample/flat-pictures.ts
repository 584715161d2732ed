/**
 * Flat pictures for the near-duplicate benchmark, beside the frogs: emoji-like faces (a disc
 * in a skin tone, eyes, a mouth) whose pairs differ only in the mouth's colour, and single-
 * colour shapes (a square, a heart…) in several colours, where a gamma or gain on every
 * channel of one gives the other's colour. Self-contained SVG, rasterised by sharp.
 */
import sharp, { type Sharp } from 'sharp';
import { heartPath } from './face.js';

/** Emoji skin tones, light to dark. */
export const SKIN_TONES = ['#ffdbac', '#f1c27d', '#e0ac69', '#c68642', '#8d5524'] as const;
const MOUTHS = ['#c0392b', '#8b4513', '#e07a8a', '#6e1f1f', '#d35400'] as const;
const MOUTH_SHAPES = ['smile', 'open', 'flat'] as const;
const EYE_SHAPES = ['dots', 'ovals', 'arcs'] as const;

export interface FaceParams {
  kind: 'face';
  skin: string;
  mouth: string;
  mouthShape: (typeof MOUTH_SHAPES)[number];
  eyes: (typeof EYE_SHAPES)[number];
  /** Face disc radius and centre offset, in 0..1 of the side. */
  radius: number;
  /** The mouth's size against the face's (1 = 1–2% of the picture). */
  mouthScale: number;
  dx: number;
  dy: number;
}

export const SHAPES = ['square', 'heart', 'circle', 'star', 'triangle', 'diamond'] as const;
export interface ShapeParams {
  kind: 'shape';
  shape: (typeof SHAPES)[number];
  colour: string;
  /** Size and centre offset, in 0..1 of the side. */
  size: number;
  dx: number;
  dy: number;
}

export type FlatParams = FaceParams | ShapeParams;

/** `a` moved a share `t` of the way to `b`, per sRGB channel. */
const mixed = (a: string, b: string, t: number) => hex(channels(a).map((v, i) => v + (channels(b)[i]! - v) * t));
const hex = (rgb: readonly number[]) => `#${rgb.map((v) => Math.max(0, Math.min(255, Math.round(v))).toString(16).padStart(2, '0')).join('')}`;
const channels = (colour: string) => [1, 3, 5].map((at) => Number.parseInt(colour.slice(at, at + 2), 16));

/** A colour through a gamma (v → 255·(v/255)^gamma) or a gain on every channel, as an editor's edit would take it. */
export function editedColour(colour: string, edit: { gamma?: number; gain?: number }): string {
  return hex(channels(colour).map((v) => (edit.gain ?? 1) * 255 * (v / 255) ** (edit.gamma ?? 1)));
}

/**
 * Up to 9 face designs (each its own eyes and mouth shape, in one frame: a face drawn a little
 * larger or off-centre is a crop of the same picture, not another one), each in `tones` skin
 * tones and two mouth colours: the pairs that differ only in the mouth's colour are the local
 * recolours (`mouthPairs`).
 */
export function emojiFaces(designs: number, tones: number, rand: () => number): { faces: FaceParams[]; mouthPairs: [number, number][] } {
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
  const faces: FaceParams[] = [];
  const mouthPairs: [number, number][] = [];
  const shapes = MOUTH_SHAPES.flatMap((mouthShape) => EYE_SHAPES.map((eyes) => ({ mouthShape, eyes })));
  for (let d = 0; d < Math.min(designs, shapes.length); d++) {
    const design = { ...shapes.splice(Math.floor(rand() * shapes.length), 1)[0]!, radius: 0.42, mouthScale: 0.8 + rand() * 0.5, dx: 0, dy: 0 };
    const first = pick(MOUTHS);
    const others = MOUTHS.filter((m) => m !== first);
    // Part of the way to another mouth colour: some pairs differ a little (red and a browner red).
    const second = mixed(first, others[Math.floor(rand() * others.length)]!, 0.25 + rand() * 0.75);
    const skins = [...SKIN_TONES];
    for (let i = skins.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [skins[i], skins[j]] = [skins[j]!, skins[i]!];
    }
    skins.length = Math.min(tones, skins.length);
    for (const skin of skins) {
      faces.push({ kind: 'face', skin, mouth: first, ...design });
      faces.push({ kind: 'face', skin, mouth: second, ...design });
      mouthPairs.push([faces.length - 2, faces.length - 1]);
    }
  }
  return { faces, mouthPairs };
}

const SHAPE_COLOURS = ['#ffdbac', '#e0ac69', '#8d5524', '#3b6fd1', '#5bc0eb', '#e0245e', '#2f8f86', '#f2c12e', '#7b4bb3'] as const;

/**
 * `count` single-colour shapes on white, each in four colours: a base colour, and the colours
 * gamma 0.8, gamma 1.25 and a gain of 0.85 on every channel make of it.
 */
export function flatShapes(count: number, rand: () => number): ShapeParams[] {
  const out: ShapeParams[] = [];
  for (let k = 0; k < count; k++) {
    const shape = SHAPES[k % SHAPES.length]!;
    const base = SHAPE_COLOURS[Math.floor(rand() * SHAPE_COLOURS.length)]!;
    const frame = { size: 0.5 + rand() * 0.3, dx: (rand() - 0.5) * 0.1, dy: (rand() - 0.5) * 0.1 };
    for (const colour of [base, editedColour(base, { gamma: 0.8 }), editedColour(base, { gamma: 1.25 }), editedColour(base, { gain: 0.85 })]) {
      out.push({ kind: 'shape', shape, colour, ...frame });
    }
  }
  return out;
}

function shapeSvg({ shape, colour, size, dx, dy }: ShapeParams): string {
  const [cx, cy, h] = [256 + dx * 512, 256 + dy * 512, (size * 512) / 2];
  switch (shape) {
    case 'square':
      return `<rect x="${cx - h}" y="${cy - h}" width="${2 * h}" height="${2 * h}" fill="${colour}"/>`;
    case 'circle':
      return `<circle cx="${cx}" cy="${cy}" r="${h}" fill="${colour}"/>`;
    case 'heart':
      return `<path d="${heartPath(cx, cy - h * 0.1, h * 0.62)}" fill="${colour}"/>`;
    case 'diamond':
      return `<path d="M${cx},${cy - h} L${cx + h},${cy} L${cx},${cy + h} L${cx - h},${cy} Z" fill="${colour}"/>`;
    case 'triangle':
      return `<path d="M${cx},${cy - h} L${cx + h},${cy + h * 0.8} L${cx - h},${cy + h * 0.8} Z" fill="${colour}"/>`;
    case 'star': {
      const points = Array.from({ length: 10 }, (_, i) => {
        const r = i % 2 === 0 ? h : h * 0.45;
        const a = (Math.PI * i) / 5 - Math.PI / 2;
        return `${cx + r * Math.cos(a)},${cy + r * Math.sin(a)}`;
      });
      return `<path d="M${points.join(' L')} Z" fill="${colour}"/>`;
    }
  }
}

function faceSvg({ skin, mouth, mouthShape, eyes, radius, mouthScale, dx, dy }: FaceParams): string {
  const [cx, cy, r] = [256 + dx * 512, 256 + dy * 512, radius * 512];
  const eye = (x: number) => {
    const y = cy - r * 0.22;
    if (eyes === 'dots') return `<circle cx="${x}" cy="${y}" r="${r * 0.09}" fill="#3b2314"/>`;
    if (eyes === 'ovals') return `<ellipse cx="${x}" cy="${y}" rx="${r * 0.08}" ry="${r * 0.14}" fill="#3b2314"/>`;
    return `<path d="M${x - r * 0.12},${y + r * 0.04} Q${x},${y - r * 0.12} ${x + r * 0.12},${y + r * 0.04}" fill="none" stroke="#3b2314" stroke-width="${r * 0.05}" stroke-linecap="round"/>`;
  };
  const my = cy + r * 0.35;
  const m = r * mouthScale;
  const w = m * 0.42;
  const mouthShapeSvg =
    mouthShape === 'smile'
      ? `<path d="M${cx - w},${my - m * 0.08} Q${cx},${my + m * 0.3} ${cx + w},${my - m * 0.08} Q${cx},${my + m * 0.08} ${cx - w},${my - m * 0.08} Z" fill="${mouth}"/>`
      : mouthShape === 'open'
        ? `<ellipse cx="${cx}" cy="${my}" rx="${w * 0.55}" ry="${m * 0.16}" fill="${mouth}"/>`
        : `<rect x="${cx - w * 0.8}" y="${my - m * 0.05}" width="${w * 1.6}" height="${m * 0.1}" rx="${m * 0.05}" fill="${mouth}"/>`;
  return [`<circle cx="${cx}" cy="${cy}" r="${r}" fill="${skin}"/>`, eye(cx - r * 0.35), eye(cx + r * 0.35), mouthShapeSvg].join('');
}

/** The picture on white, as a sharp pipeline ready for `.png()`. */
export function renderFlat(params: FlatParams, size: number): Sharp {
  const body = params.kind === 'face' ? faceSvg(params) : shapeSvg(params);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 512 512"><rect width="512" height="512" fill="#ffffff"/>${body}</svg>`;
  return sharp(Buffer.from(svg));
}
