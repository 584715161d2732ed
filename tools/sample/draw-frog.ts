/**
 * Draws an original pepe-style cartoon frog as SVG from parameters, and rasterises it with
 * sharp. Only SVG generated here is ever handed to sharp/librsvg (no external references).
 */
import sharp, { type Sharp } from 'sharp';
import { accessorySvg } from './frog-accessories.js';
import type { Accessory, FrogParams } from './frog-params.js';
import { eyeStyle, eyeSvg, EYE_XS, EYE_Y, mouthSvg } from './face.js';
import { backgroundSvg, detailSvg, tearsSvg } from './frog-scenery.js';

/** Accessories worn behind the face (drawn before it) vs in front. */
const BEHIND_FACE: ReadonlySet<Accessory> = new Set(['headphones']);

function shade(hex: string, factor: number): string {
  const n = Number.parseInt(hex.slice(1), 16);
  const channel = (v: number) => Math.max(0, Math.min(255, Math.round(factor < 1 ? v * factor : v + (255 - v) * (factor - 1))));
  const r = channel((n >> 16) & 255);
  const g = channel((n >> 8) & 255);
  const b = channel(n & 255);
  return `#${((r << 16) | (g << 8) | b).toString(16).padStart(6, '0')}`;
}

/** A stable number from the parameters, so seeded decorations belong to this exact frog. */
function paramsSeed(params: FrogParams): number {
  const text = JSON.stringify(params);
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

function headSvg(skin: string, line: string, shirt: string): string {
  const shapes = [
    `<ellipse cx="${EYE_XS[0]}" cy="${EYE_Y}" rx="68" ry="60"/>`,
    `<ellipse cx="${EYE_XS[1]}" cy="${EYE_Y}" rx="68" ry="60"/>`,
    `<ellipse cx="256" cy="306" rx="180" ry="118"/>`,
  ].join('');
  return [
    // Body first: a shirt on shoulders below the head.
    `<path d="M40,540 Q56,410 180,396 L332,396 Q456,410 472,540 L480,800 L32,800 Z" fill="${shirt}" stroke="${line}" stroke-width="6"/>`,
    `<path d="M226,398 Q256,430 286,398" fill="none" stroke="${shade(shirt, 0.7)}" stroke-width="6"/>`,
    // Stroked shapes, then the same shapes filled on top: one merged silhouette outline.
    `<g fill="${skin}" stroke="${line}" stroke-width="12">${shapes}</g>`,
    `<g fill="${skin}">${shapes}</g>`,
    // Soft belly shading and nostrils.
    `<ellipse cx="256" cy="360" rx="140" ry="50" fill="${shade(skin, 1.12)}" opacity="0.5"/>`,
    `<g fill="${line}"><ellipse cx="238" cy="282" rx="5" ry="3.5"/><ellipse cx="274" cy="282" rx="5" ry="3.5"/></g>`,
  ].join('');
}

export function drawFrogSvg(params: FrogParams, size = 512): string {
  const line = shade(params.skin, 0.42);
  const seed = paramsSeed(params);
  const colors = { skin: params.skin, line, iris: params.iris, white: params.eyeWhite };
  const style = eyeStyle(params.expression);
  const gaze = params.gaze ?? style.gaze;
  const { zoom, tilt, shiftX, flip } = params.pose;
  const frogTransform = `translate(${256 + shiftX} 300) rotate(${tilt}) scale(${flip ? -zoom : zoom} ${zoom}) translate(-256 -300)`;
  const behind = params.accessories.filter((a) => BEHIND_FACE.has(a));
  const front = params.accessories.filter((a) => !BEHIND_FACE.has(a));
  const overlayDetails = params.details.filter((d) => d === 'confetti' || d === 'sparkles');
  const bodyDetails = params.details.filter((d) => d !== 'confetti' && d !== 'sparkles');
  const body = [
    headSvg(params.skin, line, params.shirt),
    params.badge ? `<circle cx="346" cy="468" r="34" fill="${params.badge}" stroke="${shade(params.badge, 0.6)}" stroke-width="5"/>` : '',
    ...behind.map((a) => accessorySvg(a, colors)),
    eyeSvg(0, style, gaze, colors),
    eyeSvg(1, style, gaze, colors),
    params.expression === 'crying' ? tearsSvg() : '',
    mouthSvg(params.expression, params.lips, line),
    ...bodyDetails.map((d) => detailSvg(d, colors, seed)),
    ...front.map((a) => accessorySvg(a, colors)),
  ].join('\n');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 512 512">`,
    backgroundSvg(params.background, seed),
    `<g transform="${frogTransform}">${body}</g>`,
    ...overlayDetails.map((d) => detailSvg(d, colors, seed)),
    '</svg>',
  ].join('\n');
}

/** The drawing as a sharp pipeline, ready for `.png()`, `.jpeg()`, `.webp()`… */
export function renderFrog(params: FrogParams, size = 512): Sharp {
  const image = sharp(Buffer.from(drawFrogSvg(params, size)));
  // Stickers (background colour 'none') keep their alpha; everything else is opaque.
  return params.background.color === 'none' ? image : image.flatten({ background: '#ffffff' });
}
