import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runMain } from '../cli/main.js';
import { captureIo } from '../testing/capture-io.js';
import { fixtureContentFolder } from '../testing/fixture-catalogue.js';
import type { TempDir } from '../testing/temp-dir.js';
import { sidecarText } from './sidecar.js';

vi.setConfig({ testTimeout: 60_000 });

describe('sidecarText', () => {
  it('reads UTF-8, with or without a byte order mark', () => {
    expect(sidecarText(Buffer.from('{"d": "café 🐸"}'))).toEqual({ ok: true, text: '{"d": "café 🐸"}' });
    expect(sidecarText(Buffer.from('\ufeff{}'))).toEqual({ ok: true, text: '\ufeff{}' });
  });

  it('names UTF-16 by its byte order mark, and says how to save as UTF-8', () => {
    const littleEndian = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{\r\n}', 'utf16le')]);
    expect(sidecarText(littleEndian)).toEqual({ ok: false, message: expect.stringMatching(/^is saved as UTF-16 \(it starts with the bytes FF FE\): save it as UTF-8 \(Notepad: /) });
    expect(sidecarText(Buffer.from([0xfe, 0xff, 0x00, 0x7b, 0x00, 0x7d]))).toMatchObject({ ok: false, message: expect.stringContaining('the bytes FE FF') });
  });

  it('names the line and column of the first byte that is not UTF-8 (Windows-1252 text)', () => {
    const text = Buffer.from('{\r\n  "description": "caf\xe9 na\xefve"\r\n}', 'latin1');
    expect(sidecarText(text)).toEqual({ ok: false, message: 'is not UTF-8 text (the byte 0xE9 at line 2, column 22; saved as Windows-1252 or Latin-1?): save it as UTF-8' });
    // Columns count characters, not bytes; an encoded surrogate (ED A0 80) and an overlong form are not UTF-8 either.
    expect(sidecarText(Buffer.concat([Buffer.from('"é'), Buffer.from([0xed, 0xa0, 0x80])]))).toMatchObject({ message: expect.stringContaining('0xED at line 1, column 3') });
    expect(sidecarText(Buffer.from([0x22, 0xc0, 0xaf]))).toMatchObject({ message: expect.stringContaining('0xC0 at line 1, column 2') });
    expect(sidecarText(Buffer.from([0x22, 0xe2, 0x82]))).toMatchObject({ message: expect.stringContaining('0xE2 at line 1, column 2') });
  });
});

describe('pepe check on sidecars not saved as UTF-8', () => {
  let temp: TempDir;
  let content: string;
  beforeAll(async () => {
    ({ temp, content } = await fixtureContentFolder('pepe-sidecar-encoding-', 2));
  }, 60_000);
  afterAll(() => temp.cleanup());

  it('fails, naming each, instead of publishing "café" as "caf\ufffd"', async () => {
    const sidecar = join(content, 'frog-000.json');
    const original = JSON.parse(await readFile(sidecar, 'utf8')) as Record<string, unknown>;
    await writeFile(sidecar, Buffer.from(JSON.stringify({ ...original, description: 'café' }), 'latin1'));
    const other = join(content, 'frog-001.json');
    await writeFile(other, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(await readFile(other, 'utf8'), 'utf16le')]));
    const io = captureIo({ cwd: temp.path });
    expect(await runMain(['check'], io)).toBe(1);
    expect(io.err()).toMatch(/^error: frog-000\.json: is not UTF-8 text \(the byte 0xE9 at line 1, column \d+; saved as Windows-1252 or Latin-1\?\): save it as UTF-8 \[sidecar-not-utf8\]$/m);
    expect(io.err()).toMatch(/^error: frog-001\.json: is saved as UTF-16 .* \[sidecar-not-utf8\]$/m);
  });
});
