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
 * bundler, a function created in process), `sourcePieces` calls the function instead:
 * slower, same values.
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
 * Piece i of the array of string literals a function returns, located in the function's source
 * text on first use without calling it, or by calling it when that text is not as expected.
 *
 * `lengths` are the pieces' lengths as written: with them, finding piece i reads a few
 * characters at each boundary before it instead of scanning the pieces' text, so a cold
 * process touches only the pages of the pieces it reads (a minor page fault costs ≈ 20 µs on
 * the VM we measured; README, API, "Data layout, chosen for cold start"). A piece is taken
 * from the source only if it sits between two equal quotes exactly `lengths[i]` apart and
 * holds no backslash: whatever a bundler escapes, it escapes with a backslash.
 */
export function sourcePieces(fn: () => readonly string[], lengths: readonly number[]): (index: number) => string {
  const source = Function.prototype.toString.call(fn);
  /** Where each piece located so far starts in `source` (after its opening quote). */
  const starts: number[] = [];
  /** Where to look for the next piece's opening quote; -1 once the source proved unreadable. */
  let next = source.indexOf('[') + 1;
  let called: readonly string[] | undefined;
  /** Pieces already read (and checked), by index. */
  const read: string[] = [];
  const byCall = (index: number): string => {
    called ??= fn();
    if (called.length !== lengths.length) throw new Error(`catalogue data holds ${called.length} pieces of text but lists ${lengths.length} lengths; rebuild the catalogue`);
    return called[index]!;
  };
  /** Finds the piece after the last one located; false when the source is not as expected. */
  const locateNext = (): boolean => {
    let at = next;
    // Skip what may separate literals: whitespace and commas.
    while (at < source.length && ' \t\n\r,'.includes(source[at]!)) at++;
    const quote = source[at];
    if (quote !== "'" && quote !== '"') return false;
    const end = at + 1 + lengths[starts.length]!;
    if (source[end] !== quote) return false;
    starts.push(at + 1);
    next = end + 1;
    return true;
  };
  const fromSource = (index: number): string | undefined => {
    while (starts.length <= index) if (!locateNext()) return undefined;
    const start = starts[index]!;
    const piece = source.slice(start, start + lengths[index]!);
    return piece.includes('\\') ? undefined : piece;
  };
  return (index) => {
    const known = read[index];
    if (known !== undefined) return known;
    if (!(index >= 0 && index < lengths.length)) throw new RangeError(`catalogue data has no piece ${index}`);
    let piece = next > 0 && !called ? fromSource(index) : undefined;
    if (piece === undefined) {
      next = -1; // unreadable once, unreadable for good: every later piece comes from the call
      piece = byCall(index);
    }
    read[index] = piece;
    return piece;
  };
}
