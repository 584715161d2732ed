/**
 * Writes the sample catalogue into `content/` (run once, the output is committed):
 *   npx tsx tools/sample/make-sample-content.ts [--out content]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type WrittenSample, writeSampleContent } from './sample-files.js';

const { values } = parseArgs({ options: { out: { type: 'string', default: 'content' } } });
const out = values.out ?? 'content';
let written: WrittenSample[];
try {
  written = await writeSampleContent(out);
} catch (failure) {
  process.stderr.write(`make-sample-content: cannot write the sample into --out "${resolve(out)}" (${(failure as NodeJS.ErrnoException).code ?? String(failure)}): pass --out with a folder you can write\n`);
  process.exit(1);
}
for (const file of written) process.stdout.write(`${file.image}  ${(file.bytes / 1024).toFixed(1)} KB\n`);
const total = written.reduce((sum, file) => sum + file.bytes, 0);
process.stdout.write(`${written.length} images, ${(total / 1024 / 1024).toFixed(2)} MB\n`);
