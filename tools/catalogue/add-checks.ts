/**
 * What `pepe add` checks about where it writes: `--into` and images adopted where they are in
 * the content folder. Each refusal is a problem that says what to do; builds would otherwise
 * reject what add wrote (hidden folders, symlinks, two images sharing one sidecar).
 */
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, normalize, relative, sep } from 'node:path';
import { error, type Problem } from '../shared/problems.js';
import { foldKey } from './case-collisions.js';
import { CONTENT_IMAGE_EXTS } from './scan-content.js';
import { pathBelow } from './path-below.js';
import { windowsNameFault } from './windows-names.js';

/** `--into` must stay inside the content folder and not be hidden (the scan ignores hidden folders). */
export function checkInto(into: string | undefined): Problem | null {
  if (into === undefined || into === '') return null;
  const clean = normalize(into);
  if (isAbsolute(into) || clean === '..' || clean.startsWith(`..${sep}`) || clean.split(sep).some((part) => part.startsWith('.') && part !== '.')) {
    return error('bad-into', `--into "${into}" must be a relative folder inside the content folder, without ".." or hidden parts`);
  }
  // "." and empty parts name no folder (`--into .` is the content folder itself).
  for (const part of clean.split(sep).filter((p) => p !== '' && p !== '.')) {
    const fault = windowsNameFault(part);
    if (fault) return error('bad-into', `--into "${into}": the folder "${part}": ${fault}, so a Windows checkout of the repository would fail: choose another name`);
  }
  return null;
}

export const isInside = (folder: string, path: string): boolean => {
  const rel = pathBelow(folder, path);
  return rel !== null && rel !== '';
};

/** The first of `rel`'s parts (e.g. `a`, `a/b`, `a/b/c.png`) that is a symlink below `contentDir`, or undefined. */
function symlinkOnTheWay(contentDir: string, rel: string): string | undefined {
  const parts = rel.split('/').filter((part) => part !== '' && part !== '.');
  return parts.map((_, at) => parts.slice(0, at + 1).join('/')).find((part) => lstatSync(join(contentDir, part), { throwIfNoEntry: false })?.isSymbolicLink());
}

/** The name an image and its sidecar share, as builds pair them (scan-content.ts `stemOf`): without the extension, in Unicode NFC. */
const pairingName = (name: string): string => basename(name, extname(name)).normalize('NFC');

/** Why an image inside the content folder cannot be given a sidecar where it is, or null. */
export function inPlaceProblem(contentDir: string, abs: string, sidecarPath: string, source: string): Problem | null {
  const rel = relative(contentDir, abs).split(sep).join('/');
  if (rel.split('/').some((part) => part.startsWith('.'))) {
    return error('bad-into', `"${source}" is in a hidden folder of the content folder, which builds ignore: move it out first`);
  }
  // Builds never follow a symlink in the content folder (the link itself or a folder on its
  // way): a sidecar beside one would be "added" and still refused by every build.
  const link = symlinkOnTheWay(contentDir, rel);
  if (link !== undefined) {
    const what = link === rel ? 'is a symlink' : `is inside "${link}", a symlinked folder`;
    return error('symlink', `"${source}" ${what} in the content folder, which builds never follow: replace the link with the real ${link === rel ? 'file' : 'folder'}, then run the command again`);
  }
  for (const part of rel.split('/')) {
    const fault = windowsNameFault(part);
    if (fault) return error('windows-invalid-name', `"${source}": ${part === basename(abs) ? '' : `the folder "${part}": `}${fault}, so a Windows checkout of the repository would fail: rename it first (git mv if it is committed)`);
  }
  if (!CONTENT_IMAGE_EXTS.has(extname(abs).toLowerCase())) {
    return error('unsupported-format', `"${source}" is inside the content folder with a "${extname(abs) || 'missing'}" extension that builds do not read: rename it to .png, .jpg, .gif, .webp or .avif first`);
  }
  // Builds read the extension in any letter case (`frog.JSON` is frog.png's sidecar too) and
  // the name in either Unicode form (`café.json` with "e" + U+0301 is café.png's).
  const sidecarName = basename(sidecarPath);
  const existing = existsSync(sidecarPath) ? sidecarName : readdirSync(dirname(sidecarPath)).find((name) => extname(name).toLowerCase() === '.json' && pairingName(name) === pairingName(sidecarName));
  if (existing !== undefined) {
    return error('already-in-catalogue', `"${source}" already has a sidecar (${relative(contentDir, join(dirname(sidecarPath), existing)).split(sep).join('/')}): edit that one instead`);
  }
  // `a.png` beside `a.jpg`: both would be described by the one `a.json` (a name-collision in every build).
  const stem = basename(abs, extname(abs));
  const twins = readdirSync(dirname(abs)).filter((name) => name !== basename(abs) && CONTENT_IMAGE_EXTS.has(extname(name).toLowerCase()) && pairingName(name) === pairingName(abs));
  if (twins.length > 0) {
    return error('name-collision', `"${source}" and ${twins.map((name) => `"${name}"`).join(', ')} beside it would share the sidecar "${stem}.json": rename one of them first`);
  }
  return null;
}

export function intoSymlinkProblem(contentDir: string, into: string | undefined): Problem | null {
  const link = into ? symlinkOnTheWay(contentDir, normalize(into).split(sep).join('/')) : undefined;
  return link === undefined ? null : error('bad-into', `--into "${into}": "${link}" is a symlink in the content folder, which builds never follow: choose a real folder`);
}

/**
 * A part of `--into` that is not in the content folder as typed but is there in another letter
 * case or Unicode form (`Moods` beside `moods/`): Linux would make a second folder, which
 * macOS and Windows checkouts merge into one (a case-collision error in every build as soon as
 * both hold a name). Refused, naming the folder's own spelling.
 */
export function intoCaseProblem(contentDir: string, into: string | undefined): Problem | null {
  if (!into) return null;
  const spelled: string[] = [];
  const parts = normalize(into).split(sep).filter((p) => p !== '' && p !== '.');
  for (const [at, part] of parts.entries()) {
    const here = join(contentDir, ...spelled);
    const names = existsSync(here) && lstatSync(here).isDirectory() ? readdirSync(here) : [];
    if (names.includes(part)) {
      spelled.push(part);
      continue;
    }
    const twin = names.filter((name) => foldKey(name) === foldKey(part)).sort()[0];
    if (twin === undefined) return null;
    const existing = [...spelled, twin].join('/');
    if (!lstatSync(join(here, twin)).isDirectory()) {
      return error('bad-into', `--into "${into}": the content folder already has the file "${existing}", which differs only in letter case (one name on macOS and Windows checkouts): choose another --into`);
    }
    const corrected = [...spelled, twin, ...parts.slice(at + 1)].join('/');
    return error(
      'bad-into',
      `--into "${into}": the content folder already has "${existing}", which differs only in letter case (one folder on macOS and Windows checkouts, and a case-collision error in every build): use --into "${corrected}"`,
    );
  }
  return null;
}
