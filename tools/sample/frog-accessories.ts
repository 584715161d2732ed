/** Accessories as SVG fragments in the 512×512 viewBox, placed for the head drawn by draw-frog.ts. */
import type { Accessory } from './frog-params.js';
import { EYE_XS, EYE_Y, heartPath } from './face.js';

const INK = '#1c1c1c';

export function accessorySvg(accessory: Accessory, c: { skin: string; line: string }): string {
  switch (accessory) {
    case 'top-hat':
      return `<g stroke="${INK}" stroke-width="5"><rect x="184" y="26" width="144" height="124" rx="8" fill="#222"/><rect x="184" y="112" width="144" height="24" fill="#b5322f"/><ellipse cx="256" cy="150" rx="128" ry="20" fill="#2b2b2b"/></g>`;
    case 'beanie':
      return `<g stroke="${INK}" stroke-width="5"><circle cx="256" cy="44" r="24" fill="#f2f2f2"/><path d="M128,172 Q128,58 256,58 Q384,58 384,172 Z" fill="#d9483b"/><rect x="120" y="140" width="272" height="40" rx="14" fill="#b23a2f"/><path d="M150,146 v28 M180,146 v28 M210,146 v28 M240,146 v28 M270,146 v28 M300,146 v28 M330,146 v28 M360,146 v28" stroke="#8e2a22" stroke-width="4"/></g>`;
    case 'cap':
      return `<g stroke="${INK}" stroke-width="5"><path d="M140,160 Q140,62 256,62 Q372,62 372,160 Z" fill="#2f8f4e"/><path d="M330,150 Q430,138 470,160 Q430,176 330,168 Z" fill="#24733e"/><circle cx="256" cy="64" r="10" fill="#24733e"/></g>`;
    case 'party-hat':
      return `<g stroke="${INK}" stroke-width="5"><path d="M196,160 L256,20 L316,160 Z" fill="#ffcf33"/><path d="M226,90 L286,90 M212,124 L300,124" stroke="#e0457b" stroke-width="12"/><circle cx="256" cy="20" r="16" fill="#e0457b"/></g>`;
    case 'santa-hat':
      return `<g stroke="${INK}" stroke-width="5"><path d="M140,160 Q170,40 300,46 Q390,56 430,150 L380,160 Z" fill="#d62828"/><circle cx="432" cy="156" r="24" fill="#fafafa"/><rect x="124" y="140" width="268" height="40" rx="20" fill="#fafafa"/></g>`;
    case 'crown':
      return `<g stroke="#8a6d00" stroke-width="5"><path d="M170,162 L160,70 L208,112 L256,52 L304,112 L352,70 L342,162 Z" fill="#ffd23f"/><circle cx="256" cy="128" r="12" fill="#d62839"/><circle cx="206" cy="140" r="8" fill="#1d70d6"/><circle cx="306" cy="140" r="8" fill="#1d70d6"/></g>`;
    case 'wizard-hat':
      return `<g stroke="${INK}" stroke-width="5"><path d="M180,154 L262,6 L332,154 Z" fill="#4b3ba3"/><ellipse cx="256" cy="156" rx="132" ry="20" fill="#3b2e85"/><path d="M240,90 l6,12 l13,2 l-10,9 l3,13 l-12,-7 l-12,7 l3,-13 l-10,-9 l13,-2 Z M280,124 l4,8 l9,1 l-7,6 l2,9 l-8,-5 l-8,5 l2,-9 l-7,-6 l9,-1 Z" fill="#ffd23f" stroke-width="2"/></g>`;
    case 'glasses':
      return `<g fill="#ffffff" fill-opacity="0.15" stroke="${INK}" stroke-width="8"><circle cx="${EYE_XS[0]}" cy="${EYE_Y + 8}" r="58"/><circle cx="${EYE_XS[1]}" cy="${EYE_Y + 8}" r="58"/><path d="M244,206 Q256,194 268,206" fill="none"/><path d="M128,200 L96,190 M384,200 L416,190" fill="none"/></g>`;
    case 'sunglasses':
      return `<g stroke="${INK}" stroke-width="6"><path d="M112,178 H400 V196 H112 Z" fill="#111"/><path d="M124,186 H248 L240,240 Q186,262 132,240 Z M264,186 H388 L380,240 Q326,262 272,240 Z" fill="#111"/><path d="M150,200 L176,200 M290,200 L316,200" stroke="#ffffff" stroke-width="5" opacity="0.8"/></g>`;
    case 'tea':
      // Held up at chin height on the right, so it stays inside the frame at every zoom.
      return `<g transform="translate(-44 -40)">${[
        `<g stroke="${c.line}" stroke-width="5" fill="${c.skin}"><ellipse cx="414" cy="470" rx="50" ry="28"/></g>`,
        `<g stroke="${INK}" stroke-width="5"><path d="M360,396 H460 L448,470 Q410,488 372,470 Z" fill="#fdfdfd"/><path d="M460,410 Q496,414 488,440 Q480,460 452,456" fill="none" stroke-width="9"/><ellipse cx="410" cy="398" rx="50" ry="10" fill="#9b5a2a"/></g>`,
        `<g fill="none" stroke="#9aa3ad" stroke-width="5" stroke-linecap="round" opacity="0.8"><path d="M392,380 Q380,360 394,342 Q406,326 394,306"/><path d="M428,380 Q416,358 430,340 Q442,324 430,304"/></g>`,
      ].join('')}</g>`;
    case 'headphones':
      return `<g stroke="${INK}" stroke-width="5"><path d="M110,240 Q104,58 256,54 Q408,58 402,240" fill="none" stroke="#333" stroke-width="20"/><rect x="84" y="212" width="48" height="86" rx="20" fill="#e63946"/><rect x="380" y="212" width="48" height="86" rx="20" fill="#e63946"/></g>`;
    case 'scarf':
      return `<g stroke="${INK}" stroke-width="5"><path d="M112,396 Q256,446 400,396 L410,436 Q256,490 102,436 Z" fill="#e63946"/><path d="M140,430 L120,512 L176,512 L186,440 Z" fill="#e63946"/><path d="M164,420 L160,448 M216,432 L214,462 M270,436 L270,466 M324,428 L326,458 M376,412 L382,442" stroke="#fafafa" stroke-width="10"/></g>`;
    case 'bowtie':
      return `<g stroke="${INK}" stroke-width="5" fill="#c1121f"><path d="M256,436 L196,404 L196,468 Z"/><path d="M256,436 L316,404 L316,468 Z"/><rect x="240" y="420" width="32" height="32" rx="8"/></g>`;
    case 'flower':
      return `<g stroke="#7a4a00" stroke-width="3"><g fill="#ffffff"><circle cx="148" cy="120" r="18"/><circle cx="176" cy="132" r="18"/><circle cx="168" cy="162" r="18"/><circle cx="136" cy="162" r="18"/><circle cx="126" cy="134" r="18"/></g><circle cx="150" cy="143" r="15" fill="#ffc300"/></g>`;
    case 'pumpkin':
      return `<g stroke="#7a3b00" stroke-width="5"><ellipse cx="110" cy="450" rx="80" ry="58" fill="#f28c28"/><path d="M110,394 Q84,450 110,506 M110,394 Q136,450 110,506" fill="none"/><path d="M104,396 Q100,370 120,360" fill="none" stroke="#2f6b1f" stroke-width="10"/><path d="M78,436 l16,-14 l10,18 Z M126,436 l16,-14 l6,18 Z M80,472 Q110,492 142,472" fill="#3b1a00" stroke-width="3"/></g>`;
    case 'heart':
      return `<path d="${heartPath(256, 452, 56)}" fill="#e0245e" stroke="${INK}" stroke-width="5"/>`;
  }
}
