/**
 * The escape every piece of the catalogue's texts is written in (catalogue-data.ts): printable
 * ASCII and TAB only. Why: the pieces file is read at byte offsets and decoded as latin1
 * (piece-file.ts), and a record is sliced out of its chunk at offsets counted in the escaped
 * text, so a character must be a byte. (It also keeps `'` and `\` out, from when the pieces
 * were string literals of the data module; the build's record-encoding cache holds this
 * form, so it stays.) Most text needs no escape, and a record is unescaped alone, when served.
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
