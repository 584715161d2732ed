/**
 * The subset of URLPattern pathname syntax that Netlify function `config.path` entries use
 * here. Node 20 has no global URLPattern (it arrived in Node 23.8), so `pepe serve` compiles
 * these patterns itself:
 *
 * - a literal character matches itself, case-sensitively (URLPattern is case-sensitive);
 * - `:name` matches one or more characters up to the next `/` and is captured as `name`;
 * - `*` matches any run of characters, `/` included, possibly empty, captured as `0`, `1`, …
 *   (so `/api/*` matches `/api/` and `/api/a/b` but not `/api`, exactly as URLPattern does).
 *
 * Anything else URLPattern allows (`{…}` groups, `?`/`+` modifiers, `(regex)` groups,
 * escapes) is refused with a message naming the pattern, rather than silently matched
 * differently from production. Matching runs on the pathname as the URL parser leaves it
 * (percent-encoding kept), and captured values are the raw text, like URLPattern's
 * `pathname.groups`.
 */

export interface PathPattern {
  source: string;
  /** Captured groups by name, or null when the pathname does not match. */
  match(pathname: string): Record<string, string> | null;
}

export class PathPatternError extends Error {
  readonly code = 'PATH_PATTERN';
}

const UNSUPPORTED = /[{}()?+\\]/;

export function compilePathPattern(source: string): PathPattern {
  if (!source.startsWith('/')) throw new PathPatternError(`function path "${source}" must start with "/"`);
  const unsupported = UNSUPPORTED.exec(source);
  if (unsupported) {
    throw new PathPatternError(`function path "${source}" uses "${unsupported[0]}", which pepe serve's URLPattern subset does not support (only literal text, :name and *)`);
  }
  const names: string[] = [];
  let regex = '^';
  let wildcardIndex = 0;
  for (let i = 0; i < source.length; ) {
    const char = source[i]!;
    if (char === ':') {
      const name = /^[A-Za-z_$][\w$]*/.exec(source.slice(i + 1))?.[0];
      if (!name) throw new PathPatternError(`function path "${source}": ":" at position ${i} must start a parameter name such as :id`);
      if (names.includes(name)) throw new PathPatternError(`function path "${source}" names the parameter :${name} twice`);
      names.push(name);
      regex += '([^/]+)';
      i += name.length + 1;
    } else if (char === '*') {
      names.push(String(wildcardIndex++));
      regex += '(.*)';
      i += 1;
    } else {
      regex += char.replace(/[.^$|[\]\\/]/g, '\\$&');
      i += 1;
    }
  }
  const compiled = new RegExp(`${regex}$`, 'u');
  return {
    source,
    match(pathname) {
      const found = compiled.exec(pathname);
      if (!found) return null;
      const groups: Record<string, string> = {};
      names.forEach((name, index) => {
        groups[name] = found[index + 1] ?? '';
      });
      return groups;
    },
  };
}
