/**
 * Which images a published JSON document points at. The build writes absolute URLs
 * (`{base_url}/images/<id><ext>`, `{cdn_url}/images/<id><ext>`) from the manifest's
 * settings, so a string that starts with one of those URLs followed by `/images/` names a
 * site path `images/<name>`. The publisher uses this to check, before the manifest goes
 * up, that no published JSON points at a missing image.
 */
import type { SiteUrls } from '../../functions/core/record.js';

/** The site paths ('site/images/<name>') referenced anywhere in a parsed JSON value. */
export function imageReferences(value: unknown, settings: Partial<Record<keyof SiteUrls, unknown>>): Set<string> {
  const roots = Object.values(settings)
    .filter((v): v is string => typeof v === 'string' && /^https?:\/\//.test(v))
    .map((url) => `${url.replace(/\/+$/, '')}/images/`);
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node === 'string') {
      for (const root of roots) {
        if (!node.startsWith(root)) continue;
        const name = node.slice(root.length).split(/[?#]/)[0] ?? '';
        if (name) found.add(`site/images/${decodeURIComponent(name)}`);
      }
    } else if (Array.isArray(node)) {
      node.forEach(visit);
    } else if (typeof node === 'object' && node !== null) {
      Object.values(node).forEach(visit);
    }
  };
  visit(value);
  return found;
}
