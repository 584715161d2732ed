/**
 * Where JSON text first breaks the grammar, as the line and column a person edits (a missing
 * comma where the value before it ends, a trailing comma at the comma), with what was found and
 * what JSON wanted there, or the JavaScript habit JSON lacks (comments, single quotes, bare
 * keys). Node 20's JSON.parse names neither for the commonest hand-editing slip (`Unexpected
 * token ']', ..."gs": ["a",],\r\n\t"crea"... is not valid JSON`, for a trailing comma), and
 * prints a CRLF file's line ends as `\r\n`, leaving a maintainer to hunt through the file.
 * Called only once JSON.parse has failed, so it favours plain code over speed; a stack rather
 * than recursion, as a sidecar may nest 10,000 deep.
 */

export interface JsonSyntaxError {
  /** 1-based, counting line feeds (a CRLF file counts like an LF one). */
  line: number;
  /** 1-based, in characters from the start of the line (a tab is one). */
  column: number;
  /** e.g. `a comma after the last item, which JSON does not allow before "]": remove it`. */
  reason: string;
}

type Container = '{' | '[';
/** What to read next, the error found, or null: the text is valid JSON. */
type Next = 'value' | 'first-key' | 'key' | 'after' | JsonSyntaxError | null;

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;
const SINGLE_QUOTED = /'([^'\\\n\r"]*)'/y;
const IDENTIFIER = /[A-Za-z_$][\w$-]*/y;
/** A character that starts a value or a property name, so text after a value with only whitespace between them lacks a comma. */
const STARTS_ITEM = /["'{[\-0-9A-Za-z_$]/;

/** `"]"`, or `U+FEFF` for a character nobody can see (a second byte order mark, a no-break space). */
function describe(text: string, at: number): string {
  if (at >= text.length) return 'the end of the file';
  const code = text.codePointAt(at)!;
  if (code > 0x20 && code < 0x7f) return `"${text[at]}"`;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return code === 0xfeff ? `${hex} (a byte order mark)` : hex;
}

function position(text: string, at: number, reason: string): JsonSyntaxError {
  const before = text.slice(0, at);
  const lineStart = before.lastIndexOf('\n') + 1;
  const line = before.split('\n').length;
  return { line, column: at - lineStart + 1, reason };
}

/** The first syntax error in `text`, or null when it is valid JSON. */
export function locateJsonSyntaxError(text: string): JsonSyntaxError | null {
  const stack: Container[] = [];
  let at = 0;
  const skipWhitespace = (): void => {
    WHITESPACE.lastIndex = at;
    WHITESPACE.test(text);
    at = WHITESPACE.lastIndex;
  };
  const found = (wanted: string): JsonSyntaxError => position(text, at, notInJson() ?? `found ${describe(text, at)} where ${wanted} was expected`);
  /** What the text at `at` borrows from JavaScript or JSON5 that JSON does not have, with the fix. */
  const notInJson = (): string | undefined => {
    if (text.startsWith('//', at) || text.startsWith('/*', at)) return 'a comment, which JSON does not have: remove it (a note about the picture can go in "description")';
    if (text[at] !== "'") return undefined;
    SINGLE_QUOTED.lastIndex = at;
    const quoted = SINGLE_QUOTED.exec(text)?.[1];
    return `single quotes, which JSON does not have: write ${quoted === undefined ? 'strings and property names in double quotes' : `${JSON.stringify(quoted)} instead of '${quoted}'`}`;
  };

  /** Reads the string at `at` (a `"`); returns an error, or null with `at` past its end. */
  const readString = (): JsonSyntaxError | null => {
    const start = at;
    at++;
    for (;;) {
      if (at >= text.length) return position(text, start, 'this string is never closed (a missing ")');
      const code = text.charCodeAt(at);
      if (code === 0x22) {
        at++;
        return null;
      }
      if (code === 0x5c) {
        ESCAPE.lastIndex = at;
        if (!ESCAPE.test(text)) return position(text, at, 'an invalid escape in a string (write \\\\ for a backslash)');
        at = ESCAPE.lastIndex;
      } else if (code < 0x20) {
        return position(text, at, `${code === 0x0a || code === 0x0d ? 'a line break' : code === 0x09 ? 'a tab' : describe(text, at)} inside a string (write \\n or \\t, or close the string with ")`);
      } else at++;
    }
  };

  /**
   * Reads one value: a scalar whole, or only the opening of an object or array (the loop
   * below reads what is inside, so nesting costs no stack). Returns what to read next.
   */
  const readValue = (): Next => {
    skipWhitespace();
    const char = text[at];
    if (char === '{' || char === '[') {
      stack.push(char);
      at++;
      skipWhitespace();
      if (text[at] === (char === '{' ? '}' : ']')) {
        stack.pop();
        at++;
        return 'after';
      }
      return char === '{' ? 'first-key' : 'value';
    }
    if (char === '"') return readString() ?? 'after';
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, at)) {
        at += literal.length;
        return 'after';
      }
    }
    NUMBER.lastIndex = at;
    if (NUMBER.test(text)) {
      at = NUMBER.lastIndex;
      return 'after';
    }
    return found('a value (a string in double quotes, a number, true, false, null, [ or {)');
  };

  /** Reads `"key":` inside an object; the value comes next. */
  const readKey = (wanted: string): JsonSyntaxError | 'value' => {
    skipWhitespace();
    IDENTIFIER.lastIndex = at;
    const bare = text[at] === '"' ? null : IDENTIFIER.exec(text);
    if (bare) return position(text, at, `a property name without quotes, which JSON does not have: write ${JSON.stringify(bare[0])}`);
    if (text[at] !== '"') return found(wanted);
    const keyProblem = readString();
    if (keyProblem) return keyProblem;
    skipWhitespace();
    if (text[at] !== ':') return found('":" after the property name');
    at++;
    return 'value';
  };

  /** After a value: the end of the file, or a comma or the close of the innermost container. */
  const readAfter = (): Next => {
    const valueEnd = at;
    skipWhitespace();
    const open = stack.at(-1);
    if (open === undefined) return at < text.length ? found('the end of the file (only one value may be given)') : null;
    const close = open === '{' ? '}' : ']';
    if (text[at] === close) {
      stack.pop();
      at++;
      return 'after';
    }
    if (text[at] !== ',') {
      // The comma goes where the value ends (often the line above), not before the next item.
      if (at > valueEnd && STARTS_ITEM.test(text[at] ?? '') && notInJson() === undefined) return position(text, valueEnd, `a "," is missing after this value: add one here (JSON needs a comma between ${open === '{' ? 'properties' : 'items'})`);
      return found(`"," or "${close}"`);
    }
    const comma = at;
    at++;
    skipWhitespace();
    if (text[at] === close) return position(text, comma, `a comma after the last ${open === '{' ? 'property' : 'item'}, which JSON does not allow before "${close}": remove it`);
    return open === '{' ? 'key' : 'value';
  };

  let next: Next = 'value';
  while (typeof next === 'string') {
    if (next === 'value') next = readValue();
    else if (next === 'first-key') next = readKey('a property name in double quotes or "}"');
    else if (next === 'key') next = readKey('a property name in double quotes');
    else next = readAfter();
  }
  return next;
}
