import { describe, expect, it } from 'vitest';
import { CLOCK_SKEW_MS, normaliseTags, parseSidecar, sidecarDateProblems, TEXT_LIMITS } from './sidecar.js';

const valid = {
  id: '3F2B8C1E-9A4D-4E6B-8C2D-1A2B3C4D5E6F',
  description: '  A smug frog  ',
  tags: [' Smug ', 'classic', 'SMUG', '', 'Café'],
  created_at: '2021-03-04T05:06:07+02:00',
};
const parse = (data: unknown) => parseSidecar('frogs/a.json', JSON.stringify(data));

describe('parseSidecar', () => {
  it('normalises id, tags, description and dates', () => {
    const result = parse(valid);
    expect(result).toEqual({
      ok: true,
      sidecar: {
        id: '3f2b8c1e-9a4d-4e6b-8c2d-1a2b3c4d5e6f',
        description: 'A smug frog',
        tags: ['smug', 'classic', 'café'],
        created_at: '2021-03-04T03:06:07.000Z',
        updated_at: '2021-03-04T03:06:07.000Z',
        distinct_from: [],
        artist: null,
        source_url: null,
        license: null,
      },
    });
  });

  it('reads the credits artist, source_url and license, trimmed, with the URL written as the URL parser writes it', () => {
    const result = parse({ ...valid, artist: '  Matt Furie ', source_url: ' HTTPS://Art.Example/pepe?id=1 ', license: 'CC-BY-4.0' });
    expect(result.ok && [result.sidecar.artist, result.sidecar.source_url, result.sidecar.license]).toEqual(['Matt Furie', 'https://art.example/pepe?id=1', 'CC-BY-4.0']);
    const blank = parse({ ...valid, artist: '  ', source_url: null, license: '' });
    expect(blank.ok && [blank.sidecar.artist, blank.sidecar.source_url, blank.sidecar.license]).toEqual([null, null, null]);
  });

  it('rejects bad credits with a problem naming the field, the value and what to write', () => {
    const messages = (data: object) => {
      const result = parse({ ...valid, ...data });
      return result.ok ? [] : result.problems.map((p) => `${p.code}: ${p.message}`);
    };
    expect(messages({ source_url: 'javascript:alert(1)' })).toEqual([
      'sidecar-invalid: field "source_url" has an invalid value "javascript:alert(1)" (is not an absolute http:// or https:// URL without credentials): use the page the picture comes from, e.g. "https://example.org/pepe/123", or null',
    ]);
    expect(messages({ source_url: 'example.org/pepe' })[0]).toContain('field "source_url" has an invalid value "example.org/pepe"');
    expect(messages({ source_url: 'https://user:secret@example.org/' })[0]).toContain('without credentials');
    expect(messages({ source_url: '' })[0]).toContain('field "source_url" has an invalid value ""');
    expect(messages({ artist: 'Matt\nFurie' })).toEqual([
      'sidecar-bad-character: field "artist" holds U+000A (a line feed) at character 5, which XML 1.0 or a terminal cannot carry safely: delete it',
    ]);
    expect(messages({ artist: 'x'.repeat(201) })).toEqual(['sidecar-too-long: field "artist" is 201 characters long, over the limit of 200: shorten it']);
    expect(messages({ license: 42 })[0]).toMatch(/^sidecar-invalid: field "license" has an invalid value 42 \(.*\): use the licence as one line of text, e.g. an SPDX id such as "CC-BY-4.0"/);
    expect(messages({ licence: 'MIT' })[0]).toContain('unknown field "licence": remove it or fix its spelling (allowed: id, description, tags, created_at, updated_at, distinct_from, artist, source_url, license)');
  });

  it('keeps an explicit updated_at and lowercases distinct_from ids', () => {
    const result = parse({ ...valid, updated_at: '2022-01-01T00:00:00Z', distinct_from: ['AAAAAAAA-AAAA-4AAA-8AAA-AAAAAAAAAAAA'] });
    expect(result.ok && result.sidecar.updated_at).toBe('2022-01-01T00:00:00.000Z');
    expect(result.ok && result.sidecar.distinct_from).toEqual(['aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa']);
  });

  it('refuses a key given twice at the top level (JSON.parse would keep the last silently)', () => {
    const text = `{"id": "${valid.id}", "description": "a", "tags": null, "created_at": "${valid.created_at}", "id": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"}`;
    expect(parseSidecar('frogs/a.json', text)).toEqual({
      ok: false,
      problems: [{ severity: 'error', code: 'sidecar-repeated-key', file: 'frogs/a.json', message: 'gives "id" more than once (JSON keeps only the last): keep one' }],
    });
    // The same key inside a nested value, or inside a string, is no repetition.
    const nested = { ...valid, tags: ['id', 'x'], description: 'say "id": twice, {"id": 1}' };
    expect(parseSidecar('frogs/a.json', JSON.stringify(nested)).ok).toBe(true);
    expect(parseSidecar('frogs/a.json', JSON.stringify({ ...valid, distinct_from: [] }, null, 2)).ok).toBe(true);
  });

  it('reads escaped quotes inside a string as part of the string, not as a key', () => {
    // The repeated-key scan must skip an escaped quote (\") inside a value: read as the string's end, the text
    // after it ("id") would look like a second "id" key and refuse a valid sidecar.
    expect(parse({ ...valid, description: 'a", "id' }).ok).toBe(true);
    expect(parse({ ...valid, description: 'ends with a backslash \\' }).ok).toBe(true);
  });

  it('accepts created_at up to the last instant of year 9999 in UTC and from year 0000 on', () => {
    expect(parse({ ...valid, created_at: '9999-12-31T23:59:59Z' }).ok).toBe(true);
    expect(parse({ ...valid, created_at: '0000-01-01T00:00:00Z' }).ok).toBe(true);
    // One minute before year 0000 in UTC: written "-000001-…" by toISOString.
    expect(parse({ ...valid, created_at: '0000-01-01T00:00:00+00:01' }).ok).toBe(false);
  });

  it('reports a created_at or updated_at that is no date at all once, as not ISO 8601 (not also as outside the years 0000 to 9999)', () => {
    for (const field of ['created_at', 'updated_at']) {
      for (const value of ['yesterday', '', '2021-13-01T00:00:00Z']) {
        const result = parse({ ...valid, [field]: value });
        expect(result.ok, `${field}: ${value}`).toBe(false);
        if (result.ok) continue;
        expect(result.problems.map((p) => p.message), `${field}: ${value}`).toEqual([
          expect.stringMatching(new RegExp(`^field "${field}" has an invalid value ${JSON.stringify(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(Invalid ISO datetime\\): use ISO 8601 with an offset, e\\.g\\. `)),
        ]);
      }
    }
  });

  it('shows at most 80 characters of a bad value in its message', () => {
    const result = parse({ ...valid, tags: 'x'.repeat(500) });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const message = result.problems[0]!.message;
    expect(message).toContain(`"${'x'.repeat(76)}...`);
    expect(message).not.toContain('x'.repeat(78));
  });

  it('reads a sidecar saved with a UTF-8 byte order mark', () => {
    expect(parseSidecar('frogs/a.json', `\uFEFF${JSON.stringify(valid)}`)).toEqual(parse(valid));
  });

  it('publishes tags and description in NFC, so a decomposed é is the same tag as a precomposed one', () => {
    const decomposed = 'cafe\u0301';
    const result = parse({ ...valid, description: `  Un ${decomposed} ou deux `, tags: ['Café', decomposed.toUpperCase(), 'CAFÉ'] });
    expect(result.ok && result.sidecar.tags).toEqual(['café']);
    expect(result.ok && result.sidecar.description).toBe('Un café ou deux');
    expect(normaliseTags([decomposed])).toEqual(['caf\u00e9']);
  });

  it('lowercases a Turkish dotted capital İ to a plain i, without a combining dot', () => {
    expect(normaliseTags(['İzmir', 'DİYARBAKIR', 'izmir'])).toEqual(['izmir', 'diyarbakir']);
  });

  it('turns empty tags and blank descriptions into null', () => {
    const result = parse({ ...valid, tags: [' ', ''], description: '   ' });
    expect(result.ok && [result.sidecar.tags, result.sidecar.description]).toEqual([null, null]);
    expect(normaliseTags([])).toBeNull();
    expect(normaliseTags(null)).toBeNull();
  });

  it('rejects an unknown key such as a misspelt description, naming the key', () => {
    const result = parse({ ...valid, descripton: 'typo' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({ code: 'sidecar-unknown-key', file: 'frogs/a.json', severity: 'error' });
    expect(result.problems[0]!.message).toContain('"descripton"');
  });

  it('names the field and the value of a schema error', () => {
    const result = parse({ ...valid, created_at: '2021-03-04 05:06' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems[0]!.code).toBe('sidecar-invalid');
    expect(result.problems[0]!.message).toContain('created_at');
    expect(result.problems[0]!.message).toContain('"2021-03-04 05:06"');
  });

  it('rejects a date without an offset and a malformed id', () => {
    const result = parse({ ...valid, id: 'not-a-uuid', created_at: '2021-03-04T05:06:07' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.message.split(' ')[1])).toEqual(['"id"', '"created_at"']);
  });

  it('reports a missing required field as missing', () => {
    const { tags: _tags, ...rest } = valid;
    const result = parse(rest);
    expect(!result.ok && result.problems[0]!.message).toMatch(/field "tags" is missing/);
  });

  it('reports invalid JSON with the parser message', () => {
    const result = parseSidecar('b.json', '{"id": ');
    expect(!result.ok && result.problems.map((p) => p.code)).toEqual(['invalid-json']);
  });

  it('rejects a JSON value that is not an object', () => {
    const result = parseSidecar('c.json', '[1, 2]');
    expect(!result.ok && result.problems.map((p) => p.code)).toEqual(['sidecar-invalid']);
  });

  describe('text rules', () => {
    const problems = (data: object) => {
      const result = parse({ ...valid, ...data });
      return result.ok ? [] : result.problems.map((p) => `${p.code}: ${p.message}`);
    };
    // Every class XML 1.0 or a terminal cannot carry: C0 (Word's soft line break U+000B, ESC), DEL and C1, noncharacters, bidi controls, a lone surrogate.
    const refused: [string, string][] = [
      ['\u0000', 'U+0000'], ['\u000b', 'U+000B'], ['\u001b', 'U+001B'], ['\r', 'U+000D'], ['\u007f', 'U+007F'], ['\u0085', 'U+0085'], ['\u009b', 'U+009B'],
      ['\ufffe', 'U+FFFE'], ['\uffff', 'U+FFFF'], ['\ufdd0', 'U+FDD0'], ['\ufdef', 'U+FDEF'], ['\u{1fffe}', 'U+1FFFE'], ['\u{10ffff}', 'U+10FFFF'],
      ['\u202a', 'U+202A'], ['\u202e', 'U+202E'], ['\u2066', 'U+2066'], ['\u2069', 'U+2069'], ['\ud800', 'U+D800'], ['\udfff', 'U+DFFF'], ['\u2028', 'U+2028'],
    ];
    it.each(refused)('refuses %j as %s in every text field, naming the field, the character and where it is', (character, name) => {
      expect(problems({ description: `ab${character}c` })).toEqual([expect.stringMatching(new RegExp(`^sidecar-bad-character: field "description" holds ${name.replace('+', '\\+')} \\(.+\\) at character 3, which XML 1.0 or a terminal cannot carry safely: delete it(, or write a line break as \\\\n)?$`))]);
      expect(problems({ tags: ['ok', `x${character}`] })).toEqual([expect.stringMatching(new RegExp(`^sidecar-bad-character: field "tags.1" holds ${name.replace('+', '\\+')} .* at character 2, .*: delete it$`))]);
      for (const field of ['artist', 'license']) expect(problems({ [field]: `A${character}` })[0]).toMatch(new RegExp(`^sidecar-bad-character: field "${field}" holds ${name.replace('+', '\\+')}`));
      expect(problems({ source_url: `https://example.org/${character}` })[0]).toMatch(/^sidecar-bad-character: field "source_url"/);
    });

    it('names the vertical tab Word writes for a soft line break', () => {
      expect(problems({ description: 'line\u000bbreak' })[0]).toContain('U+000B (a vertical tab (Word writes one for a soft line break, Shift+Enter)) at character 5');
    });

    it('lets a description hold tabs and line feeds, and nothing else hold them', () => {
      const result = parse({ ...valid, description: 'two\nlines\tand a tab' });
      expect(result.ok && result.sidecar.description).toBe('two\nlines\tand a tab');
      expect(problems({ tags: ['a\tb'] })[0]).toMatch(/^sidecar-bad-character: field "tags.0" holds U\+0009 \(a tab\)/);
      expect(problems({ license: 'CC\nBY' })[0]).toMatch(/^sidecar-bad-character: field "license" holds U\+000A/);
    });

    it('keeps right-to-left text and its marks (LRM, RLM), which display in reading order', () => {
      const result = parse({ ...valid, description: 'ضفدع \u200fحزين', tags: ['ضفدع'], artist: 'מאט\u200e' });
      expect(result.ok).toBe(true);
    });

    it('limits a description, each tag and the number of tags, counting characters rather than UTF-16 units', () => {
      expect(TEXT_LIMITS).toMatchObject({ description: 1000, tag: 50, tags: 30 });
      expect(parse({ ...valid, description: '🐸'.repeat(1000) }).ok).toBe(true);
      expect(problems({ description: 'x'.repeat(1001) })).toEqual(['sidecar-too-long: field "description" is 1001 characters long, over the limit of 1000: shorten it']);
      expect(parse({ ...valid, tags: ['é'.repeat(50)] }).ok).toBe(true);
      expect(problems({ tags: ['ok', 'y'.repeat(51)] })).toEqual(['sidecar-too-long: field "tags.1" is 51 characters long, over the limit of 50: shorten it']);
      const tags = (n: number) => Array.from({ length: n }, (_, k) => `tag${k}`);
      expect(parse({ ...valid, tags: [...tags(30), 'TAG0', ' tag1 '] }).ok).toBe(true);
      expect(problems({ tags: tags(31) })).toEqual(['sidecar-too-long: field "tags" lists 31 distinct tags, over the limit of 30: keep the ones people search for']);
    });

    it('refuses a tag that tags= could never select: one holding a comma', () => {
      expect(problems({ tags: ['smug', 'happy, sad'] })).toEqual([
        'sidecar-unselectable-tag: field "tags.1" holds a comma, which the tags= filter reads as a separator, so no client could select it: split it into two tags or drop the comma',
      ]);
    });
  });
});

describe('sidecarDateProblems', () => {
  const now = Date.parse('2026-06-01T12:00:00Z');
  const dates = (created_at: string, updated_at = created_at) => ({ created_at, updated_at });

  it('accepts dates up to the allowed clock skew ahead, and refuses one past it, once for a defaulted updated_at', () => {
    expect(sidecarDateProblems(dates(new Date(now + CLOCK_SKEW_MS).toISOString()), 'a.json', 'error', now)).toEqual([]);
    const ahead = sidecarDateProblems(dates(new Date(now + CLOCK_SKEW_MS + 1000).toISOString()), 'a.json', 'error', now);
    expect(ahead.map((p) => [p.severity, p.code, p.file])).toEqual([['error', 'date-in-future', 'a.json']]);
    expect(ahead[0]!.message).toContain("this machine's clock says 2026-06-01)");
  });

  it('names a future updated_at on its own, and an updated_at before created_at', () => {
    expect(sidecarDateProblems(dates('2025-01-01T00:00:00.000Z', '2099-01-01T00:00:00.000Z'), 'b.json', 'warning', now).map((p) => p.message)).toEqual([
      expect.stringMatching(/^field "updated_at" is 2099-01-01T00:00:00\.000Z, in the future/),
    ]);
    expect(sidecarDateProblems(dates('2025-01-02T00:00:00.000Z', '2025-01-01T23:59:59.999Z'), 'c.json', 'warning', now).map((p) => [p.severity, p.code])).toEqual([['warning', 'updated-before-created']]);
    expect(sidecarDateProblems(dates('2025-01-02T00:00:00.000Z', '2025-01-02T00:00:00.000Z'), 'd.json', 'error', now)).toEqual([]);
  });
});
