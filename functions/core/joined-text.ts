/**
 * Where each piece of a separator-joined text starts, so that a piece is sliced out only when it
 * is asked for. The data's term list and record dictionary are read this way: splitting them
 * made thousands of strings on a cold process's first answer, which needs a few dozen.
 */

/**
 * Start of piece i of `text` (pieces separated by the one-character `separator`; '' holds none)
 * at index i, and one more slot holding `text.length + 1` (as if a separator followed the last
 * piece): piece i is `text.slice(starts[i], starts[i + 1] - 1)`.
 */
export function pieceStarts(text: string, separator: string): Int32Array {
  let count = text === '' ? 0 : 1;
  for (let at = text.indexOf(separator); at !== -1; at = text.indexOf(separator, at + 1)) count++;
  const starts = new Int32Array(count + 1);
  let piece = 0;
  if (count > 0) starts[piece++] = 0;
  for (let at = text.indexOf(separator); at !== -1; at = text.indexOf(separator, at + 1)) starts[piece++] = at + 1;
  starts[count] = text.length + 1;
  return starts;
}
