/**
 * The function's side of the pieces file (catalogue-data.ts, `piecesFile`): piece i is read
 * from the file at its offset on first use, and kept. Why a file and not the module: Node
 * reads a module whole, into a buffer and then a string, and V8 scans all of it before the
 * first answer, page of fresh memory by page; a first answer reads a few pieces of at most
 * MAX_PIECE characters each (functions/README.md, "Data layout, chosen for cold start").
 *
 * The file is looked for in each of `folders` in turn, because the function runs from two
 * layouts: our bundle sits in `dist/functions/` beside `dist/data/`, while Netlify's copy of
 * functions/pepe.ts keeps the repository's paths (`functions/` beside `dist/data/`). The name
 * holds the data's version, so a file found is the one the data module was built with.
 */
import type { PieceSource } from './catalogue-data.js';

// Not `import … from 'node:fs'`: an ES import of node:fs builds its module facade, which runs
// every lazy getter of fs and so loads its streams, a visible part of a cold start.
// process.getBuiltinModule (Node ≥ 20.16; package.json asks for 20.19) does not.
const { closeSync, constants, fstatSync, openSync, readSync } = process.getBuiltinModule('node:fs');
const { fileURLToPath } = process.getBuiltinModule('node:url');

/** O_NONBLOCK: a named pipe in the file's place opens at once (and is refused below) instead of waiting for a writer; on a regular file it changes nothing. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * What to do about a missing or damaged pieces file. Not just "run `pepe build` again": a
 * build whose content did not change writes nothing into an intact build folder (tools/catalogue/README.md,
 * "Caching and incremental builds"), so the file stayed missing or damaged however often the user rebuilt.
 */
const FRESH_BUILD = 'delete the build folder (dist, or the --out of `pepe build`) and build again with `pepe build` (a build whose content did not change writes nothing)';

/** The open file and where it is (for the messages of later reads). */
interface OpenFile {
  fd: number;
  path: string;
}

/** Opens the first of `folders` that holds `name`; throws, naming where it looked, when none does. */
function openPiecesFile(name: string, folders: readonly URL[], expectedBytes: number): OpenFile {
  const tried: string[] = [];
  for (const folder of folders) {
    const path = fileURLToPath(new URL(name, folder));
    let fd: number;
    try {
      fd = openSync(path, OPEN_FLAGS);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        tried.push(path);
        continue;
      }
      // Node's own message (`EACCES: permission denied, open '…'`) said neither what the file is nor what to do.
      const unreadable = code === 'EACCES' || code === 'EPERM' ? 'make it readable by the user the function runs as, or ' : '';
      throw new Error(`catalogue pieces file ${path} cannot be opened (${code ?? String(error)}): ${unreadable}${FRESH_BUILD}`);
    }
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size !== expectedBytes) {
      closeSync(fd);
      throw new Error(`catalogue pieces file ${path} ${stats.isFile() ? `holds ${stats.size} bytes, not the ${expectedBytes} its data module lists` : 'is not a regular file'}: ${FRESH_BUILD}`);
    }
    return { fd, path };
  }
  throw new Error(`catalogue pieces file ${name} not found (looked for ${tried.join(', ')}): ${FRESH_BUILD}; a deploy must ship dist/data with the function`);
}

/** Piece i of the pieces file (a `PieceSource`), and the check and close `pepe serve` needs. */
export interface PiecesFileReader extends PieceSource {
  /**
   * Throws what a read would (the file missing, of the wrong size, not a file), naming it and
   * the fix; opens the file if it was not open. `pepe serve` calls it when it loads the bundle:
   * a build folder whose pieces file had gone was served, and every search answered 500.
   */
  check(): void;
  /**
   * Closes the file. `pepe serve` calls it on the handler of a build it replaced, once no
   * request can reach that handler any more: an open file keeps a deleted pieces file's disk
   * space taken for as long as `pepe serve` runs. A read
   * after it opens the file by its name again (and fails, naming it, once it is gone).
   */
  release(): void;
}

/**
 * Piece i of the file, read on first use. Pieces are printable ASCII and TAB only (written
 * with `escapeForSource`), so a byte is a character and latin1 decodes them exactly.
 *
 * The file is opened at once, when the function module loads: a build committed into the
 * folder `pepe serve` serves deletes the previous pieces file, and the handler of the previous
 * build must go on answering from its own until the new one is loaded (reads through an open
 * file still work after the file is deleted). If it cannot be opened then, each read tries
 * again and throws the reason: the module still loads, and a request that needs a piece gets
 * the API's 500 while the file is missing, not a crash at start.
 */
export function piecesFileReader(name: string, lengths: readonly number[], folders: readonly URL[]): PiecesFileReader {
  const starts = new Array<number>(lengths.length);
  let total = 0;
  lengths.forEach((length, i) => {
    starts[i] = total;
    total += length;
  });
  const tryOpen = (): OpenFile | undefined => {
    try {
      return openPiecesFile(name, folders, total);
    } catch {
      return undefined;
    }
  };
  let file = tryOpen();
  // One buffer for every read: a fresh one per piece would cost new pages each time.
  let scratch: Buffer | undefined;
  const read: string[] = [];
  const reader = (index: number): string => {
    const known = read[index];
    if (known !== undefined) return known;
    if (!(index >= 0 && index < lengths.length)) throw new RangeError(`catalogue data has no piece ${index}`);
    file ??= openPiecesFile(name, folders, total);
    scratch ??= Buffer.allocUnsafeSlow(Math.max(1, ...lengths));
    const length = lengths[index]!;
    let done = 0;
    while (done < length) {
      const got = readSync(file.fd, scratch, done, length - done, starts[index]! + done);
      if (got === 0) throw new Error(`catalogue pieces file ${file.path} ended inside piece ${index}: ${FRESH_BUILD}`);
      done += got;
    }
    return (read[index] = scratch.toString('latin1', 0, length));
  };
  return Object.assign(reader, {
    check(): void {
      file ??= openPiecesFile(name, folders, total);
    },
    release(): void {
      if (file === undefined) return;
      // Forgotten first: a closed descriptor's number is soon another file's.
      const { fd } = file;
      file = undefined;
      try {
        closeSync(fd);
      } catch {
        // Already closed: nothing is held.
      }
    },
  });
}
