/**
 * Splits a raw query string into known parameters, strictly: the URL parser of the
 * platform is lenient (it keeps malformed `%` sequences as text), but the API promises a
 * 400 naming the problem for malformed percent-encoding, oversized queries and repeated
 * parameters. Unknown parameters are ignored (after their encoding is checked).
 */
import { QUERY_MAX_LENGTH } from './api-limits.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** A received value, quoted for an error message: JSON-escaped (so control characters are visible) and shortened. */
export function quote(value: string): string {
  // Cut at 60 code units, not inside a surrogate pair.
  const cut = (value.charCodeAt(59) & 0xfc00) === 0xd800 ? 59 : 60;
  const shown = value.length > 60 ? `${value.slice(0, cut)}…` : value;
  return JSON.stringify(shown).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
export const hasControlCharacters = (value: string): boolean => CONTROL.test(value);

function decodeComponent(text: string): string | undefined {
  const spaced = text.includes('+') ? text.replaceAll('+', ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return undefined;
  }
}

/** Every value of a repeated parameter, quoted, for the error message (the query decoded fine: parseQueryString checked it). */
function receivedValues(rawQuery: string, key: string): string {
  const values: string[] = [];
  for (const piece of rawQuery.split('&')) {
    const eq = piece.indexOf('=');
    if (decodeComponent(eq === -1 ? piece : piece.slice(0, eq)) === key) values.push(quote(decodeComponent(eq === -1 ? '' : piece.slice(eq + 1)) ?? ''));
  }
  return values.join(', ');
}

/**
 * `rawQuery` is `url.search` without the leading `?`. Returns the decoded values of the
 * `known` parameters that are present (each at most once).
 */
export function parseQueryString<K extends string>(rawQuery: string, known: readonly K[]): Parsed<Partial<Record<K, string>>> {
  if (rawQuery.length > QUERY_MAX_LENGTH) {
    return { ok: false, message: `the query string must be at most ${QUERY_MAX_LENGTH} characters (got ${rawQuery.length})` };
  }
  const values: Partial<Record<K, string>> = {};
  const counts = new Map<K, number>();
  if (rawQuery === '') return { ok: true, value: values };
  for (const piece of rawQuery.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const name = decodeComponent(eq === -1 ? piece : piece.slice(0, eq));
    const value = decodeComponent(eq === -1 ? '' : piece.slice(eq + 1));
    if (name === undefined || value === undefined) {
      return { ok: false, message: `the query string has malformed percent-encoding in ${quote(piece)}; write a literal "%" as %25` };
    }
    if (!(known as readonly string[]).includes(name)) continue;
    const key = name as K;
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    values[key] = value;
  }
  for (const [key, count] of counts) {
    if (count > 1) return { ok: false, message: `${key} must be given at most once (got ${count} values: ${receivedValues(rawQuery, key)})` };
  }
  return { ok: true, value: values };
}
