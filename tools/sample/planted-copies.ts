/**
 * "The same picture again": the edits a near-duplicate detector must see through
 * (issue 2: re-encoded JPEG q40–85, WebP q75, resized, brightness +15%). Resizes come at
 * several scales because maintainers re-export at arbitrary sizes: one half is the only
 * scale at which whole source pixels fall into each thumbnail cell of the copy, so it
 * alone cannot show whether the thumbnail tolerates a resize.
 */
import sharp from 'sharp';

export const COPY_TRANSFORMS = ['jpeg-q40', 'jpeg-q60', 'jpeg-q85', 'webp-q75', 'resize-50', 'brighten-15', 'resize-62.5', 'resize-75', 'resize-90', 'resize-150'] as const;
export type CopyTransform = (typeof COPY_TRANSFORMS)[number];

/** The width scale of each resize edit (sharp's default Lanczos3, saved as PNG). */
export const RESIZE_SCALES = { 'resize-50': 0.5, 'resize-62.5': 0.625, 'resize-75': 0.75, 'resize-90': 0.9, 'resize-150': 1.5 } as const;

/** `original` resized to `scale` times its width (aspect kept), as PNG. */
export async function resizedCopy(original: Buffer, scale: number): Promise<Buffer> {
  const { width } = await sharp(original).metadata();
  return sharp(original).resize({ width: Math.max(1, Math.round((width ?? 2) * scale)) }).png().toBuffer();
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
    case 'brighten-15':
      return image.modulate({ brightness: 1.15 }).png().toBuffer();
  }
}
