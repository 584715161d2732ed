/** Whole-catalogue checks on analysed items (each problem names the file and what to do), and problem order. */
import { extname } from 'node:path';
import type { AnalysedItem } from './analyse-content.js';
import { error, type Problem, warning } from './problems.js';

/** Two sidecars with one id would publish two images under one URL: both are reported and both left out. */
export function rejectDuplicateIds(items: AnalysedItem[], problems: Problem[]): AnalysedItem[] {
  const byId = new Map<string, AnalysedItem[]>();
  for (const item of items) byId.set(item.record.id, [...(byId.get(item.record.id) ?? []), item]);
  const valid: AnalysedItem[] = [];
  for (const [id, group] of byId) {
    if (group.length === 1) valid.push(group[0]!);
    else {
      const sidecars = group.map((g) => `${g.file.slice(0, g.file.length - extname(g.file).length)}.json`);
      problems.push(error('duplicate-id', `id ${id} is used by ${sidecars.join(' and ')}: give all but one of them a new id (e.g. from crypto.randomUUID())`, sidecars[0]));
    }
  }
  return valid.sort((a, b) => (a.file < b.file ? -1 : 1));
}

/** A `distinct_from` naming no record is probably a typo or a deleted image: worth a warning, not a failure. */
export function unknownDistinctFrom(items: AnalysedItem[]): Problem[] {
  const ids = new Set(items.map((item) => item.record.id));
  return items.flatMap((item) =>
    item.distinctFrom
      .filter((id) => !ids.has(id))
      .map((id) => warning('unknown-distinct-from', `distinct_from lists ${id}, which is no record in the catalogue: remove it or fix the id`, item.file.replace(/\.[^./]+$/, '.json'))),
  );
}

export function sortProblems(problems: Problem[]): Problem[] {
  const key = (p: Problem) => `${p.file ?? ''}\u0000${p.code}\u0000${p.message}`;
  return problems.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

