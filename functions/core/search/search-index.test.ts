import { describe, expect, it } from 'vitest';
import { buildSearchIndex, loadSearchIndex, type SearchDoc, type SearchField, type SearchIndex } from './search-index.js';

/** Builds, serialises and re-parses like the build → bundle → function path does. */
function indexOf(docs: SearchDoc[]): SearchIndex {
  return loadSearchIndex(JSON.parse(JSON.stringify(buildSearchIndex(docs))));
}

const DOCS: SearchDoc[] = [
  /* 0 */ { tags: ['smug', 'frog'], description: 'A very smug frog sitting on a lilypad.' },
  /* 1 */ { tags: null, description: 'Café au lait for a NAÏVE pepe' },
  /* 2 */ { tags: ['sad'], description: null },
  /* 3 */ { tags: ['smugness'], description: 'Frog smiling at the moon' },
  /* 4 */ { tags: ['happy', 'frog'], description: 'The smuggest of them all' },
  /* 5 */ { tags: null, description: null },
];
const index = indexOf(DOCS);
const match = (query: string, field: SearchField = 'all') => [...index.match(query, field)];
const byRelevance = (query: string, field: SearchField = 'all') => [...index.matchByRelevance(query, field)];

describe('match', () => {
  it('is case- and accent-insensitive on both sides', () => {
    expect(match('cafe')).toEqual([1]);
    expect(match('CAFÉ naive')).toEqual([1]);
    expect(match('Pépé')).toEqual([1]);
  });

  it('is case-insensitive also for letters whose case pairs are not one to one (ß/SS, ı/I)', () => {
    const special = indexOf([{ tags: ['straße'], description: 'DİYARBAKIR' }]);
    expect([...special.match('strasse', 'all')]).toEqual([0]);
    expect([...special.match('STRASSE', 'all')]).toEqual([0]);
    expect([...special.match('dıyarbakır', 'description')]).toEqual([0]);
  });

  it('requires every query word (AND), in any field', () => {
    expect(match('frog')).toEqual([0, 3, 4]);
    expect(match('frog happy')).toEqual([4]);
    expect(match('frog moon')).toEqual([3]);
    expect(match('sad frog')).toEqual([]);
  });

  it('matches words starting with a query word', () => {
    expect(match('smu')).toEqual([0, 3, 4]);
    expect(match('smugn')).toEqual([3]);
    expect(match('lily')).toEqual([0]);
    expect(match('frogs')).not.toContain(5);
  });

  it('does not match inside a word', () => {
    expect(match('mug')).toEqual([]);
  });

  it('treats punctuation in the query as a separator', () => {
    expect(match('smug-frog!sitting?')).toEqual([0]);
    expect(match('smug-frog!')).toEqual(match('smug frog'));
  });

  it('ignores repeated query words', () => {
    expect(match('frog frog FROG')).toEqual(match('frog'));
  });

  it('returns nothing for a query without words', () => {
    expect(match('!!!')).toEqual([]);
    expect(match('')).toEqual([]);
    expect(match('   ')).toEqual([]);
  });

  it('returns ranks ascending as a Uint32Array', () => {
    const ranks = index.match('frog', 'all');
    expect(ranks).toBeInstanceOf(Uint32Array);
    expect([...ranks]).toEqual([...ranks].sort((a, b) => a - b));
  });
});

describe('typo tolerance', () => {
  it('allows one substitution, insertion or deletion when nothing matches strictly', () => {
    expect(match('smig')).toEqual([0]);
    expect(match('frgo')).toEqual([]);
    expect(match('frogg')).toEqual([0, 3, 4]);
    expect(match('lilpad')).toEqual([0]);
  });

  it('is whole-word only: a typo does not also complete a prefix', () => {
    // smig → smug (one substitution) but not smugness / smuggest.
    expect(match('smig')).not.toContain(3);
  });

  it('is not used when the strict query finds something', () => {
    const docs = indexOf([{ tags: ['frog'], description: null }, { tags: ['frag'], description: null }]);
    expect([...docs.match('frog', 'all')]).toEqual([0]);
    expect([...docs.match('frig', 'all')]).toEqual([0, 1]);
  });

  it('with a kept set (filters), answers only the kept matches, and falls back to typos only when the unfiltered strict query finds nothing', () => {
    const docs = indexOf([{ tags: ['frog'], description: null }, { tags: ['frag'], description: null }, { tags: ['frog', 'smug'], description: 'frog' }]);
    const keep = (...ranks: number[]) => Uint32Array.of(ranks.reduce((bits, rank) => bits | (1 << rank), 0));
    expect([...docs.match('frog', 'all', keep(1, 2))]).toEqual([2]);
    // frog's strict matches (0, 2) are all filtered out: the answer is empty, not frag by a typo.
    expect([...docs.match('frog', 'all', keep(1))]).toEqual([]);
    expect([...docs.match('frig', 'all', keep(1, 2))]).toEqual([1, 2]);
    expect([...docs.matchByRelevance('frog', 'all', keep(0, 2))]).toEqual([...docs.matchByRelevance('frog', 'all')].filter((rank) => rank !== 1));
    expect([...docs.matchByRelevance('frog smug', 'all', keep(0, 1))]).toEqual([]);
  });

  it('needs at least 4 letters in the query word', () => {
    expect(match('sa')).toEqual([2]);
    expect(match('sdd')).toEqual([]);
    expect(match('hapy')).toEqual([4]);
  });

  it('applies per word: a 3-letter word stays strict while a longer one is tolerant', () => {
    expect(match('sad frig')).toEqual([]);
    expect(match('hap frig')).toEqual([4]);
  });
});

describe('description-only field (variant B)', () => {
  it('ignores tags', () => {
    expect(match('happy', 'description')).toEqual([]);
    expect(match('frog', 'description')).toEqual([0, 3]);
    expect(match('smu', 'description')).toEqual([0, 4]);
  });

  it('uses the same typo rules on descriptions', () => {
    expect(match('smigly', 'description')).toEqual([]);
    expect(match('moom', 'description')).toEqual([3]);
  });
});

describe('matchByRelevance', () => {
  it('returns the same set as match', () => {
    for (const query of ['frog', 'smu', 'smig', 'cafe', 'nothing', '!!!']) {
      expect(byRelevance(query).sort((a, b) => a - b)).toEqual(match(query));
    }
  });

  it('ranks a tag match above a description match of the same word', () => {
    const docs = indexOf([
      { tags: ['frog'], description: null },
      { tags: null, description: 'a frog' },
      { tags: ['frog'], description: 'frog' },
    ]);
    const order = [...docs.matchByRelevance('frog', 'all')];
    expect(order.indexOf(0)).toBeLessThan(order.indexOf(1));
    expect(order.indexOf(2)).toBeLessThan(order.indexOf(1));
  });

  it('ranks an exact word above a longer word it is the prefix of', () => {
    const docs = indexOf([{ tags: ['smug'], description: null }, { tags: ['smugness'], description: null }]);
    expect([...docs.matchByRelevance('smug', 'all')]).toEqual([0, 1]);
  });

  it('breaks ties by newest (highest rank) first', () => {
    const docs = indexOf([
      { tags: ['frog'], description: null },
      { tags: ['frog'], description: null },
      { tags: ['frog'], description: null },
    ]);
    expect([...docs.matchByRelevance('frog', 'all')]).toEqual([2, 1, 0]);
  });

  it('orders by score first, then newest first within each score', () => {
    const docs = indexOf([
      { tags: ['frog'], description: null },
      { tags: null, description: 'frog' },
      { tags: ['frog'], description: null },
      { tags: null, description: 'frog' },
      { tags: null, description: 'froggy' },
    ]);
    expect([...docs.matchByRelevance('frog', 'all')]).toEqual([2, 0, 3, 1, 4]);
  });

  it('weighs only descriptions for the description field', () => {
    const docs = indexOf([{ tags: ['frog'], description: 'a frog' }, { tags: null, description: 'frog' }]);
    expect([...docs.matchByRelevance('frog', 'description')]).toEqual([1, 0]);
  });
});

describe('index data', () => {
  it('survives JSON round trips unchanged', () => {
    const data = buildSearchIndex(DOCS);
    const copy = JSON.parse(JSON.stringify(data));
    expect(copy).toEqual(data);
    expect(JSON.stringify(buildSearchIndex(DOCS))).toBe(JSON.stringify(data));
  });

  it('works for an empty catalogue', () => {
    const empty = indexOf([]);
    expect([...empty.match('frog', 'all')]).toEqual([]);
    expect([...empty.matchByRelevance('frog', 'all')]).toEqual([]);
  });

  it('refuses data of another format, saying to rebuild', () => {
    expect(() => loadSearchIndex({ format: 'other' } as never)).toThrow(/pepe-search-3.*"other".*pepe build/);
    expect(() => loadSearchIndex(null as never)).toThrow(/pepe build/);
  });

  it('matches across many records (bitmap and list postings together)', () => {
    const docs: SearchDoc[] = Array.from({ length: 1000 }, (_, i) => ({ tags: i % 2 === 0 ? ['even'] : null, description: i % 100 === 7 ? 'rare frog' : 'common frog' }));
    const big = indexOf(docs);
    expect([...big.match('even rare', 'all')]).toEqual([]);
    expect([...big.match('rare', 'all')]).toEqual(docs.flatMap((_, i) => (i % 100 === 7 ? [i] : [])));
    expect(big.match('even frog', 'all').length).toBe(500);
    expect(big.match('even', 'description').length).toBe(0);
  });
});
