/**
 * The one binary search: the first index in [0, count) where `below(index)` is false, for a
 * `below` that holds on a prefix only (a sorted sequence and "is this one below the value?");
 * `count` when it holds everywhere.
 */
export function lowerBound(count: number, below: (index: number) => boolean): number {
  let low = 0;
  let high = count;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (below(mid)) low = mid + 1;
    else high = mid;
  }
  return low;
}
