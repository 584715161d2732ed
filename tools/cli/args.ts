import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../shared/io.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * node:util parseArgs with our error type: an unknown flag or a missing value is a
 * UsageError naming it, so the top level prints usage and exits 2.
 */
export function parseFlags<O extends Options>(argv: string[], options: O, allowPositionals = false) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals, strict: true, tokens: true });
  } catch (error) {
    throw new UsageError(parseErrorMessage(error, allowPositionals));
  }
  refuseRepeatedValues(parsed.tokens);
  const { values, positionals } = parsed;
  return { values, positionals };
}

/**
 * parseArgs' message, except for an unknown flag: for a command that takes file names Node
 * adds 'To specify a positional argument starting with a '-', place it at the end of the
 * command after '--', as in '-- "--json"' (its closing quote missing), which reads as if the
 * mistyped flag were a file to add.
 */
function parseErrorMessage(error: unknown, allowPositionals: boolean): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = (error as { code?: string } | null)?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /^Unknown option '([^']+)'/.exec(message) : null;
  if (!unknown) return message;
  const files = allowPositionals ? '; a file name that starts with "-" goes after "--"' : '';
  return `unknown option '${unknown[1]}': this command has no such flag, its options are listed below${files}`;
}

/**
 * A flag with a value given twice is refused: parseArgs keeps only the last one, so
 * `pepe add a.png --tags smug --tags happy` silently dropped "smug". (A repeated boolean,
 * `--force --force`, means the same as one and passes.)
 */
function refuseRepeatedValues(tokens: readonly { kind: string; name?: string; rawName?: string; value?: string | undefined }[]): void {
  const seen = new Map<string, string[]>();
  for (const token of tokens) {
    if (token.kind !== 'option' || token.value === undefined) continue;
    const values = seen.get(token.name!) ?? [];
    values.push(token.value);
    seen.set(token.name!, values);
  }
  for (const [name, values] of seen) {
    if (values.length > 1) {
      throw new UsageError(`--${name} was given ${values.length} times (${values.map((v) => JSON.stringify(v)).join(', ')}): give it once${name === 'tags' ? ' (several tags go in one, comma-separated: --tags a,b)' : ''}`);
    }
  }
}

/** A whole number flag within bounds, or a UsageError naming the flag. */
export function intFlag(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}
