/**
 * The sidecar format: ONE strict zod schema is the source of truth for what maintainers
 * may write next to an image, and `parseSidecar` turns a sidecar's text into the
 * normalised fields of a record (the specification) or into problems naming the field and value.
 */
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { locateJsonSyntaxError } from './json-syntax-error.js';
import { sha256Of } from '../shared/manifest.js';
import { error, type Problem } from '../shared/problems.js';
import { normaliseTag } from '../../functions/core/filters.js';

/**
 * Bytes of one sidecar. Real ones hold a few hundred; a huge one read whole would end the run
 * (past V8's longest string: a stack trace instead of a problem).
 */
export const MAX_SIDECAR_BYTES = 1024 * 1024;

let rules: string | undefined;

/**
 * The rules a sidecar is checked and normalised by, as a short hash of this file's text. The
 * build cache keeps parsed sidecars by file stat (feature-cache.ts) and drops them when this
 * changes; otherwise a sidecar cached under older rules would keep passing (a tightened check
 * would reach it only once the file is edited). A hash rather than a number that somebody
 * must remember to bump: every rule (the schema, the normalisation, the size limit) is here.
 */
export function sidecarRulesVersion(): string {
  return (rules ??= sha256Of(readFileSync(fileURLToPath(import.meta.url))).slice(0, 16));
}

/**
 * ISO 8601 with an explicit offset (`Z` or `±hh:mm`): a bare local time is ambiguous across
 * machines. Its UTC instant must fall in the years 0000–9999: `9999-12-31T23:59:59-23:59` is
 * year 10000 in UTC, which `toISOString` writes as `+010000-…`, not an RFC 3339 date-time.
 * `abort`: text that is no date-time at all gets one problem, not a second one claiming it
 * "falls outside the years 0000 to 9999".
 */
const isoWithOffset = z.iso.datetime({ offset: true, local: false, abort: true }).refine((text) => {
  const year = new Date(text).getUTCFullYear();
  return year >= 0 && year <= 9999;
}, 'in UTC it falls outside the years 0000 to 9999');

/**
 * Limits on text, in characters (code points, after trimming). Descriptions are captions and
 * alt text: Twitter caps alt text at 1,000 and Mastodon at 1,500, the sample captions stay
 * under 70. Tags are words a filter names (samples: under 20 characters, at most 4 a record).
 * Credits are one line on a share page, not a text.
 */
export const TEXT_LIMITS = { description: 1000, tag: 50, tags: 30, artist: 200, license: 100, source_url: 2000 } as const;

/** Why a character is refused in published text, or null when it is fine (`lines`: a tab or line feed is allowed). */
function refusedCharacter(code: number, lines: boolean): string | null {
  if (code === 0x09) return lines ? null : 'a tab';
  if (code === 0x0a) return lines ? null : 'a line feed';
  if (code === 0x0b) return 'a vertical tab (Word writes one for a soft line break, Shift+Enter)';
  if (code === 0x0d) return 'a carriage return';
  if (code === 0x1b) return 'an escape, which starts terminal control sequences';
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return 'a control character';
  if (code >= 0xd800 && code <= 0xdfff) return 'half of a UTF-16 surrogate pair (a lone \\ud800–\\udfff escape), which is no character';
  if ((code >= 0xfdd0 && code <= 0xfdef) || (code & 0xfffe) === 0xfffe) return 'a Unicode noncharacter';
  if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)) return 'a bidirectional override or isolate, which shows text in another order than it is stored';
  if (code === 0x2028 || code === 0x2029) return 'a line or paragraph separator';
  return null;
}

type TextField = 'description' | 'tag' | 'artist' | 'license' | 'source_url';

/**
 * Published text: no character XML 1.0 cannot hold (C0 controls, lone surrogates, U+FFFE),
 * none a terminal or a page would act on rather than show (C1 controls, ESC, bidi overrides and
 * isolates), at most TEXT_LIMITS characters. A description may hold tabs and line feeds (JSON
 * escapes them, XML and terminals carry them); one-line fields and tags hold none. Each refusal
 * is a problem with its own code (`params.problem`, see schemaProblems).
 */
const safeText = (field: TextField, max: number) =>
  z.string().superRefine((text, ctx) => {
    let at = 0;
    for (const character of text) {
      at++;
      const code = character.codePointAt(0)!;
      const why = refusedCharacter(code, field === 'description');
      if (why === null) continue;
      const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
      const lineLike = code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
      const fix = field === 'description' && lineLike ? 'delete it, or write a line break as \\n' : 'delete it';
      ctx.addIssue({ code: 'custom', input: text, continue: false, params: { problem: 'sidecar-bad-character' }, message: `holds ${hex} (${why}) at character ${at}, which XML 1.0 or a terminal cannot carry safely: ${fix}` });
      return;
    }
    const length = [...text.trim()].length;
    if (length > max) {
      ctx.addIssue({ code: 'custom', input: text, continue: false, params: { problem: 'sidecar-too-long' }, message: `is ${length} characters long, over the limit of ${max}: shorten it` });
      return;
    }
    // `tags=` splits at commas: a tag holding one could be listed but never selected.
    if (field === 'tag' && text.includes(',')) {
      ctx.addIssue({ code: 'custom', input: text, continue: false, params: { problem: 'sidecar-unselectable-tag' }, message: `holds a comma, which the tags= filter reads as a separator, so no client could select it: split it into two tags or drop the comma` });
    }
  });

/** At most TEXT_LIMITS.tags distinct tags: a record is found by a few words, not hundreds. */
const tagList = z.array(safeText('tag', TEXT_LIMITS.tag)).superRefine((tags, ctx) => {
  const count = normaliseTags(tags)?.length ?? 0;
  if (count > TEXT_LIMITS.tags) {
    ctx.addIssue({ code: 'custom', input: tags, params: { problem: 'sidecar-too-long' }, message: `lists ${count} distinct tags, over the limit of ${TEXT_LIMITS.tags}: keep the ones people search for` });
  }
});

/**
 * Where the picture was found: an absolute http(s) URL, shown as a link on share pages, so a
 * `javascript:` or `file:` URL must never pass, nor one with credentials.
 */
const sourceUrl = safeText('source_url', TEXT_LIMITS.source_url).refine((text) => {
  try {
    const url = new URL(text.trim());
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}, 'is not an absolute http:// or https:// URL without credentials');

export const SidecarSchema = z
  .object({
    id: z.uuid().meta({ description: 'UUID of the record; written lowercase on output.' }),
    description: safeText('description', TEXT_LIMITS.description).nullable().meta({ description: 'Free text; trimmed and in Unicode NFC, empty becomes null.' }),
    tags: tagList.nullable().meta({ description: 'Trimmed, lowercased, in Unicode NFC, de-duplicated in first-seen order; empty becomes null.' }),
    created_at: isoWithOffset.meta({ description: 'ISO 8601 with offset, e.g. 2023-04-01T12:00:00+02:00.' }),
    updated_at: isoWithOffset.optional().meta({ description: 'Defaults to created_at.' }),
    distinct_from: z.array(z.uuid()).optional().meta({ description: 'Ids of records this image is knowingly similar to (silences near-duplicate reports).' }),
    artist: safeText('artist', TEXT_LIMITS.artist).nullable().optional().meta({ description: 'Who made the picture; trimmed, NFC, empty or absent becomes null.' }),
    source_url: sourceUrl.nullable().optional().meta({ description: 'Where the picture comes from: an absolute http(s) URL; absent becomes null.' }),
    license: safeText('license', TEXT_LIMITS.license).nullable().optional().meta({ description: 'The licence it is shared under, e.g. an SPDX id such as CC-BY-4.0; empty or absent becomes null.' }),
  })
  // A typo such as `descripton` must be an error, never silently ignored.
  .strict();

export type Sidecar = z.infer<typeof SidecarSchema>;

/** A sidecar after normalisation: exactly the record fields it supplies. */
export interface NormalisedSidecar {
  id: string;
  description: string | null;
  tags: string[] | null;
  created_at: string;
  updated_at: string;
  distinct_from: string[];
  artist: string | null;
  source_url: string | null;
  license: string | null;
}

/**
 * Published text is in Unicode NFC (the form the web expects, W3C Character Model): the same
 * word can be typed precomposed (`é`, U+00E9) or decomposed (`e` + U+0301, as macOS and some
 * editors write it). The two look alike but are different strings, so without NFC a record
 * could publish two equal-looking tags (`café` twice, duplicates not dropped) and a client
 * comparing a tag with `===` missed the record written the other way.
 */
const toNfc = (text: string): string => text.normalize('NFC');

export function normaliseTags(tags: string[] | null): string[] | null {
  if (tags === null) return null;
  const seen = new Set<string>();
  for (const raw of tags) {
    const tag = normaliseTag(raw);
    if (tag !== '') seen.add(tag);
  }
  return seen.size === 0 ? null : [...seen];
}

export function normaliseDescription(description: string | null): string | null {
  const trimmed = toNfc(description?.trim() ?? '');
  return trimmed === '' ? null : trimmed;
}

function normaliseSidecar(sidecar: Sidecar): NormalisedSidecar {
  const created = new Date(sidecar.created_at).toISOString();
  return {
    id: sidecar.id.toLowerCase(),
    description: normaliseDescription(sidecar.description),
    tags: normaliseTags(sidecar.tags),
    created_at: created,
    updated_at: sidecar.updated_at === undefined ? created : new Date(sidecar.updated_at).toISOString(),
    distinct_from: [...new Set((sidecar.distinct_from ?? []).map((id) => id.toLowerCase()))],
    artist: normaliseDescription(sidecar.artist ?? null),
    // Written as the URL parser writes it (`HTTPS://Example.org` → `https://example.org/`), so equal sources compare equal.
    source_url: sidecar.source_url == null ? null : new URL(sidecar.source_url.trim()).href,
    license: normaliseDescription(sidecar.license ?? null),
  };
}

/** A short preview of a sidecar value for a problem message (at most 80 characters). */
const show = (value: unknown): string => {
  let text: string;
  try {
    text = value === undefined ? 'nothing' : JSON.stringify(value);
  } catch {
    // Nested deeper than JSON.stringify can recurse (valid JSON, which JSON.parse reads
    // without limit): the kind of value is enough to name what is wrong.
    text = Array.isArray(value) ? '[…] (a list nested too deep to show)' : '{…} (an object nested too deep to show)';
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = data;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

const HINTS: Record<string, string> = {
  id: 'use a UUID such as one from `npx pepe add` or crypto.randomUUID()',
  description: 'use a string or null',
  tags: 'use a list of strings or null',
  created_at: 'use ISO 8601 with an offset, e.g. "2023-04-01T12:00:00+02:00"',
  updated_at: 'use ISO 8601 with an offset, e.g. "2023-04-01T12:00:00Z", or leave it out',
  distinct_from: 'use a list of record ids (UUIDs)',
  artist: `use the artist's name as one line of text (at most ${TEXT_LIMITS.artist} characters), or null`,
  source_url: 'use the page the picture comes from, e.g. "https://example.org/pepe/123", or null',
  license: `use the licence as one line of text, e.g. an SPDX id such as "CC-BY-4.0" (at most ${TEXT_LIMITS.license} characters), or null`,
};

/** Turns zod issues into one problem per issue, each naming the file, the field and the value. */
function schemaProblems(file: string | undefined, data: unknown, issues: z.core.$ZodIssue[]): Problem[] {
  return issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => `"${k}"`).join(', ');
      return error('sidecar-unknown-key', `unknown field ${keys}: remove it or fix its spelling (allowed: ${Object.keys(SidecarSchema.shape).join(', ')})`, file);
    }
    const field = issue.path.map(String).join('.') || '(root)';
    const top = String(issue.path[0] ?? '');
    if (issue.path.length === 0) {
      return error('sidecar-invalid', `the sidecar must be a JSON object with id, description, tags and created_at (got ${show(data)})`, file);
    }
    // A text rule (safeText) names its own code and says what to do; the value itself may be long or unprintable.
    const problem = issue.code === 'custom' ? (issue.params as { problem?: string } | undefined)?.problem : undefined;
    if (problem !== undefined) return error(problem, `field "${field}" ${issue.message}`, file);
    const missing = issue.path.length === 1 && valueAt(data, issue.path) === undefined;
    const hint = HINTS[top] ?? '';
    const message = missing ? `field "${field}" is missing: ${hint}` : `field "${field}" has an invalid value ${show(valueAt(data, issue.path))} (${issue.message}): ${hint}`;
    return error('sidecar-invalid', message, file);
  });
}

/** Problems of a description and tags given as flags (`pepe add`): the rules of a sidecar, named by flag. */
export function textFlagProblems(description: string | null, tags: string[] | null): Problem[] {
  const parsed = SidecarSchema.pick({ description: true, tags: true }).safeParse({ description, tags });
  if (parsed.success) return [];
  return schemaProblems(undefined, { description, tags }, parsed.error.issues).map((p) => ({ ...p, message: p.message.replace(/^field "(description|tags)(?:\.(\d+))?"/, (_, flag: string, n?: string) => `--${flag}${n === undefined ? '' : ` (tag ${Number(n) + 1})`}`) }));
}

export type SidecarResult = { ok: true; sidecar: NormalisedSidecar } | { ok: false; problems: Problem[] };

/**
 * Keys the top-level object of valid JSON `text` gives more than once. JSON.parse keeps the
 * last value silently; in a hand-edited sidecar a second "id" or "tags" is a mistake as sure
 * as a misspelt key.
 */
function repeatedTopLevelKeys(text: string): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  let depth = 0;
  let expectKey = false;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x22) {
      // A string: find its end (a backslash escapes the next character).
      let end = at + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      if (depth === 1 && expectKey) {
        const key = JSON.parse(text.slice(at, end + 1)) as string;
        if (seen.has(key)) repeated.add(key);
        seen.add(key);
        expectKey = false;
      }
      at = end;
    } else if (code === 0x7b || code === 0x5b) {
      depth++;
      expectKey = depth === 1 && code === 0x7b;
    } else if (code === 0x7d || code === 0x5d) depth--;
    else if (code === 0x2c && depth === 1) expectKey = true;
  }
  return [...repeated];
}

/** Bytes of a UTF-8 sequence from its lead byte, and the range its second byte must fall in (no overlong forms, no surrogates, nothing past U+10FFFF). */
function utf8Sequence(lead: number): { length: number; low: number; high: number } | null {
  if (lead >= 0xc2 && lead <= 0xdf) return { length: 2, low: 0x80, high: 0xbf };
  if (lead === 0xe0) return { length: 3, low: 0xa0, high: 0xbf };
  if (lead === 0xed) return { length: 3, low: 0x80, high: 0x9f };
  if (lead >= 0xe1 && lead <= 0xef) return { length: 3, low: 0x80, high: 0xbf };
  if (lead === 0xf0) return { length: 4, low: 0x90, high: 0xbf };
  if (lead >= 0xf1 && lead <= 0xf3) return { length: 4, low: 0x80, high: 0xbf };
  if (lead === 0xf4) return { length: 4, low: 0x80, high: 0x8f };
  return null;
}

/** The offset of the first byte that is not valid UTF-8 (`bytes` is known not to be). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let at = 0; at < bytes.length; ) {
    const lead = bytes[at]!;
    if (lead < 0x80) {
      at++;
      continue;
    }
    const sequence = utf8Sequence(lead);
    if (!sequence) return at;
    for (let k = 1; k < sequence.length; k++) {
      const byte = bytes[at + k];
      const [low, high] = k === 1 ? [sequence.low, sequence.high] : [0x80, 0xbf];
      if (byte === undefined || byte < low || byte > high) return at;
    }
    at += sequence.length;
  }
  return bytes.length;
}

/**
 * A sidecar's text, which must be UTF-8. Decoded leniently, a sidecar saved in Windows-1252
 * (an older editor's "ANSI") passed the check and published "café" as "caf\ufffd"; one
 * saved as UTF-16 (Notepad's "Unicode", PowerShell 5's `>` and Out-File) failed as
 * "found U+FFFD at line 1, column 1". Both are named, with what to do.
 */
export function sidecarText(bytes: Buffer): { ok: true; text: string } | { ok: false; message: string } {
  if (isUtf8(bytes)) return { ok: true, text: bytes.toString('utf8') };
  const bom = bytes.subarray(0, 2).toString('hex');
  if (bom === 'fffe' || bom === 'feff') {
    return { ok: false, message: `is saved as UTF-16 (it starts with the bytes ${bom.toUpperCase().replace(/(..)(..)/, '$1 $2')}): save it as UTF-8 (Notepad: Save As, Encoding "UTF-8"; PowerShell: Set-Content -Encoding utf8)` };
  }
  const at = firstInvalidUtf8(bytes);
  const lineStart = bytes.lastIndexOf(0x0a, at - 1) + 1;
  const line = bytes.subarray(0, at).filter((byte) => byte === 0x0a).length + 1;
  const column = bytes.subarray(lineStart, at).toString('utf8').length + 1;
  const byte = bytes[at]!.toString(16).toUpperCase().padStart(2, '0');
  return { ok: false, message: `is not UTF-8 text (the byte 0x${byte} at line ${line}, column ${column}; saved as Windows-1252 or Latin-1?): save it as UTF-8` };
}

/** The first line of a conflict git leaves in a file: `<<<<<<< HEAD` (or `|||||||` with diff3, `=======`, `>>>>>>> branch`). */
const CONFLICT_MARKER = /^(<{7}|\|{7}|={7}|>{7})(?: |\r?$)/m;

/**
 * Where the syntax breaks, as an editor shows it (`at line 4, column 14: found "]" right after
 * a comma …`); JSON.parse's own message only if the locator, unexpectedly, finds no fault.
 */
function invalidJsonMessage(json: string, cause: unknown): string {
  // A merge of two branches that both edited the sidecar (tags added on each): git leaves
  // both versions between marker lines, which is not a JSON slip but a choice to make.
  const conflict = CONFLICT_MARKER.exec(json);
  if (conflict) {
    const line = json.slice(0, conflict.index).split('\n').length;
    return `has an unresolved git merge conflict (the "${conflict[1]}" marker at line ${line}): keep the version you want, delete the <<<<<<<, ======= and >>>>>>> lines, then git add the file`;
  }
  const located = locateJsonSyntaxError(json);
  if (located) return `not valid JSON at line ${located.line}, column ${located.column}: ${located.reason}; fix the syntax`;
  const detail = cause instanceof Error ? cause.message : String(cause);
  return `not valid JSON (${detail}): fix the syntax`;
}

/** Parses and normalises one sidecar's text; `file` is the content-relative path used in problems. */
export function parseSidecar(file: string, text: string): SidecarResult {
  // A UTF-8 byte order mark (some Windows editors write one) is not JSON, but it is not a
  // mistake worth a failed build either. Lines and columns are counted after it, as editors do.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch (cause) {
    return { ok: false, problems: [error('invalid-json', invalidJsonMessage(json, cause), file)] };
  }
  const repeated = data !== null && typeof data === 'object' && !Array.isArray(data) ? repeatedTopLevelKeys(text) : [];
  if (repeated.length > 0) {
    const keys = repeated.map((key) => `"${key}"`).join(', ');
    return { ok: false, problems: [error('sidecar-repeated-key', `gives ${keys} more than once (JSON keeps only the last): keep one`, file)] };
  }
  const parsed = SidecarSchema.safeParse(data);
  if (!parsed.success) return { ok: false, problems: schemaProblems(file, data, parsed.error.issues) };
  return { ok: true, sidecar: normaliseSidecar(parsed.data) };
}

/**
 * How far a date may run ahead of the clock of the machine that checks it: a laptop's clock set
 * a little fast (`pepe add` writes its time) is not a mistake, a date meant for later is.
 */
export const CLOCK_SKEW_MS = 10 * 60 * 1000;

/**
 * Dates that parse but cannot be right: one in the future sorts first in every list and dates
 * the feeds; an `updated_at` before `created_at`. Checked on every run rather than with the
 * cached parse, as whether a date is in the future depends on when the check runs.
 */
export function sidecarDateProblems(dates: { created_at: string; updated_at: string }, file: string, severity: Problem['severity'], now = Date.now()): Problem[] {
  const problems: Problem[] = [];
  const problem = (code: string, message: string): Problem => ({ severity, code, file, message });
  for (const field of ['created_at', 'updated_at'] as const) {
    if (Date.parse(dates[field]) <= now + CLOCK_SKEW_MS) continue;
    // updated_at defaults to created_at: one problem for one date written once.
    if (field === 'updated_at' && dates.updated_at === dates.created_at) continue;
    // The day only: two builds of the same content on one day report the same problems.
    const today = new Date(now).toISOString().slice(0, 10);
    problems.push(problem('date-in-future', `field "${field}" is ${dates[field]}, in the future (this machine's clock says ${today}): a future date sorts first in every list and dates the feeds; write when the picture was added, or fix the offset`));
  }
  if (dates.updated_at < dates.created_at) {
    problems.push(problem('updated-before-created', `field "updated_at" (${dates.updated_at}) is before "created_at" (${dates.created_at}): set it to created_at or later, or leave it out (it defaults to created_at)`));
  }
  return problems;
}
