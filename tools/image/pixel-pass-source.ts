/**
 * pixel-pass.wat → pixel-pass.wasm with wabt (a dev dependency: the committed .wasm is what
 * runs). `npm run build:wasm` rewrites the .wasm; pixel-pass.test.ts fails when it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';
import { PIXEL_PASS_WASM } from './pixel-pass.js';

const WAT = new URL('./pixel-pass.wat', import.meta.url);

export async function compilePixelPassWat(): Promise<Uint8Array> {
  const wabt = await wabtInit();
  const parsed = wabt.parseWat('pixel-pass.wat', readFileSync(WAT, 'utf8'), { simd: true });
  try {
    parsed.validate();
    return new Uint8Array(parsed.toBinary({}).buffer);
  } finally {
    parsed.destroy();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const bytes = await compilePixelPassWat();
  writeFileSync(PIXEL_PASS_WASM, bytes);
  process.stdout.write(`${fileURLToPath(PIXEL_PASS_WASM)}: ${bytes.length} bytes\n`);
}
