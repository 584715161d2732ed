/**
 * What `content/` ships: one entry per sample image. Every picture is an original frog drawn
 * by draw-frog.ts; entries differ by something a viewer sees (expression, accessory, colour,
 * background, pose), so none is a near-duplicate of another.
 */
import type { FrogParams } from './frog-params.js';
import { BACKGROUNDS, LIPS, SHIRTS, SKINS } from './frog-params.js';

export type SampleFormat = 'png' | 'jpg' | 'webp' | 'gif';

export interface SampleEntry {
  /** Content-relative path without extension. */
  name: string;
  format: SampleFormat;
  size: number;
  frog: Partial<FrogParams>;
  /** Frames of an animated GIF: each overrides `frog`. */
  frames?: Partial<FrogParams>[];
  description: string | null;
  tags: string[] | null;
}

const bg = (i: number, pattern: FrogParams['background']['pattern'] = 'solid'): FrogParams['background'] => ({ ...BACKGROUNDS[i]!, pattern });
const pose = (zoom: number, tilt = 0, shiftX = 0, flip = false): FrogParams['pose'] => ({ zoom, tilt, shiftX, flip });

export const SAMPLE_ENTRIES: readonly SampleEntry[] = [
  // classics/: the well-known moods, plain backgrounds.
  { name: 'classics/smug-original', format: 'png', size: 512, frog: { expression: 'smug' }, description: 'The original smug frog, half-lidded and pleased with himself.', tags: ['smug', 'classic', 'reaction'] },
  { name: 'classics/feels-bad', format: 'png', size: 448, frog: { expression: 'sad', background: bg(1) }, description: 'Feels bad, man. The classic sad frog.', tags: ['sad', 'classic', 'feels'] },
  { name: 'classics/feels-good', format: 'jpg', size: 448, frog: { expression: 'happy', background: bg(3) }, description: 'Feels good, man: a wide open grin.', tags: ['happy', 'classic', 'feels', 'grin'] },
  { name: 'classics/angry-frog', format: 'webp', size: 384, frog: { expression: 'angry', background: bg(2), shirt: SHIRTS[1] }, description: 'Angry frog grinding his teeth.', tags: ['angry', 'rage', 'classic'] },
  { name: 'classics/surprised', format: 'jpg', size: 384, frog: { expression: 'surprised', background: bg(4) }, description: 'Surprised frog, mouth in a perfect O.', tags: ['surprised', 'shock', 'wow'] },
  { name: 'classics/crying', format: 'png', size: 512, frog: { expression: 'crying', background: bg(7) }, description: 'Crying rivers of tears.', tags: ['crying', 'sad', 'tears', 'classic'] },
  { name: 'classics/thinking', format: 'webp', size: 448, frog: { expression: 'thinking', details: ['hand', 'bubble'], background: bg(0, 'dots') }, description: 'Hmm. Thinking frog with a hand on his chin.', tags: ['thinking', 'hmm', 'reaction'] },
  { name: 'classics/sleepy', format: 'jpg', size: 384, frog: { expression: 'sleepy', details: ['zzz'], background: bg(5), shirt: SHIRTS[4] }, description: 'Too sleepy to post.', tags: ['sleepy', 'tired', 'night'] },
  { name: 'classics/neutral', format: 'png', size: 320, frog: { expression: 'neutral', background: bg(0, 'stripes') }, description: 'Just a frog, no particular mood.', tags: ['neutral', 'classic'] },
  { name: 'classics/in-love', format: 'webp', size: 384, frog: { expression: 'love', details: ['blush'], background: bg(2, 'dots') }, description: 'Heart eyes and a blush.', tags: ['love', 'heart', 'blush', 'cute'] },
  { name: 'classics/smug-mirrored', format: 'jpg', size: 512, frog: { expression: 'smug', pose: pose(0.9, -6, 20, true), background: bg(6, 'rays') }, description: 'Smug, from the other side, on a sunburst.', tags: ['smug', 'sunburst'] },
  { name: 'classics/sad-zoomed', format: 'png', size: 384, frog: { expression: 'sad', pose: pose(1.35, 0, 0), background: bg(1, 'gradient') }, description: 'A close-up of a very sad face.', tags: ['sad', 'close-up'] },
  { name: 'classics/sticker-smug', format: 'png', size: 384, frog: { expression: 'smug', background: { color: 'none', pattern: 'solid', accent: 'none' } }, description: 'Smug frog sticker with a transparent background.', tags: ['smug', 'sticker', 'transparent'] },
  { name: 'classics/sticker-happy', format: 'webp', size: 320, frog: { expression: 'happy', background: { color: 'none', pattern: 'solid', accent: 'none' }, shirt: SHIRTS[3] }, description: 'A happy sticker (transparent WebP).', tags: ['happy', 'sticker', 'transparent'] },

  // seasonal/
  { name: 'seasonal/santa-frog', format: 'jpg', size: 448, frog: { expression: 'happy', accessories: ['santa-hat', 'scarf'], background: bg(5, 'snow') }, description: 'Ho ho ho: Santa frog in the snow.', tags: ['christmas', 'santa', 'winter', 'snow'] },
  { name: 'seasonal/winter-scarf', format: 'webp', size: 384, frog: { expression: 'sad', accessories: ['scarf', 'beanie'], background: bg(1, 'snow') }, description: 'Cold, sad and wrapped in a scarf.', tags: ['winter', 'cold', 'scarf', 'sad'] },
  { name: 'seasonal/halloween-pumpkin', format: 'png', size: 448, frog: { expression: 'smug', accessories: ['wizard-hat', 'pumpkin'], background: bg(6, 'stripes') }, description: 'Halloween wizard with his jack-o\'-lantern.', tags: ['halloween', 'pumpkin', 'wizard', 'october'] },
  { name: 'seasonal/valentine', format: 'webp', size: 384, frog: { expression: 'love', accessories: ['heart'], background: bg(2, 'checks') }, description: 'Be my valentine.', tags: ['valentine', 'love', 'heart', 'february'] },
  { name: 'seasonal/new-year-party', format: 'jpg', size: 448, frog: { expression: 'happy', accessories: ['party-hat'], details: ['confetti'], background: bg(3, 'rays') }, description: 'Happy new year! Party hat and confetti.', tags: ['new year', 'party', 'celebration'] },
  { name: 'seasonal/birthday', format: 'png', size: 384, frog: { expression: 'surprised', accessories: ['party-hat'], details: ['confetti'], background: bg(2), shirt: SHIRTS[5] }, description: 'Surprise birthday party.', tags: ['birthday', 'party', 'surprised'] },
  { name: 'seasonal/spring-flower', format: 'webp', size: 448, frog: { expression: 'happy', accessories: ['flower'], background: bg(4, 'dots'), skin: SKINS[2] }, description: 'Spring is here: a flower behind the ear.', tags: ['spring', 'flower', 'happy'] },
  { name: 'seasonal/summer-shades', format: 'jpg', size: 512, frog: { expression: 'smug', accessories: ['sunglasses'], background: bg(3, 'rays'), shirt: SHIRTS[3] }, description: 'Summer mode: sunglasses on.', tags: ['summer', 'sunglasses', 'cool'] },
  { name: 'seasonal/autumn-tea', format: 'png', size: 384, frog: { expression: 'neutral', accessories: ['tea', 'scarf'], background: bg(6, 'gradient') }, description: 'Autumn evening, cup of tea, scarf on.', tags: ['autumn', 'tea', 'cosy'] },
  { name: 'seasonal/creme-brulee-day', format: 'webp', size: 320, frog: { expression: 'love', accessories: ['tea'], background: bg(0, 'checks'), skin: SKINS[5] }, description: 'Crème brûlée day at the café.', tags: ['café', 'dessert', 'crème brûlée'] },
  { name: 'seasonal/snow-day-sleepy', format: 'png', size: 320, frog: { expression: 'sleepy', accessories: ['beanie'], details: ['zzz'], background: bg(1, 'snow') }, description: 'Snow day. Staying in bed.', tags: ['winter', 'sleepy', 'snow'] },

  // accessories/
  { name: 'accessories/top-hat-gentleman', format: 'png', size: 448, frog: { expression: 'smug', accessories: ['top-hat', 'bowtie'], background: bg(7, 'stripes'), shirt: SHIRTS[2] }, description: 'A gentleman frog in top hat and bow tie.', tags: ['gentleman', 'top hat', 'fancy'] },
  { name: 'accessories/king-frog', format: 'jpg', size: 448, frog: { expression: 'smug', accessories: ['crown'], background: bg(4, 'rays'), shirt: SHIRTS[4] }, description: 'King of the pond.', tags: ['king', 'crown', 'royal'] },
  { name: 'accessories/queen-frog', format: 'webp', size: 384, frog: { expression: 'happy', accessories: ['crown', 'flower'], background: bg(2, 'gradient'), lips: LIPS[2] }, description: 'Queen frog with a flower.', tags: ['queen', 'crown', 'royal', 'flower'] },
  { name: 'accessories/nerd-glasses', format: 'png', size: 384, frog: { expression: 'thinking', accessories: ['glasses'], background: bg(1, 'checks') }, description: 'Actually, let me think about that.', tags: ['nerd', 'glasses', 'thinking'] },
  { name: 'accessories/dj-headphones', format: 'jpg', size: 448, frog: { expression: 'happy', accessories: ['headphones'], background: bg(5, 'dots'), shirt: SHIRTS[1] }, description: 'DJ frog with big red headphones.', tags: ['music', 'headphones', 'dj'] },
  { name: 'accessories/chill-headphones', format: 'webp', size: 384, frog: { expression: 'sleepy', accessories: ['headphones'], background: bg(4, 'gradient') }, description: 'Lo-fi beats to relax to.', tags: ['music', 'headphones', 'chill', 'lofi'] },
  { name: 'accessories/baseball-cap', format: 'png', size: 320, frog: { expression: 'smug', accessories: ['cap'], background: bg(0, 'rays'), shirt: SHIRTS[5] }, description: 'Backwards cap energy.', tags: ['cap', 'sport'] },
  { name: 'accessories/wizard', format: 'jpg', size: 384, frog: { expression: 'surprised', accessories: ['wizard-hat'], details: ['sparkles'], background: bg(5, 'solid'), shirt: SHIRTS[4] }, description: 'A wizard frog surprised by his own spell.', tags: ['wizard', 'magic', 'sparkles'] },
  { name: 'accessories/tea-time', format: 'webp', size: 448, frog: { expression: 'smug', accessories: ['tea'], background: bg(7, 'dots') }, description: 'But that\'s none of my business. *sips tea*', tags: ['tea', 'sips', 'none of my business'] },
  { name: 'accessories/deal-with-it', format: 'png', size: 448, frog: { expression: 'neutral', accessories: ['sunglasses', 'cap'], background: bg(6, 'checks'), skin: SKINS[1] }, description: 'Deal with it.', tags: ['sunglasses', 'cool', 'deal with it'] },
  { name: 'accessories/senor-sombrero', format: 'jpg', size: 320, frog: { expression: 'happy', accessories: ['top-hat', 'glasses'], background: bg(3, 'stripes'), shirt: SHIRTS[5] }, description: 'Señor Frog, dressed up for the fiesta.', tags: ['señor', 'fiesta', 'hat', 'glasses'] },

  // moods/: colour variants and poses.
  { name: 'moods/pale-sad', format: 'webp', size: 384, frog: { expression: 'sad', skin: SKINS[5], background: bg(7, 'rays'), shirt: SHIRTS[2] }, description: 'A pale, washed-out sad frog.', tags: ['sad', 'pale'] },
  { name: 'moods/dark-green-angry', format: 'jpg', size: 384, frog: { expression: 'angry', skin: SKINS[4], background: bg(1, 'stripes'), shirt: SHIRTS[1], pose: pose(1.1, 4) }, description: 'Dark green with rage.', tags: ['angry', 'rage', 'dark'] },
  { name: 'moods/nervous-sweat', format: 'png', size: 384, frog: { expression: 'neutral', details: ['sweat'], background: bg(3, 'checks'), gaze: { x: -0.7, y: 0 } }, description: 'Nervous sweating, looking away.', tags: ['nervous', 'sweat', 'awkward'] },
  { name: 'moods/blushing', format: 'webp', size: 320, frog: { expression: 'happy', details: ['blush', 'sparkles'], background: bg(2, 'solid'), skin: SKINS[2] }, description: 'Aww, blushing.', tags: ['blush', 'cute', 'happy'] },
  { name: 'moods/freckled-smug', format: 'jpg', size: 448, frog: { expression: 'smug', details: ['freckles'], background: bg(4, 'stripes'), skin: SKINS[3], shirt: SHIRTS[3] }, description: 'Smug frog with freckles.', tags: ['smug', 'freckles'] },
  { name: 'moods/tilted-surprise', format: 'png', size: 448, frog: { expression: 'surprised', pose: pose(0.85, -12, -30), background: bg(0, 'gradient'), shirt: SHIRTS[2] }, description: 'Head tilted in disbelief.', tags: ['surprised', 'disbelief', 'wat'] },
  { name: 'moods/deja-vu', format: 'webp', size: 448, frog: { expression: 'thinking', background: bg(6, 'dots'), shirt: SHIRTS[1], gaze: { x: -0.6, y: -0.6 } }, description: 'Déjà vu: haven\'t I seen this frog before?', tags: ['déjà vu', 'thinking', 'confused'] },
  { name: 'moods/midnight-crying', format: 'jpg', size: 384, frog: { expression: 'crying', background: bg(5, 'gradient'), shirt: SHIRTS[4] }, description: 'Crying at midnight.', tags: ['crying', 'night', 'sad'] },
  { name: 'moods/tiny-frog', format: 'png', size: 256, frog: { expression: 'happy', pose: pose(0.6, 0, 0), background: bg(4, 'checks') }, description: 'A tiny frog in a big world.', tags: ['tiny', 'small', 'cute'] },
  { name: 'moods/big-love', format: 'jpg', size: 512, frog: { expression: 'love', pose: pose(1.3, 6, 0), background: bg(2, 'rays'), skin: SKINS[1] }, description: null, tags: ['love', 'close-up'] },
  { name: 'moods/naive-smile', format: 'webp', size: 320, frog: { expression: 'happy', background: bg(1, 'stripes'), skin: SKINS[4], shirt: SHIRTS[1], lips: LIPS[3] }, description: 'A naïve, hopeful smile.', tags: ['naïve', 'hopeful', 'happy'] },
  { name: 'moods/purple-shirt-sleepy', format: 'png', size: 384, frog: { expression: 'sleepy', background: bg(3, 'gradient'), shirt: SHIRTS[4], skin: SKINS[3] }, description: 'Monday morning.', tags: ['monday', 'sleepy', 'tired'] },

  // Top level: the odd ones.
  { name: 'untitled-frog', format: 'jpg', size: 320, frog: { expression: 'neutral', background: bg(6, 'solid'), shirt: SHIRTS[3], pose: pose(1.15, 0, 25) }, description: null, tags: null },
  { name: 'frog-at-the-cafe', format: 'webp', size: 384, frog: { expression: 'smug', accessories: ['tea', 'beanie'], background: bg(7, 'checks'), shirt: SHIRTS[5] }, description: 'Sitting at the café for three hours on one coffee.', tags: ['café', 'coffee', 'smug'] },
  { name: 'frog_with_crown_and_shades', format: 'png', size: 448, frog: { expression: 'smug', accessories: ['crown', 'sunglasses'], background: bg(5, 'rays'), shirt: SHIRTS[2] }, description: 'Too cool to rule.', tags: null },
  { name: 'muller-the-frog', format: 'jpg', size: 384, frog: { expression: 'angry', accessories: ['glasses'], background: bg(7, 'gradient'), shirt: SHIRTS[5] }, description: 'Herr Müller is not amused.', tags: ['angry', 'glasses', 'not amused'] },
  { name: 'reaction-wow', format: 'webp', size: 320, frog: { expression: 'surprised', accessories: ['headphones'], background: bg(3, 'dots'), skin: SKINS[1] }, description: '   ', tags: ['wow', 'Reaction', 'WOW'] },

  // Animated GIFs: frames of one scene.
  {
    name: 'animated/blinking',
    format: 'gif',
    size: 256,
    frog: { expression: 'neutral', background: bg(4, 'solid') },
    frames: [{}, {}, { expression: 'sleepy' }, {}],
    description: 'Slow blink (animated).',
    tags: ['animated', 'blink', 'gif'],
  },
  {
    name: 'animated/party-time',
    format: 'gif',
    size: 256,
    frog: { accessories: ['party-hat'], details: ['confetti'], background: bg(2, 'solid'), shirt: SHIRTS[1] },
    frames: [{ expression: 'happy' }, { expression: 'surprised' }, { expression: 'happy', pose: pose(1, 6) }, { expression: 'happy', pose: pose(1, -6) }],
    description: 'Party time! An animated party frog.',
    tags: ['animated', 'party', 'celebration'],
  },
];
