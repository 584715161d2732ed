/** Whole-catalogue checks on analysed items (each problem names the file and what to do), and problem order. */
import { extname } from 'node:path';
import type { AnalysedItem } from './analyse-content.js';
import { error, type Problem, warning } from './problems.js';

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
  const byId = new Map<string, string[]>();
  const add = (id: string, sidecar: string) => byId.set(id, [...(byId.get(id) ?? []), sidecar]);
  for (const item of items) add(item.record.id, sidecarOf(item));
  for (const other of unpublished) add(other.id, other.sidecar);
  const clashing = new Set<string>();
  for (const [id, sidecars] of byId) {
    if (sidecars.length === 1) continue;
    clashing.add(id);
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

