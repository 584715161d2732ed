/**
 * Variant A's discovery answers: every tag with its count (`GET /api/tags`), the pepes that
 * look like one (`GET /api/similar/{id}`) or like a picture (`GET /api/similar?phash=`), and
 * the pepe of the day (`GET /api/daily`). The tags and the by-id lists are also written as
 * static files by the build (catalogue.ts, catalogueAnswerFiles), byte-equal to these bodies; the
 * function answers them for ids in another letter case, trailing slashes and unknown or
 * malformed ids.
 */
import type { Catalogue } from './catalogue-runtime.js';
import { errorBodyA } from './bodies.js';
import type { Answer } from './http.js';
import { parseQueryString, quote } from './query-string.js';
import { hashString } from './shuffle.js';
import { SIMILAR_LIMIT, SIMILAR_MAX_DISTANCE, type Neighbour } from './similar.js';
import { parseSimilarQuery } from './list-query.js';
import { answerForIdA, validationErrorA } from './variant-a.js';

const DAY_MS = 86_400_000;

export function tagsBody(catalogue: Catalogue): string {
  const counts = catalogue.filters().tagCounts();
  return `{"data":${JSON.stringify(counts)},"meta":{"total_items":${counts.length}},"error":null}`;
}

/** Each similar pepe is its variant A object plus its `distance`. */
const similarItems = (catalogue: Catalogue, neighbours: readonly Neighbour[]): string[] =>
  neighbours.map(({ rank, distance }) => `${catalogue.jsonA(rank).slice(0, -1)},"distance":${distance}}`);

export function similarBody(catalogue: Catalogue, rank: number): string {
  const items = similarItems(catalogue, catalogue.similar(rank));
  return `{"data":[${items.join(',')}],"meta":{"total_items":${items.length},"max_distance":${SIMILAR_MAX_DISTANCE}},"error":null}`;
}

/**
 * The nearest `limit` of some neighbours, distance ascending, ties by id (as the by-id lists):
 * ids are read only for the distances the answer reaches.
 */
function nearestFirst(catalogue: Catalogue, neighbours: readonly Neighbour[], limit: number): Neighbour[] {
  const out: Neighbour[] = [];
  for (let distance = 0; out.length < limit && out.length < neighbours.length; distance++) {
    const tied = neighbours.filter((n) => n.distance === distance).map((n) => ({ n, id: catalogue.id(n.rank) }));
    tied.sort((a, b) => (a.id < b.id ? -1 : 1));
    for (const { n } of tied.slice(0, limit - out.length)) out.push(n);
  }
  return out;
}

/**
 * `GET /api/similar?phash=<16 hex>&max_distance=<0..7>`: the pepes within that many bits of a
 * picture's phash, in the shape of the by-id lists (their limit too), the cut-off and the phash
 * asked for echoed in meta. Deterministic, so the CDN caches it per URL.
 */
export function similarByHashA(catalogue: Catalogue, rawQuery: string): Answer {
  const parsed = parseSimilarQuery(rawQuery);
  if (!parsed.ok) return validationErrorA(parsed.message);
  const { hash, phash, maxDistance } = parsed.value;
  const items = similarItems(catalogue, nearestFirst(catalogue, catalogue.nearHash(hash, maxDistance), SIMILAR_LIMIT));
  const body = `{"data":[${items.join(',')}],"meta":{"total_items":${items.length},"max_distance":${maxDistance},"phash":"${phash}"},"error":null}`;
  return { status: 200, body, caching: 'deterministic' };
}

export function tagsA(catalogue: Catalogue): Answer {
  return { status: 200, body: tagsBody(catalogue), caching: 'deterministic' };
}

export function similarA(catalogue: Catalogue, rawId: string): Answer {
  return answerForIdA(catalogue, rawId, (rank) => similarBody(catalogue, rank));
}

/** Midnight (UTC, epoch ms) that starts a `YYYY-MM-DD` calendar date, or null for anything else. */
function startOfDate(text: string): number | null {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  // Date.parse rolls 2024-02-30 over to March: a date must read back as written.
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text ? null : ms;
}

/**
 * The pepe of `date` (default today in UTC): the same all day for everyone, a pure function of
 * the date and the records created on or before it (ranks ascend with created_at, so those
 * are a prefix of the ranks). Today's answer is cacheable until the next UTC midnight.
 */
export function dailyA(catalogue: Catalogue, rawQuery: string, now: number): Answer {
  const parsed = parseQueryString(rawQuery, ['date']);
  if (!parsed.ok) return validationErrorA(parsed.message);
  const today = new Date(now).toISOString().slice(0, 10);
  const date = parsed.value.date ?? today;
  const start = startOfDate(date);
  if (start === null) return validationErrorA(`date must be a calendar date written YYYY-MM-DD, such as ${today} (got ${quote(date)})`);
  if (date > today) return validationErrorA(`date must not be after today, ${today} in UTC (got ${quote(date)})`);
  const end = start + DAY_MS;
  let lo = 0;
  let hi = catalogue.count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (catalogue.createdAt(mid) < end) lo = mid + 1;
    else hi = mid;
  }
  if (lo === 0) return { status: 404, body: errorBodyA('NOT_FOUND', `No pepe was created on or before ${date}; try a later date`), caching: 'error' };
  const rank = hashString(`pepe of the day ${date}`)[0] % lo;
  const body = `{"data":${catalogue.jsonA(rank)},"meta":{"date":"${date}"},"error":null}`;
  // A past day's pepe changes only with the catalogue (a deploy); today's at midnight too.
  return date === today ? { status: 200, body, caching: 'deterministic', maxAge: Math.ceil((end - now) / 1000) } : { status: 200, body, caching: 'deterministic' };
}
