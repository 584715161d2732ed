/** Test helpers: the committed fixtures and their Python reference vectors. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

export const readFixture = (name: string): Buffer => readFileSync(join(FIXTURE_DIR, name));

/** Written by fixtures/reference_phash.py (Pillow 9.4 + scipy), upright size included. */
export const EXPECTED_PHASH = JSON.parse(readFileSync(join(FIXTURE_DIR, 'expected-phash.json'), 'utf8')) as Record<string, { phash: string; width: number; height: number }>;
