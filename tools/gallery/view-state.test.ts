import { describe, expect, it } from 'vitest';
import { resolveApiBase } from './src/api-client.js';
import { DEFAULT_VIEW, readViewState, sameGrid, viewStateHref } from './src/view-state.js';

const url = (s: string) => new URL(s, 'https://pepe.example');

describe('gallery view state in the URL', () => {
  it('reads search, sort and the open pepe, with defaults', () => {
    expect(readViewState(url('/'))).toEqual({ ...DEFAULT_VIEW, search: '', sort: 'created_at_desc', pepe: null });
    expect(readViewState(url('/?q=smug%20frog&sort=oldest&pepe=ABC'))).toEqual({ ...DEFAULT_VIEW, search: 'smug frog', sort: 'created_at_asc', pepe: 'abc' });
    expect(readViewState(url('/?sort=nonsense')).sort).toBe('created_at_desc');
  });

  it('cuts a search longer than the API accepts', () => {
    expect(readViewState(url(`/?q=${'a'.repeat(300)}`)).search).toHaveLength(200);
  });

  it('writes a state back and keeps unrelated parameters such as api', () => {
    const current = url('/?api=http%3A%2F%2Flocalhost%3A9000&q=old&pepe=x');
    const href = viewStateHref({ ...DEFAULT_VIEW, search: 'sad rain', sort: 'created_at_asc', pepe: null }, current);
    expect(href).toBe('/?api=http%3A%2F%2Flocalhost%3A9000&q=sad+rain&sort=oldest');
    expect(readViewState(url(href))).toEqual({ ...DEFAULT_VIEW, search: 'sad rain', sort: 'created_at_asc', pepe: null });
    expect(viewStateHref({ ...DEFAULT_VIEW, search: '  ', sort: 'created_at_desc', pepe: null }, url('/'))).toBe('/');
  });

  it('reads and writes the filters, normalised as the API does', () => {
    const state = readViewState(url('/?tags=Smug,%20sad,smug&exclude=sad,rain&animated=false&orientation=portrait&q=frog'));
    expect(state).toEqual({ ...DEFAULT_VIEW, search: 'frog', tags: ['smug', 'sad'], excludeTags: ['rain'], animated: false, orientation: 'portrait' });
    expect(viewStateHref(state, url('/'))).toBe('/?q=frog&tags=smug,sad&exclude=rain&animated=false&orientation=portrait');
    expect(readViewState(url('/?animated=maybe&orientation=round'))).toEqual(DEFAULT_VIEW);
    expect(sameGrid(state, { ...state, animated: true })).toBe(false);
    expect(sameGrid(state, { ...state, pepe: 'x' })).toBe(true);
  });

  it('treats searches differing only in surrounding spaces as the same grid', () => {
    expect(sameGrid({ ...DEFAULT_VIEW, search: 'smug ', sort: 'created_at_desc', pepe: null }, { ...DEFAULT_VIEW, search: 'smug', sort: 'created_at_desc', pepe: 'x' })).toBe(true);
    expect(sameGrid({ ...DEFAULT_VIEW, search: 'smug', sort: 'created_at_desc', pepe: null }, { ...DEFAULT_VIEW, search: 'smug', sort: 'created_at_asc', pepe: null })).toBe(false);
  });
});

describe('which API the gallery uses', () => {
  it('is the page origin by default', () => {
    expect(resolveApiBase(url('/'), undefined)).toEqual({ ok: true, base: '' });
  });

  it('takes ?api= before the data attribute, without trailing slash or query', () => {
    expect(resolveApiBase(new URL('http://localhost:8080/?api=http://127.0.0.1:9000/'), 'https://other.example')).toEqual({ ok: true, base: 'http://127.0.0.1:9000' });
    expect(resolveApiBase(url('/'), 'https://other.example/prefix/?x=1')).toEqual({ ok: true, base: 'https://other.example/prefix' });
  });

  it('takes another origin only on a development server, any origin may name itself', () => {
    expect(resolveApiBase(url('/?api=https://evil.example'), undefined)).toEqual({ ok: false, message: expect.stringContaining('development server') });
    expect(resolveApiBase(url('/?api=https://pepe.example/'), undefined)).toEqual({ ok: true, base: 'https://pepe.example' });
    expect(resolveApiBase(new URL('http://localhost:8080/?api=https://pepe.example'), undefined)).toEqual({ ok: true, base: 'https://pepe.example' });
  });

  it('refuses a relative or non-http api value with a message naming it', () => {
    const relative = resolveApiBase(url('/?api=localhost:9000x'), undefined);
    expect(relative.ok).toBe(false);
    const script = resolveApiBase(url('/?api=javascript:alert(1)'), undefined);
    expect(script).toEqual({ ok: false, message: expect.stringContaining('javascript:alert(1)') });
    expect(resolveApiBase(url('/?api=not a url'), undefined)).toEqual({ ok: false, message: expect.stringContaining('"not a url"') });
  });
});
