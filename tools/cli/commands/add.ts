import { resolve } from 'node:path';
import { addImages, checkInto } from '../../catalogue/add-images.js';
import { parseFlags } from '../args.js';
import { contentPaths } from '../content-flags.js';
import { type Command, UsageError } from '../../shared/io.js';
import { shellWord, shownPath } from '../../shared/shell-path.js';
import { printProblems } from '../print-results.js';
import { utf8TextFlag } from '../text-flags.js';

const usage = `Usage: pepe add FILE... [options]

Imports image files into the content folder: copies each under a URL-safe name (with the
extension of its detected format) and writes its sidecar with a new id and created_at = now.
An image already inside the content folder (one a build reports without a sidecar) stays
where it is, under its name: only its sidecar is written, beside it.
Every file is validated first; if any is refused (unsupported, undecodable, truncated, or a
near-duplicate of an image already there or in the same call), nothing is written.
Then prints the \`git add\` that stages every image and sidecar it wrote.

Options:
  --content DIR         content folder (default: content)
  --into SUBFOLDER      subfolder of the content folder to copy into
  --tags a,b            comma-separated tags for every imported image
  --description TEXT    description for every imported image (UTF-8: a byte that is not is refused)
  --force               import near-duplicates anyway
  -h, --help            show this help

Exit status: 0 imported, 1 refused (nothing written), 2 usage errors.
`;

/**
 * What to commit: the catalogue changes through git, and a maintainer who commits only the
 * images (or only the sidecars) gets a pull request whose CI check fails. Each image and its
 * sidecar, as paths from the current folder (the `added` lines name them inside the content
 * folder), quoted for a shell; the image too when it was already there: it may be untracked,
 * and adding a tracked, unchanged file does nothing.
 */
function gitAddLine(contentDir: string, added: readonly { file: string; sidecar: string }[], cwd: string): string {
  const paths = added.flatMap(({ file, sidecar }) => [file, sidecar]).map((rel) => shellWord(shownPath(resolve(contentDir, rel), cwd)));
  return `to commit: git add -- ${paths.join(' ')}`;
}

export default {
  name: 'add',
  summary: 'import image files into content/ with a new sidecar each',
  usage,
  async run(argv, io) {
    const { values, positionals } = parseFlags(
      argv,
      { content: { type: 'string' }, into: { type: 'string' }, tags: { type: 'string' }, description: { type: 'string' }, force: { type: 'boolean' } },
      true,
    );
    if (positionals.length === 0) throw new UsageError('name at least one image file to add');
    const description = utf8TextFlag('description', values.description);
    const tags = utf8TextFlag('tags', values.tags);
    const intoProblem = checkInto(values.into);
    if (intoProblem) throw new UsageError(intoProblem.message);
    const { contentDir } = contentPaths(values, io.cwd);
    const result = await addImages({
      contentDir,
      files: positionals.map((file) => resolve(io.cwd, file)),
      ...(values.into !== undefined ? { into: values.into } : {}),
      tags: tags === undefined ? null : tags.split(','),
      description: description ?? null,
      force: values.force ?? false,
    });
    printProblems(io, result.problems);
    for (const added of result.added) io.stdout(`added ${added.file} (id ${added.id})\n`);
    if (result.added.length > 0) io.stdout(`${gitAddLine(contentDir, result.added, io.cwd)}\n`);
    if (!result.ok) io.stderr('nothing was added\n');
    return result.ok ? 0 : 1;
  },
} satisfies Command;
