/**
 * Backgrounds and small details around the frog (SVG fragments in the 512×512 viewBox).
 * Decorations use a seeded generator so the same parameters always draw the same picture.
 */
import type { Detail, FrogParams } from './frog-params.js';
import { seededRandom } from '../shared/seeded-random.js';

export function backgroundSvg(bg: FrogParams['background'], seed: number): string {
  // A sticker: no background at all, the PNG keeps its transparency.
  if (bg.color === 'none') return '';
  const base = `<rect width="512" height="512" fill="${bg.color}"/>`;
  const rand = seededRandom(seed);
  switch (bg.pattern) {
    case 'solid':
      return base;
    case 'dots': {
      const dots: string[] = [];
      for (let y = 16; y < 512; y += 48) for (let x = ((y / 48) % 2) * 24 + 16; x < 512; x += 48) dots.push(`<circle cx="${x}" cy="${y}" r="9"/>`);
      return `${base}<g fill="${bg.accent}">${dots.join('')}</g>`;
    }
    case 'stripes':
      return `<defs><pattern id="bgp" width="56" height="56" patternUnits="userSpaceOnUse" patternTransform="rotate(35)"><rect width="28" height="56" fill="${bg.accent}"/></pattern></defs>${base}<rect width="512" height="512" fill="url(#bgp)"/>`;
    case 'checks':
      return `<defs><pattern id="bgp" width="64" height="64" patternUnits="userSpaceOnUse"><rect width="32" height="32" fill="${bg.accent}"/><rect x="32" y="32" width="32" height="32" fill="${bg.accent}"/></pattern></defs>${base}<rect width="512" height="512" fill="url(#bgp)"/>`;
    case 'rays': {
      const rays: string[] = [];
      for (let i = 0; i < 16; i += 2) {
        const a0 = (i / 16) * Math.PI * 2;
        const a1 = ((i + 1) / 16) * Math.PI * 2;
        rays.push(`<path d="M256,260 L${256 + 600 * Math.cos(a0)},${260 + 600 * Math.sin(a0)} L${256 + 600 * Math.cos(a1)},${260 + 600 * Math.sin(a1)} Z"/>`);
      }
      return `${base}<g fill="${bg.accent}">${rays.join('')}</g>`;
    }
    case 'gradient':
      return `<defs><linearGradient id="bgg" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${bg.accent}"/><stop offset="1" stop-color="${bg.color}"/></linearGradient></defs><rect width="512" height="512" fill="url(#bgg)"/>`;
    case 'snow': {
      const flakes: string[] = [];
      for (let i = 0; i < 70; i++) flakes.push(`<circle cx="${(rand() * 512).toFixed(1)}" cy="${(rand() * 512).toFixed(1)}" r="${(2 + rand() * 5).toFixed(1)}"/>`);
      return `${base}<g fill="#ffffff" opacity="0.9">${flakes.join('')}</g>`;
    }
  }
}

/** Details drawn over the frog (inside its transform, so they follow pose). */
export function detailSvg(detail: Detail, c: { skin: string; line: string }, seed: number): string {
  const rand = seededRandom(seed ^ 0x9e3779b9);
  switch (detail) {
    case 'blush':
      return `<g fill="#ff7a8a" opacity="0.55"><ellipse cx="128" cy="300" rx="30" ry="16"/><ellipse cx="384" cy="300" rx="30" ry="16"/></g>`;
    case 'sweat':
      return `<path d="M410,150 Q424,176 418,188 Q410,200 400,190 Q394,178 410,150 Z" fill="#8fd3ff" stroke="#2b6f9e" stroke-width="3"/>`;
    case 'freckles': {
      const dots: string[] = [];
      for (let i = 0; i < 14; i++) dots.push(`<circle cx="${(110 + rand() * 60 + (i % 2) * 232).toFixed(1)}" cy="${(270 + rand() * 40).toFixed(1)}" r="3.2"/>`);
      return `<g fill="${c.line}" opacity="0.6">${dots.join('')}</g>`;
    }
    case 'hand':
      // A hand raised to the chin, the thinking pose.
      return `<g stroke="${c.line}" stroke-width="5" fill="${c.skin}"><path d="M300,512 L322,420 Q330,392 356,396 L392,402 Q410,406 404,422 L380,428 Z"/><ellipse cx="382" cy="398" rx="30" ry="16"/><ellipse cx="392" cy="378" rx="22" ry="12"/></g>`;
    case 'zzz':
      return `<g fill="none" stroke="#3a4a8a" stroke-width="7" stroke-linejoin="round" stroke-linecap="round"><path d="M400,96 h34 l-34,34 h34"/><path d="M446,52 h24 l-24,24 h24"/></g>`;
    case 'bubble':
      return `<g fill="#ffffff" stroke="${c.line}" stroke-width="4"><circle cx="402" cy="118" r="9"/><circle cx="424" cy="86" r="14"/><ellipse cx="452" cy="42" rx="52" ry="30"/></g><g fill="${c.line}"><circle cx="432" cy="42" r="5"/><circle cx="452" cy="42" r="5"/><circle cx="472" cy="42" r="5"/></g>`;
    case 'confetti': {
      const colors = ['#e63946', '#f4a261', '#2a9d8f', '#457b9d', '#ffb703', '#9b5de5'];
      const bits: string[] = [];
      for (let i = 0; i < 40; i++) {
        const x = (rand() * 512).toFixed(1);
        const y = (rand() * 200).toFixed(1);
        bits.push(`<rect x="${x}" y="${y}" width="12" height="6" fill="${colors[i % colors.length]}" transform="rotate(${Math.round(rand() * 180)} ${x} ${y})"/>`);
      }
      return bits.join('');
    }
    case 'sparkles': {
      const stars: string[] = [];
      for (let i = 0; i < 7; i++) {
        const x = 40 + rand() * 432;
        const y = 30 + rand() * 140;
        const s = 8 + rand() * 10;
        stars.push(`<path d="M${x},${y - s} L${x + s / 4},${y - s / 4} L${x + s},${y} L${x + s / 4},${y + s / 4} L${x},${y + s} L${x - s / 4},${y + s / 4} L${x - s},${y} L${x - s / 4},${y - s / 4} Z"/>`);
      }
      return `<g fill="#ffd23f" stroke="#b8860b" stroke-width="1.5">${stars.join('')}</g>`;
    }
  }
}

/** Tear streams for the crying frog: pepe's famous rivers. */
export function tearsSvg(): string {
  return `<g fill="#7cc6f2" stroke="#2b6f9e" stroke-width="3" opacity="0.95"><path d="M150,236 Q140,330 118,420 L150,420 Q166,330 172,238 Z"/><path d="M344,238 Q350,330 364,420 L396,420 Q374,330 364,236 Z"/></g>`;
}
