/**
 * Text flags whose value is published (`pepe add --description`, `--tags`) must arrive as
 * UTF-8. Node decodes the command line as UTF-8 and turns every byte that is not (a Latin-1
 * or Windows-1252 "é" from a shell in another locale) into U+FFFD, so the original bytes are
 * gone by the time a command sees them: U+FFFD in the value is the only trace, and it is
 * refused, as a sidecar that is not UTF-8 is (tools/catalogue/sidecar.ts), instead of being
 * published as "caf\uFFFD" without a word. A U+FFFD typed on purpose is refused too: no
 * description needs the replacement character.
 */
import { UsageError } from '../shared/io.js';

/** `value` unchanged, or a UsageError naming `--name`, where the bad byte was, and what to do. */
export function utf8TextFlag(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const at = value.indexOf('\uFFFD');
  if (at === -1) return value;
  throw new UsageError(
    `--${name} is not UTF-8 text: character ${at + 1} of ${JSON.stringify(value)} is a byte the shell sent in another encoding (Latin-1 or Windows-1252?), shown as \uFFFD: ` +
      `run pepe from a UTF-8 terminal (e.g. LANG=C.UTF-8) and type it again, or leave --${name} out and edit the sidecar, saved as UTF-8`,
  );
}
