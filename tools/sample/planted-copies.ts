/**
 * "The same picture again": the edits a near-duplicate detector must see through
 * (issue 2: re-encoded JPEG q40–85, WebP q75, resized 50%, brightness +15%).
 */
import sharp from 'sharp';

export const COPY_TRANSFORMS = ['jpeg-q40', 'jpeg-q60', 'jpeg-q85', 'webp-q75', 'resize-50', 'brighten-15'] as const;
export type CopyTransform = (typeof COPY_TRANSFORMS)[number];

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
    case 'resize-50': {
      const { width } = await sharp(original).metadata();
      return image.resize({ width: Math.round((width ?? 2) / 2) }).png().toBuffer();
    }
    case 'brighten-15':
      return image.modulate({ brightness: 1.15 }).png().toBuffer();
  }
}
