/**
 * A pepe's picture: a box at the image's own aspect ratio, filled at once with the decoded
 * blurhash, with the real image faded in on top when it has loaded. The box's size never
 * depends on the image bytes, so nothing moves when they arrive.
 */
import { decode, isBlurhashValid } from 'blurhash';
import type { Pepe } from './api-client.js';
import { pepeTitle } from './format.js';

/** Placeholder canvas width in pixels: a blurhash has 4×3 components, more pixels add nothing. */
const PLACEHOLDER_WIDTH = 32;

export interface PictureOptions {
  src: string;
  /** Lazy for grid cards; eager for the detail view, which is what the user asked to see. */
  lazy: boolean;
}

/** width / height, or 1 when the API gave no usable size (an older catalogue without the extension fields). */
function aspectRatio(pepe: Pepe): number {
  const { width, height } = pepe;
  return width && height && width > 0 && height > 0 ? width / height : 1;
}

export function createPicture(pepe: Pepe, options: PictureOptions): HTMLElement {
  const frame = document.createElement('span');
  frame.className = 'picture';
  const ratio = aspectRatio(pepe);
  frame.style.setProperty('--ratio', String(ratio));
  if (pepe.width) frame.style.setProperty('--width', String(pepe.width));

  const placeholder = blurhashCanvas(pepe.blurhash, ratio);
  if (placeholder) frame.append(placeholder);

  const img = document.createElement('img');
  img.alt = pepeTitle(pepe);
  img.decoding = 'async';
  img.loading = options.lazy ? 'lazy' : 'eager';
  if (pepe.width && pepe.height) {
    img.width = pepe.width;
    img.height = pepe.height;
  }
  // Mark loaded only after decode, so the fade never shows a half-painted image.
  const reveal = () => frame.classList.add('is-loaded');
  img.addEventListener('load', () => void img.decode().then(reveal, reveal), { once: true });
  img.addEventListener('error', () => frame.classList.add('is-broken'), { once: true });
  img.src = options.src;
  frame.append(img);
  return frame;
}

function blurhashCanvas(hash: string | undefined, ratio: number): HTMLCanvasElement | null {
  if (!hash || !isBlurhashValid(hash).result) return null;
  const width = PLACEHOLDER_WIDTH;
  const height = Math.max(1, Math.min(128, Math.round(width / ratio)));
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  canvas.setAttribute('aria-hidden', 'true');
  const context = canvas.getContext('2d');
  if (!context) return null;
  const pixels = decode(hash, width, height);
  const image = context.createImageData(width, height);
  image.data.set(pixels);
  context.putImageData(image, 0, 0);
  return canvas;
}
