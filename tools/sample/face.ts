/**
 * The frog's face: eyes (lids, pupils, gaze) and mouth per expression. Pure SVG strings in
 * the 512×512 viewBox used by draw-frog.ts; all geometry is hand-made, no copied artwork.
 */
import type { Expression } from './frog-params.js';

export const EYE_Y = 200;
export const EYE_XS = [186, 326] as const;
const MOUTH_Y = 338;

interface EyeStyle {
  /** Share of the eye white hidden by the upper lid, 0 (wide open) … 1 (closed). */
  lid: number;
  /** Lid slant: > 0 lowers the outer corner (sad), < 0 the inner corner (angry). */
  slant: number;
  gaze: { x: number; y: number };
  /** Pepe's tired lower-lid line. */
  bags: boolean;
  hearts?: boolean;
}

const EYES: Record<Expression, EyeStyle> = {
  smug: { lid: 0.45, slant: 0.1, gaze: { x: 0.55, y: 0.1 }, bags: true },
  sad: { lid: 0.35, slant: 0.55, gaze: { x: -0.1, y: 0.5 }, bags: true },
  happy: { lid: 0.15, slant: 0.2, gaze: { x: 0, y: 0 }, bags: false },
  angry: { lid: 0.4, slant: -0.75, gaze: { x: 0, y: 0.15 }, bags: false },
  surprised: { lid: 0, slant: 0, gaze: { x: 0, y: -0.05 }, bags: false },
  crying: { lid: 0.3, slant: 0.65, gaze: { x: 0, y: -0.3 }, bags: true },
  thinking: { lid: 0.25, slant: -0.1, gaze: { x: 0.6, y: -0.7 }, bags: false },
  sleepy: { lid: 0.82, slant: 0.15, gaze: { x: 0, y: 0.4 }, bags: true },
  neutral: { lid: 0.3, slant: 0, gaze: { x: 0, y: 0 }, bags: true },
  love: { lid: 0.1, slant: 0.25, gaze: { x: 0, y: 0 }, bags: false, hearts: true },
};

export function eyeStyle(expression: Expression): EyeStyle {
  return EYES[expression];
}

const heartPath = (x: number, y: number, s: number) =>
  `M${x},${y + s * 0.9} C${x - s * 1.6},${y - s * 0.1} ${x - s * 0.7},${y - s * 1.3} ${x},${y - s * 0.35} C${x + s * 0.7},${y - s * 1.3} ${x + s * 1.6},${y - s * 0.1} ${x},${y + s * 0.9} Z`;

export { heartPath };

/** One eye: bulge is drawn by the head; this draws the white, iris, lid and lid line. */
export function eyeSvg(index: 0 | 1, style: EyeStyle, gaze: { x: number; y: number }, c: { skin: string; line: string; iris: string; white?: string }): string {
  const cx = EYE_XS[index];
  const cy = EYE_Y + 8;
  const rx = 50;
  const ry = 38;
  const outer = index === 0 ? -1 : 1; // which side is the outer corner
  const id = `eye${index}`;
  const px = cx + gaze.x * 22;
  const py = cy + gaze.y * 14;
  const iris = style.hearts
    ? `<path d="${heartPath(px, py, 17)}" fill="#e0245e" stroke="${c.line}" stroke-width="2"/>`
    : `<circle cx="${px}" cy="${py}" r="18" fill="${c.iris}"/><circle cx="${px}" cy="${py}" r="9" fill="#111"/><circle cx="${px - 6}" cy="${py - 7}" r="4.5" fill="#fff"/>`;
  // The lid edge is a straight slanted line through the eye; everything above it is skin.
  const top = cy - ry;
  const depth = style.lid * 2 * ry;
  const yOuter = top + depth + style.slant * 26;
  const yInner = top + depth - style.slant * 26;
  const xOuter = cx + outer * (rx + 8);
  const xInner = cx - outer * (rx + 8);
  const lidPath = `M${xOuter},${top - 20} L${xOuter},${yOuter} Q${cx},${(yOuter + yInner) / 2 + 6} ${xInner},${yInner} L${xInner},${top - 20} Z`;
  const lid = style.lid > 0 || style.slant !== 0
    ? `<path d="${lidPath}" fill="${c.skin}"/><path d="M${xOuter},${yOuter} Q${cx},${(yOuter + yInner) / 2 + 6} ${xInner},${yInner}" fill="none" stroke="${c.line}" stroke-width="6" stroke-linecap="round"/>`
    : '';
  const bags = style.bags
    ? `<path d="M${cx - 34},${cy + ry + 10} Q${cx},${cy + ry + 22} ${cx + 34},${cy + ry + 10}" fill="none" stroke="${c.line}" stroke-width="4" stroke-linecap="round" opacity="0.7"/>`
    : '';
  return [
    `<clipPath id="${id}"><ellipse cx="${cx}" cy="${cy}" rx="${rx}" ry="${ry}"/></clipPath>`,
    `<ellipse cx="${cx}" cy="${cy}" rx="${rx}" ry="${ry}" fill="${c.white ?? '#fbfbf4'}"/>`,
    `<g clip-path="url(#${id})">${iris}${lid}</g>`,
    `<ellipse cx="${cx}" cy="${cy}" rx="${rx}" ry="${ry}" fill="none" stroke="${c.line}" stroke-width="5"/>`,
    bags,
  ].join('');
}

/** Thick two-tone lips along a path: dark outline, lip colour, dark mouth line in the middle. */
function lips(d: string, lipColor: string, line: string): string {
  return [
    `<path d="${d}" fill="none" stroke="${line}" stroke-width="34" stroke-linecap="round" stroke-linejoin="round"/>`,
    `<path d="${d}" fill="none" stroke="${lipColor}" stroke-width="25" stroke-linecap="round" stroke-linejoin="round"/>`,
    `<path d="${d}" fill="none" stroke="#3d140b" stroke-width="4" stroke-linecap="round"/>`,
  ].join('');
}

export function mouthSvg(expression: Expression, lipColor: string, line: string): string {
  const y = MOUTH_Y;
  switch (expression) {
    case 'smug':
      return lips(`M132,${y + 4} C200,${y + 22} 300,${y + 10} 382,${y - 22}`, lipColor, line);
    case 'sad':
      return lips(`M140,${y + 26} C200,${y - 16} 312,${y - 16} 372,${y + 26}`, lipColor, line);
    case 'crying':
      return [
        `<path d="M160,${y + 30} C200,${y - 30} 312,${y - 30} 352,${y + 30} Q256,${y + 12} 160,${y + 30} Z" fill="#3d140b" stroke="${lipColor}" stroke-width="22" stroke-linejoin="round"/>`,
        `<path d="M226,${y + 16} Q256,${y + 2} 286,${y + 16}" fill="#d9616e"/>`,
      ].join('');
    case 'happy':
      return [
        `<path d="M136,${y - 12} Q256,${y + 6} 376,${y - 12} Q330,${y + 70} 256,${y + 70} Q182,${y + 70} 136,${y - 12} Z" fill="#3d140b" stroke="${lipColor}" stroke-width="20" stroke-linejoin="round"/>`,
        `<path d="M206,${y + 50} Q256,${y + 26} 306,${y + 50} Q256,${y + 66} 206,${y + 50} Z" fill="#d9616e"/>`,
      ].join('');
    case 'love':
      return lips(`M150,${y - 6} C210,${y + 34} 302,${y + 34} 362,${y - 6}`, lipColor, line);
    case 'angry':
      return [
        `<rect x="168" y="${y - 16}" width="176" height="40" rx="14" fill="#fbfbf4" stroke="${lipColor}" stroke-width="18"/>`,
        `<path d="M172,${y + 4} H340 M212,${y - 14} V${y + 22} M256,${y - 14} V${y + 22} M300,${y - 14} V${y + 22}" stroke="#7a6a5a" stroke-width="3"/>`,
      ].join('');
    case 'surprised':
      return `<ellipse cx="256" cy="${y + 8}" rx="30" ry="36" fill="#3d140b" stroke="${lipColor}" stroke-width="20"/>`;
    case 'thinking':
      return lips(`M190,${y + 8} C230,${y - 4} 280,${y + 14} 330,${y}`, lipColor, line);
    case 'sleepy':
      return lips(`M160,${y + 6} C220,${y + 14} 292,${y + 14} 352,${y + 6}`, lipColor, line);
    case 'neutral':
      return lips(`M136,${y + 8} C200,${y + 2} 312,${y + 2} 376,${y + 8}`, lipColor, line);
  }
}
