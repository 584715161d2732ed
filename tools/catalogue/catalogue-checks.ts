/** Whole-catalogue checks on analysed items (each problem names the file and what to do), and problem order. */
import { extname } from 'node:path';
import type { AnalysedItem } from './analyse-content.js';
import { error, type Problem, warning } from '../shared/problems.js';

/** A valid sidecar whose image is not in the catalogue (refused, or none): its id is still taken. */
export interface UnpublishedSidecar {
  id: string;
  /** Content-relative path of the sidecar. */
  sidecar: string;
}

const sidecarOf = (item: AnalysedItem) => `${item.file.slice(0, item.file.length - extname(item.file).length)}.json`;

/**
 * Two sidecars with one id would publish two images under one URL: both are reported and both
 * left out. Sidecars whose image was refused (truncated, unsupported…) or that have none count
 * too, so the clash is reported in the same run as the image's problem, not after it is fixed.
 */
export function rejectDuplicateIds(items: AnalysedItem[], problems: Problem[], unpublished: readonly UnpublishedSidecar[] = []): AnalysedItem[] {
  // Ids counted first, sidecar names made for clashing ids only: a rebuild checks 10k ids.
  const counts = new Map<string, number>();
  const count = (id: string) => counts.set(id, (counts.get(id) ?? 0) + 1);
  for (const item of items) count(item.record.id);
  for (const other of unpublished) count(other.id);
  const clashing = new Map<string, string[]>();
  for (const [id, n] of counts) if (n > 1) clashing.set(id, []);
  if (clashing.size === 0) return items.slice().sort((a, b) => (a.file < b.file ? -1 : 1));
  for (const item of items) clashing.get(item.record.id)?.push(sidecarOf(item));
  for (const other of unpublished) clashing.get(other.id)?.push(other.sidecar);
  for (const [id, sidecars] of clashing) {
    sidecars.sort();
    problems.push(error('duplicate-id', `id ${id} is used by ${sidecars.join(' and ')}: give all but one of them a new id (e.g. from crypto.randomUUID())`, sidecars[0]));
  }
  return items.filter((item) => !clashing.has(item.record.id)).sort((a, b) => (a.file < b.file ? -1 : 1));
}

/**
 * A `distinct_from` naming no record is probably a typo or a deleted image: worth a warning, not
 * a failure. An id whose image was refused is a record (its own error says what to fix).
 */
export function unknownDistinctFrom(items: AnalysedItem[], otherIds: Iterable<string> = []): Problem[] {
  // Most catalogues list few or no distinct_from: no 10k-id set for them.
  if (!items.some((item) => item.distinctFrom.length > 0)) return [];
  const ids = new Set([...items.map((item) => item.record.id), ...otherIds]);
  return items.flatMap((item) =>
    item.distinctFrom
      .filter((id) => !ids.has(id))
      .map((id) => warning('unknown-distinct-from', `distinct_from lists ${id}, which is no record in the catalogue: remove it or fix the id`, sidecarOf(item))),
  );
}

export function sortProblems(problems: Problem[]): Problem[] {
  const key = (p: Problem) => `${p.file ?? ''}\u0000${p.code}\u0000${p.message}`;
  return problems.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

