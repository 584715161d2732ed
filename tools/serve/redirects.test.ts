import { describe, expect, it } from 'vitest';
import type { RedirectRule } from '../shared/netlify-config.js';
import { compileRedirect, findRedirect, unsupportedRedirect } from './redirects.js';

const rule = (partial: Partial<RedirectRule> & Pick<RedirectRule, 'from' | 'to'>): RedirectRule => ({ status: 301, force: false, query: {}, conditions: {}, headers: {}, ...partial });
const run = (rules: RedirectRule[], href: string, existing: string[] = []) =>
  findRedirect(rules.map(compileRedirect), new URL(href, 'http://localhost'), (p) => existing.includes(p));

describe('findRedirect', () => {
  it('redirects a literal path, ignoring a trailing slash and passing the query on', () => {
    const rules = [rule({ from: '/old', to: '/new' })];
    expect(run(rules, '/old/?a=1')).toEqual({ kind: 'redirect', status: 301, location: '/new?a=1', headers: {} });
    expect(run(rules, '/Old')).toBeNull();
  });

  it('matches literal segments with hyphens and dots', () => {
    expect(run([rule({ from: '/old-api/v1.0/*', to: '/api/:splat' })], '/old-api/v1.0/pepe')).toMatchObject({ location: '/api/pepe' });
    expect(run([rule({ from: '/old-api/v1.0/*', to: '/api/:splat' })], '/old-api/v1x0/pepe')).toBeNull();
  });

  it('fills :splat and :placeholders', () => {
    const rules = [rule({ from: '/news/:year/*', to: '/blog/:year/:splat', status: 302 })];
    expect(run(rules, '/news/2024/a/b')).toMatchObject({ kind: 'redirect', status: 302, location: '/blog/2024/a/b' });
    expect(run(rules, '/news/2024')).toMatchObject({ location: '/blog/2024/' });
  });

  it('does not let :splat be read as a shorter placeholder name', () => {
    const rules = [rule({ from: '/:s/*', to: '/x/:splat/:s' })];
    expect(run(rules, '/a/b')).toMatchObject({ location: '/x/b/a' });
  });

  it('rewrites with status 200 and keeps the target query over the request query', () => {
    const rules = [rule({ from: '/docs/*', to: '/help/:splat?from=docs', status: 200 })];
    expect(run(rules, '/docs/x?q=1')).toEqual({ kind: 'rewrite', status: 200, pathname: '/help/x', search: '?from=docs', headers: {} });
  });

  it('lets a static file shadow a rule unless the rule is forced', () => {
    const soft = [rule({ from: '/a', to: '/b', status: 200 })];
    const forced = [rule({ from: '/a', to: '/b', status: 200, force: true })];
    expect(run(soft, '/a', ['/a'])).toBeNull();
    expect(run(forced, '/a', ['/a'])).toMatchObject({ kind: 'rewrite', pathname: '/b' });
  });

  it('applies the first matching rule only', () => {
    const rules = [rule({ from: '/a/*', to: '/first/:splat' }), rule({ from: '/a/b', to: '/second' })];
    expect(run(rules, '/a/b')).toMatchObject({ location: '/first/b' });
  });

  it('requires the query parameters of a query rule and captures them', () => {
    const rules = [rule({ from: '/store', to: '/items/:id', query: { id: ':id' } })];
    expect(run(rules, '/store')).toBeNull();
    expect(run(rules, '/store?id=7')).toMatchObject({ location: '/items/7?id=7' });
  });

  it('serves custom statuses as rewrites with that status', () => {
    expect(run([rule({ from: '/gone/*', to: '/410.html', status: 410 })], '/gone/x')).toMatchObject({ kind: 'rewrite', status: 410, pathname: '/410.html' });
  });
});

describe('unsupportedRedirect', () => {
  it('refuses proxies, conditions and domain rules, naming the rule', () => {
    expect(unsupportedRedirect(rule({ from: '/p/*', to: 'https://example.com/:splat', status: 200 }))).toMatch(/"\/p\/\*".*proxying/);
    expect(unsupportedRedirect(rule({ from: '/c', to: '/d', conditions: { Country: ['nl'] } }))).toMatch(/conditions \(Country\)/);
    expect(unsupportedRedirect(rule({ from: 'https://a.example/*', to: '/x' }))).toMatch(/domain-level/);
  });

  it('accepts a plain path redirect', () => {
    expect(unsupportedRedirect(rule({ from: '/a', to: 'https://example.com/', status: 301 }))).toBeNull();
  });
});
