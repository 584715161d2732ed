/**
 * Content names a Windows checkout cannot hold. Git for Windows refuses to check out a path
 * with a part that is a device name (`aux.png`, `nul.json`: CON, PRN, AUX, NUL, COM0–9,
 * LPT0–9, CONIN$, CONOUT$, whatever the extension), holds one of `< > : " | ? * \` or a control
 * character, or ends in a dot or a space ("error: invalid path 'content/aux.png'"); the
 * clone or pull fails for every Windows maintainer, not just for that file. Linux and macOS
 * accept all of them; this is an error where it is still cheap to rename (the pull
 * request's check), as `caseCollisions` (scan-content.ts) is for letter case.
 */
import type { ContentScan } from './scan-content.js';
import { error, type Problem } from '../shared/problems.js';

/** The part before the first dot, spaces after it allowed (`aux .png` is AUX too). */
const DEVICE_NAME = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$) *$/i;
const FORBIDDEN = /[<>:"|?*\\\u0000-\u001f]/g;
/**
 * Matches every path that could have a fault above (and few others): a forbidden character, a
 * part ending in a dot or a space, or a part starting like a device name: one test per path
 * is cheaper than splitting every path into parts.
 */
const MAYBE_FAULT = /[<>:"|?*\\\u0000-\u001f]|[. ](?:\/|$)|(?:^|\/)(?:con|prn|aux|nul|com|lpt)/i;

/** `aux`, `NUL`, `com1`…: a name Windows keeps for a device, with any extension. */
export const isWindowsDeviceName = (stem: string): boolean => DEVICE_NAME.test(stem);

/** Why Windows cannot hold a file or folder of this name, or null. */
export function windowsNameFault(name: string): string | null {
  const stem = name.split('.')[0]!;
  if (DEVICE_NAME.test(stem)) return `"${stem.trimEnd()}" is a device name on Windows, whatever the extension`;
  const forbidden = [...new Set(name.match(FORBIDDEN) ?? [])];
  if (forbidden.length > 0) {
    const shown = [...new Set(forbidden.map((char) => (char < ' ' ? 'a control character' : `"${char}"`)))];
    const listed = shown.length === 1 ? shown[0]! : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)!}`;
    return `${listed} ${shown.length === 1 ? 'is' : 'are'} not allowed in a Windows file name`;
  }
  if (/[. ]$/.test(name)) return `it ends with ${name.endsWith('.') ? 'a dot' : 'a space'}, which Windows drops`;
  return null;
}

const AFTER_FAULT = 'a Windows checkout of the repository fails ("invalid path")';

export function windowsNameProblems(scan: Pick<ContentScan, 'pairs' | 'loneSidecars'>): Problem[] {
  const problems: Problem[] = [];
  const reported = new Set<string>();
  const check = (rel: string) => {
    if (!MAYBE_FAULT.test(rel)) return;
    const parts = rel.split('/');
    for (let at = 0; at < parts.length; at++) {
      const fault = windowsNameFault(parts[at]!);
      if (fault === null) continue;
      const folder = at < parts.length - 1;
      const path = parts.slice(0, at + 1).join('/');
      // An image and its sidecar share their fault (the stem): one problem for the pair.
      const key = folder ? `${path}/` : path.replace(/\.[^./]*$/, '');
      if (reported.has(key)) return;
      reported.add(key);
      problems.push(
        folder
          ? error('windows-invalid-name', `the folder "${parts[at]}": ${fault}, so ${AFTER_FAULT}: rename the folder (git mv)`, path)
          : error('windows-invalid-name', `${fault}, so ${AFTER_FAULT}: rename the image and its sidecar (git mv both)`, rel),
      );
      return;
    }
  };
  for (const pair of scan.pairs) {
    check(pair.image.rel);
    check(pair.sidecar.rel);
  }
  for (const sidecar of scan.loneSidecars) check(sidecar.rel);
  return problems;
}
