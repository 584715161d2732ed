/**
 * Bundles the gallery (tools/gallery/src) with esbuild and writes it into a site folder:
 * `index.html`, `404.html` plus `assets/gallery-<hash>.js|css`. Asset names carry a hash of their
 * bytes, so they can be cached for a year; the same sources always give the same files.
 * The stylesheet is also written as `site.css` (revalidated): the share pages, written by the
 * catalogue build without knowing the hash, link that name.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { renderIndexHtml, renderNotFoundHtml } from './index-html.js';
import { makeFolders } from '../shared/make-folders.js';
import { sha256Of } from '../shared/manifest.js';

const SOURCE_DIR = fileURLToPath(new URL('./src/', import.meta.url));

/** Browsers the page targets: anything with <dialog>, aspect-ratio and IntersectionObserver. */
const BROWSER_TARGETS = ['chrome100', 'firefox100', 'safari15.4', 'edge100'];

export interface GalleryAssets {
  /** Site-relative path → file contents. */
  files: Map<string, string>;
}

/** Bundles the page in memory (no files written): the test and the bench use it too. */
async function bundleGallery(): Promise<GalleryAssets> {
  const common = { bundle: true, minify: true, write: false, legalComments: 'none', target: BROWSER_TARGETS, logLevel: 'silent' } as const;
  const [script, style] = await Promise.all([
    build({ ...common, entryPoints: [join(SOURCE_DIR, 'main.ts')], format: 'esm', platform: 'browser', outfile: 'gallery.js' }),
    build({ ...common, entryPoints: [join(SOURCE_DIR, 'styles.css')], outfile: 'gallery.css' }),
  ]);
  const scriptText = script.outputFiles[0]!.text;
  const styleText = style.outputFiles[0]!.text;
  const scriptPath = `assets/gallery-${contentHash(scriptText)}.js`;
  const stylePath = `assets/gallery-${contentHash(styleText)}.css`;
  const files = new Map<string, string>([
    ['index.html', renderIndexHtml({ script: scriptPath, style: stylePath })],
    ['404.html', renderNotFoundHtml({ style: stylePath })],
    ['site.css', styleText],
    [scriptPath, scriptText],
    [stylePath, styleText],
  ]);
  return { files };
}

/** Writes the gallery into `siteDir`; returns the written paths, site-relative and sorted. */
export async function writeGallery(siteDir: string): Promise<{ files: string[] }> {
  const { files } = await bundleGallery();
  await makeFolders(join(siteDir, 'assets'));
  const paths = [...files.keys()].sort();
  for (const path of paths) await writeFile(join(siteDir, path), files.get(path)!);
  return { files: paths };
}

/** 10 hex characters of sha256: collisions are irrelevant at a handful of files per deploy. */
function contentHash(text: string): string {
  return sha256Of(text).slice(0, 10);
}
