/**
 * The fix `pepe serve` gives for a build folder it cannot serve (a damaged manifest, a
 * missing or broken function bundle, a pipe or a device in a file's place): delete the folder
 * and build again. Not "run `pepe build` again": over an intact build folder whose content did
 * not change a build writes nothing (it trusts its own manifest), so the damage stayed.
 */
export const freshBuild = (distDir: string): string => `delete ${distDir} and build again with \`npx pepe build\``;
