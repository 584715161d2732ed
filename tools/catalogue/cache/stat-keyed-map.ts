/**
 * A path → value map whose entries are valid only while the file's size, mtime, ctime and
 * inode are unchanged (ctime because any write sets it and no tool can set it back, as it can
 * the mtime: `touch -r`, `cp -p`, an editor keeping the mtime; git's index keys on it too): the build cache keeps one for image hashes and one for parsed sidecars, so a
 * rebuild with nothing changed reads neither. It also records which paths this run used (so a
 * save can prune the rest) and which it set (what an appended delta must carry).
 */
export interface StatKey {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

interface StatEntry<T> extends StatKey {
  value: T;
}

/** How an entry is stored on disk: a flat tuple keeps the JSON small. */
export type StatRow<T> = [path: string, size: number, mtimeMs: number, ctimeMs: number, ino: number, value: T];

const sameStat = (a: StatKey, b: StatKey): boolean => a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;

export class StatKeyedMap<T> {
  private readonly entries = new Map<string, StatEntry<T>>();
  private readonly used = new Set<string>();
  private readonly changed = new Set<string>();

  /** The value stored for `path` if its stat is unchanged since it was stored. */
  get(path: string, stat: StatKey): T | undefined {
    const entry = this.entries.get(path);
    if (!entry || !sameStat(entry, stat)) return undefined;
    this.used.add(path);
    return entry.value;
  }

  set(path: string, stat: StatKey, value: T): void {
    this.entries.set(path, { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino, value });
    this.used.add(path);
    this.changed.add(path);
  }

  /** Restores a row read from disk (neither used nor changed by this run). */
  loadRow([path, size, mtimeMs, ctimeMs, ino, value]: StatRow<T>): void {
    this.entries.set(path, { size, mtimeMs, ctimeMs, ino, value });
  }

  delete(path: string): void {
    this.entries.delete(path);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Paths this run did not use, in insertion order. */
  unused(): string[] {
    return [...this.entries.keys()].filter((path) => !this.used.has(path));
  }

  /** Every entry, sorted by path (a full document). */
  rows(): StatRow<T>[] {
    return [...this.entries].sort(([a], [b]) => (a < b ? -1 : 1)).map(toRow);
  }

  /** Entries set since the last `clearChanged` and still present, sorted by path (a delta). */
  changedRows(): StatRow<T>[] {
    return [...this.changed].filter((path) => this.entries.has(path)).sort().map((path) => toRow([path, this.entries.get(path)!]));
  }

  clearChanged(): void {
    this.changed.clear();
  }
}

const toRow = <T>([path, e]: [string, StatEntry<T>]): StatRow<T> => [path, e.size, e.mtimeMs, e.ctimeMs, e.ino, e.value];
