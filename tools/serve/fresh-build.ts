import { resolve } from 'node:path';
import { shellWord } from '../shared/shell-path.js';

/**
 * The fix `pepe serve` gives for a build folder it cannot serve (a damaged manifest, a
 * missing or broken function bundle, a pipe or a device in a file's place): delete the folder
 * and build again. Not "run `pepe build` again": over an intact build folder whose content did
 * not change a build writes nothing (it trusts its own manifest), so the damage would stay.
 * A folder other than ./dist (`pepe serve --dir`) is named with `--out`, since a plain
 * `npx pepe build` writes ./dist.
 */
export const freshBuild = (distDir: string): string => `delete ${distDir} and build again with \`npx pepe build${outFlag(distDir)}\``;

/** ` --out DIR` (shell-quoted) that makes `npx pepe build` write `distDir`; empty for ./dist, which it writes anyway. */
export const outFlag = (distDir: string): string => (resolve(distDir) === resolve('dist') ? '' : ` --out ${shellWord(distDir)}`);
