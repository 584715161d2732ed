import { encodeBlurhash } from './blurhash-encoder.js';

/** The catalogue's blurhash: 4x3 components of the 32x32 RGB thumbnail. */
export const blurhashFromThumb = (thumb: Uint8Array): string => encodeBlurhash(thumb, 32, 32, 4, 3, 3);
