/**
 * "The same picture again": the edits a near-duplicate detector must see through
 * (re-encoded JPEG q40–85, WebP q75, resized 50–150%, brightness and contrast ±15%, gamma
 * 0.8–1.2, a crop of at most 3%, PNG → GIF with a palette). Resizes come at several scales
 * because maintainers re-export at arbitrary sizes: one half is the only scale at which whole
 * source pixels fall into each thumbnail cell of the copy, so it alone cannot show whether the
 * thumbnail tolerates a resize.
 */
import sharp from 'sharp';

export const COPY_TRANSFORMS = [
  'jpeg-q40', 'jpeg-q60', 'jpeg-q85', 'webp-q75',
  'resize-50', 'resize-62.5', 'resize-75', 'resize-90', 'resize-150',
  'brighten-15', 'darken-15', 'contrast+15', 'contrast-15', 'gamma-0.8', 'gamma-1.2',
  'crop-3', 'gif-palette',
] as const;
export type CopyTransform = (typeof COPY_TRANSFORMS)[number];

/** The width scale of each resize edit (sharp's default Lanczos3, saved as PNG). */
export const RESIZE_SCALES = { 'resize-50': 0.5, 'resize-62.5': 0.625, 'resize-75': 0.75, 'resize-90': 0.9, 'resize-150': 1.5 } as const;

/** `original` resized to `scale` times its width (aspect kept), as PNG. */
export async function resizedCopy(original: Buffer, scale: number): Promise<Buffer> {
  const { width } = await sharp(original).metadata();
  return sharp(original).resize({ width: Math.max(1, Math.round((width ?? 2) * scale)) }).png().toBuffer();
}

/** Every colour sample v (0..255) replaced by 255·(v/255)^exponent, alpha kept; as PNG. */
async function gammaCopy(original: Buffer, exponent: number): Promise<Buffer> {
  const { data, info } = await sharp(original).raw().toBuffer({ resolveWithObject: true });
  const lut = Uint8Array.from({ length: 256 }, (_, v) => Math.round(255 * (v / 255) ** exponent));
  const alpha = info.channels === 2 || info.channels === 4;
  for (let i = 0; i < data.length; i++) if (!alpha || i % info.channels !== info.channels - 1) data[i] = lut[data[i]!]!;
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).png().toBuffer();
}

/** 3% of each side's length cut away, unevenly (2% left and bottom, 1% right and top): the crop an editor's frame leaves. */
async function croppedCopy(original: Buffer): Promise<Buffer> {
  const { width = 1, height = 1 } = await sharp(original).metadata();
  const left = Math.round(width * 0.02);
  const top = Math.round(height * 0.01);
  return sharp(original).extract({ left, top, width: width - left - Math.round(width * 0.01), height: height - top - Math.round(height * 0.02) }).png().toBuffer();
}

/** Applies one edit to encoded image bytes and returns the new file's bytes. */
export async function plantedCopy(original: Buffer, transform: CopyTransform): Promise<Buffer> {
  const image = sharp(original);
  switch (transform) {
    case 'jpeg-q40':
      return image.flatten({ background: '#ffffff' }).jpeg({ quality: 40 }).toBuffer();
    case 'jpeg-q60':
      return image.flatten({ background: '#ffffff' }).jpeg({ quality: 60 }).toBuffer();
    case 'jpeg-q85':
      return image.flatten({ background: '#ffffff' }).jpeg({ quality: 85 }).toBuffer();
    case 'webp-q75':
      return image.webp({ quality: 75 }).toBuffer();
    case 'resize-50':
    case 'resize-62.5':
    case 'resize-75':
    case 'resize-90':
    case 'resize-150':
      return resizedCopy(original, RESIZE_SCALES[transform]);
    // An editor's brightness: a gain on lightness (sharp's modulate works in LCh).
    case 'brighten-15':
      return image.modulate({ brightness: 1.15 }).png().toBuffer();
    case 'darken-15':
      return image.modulate({ brightness: 0.85 }).png().toBuffer();
    // Contrast about mid-grey, on each channel: v → a·v + 128·(1 − a), clipped.
    case 'contrast+15':
      return image.linear(1.15, 128 * (1 - 1.15)).png().toBuffer();
    case 'contrast-15':
      return image.linear(0.85, 128 * (1 - 0.85)).png().toBuffer();
    case 'gamma-0.8':
      return gammaCopy(original, 0.8);
    case 'gamma-1.2':
      return gammaCopy(original, 1.2);
    case 'crop-3':
      return croppedCopy(original);
    // libvips quantises to a palette of at most 256 colours, with dithering.
    case 'gif-palette':
      return image.gif().toBuffer();
  }
}
