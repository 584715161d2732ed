/**
 * A pepe's picture: a box at the image's own aspect ratio, filled at once with the decoded
 * blurhash, with the real image faded in on top when it has loaded. The box's size never
 * depends on the image bytes, so nothing moves when they arrive.
 */
import { decode, isBlurhashValid } from 'blurhash';
import type { ApiClient, Pepe } from './api-client.js';
import { pepeTitle } from './format.js';

/**
 * Placeholder canvas width in pixels: a blurhash has 4×3 components, so a few pixels per
 * component hold all it says, and the browser's smooth upscaling does the rest. Decoding
 * costs per pixel, on the main thread, for every card of the first screen.
 */
const PLACEHOLDER_WIDTH = 12;

export interface PictureOptions {
  src: string;
  /** Candidates the browser picks from by `sizes` (`<url> <width>w, …`): the renditions and the original. */
  srcset?: string;
  /** The width the picture is shown at, for `srcset`. */
  sizes?: string;
  /** Lazy for grid cards; eager for the detail view, which is what the user asked to see. */
  lazy: boolean;
  /**
   * The image to show once `src` is up (the detail view: its large rendition at once, then the
   * original): fetched after `src` has loaded, swapped in when decoded, so it never blanks.
   */
  thenSrc?: string;
}

/**
 * `srcset` over a pepe's renditions (the API's `thumbnails`) and its original, for a picture
 * shown `sizes` wide; null when it has no rendition (an image narrower than the smallest one,
 * or an older catalogue), which leaves the original alone.
 */
export function renditionSrcset(pepe: Pepe, client: Pick<ApiClient, 'imageSrcFor' | 'thumbnailSrcFor'>): string | null {
  const thumbnails = (pepe.thumbnails ?? []).filter((t) => t.width > 0);
  if (thumbnails.length === 0) return null;
  const candidates = thumbnails.map((t) => `${client.thumbnailSrcFor(t)} ${t.width}w`);
  // The original too, when wider than every copy: the browser takes it on a screen dense enough to need it.
  if (pepe.width && pepe.width > thumbnails.at(-1)!.width) candidates.push(`${client.imageSrcFor(pepe)} ${pepe.width}w`);
  return candidates.join(', ');
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
  const reveal = () => {
    frame.classList.add('is-loaded');
    if (options.thenSrc) swapIn(img, options.thenSrc);
  };
  img.addEventListener('load', () => void img.decode().then(reveal, reveal), { once: true });
  img.addEventListener('error', () => frame.classList.add('is-broken'), { once: true });
  // sizes and srcset before src: an eager image starts loading when src is set.
  if (options.srcset) {
    img.sizes = options.sizes ?? '100vw';
    img.srcset = options.srcset;
  }
  img.src = options.src;
  frame.append(img);
  return frame;
}

/** Loads `src` aside and puts it in `img` once decoded; on failure `img` keeps what it shows. */
function swapIn(img: HTMLImageElement, src: string): void {
  const next = new Image();
  next.decoding = 'async';
  next.src = src;
  next.decode().then(() => {
    if (img.isConnected) img.src = src;
  }, () => undefined);
}

function blurhashCanvas(hash: string | undefined, ratio: number): HTMLCanvasElement | null {
  if (!hash || !isBlurhashValid(hash).result) return null;
  const width = PLACEHOLDER_WIDTH;
  const height = Math.max(1, Math.min(4 * PLACEHOLDER_WIDTH, Math.round(width / ratio)));
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
