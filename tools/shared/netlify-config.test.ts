import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileHeaderPath, headersForPath, loadNetlifyConfig, NetlifyConfigError, parseNetlifyConfig } from './netlify-config.js';

describe('compileHeaderPath (Netlify `for` semantics)', () => {
  it('matches a literal path case-insensitively, with or without a trailing slash', () => {
    const re = compileHeaderPath('/api/openapi.json');
    expect(re.test('/api/openapi.json')).toBe(true);
    expect(re.test('/API/OpenAPI.json')).toBe(true);
    expect(re.test('/api/openapi.json/')).toBe(true);
    expect(re.test('/api/openapiXjson')).toBe(false);
    expect(re.test('/api/openapi.json/x')).toBe(false);
  });

  it('lets a standalone * match anything below, slashes included, and the bare folder', () => {
    const re = compileHeaderPath('/images/*');
    expect(re.test('/images/a.png')).toBe(true);
    expect(re.test('/images/deep/er/a.png')).toBe(true);
    expect(re.test('/images')).toBe(true);
    expect(re.test('/imagesx/a.png')).toBe(false);
    expect(re.test('/v1/images/a.png')).toBe(false);
  });

  it('lets * inside a segment match a run of characters, and keeps the dot literal', () => {
    const re = compileHeaderPath('/images/*.png');
    expect(re.test('/images/abc.png')).toBe(true);
    expect(re.test('/images/abc.PNG')).toBe(true);
    expect(re.test('/images/abcxpng')).toBe(false);
    expect(re.test('/images/abc.png.gif')).toBe(false);
  });

  it('keeps hyphens literal', () => {
    expect(compileHeaderPath('/my-files/*.tar-gz').test('/my-files/a.tar-gz')).toBe(true);
  });

  it('lets :placeholder match exactly one non-empty segment', () => {
    const re = compileHeaderPath('/v1/:kind/info');
    expect(re.test('/v1/pepe/info')).toBe(true);
    expect(re.test('/v1/a/b/info')).toBe(false);
    expect(re.test('/v1//info')).toBe(false);
  });

  it('matches only the site root for "/"', () => {
    const re = compileHeaderPath('/');
    expect(re.test('/')).toBe(true);
    expect(re.test('/index.html')).toBe(false);
  });
});

describe('headersForPath', () => {
  const toml = `
[[headers]]
  for = "/*"
  [headers.values]
    X-Frame-Options = "DENY"
    Cache-Control = "no-cache"
[[headers]]
  for = "/images/*"
  [headers.values]
    cache-control = '''
      public,
      max-age=10'''
    Vary = ["Accept", "Origin"]
`;

  it('merges every matching rule, the later one winning for the same header in any letter case', async () => {
    const config = await parseNetlifyConfig(toml);
    expect(headersForPath(config, '/images/a.png')).toEqual({ 'X-Frame-Options': 'DENY', 'cache-control': 'public, max-age=10', Vary: 'Accept, Origin' });
    expect(headersForPath(config, '/other')).toEqual({ 'X-Frame-Options': 'DENY', 'Cache-Control': 'no-cache' });
  });

  it('returns no headers when no rule matches', async () => {
    const config = await parseNetlifyConfig('[[headers]]\nfor = "/a"\n[headers.values]\nX = "1"\n');
    expect(headersForPath(config, '/b')).toEqual({});
  });
});

describe('parseNetlifyConfig errors', () => {
  it('names the file when the TOML is invalid', async () => {
    await expect(parseNetlifyConfig('[build\n', 'conf/netlify.toml')).rejects.toThrow(/conf\/netlify\.toml: not valid TOML/);
  });

  it('names the rule when a header rule has no path', async () => {
    await expect(parseNetlifyConfig('[[headers]]\n[headers.values]\nX = "1"\n')).rejects.toThrow(/\[\[headers\]\] number 1: "for" must be a path/);
  });

  it('rejects a header value that is not a string', async () => {
    const error = await parseNetlifyConfig('[[headers]]\nfor = "/a"\n[headers.values]\nX = 1\n').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetlifyConfigError);
    expect(String(error)).toMatch(/header "X" must be a string/);
  });

  it('reports a redirect without "to" through Netlify\'s parser', async () => {
    await expect(parseNetlifyConfig('[[redirects]]\nfrom = "/a"\n')).rejects.toThrow(/invalid \[\[redirects\]\][\s\S]*Missing "to" field/);
  });

  it('normalises redirects: default status 301, force false, forward rule target', async () => {
    const config = await parseNetlifyConfig('[[redirects]]\nfrom = "/old/*"\nto = "/new/:splat"\n[[redirects]]\nfrom = "/docs/*"\nstatus = 200\n');
    expect(config.redirects).toEqual([
      { from: '/old/*', to: '/new/:splat', status: 301, force: false, query: {}, conditions: {}, headers: {} },
      { from: '/docs/*', to: '/docs/:splat', status: 200, force: false, query: {}, conditions: {}, headers: {} },
    ]);
  });
});

describe('loadNetlifyConfig on a file it cannot read', () => {
  it('says to run from the repository root when the file is missing, and that it is a folder when it is one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pepe-netlify-toml-'));
    try {
      await expect(loadNetlifyConfig(join(dir, 'netlify.toml'))).rejects.toThrow(/netlify\.toml: cannot read the Netlify configuration \(ENOENT\); run from the repository root, where netlify\.toml is/);
      await mkdir(join(dir, 'netlify.toml'));
      const error = await loadNetlifyConfig(join(dir, 'netlify.toml')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetlifyConfigError);
      expect((error as Error).message).toMatch(/netlify\.toml: cannot read the Netlify configuration \(EISDIR\); it is a folder, not the file: point to the netlify\.toml file \(pepe publish: --netlify-toml FILE\)$/);
      expect((error as Error).message).not.toContain('repository root');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  // A named pipe would block pepe serve and pepe publish for ever (open() waits for a writer); /dev/null would read as a configuration without a single header rule.
  it.skipIf(process.platform === 'win32')('refuses a named pipe at once, and a device, naming what it is', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pepe-netlify-toml-'));
    try {
      const fifo = join(dir, 'netlify.toml');
      execFileSync('mkfifo', [fifo]);
      const started = Date.now();
      const error = await loadNetlifyConfig(fifo).catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(error).toBeInstanceOf(NetlifyConfigError);
      expect((error as Error).message).toBe(`${fifo}: cannot read the Netlify configuration: it is a named pipe (FIFO), not a file: point to the netlify.toml file (pepe publish: --netlify-toml FILE)`);
      await expect(loadNetlifyConfig('/dev/null')).rejects.toThrow(/^\/dev\/null: cannot read the Netlify configuration: it is a device, not a file: /);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 20_000);
});
