/**
 * The union of lists that are each sorted and distinct, by merging: label names and values (JavaScript's
 * default string order, UTF-16 code units, as `Array.prototype.sort` leaves them) and label sets are merged
 * this way across sources, shards and workers, where a Set or a key string per item and a sort of every copy
 * cost more than reading them.
 */
export function sortedUnion(lists: readonly (readonly string[])[]): string[] {
  return sortedUnionBy(lists, compareStrings);
}

/** `sortedUnion` under `compare`; equal items (compare 0) become one, `combine`d in list order (default: the first). */
export function sortedUnionBy<T>(lists: readonly (readonly T[])[], compare: (a: T, b: T) => number, combine: (x: T, y: T) => T = keepFirst): T[] {
  let out: readonly T[] = [];
  for (const l of lists) {
    if (l.length === 0) continue;
    out = out.length === 0 ? l : mergeTwo(out, l, compare, combine);
  }
  // A single non-empty input is returned as it is (the callers' lists are their own, never changed later).
  return out as T[];
}

const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Two lists, each sorted under `compare` with distinct items, as one sorted list; an item in both becomes
 * `combine(a's, b's)` (by default a's copy). Series lists merge this way with their samples or chunks combined.
 */
export function mergeTwo<T>(a: readonly T[], b: readonly T[], compare: (a: T, b: T) => number, combine: (x: T, y: T) => T = keepFirst): T[] {
  const out: T[] = [];
  let i = 0, j = 0;
  while (i < a.length && j < b.length) {
    const c = compare(a[i], b[j]);
    if (c < 0) out.push(a[i++]); else if (c > 0) out.push(b[j++]); else out.push(combine(a[i++], b[j++]));
  }
  while (i < a.length) out.push(a[i++]);
  while (j < b.length) out.push(b[j++]);
  return out;
}

const keepFirst = <T>(x: T): T => x;
