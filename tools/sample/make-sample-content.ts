/**
 * Writes the sample catalogue into `content/` (run once, the output is committed):
 *   npx tsx tools/sample/make-sample-content.ts [--out content]
 */
import { parseArgs } from 'node:util';
import { writeSampleContent } from './sample-files.js';

const { values } = parseArgs({ options: { out: { type: 'string', default: 'content' } } });
const written = await writeSampleContent(values.out ?? 'content');
for (const file of written) process.stdout.write(`${file.image}  ${(file.bytes / 1024).toFixed(1)} KB\n`);
const total = written.reduce((sum, file) => sum + file.bytes, 0);
process.stdout.write(`${written.length} images, ${(total / 1024 / 1024).toFixed(2)} MB\n`);
