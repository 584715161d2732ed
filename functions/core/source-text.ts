/**
 * Record chunks read straight from the function's source text. Why: V8 copies every string
 * literal of the code it compiles into a new heap string (and collects garbage while doing
 * it), but it only pre-parses a function that has not been called, without creating its
 * literals. So the data module wraps the chunks in a function that is never called on the
 * fast path: `Function.prototype.toString` returns its source, a slice of the module's
 * source (no copy), and each chunk is sliced out from between its quotes. Measured: 52–57 ms
 * instead of 72 ms to import 14 MB of chunks (README, API, "Data layout, chosen for cold start").
 *
 * This only works if a chunk's source text is its value, so chunks are written with
 * `escapeForSource` (no backslash, no `'`, only printable ASCII and TAB: nothing a bundler
 * would escape, whichever quote it picks). If the source is not as expected (another
 * bundler, a function created in process), `chunkSource` returns null and the caller calls
 * the function instead: slower, same values.
 */
/** The escape mark: a backquote, found in none of the encoded values and rare in text, so most chunks need no unescaping. */
const MARK = '`';

/** Build-time side: `` ` `` → ``` `` ```, `'` → `` `a ``, `\` → `` `b ``, anything outside TAB and printable ASCII → `` `u `` + 4 hex digits. */
export function escapeForSource(text: string): string {
  return text.replace(/[`'\\]|[^\t\x20-\x7e]/g, (c) =>
    c === MARK ? '``' : c === "'" ? '`a' : c === '\\' ? '`b' : `\`u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Run-time side: one indexOf loop (no regex callbacks: this runs in a cold process). */
export function unescapeFromSource(text: string): string {
  let at = text.indexOf(MARK);
  if (at === -1) return text;
  let out = '';
  let from = 0;
  while (at !== -1) {
    out += text.slice(from, at);
    const kind = text[at + 1];
    if (kind === 'u') {
      out += String.fromCharCode(parseInt(text.slice(at + 2, at + 6), 16));
      from = at + 6;
    } else {
      out += kind === 'a' ? "'" : kind === 'b' ? '\\' : MARK;
      from = at + 2;
    }
    at = text.indexOf(MARK, from);
  }
  return out + text.slice(from);
}

/**
 * The string literals of the array a function returns, read from its source text, or null
 * when that text is not `… [ 'lit' , "lit" … ] …` with literals free of backslashes.
 */
export function chunkSource(fn: () => readonly string[], expected: number): string[] | null {
  const source = Function.prototype.toString.call(fn);
  let at = source.indexOf('[');
  if (at === -1) return null;
  const chunks: string[] = [];
  for (at++; ; ) {
    // Skip what may separate literals: whitespace and commas.
    while (at < source.length && ' \t\n\r,'.includes(source[at]!)) at++;
    const quote = source[at];
    if (quote === ']') break;
    if (quote !== "'" && quote !== '"') return null;
    const end = source.indexOf(quote, at + 1);
    if (end === -1) return null;
    const chunk = source.slice(at + 1, end);
    if (chunk.includes('\\')) return null;
    chunks.push(chunk);
    at = end + 1;
  }
  return chunks.length === expected ? chunks : null;
}
