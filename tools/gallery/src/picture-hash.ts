/**
 * The pHash of a picture the visitor drops, pastes or picks, computed in the browser: the
 * browser decodes it (upright, first frame), then the build's own arithmetic runs on the
 * pixels (tools/image: flatten on white, Pillow greyscale, Pillow LANCZOS to 32x32, DCT).
 * The picture never leaves the page; only its 16 hex digits are sent.
 */
import { phashOfFrame } from '../../image/phash.js';

/** Frames above this many pixels are refused: the page would hold 4 bytes per pixel at once. */
export const MAX_PICTURE_PIXELS = 50_000_000;

export async function pictureHash(blob: Blob): Promise<{ ok: true; phash: string } | { ok: false; message: string }> {
  let bitmap: ImageBitmap;
  try {
    // Straight alpha, no colour management: the samples as the file holds them, as the build reads them.
    bitmap = await createImageBitmap(blob, { premultiplyAlpha: 'none', colorSpaceConversion: 'none', imageOrientation: 'from-image' });
  } catch {
    return { ok: false, message: 'This browser cannot read that file as a picture (try a PNG, JPEG, GIF or WebP).' };
  }
  try {
    const { width, height } = bitmap;
    if (width * height > MAX_PICTURE_PIXELS) return { ok: false, message: `The picture is ${width} × ${height} px, too large to look up here.` };
    return { ok: true, phash: phashOfFrame({ data: straightRgba(bitmap), width, height, channels: 4 }) };
  } finally {
    bitmap.close();
  }
}

/**
 * The bitmap's RGBA samples with straight alpha. A 2D canvas stores premultiplied colour and
 * rounds semi-transparent pixels on the way back; WebGL reads an unpremultiplied texture as is.
 */
function straightRgba(bitmap: ImageBitmap): Uint8Array {
  const { width, height } = bitmap;
  const canvas = new OffscreenCanvas(width, height);
  const gl = canvas.getContext('webgl', { premultipliedAlpha: false, antialias: false });
  if (gl) {
    const texture = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, texture);
    gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_COLORSPACE_CONVERSION_WEBGL, gl.NONE);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, bitmap);
    const framebuffer = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, framebuffer);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, texture, 0);
    if (gl.checkFramebufferStatus(gl.FRAMEBUFFER) === gl.FRAMEBUFFER_COMPLETE) {
      const pixels = new Uint8Array(width * height * 4);
      gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
      gl.deleteFramebuffer(framebuffer);
      gl.deleteTexture(texture);
      if (gl.getError() === gl.NO_ERROR) return pixels;
    }
  }
  // No WebGL (or a texture too large for it): the 2D canvas, exact for opaque pictures.
  const fallback = new OffscreenCanvas(width, height);
  const context = fallback.getContext('2d', { willReadFrequently: true })!;
  context.drawImage(bitmap, 0, 0);
  return new Uint8Array(context.getImageData(0, 0, width, height).data.buffer);
}
