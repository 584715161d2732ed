/** Variant B answers: GET /v1/pepe (distinct random pepes among the matches) and by-id. */
import type { Catalogue } from './catalogue-runtime.js';
import { byIdBodyB, errorBodyB, listBodyB } from './bodies.js';
import type { Answer } from './http.js';
import { parseId, parseListQueryB } from './list-query.js';
import { ranksOf } from './search/rank-set.js';
import { shuffledSlice, type RandomSource } from './shuffle.js';

const validationErrorB = (message: string): Answer => ({ status: 400, body: errorBodyB('VALIDATION_ERROR', message), caching: 'error' });

export function listB(catalogue: Catalogue, rawQuery: string, random: RandomSource): Answer {
  const parsed = parseListQueryB(rawQuery);
  if (!parsed.ok) return validationErrorB(parsed.message);
  const { limit, search, filters } = parsed.value;
  const keep = filters === null ? null : catalogue.filters().bits(filters);
  const matches = search !== '' ? catalogue.match(search, 'description', keep) : keep === null ? null : ranksOf(keep);
  const size = matches === null ? catalogue.count : matches.length;
  const positions = shuffledSlice(size, 0, limit, random);
  const ranks = matches === null ? positions : positions.map((k) => matches[k]!);
  return { status: 200, body: listBodyB(catalogue, ranks), caching: 'no-store' };
}

export function byIdB(catalogue: Catalogue, rawId: string): Answer {
  const parsed = parseId(rawId);
  if (!parsed.ok) return validationErrorB(parsed.message);
  const rank = catalogue.rankOf(parsed.value.toLowerCase());
  if (rank === -1) return { status: 404, body: errorBodyB('NOT_FOUND', `No pepe with id ${parsed.value}`), caching: 'error' };
  return { status: 200, body: byIdBodyB(catalogue, rank), caching: 'deterministic' };
}
