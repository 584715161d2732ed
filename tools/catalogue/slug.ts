/**
 * URL-safe file names for imported images: accents folded (NFKD, marks removed), lowercase,
 * anything but a-z 0-9 becomes one dash. Names stay readable in the content folder and never
 * need escaping in a URL or a shell.
 */
import { isWindowsDeviceName } from './windows-names.js';

const MAX_SLUG_LENGTH = 60;

export function slugify(name: string, fallback = 'pepe'): string {
  const slug = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/, '');
  if (slug === '') return fallback;
  // `nul.png` is legal here but no Windows checkout can hold it (windows-names.ts).
  return isWindowsDeviceName(slug) ? `${slug}-${fallback}` : slug;
}

/** `base`, else `base-2`, `base-3`, … : the first for which `taken` says no. */
export function uniqueSlug(base: string, taken: (candidate: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken(candidate)) return candidate;
  }
}
