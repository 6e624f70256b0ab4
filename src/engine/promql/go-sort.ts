/**
 * Go 1.19's `sort.Sort` (pattern-defeating quicksort, `sort/zsortinterface.go`), ported so that elements
 * that compare equal come out in the same order as in Prometheus 2.42 (built with go1.19): `sort()`,
 * `sort_desc()`, `topk`/`bottomk` over many tied values. Inputs of up to 12 elements take its insertion sort.
 */
type Less<T> = (a: T, b: T) => boolean;

class Sorter<T> {
  constructor(private readonly d: T[], private readonly lessFn: Less<T>) {}
  less(i: number, j: number): boolean { return this.lessFn(this.d[i], this.d[j]); }
  swap(i: number, j: number): void { const t = this.d[i]; this.d[i] = this.d[j]; this.d[j] = t; }

  insertionSort(a: number, b: number): void {
    for (let i = a + 1; i < b; i++) for (let j = i; j > a && this.less(j, j - 1); j--) this.swap(j, j - 1);
  }

  siftDown(lo: number, hi: number, first: number): void {
    let root = lo;
    for (;;) {
      let child = 2 * root + 1;
      if (child >= hi) return;
      if (child + 1 < hi && this.less(first + child, first + child + 1)) child++;
      if (!this.less(first + root, first + child)) return;
      this.swap(first + root, first + child);
      root = child;
    }
  }

  heapSort(a: number, b: number): void {
    const first = a, hi = b - a;
    for (let i = Math.trunc((hi - 1) / 2); i >= 0; i--) this.siftDown(i, hi, first);
    for (let i = hi - 1; i >= 0; i--) { this.swap(first, first + i); this.siftDown(0, i, first); }
  }

  pdqsort(a: number, b: number, limit: number): void {
    let wasBalanced = true, wasPartitioned = true;
    for (;;) {
      const length = b - a;
      if (length <= 12) { this.insertionSort(a, b); return; }
      if (limit === 0) { this.heapSort(a, b); return; }
      if (!wasBalanced) { this.breakPatterns(a, b); limit--; }
      let [pivot, hint] = this.choosePivot(a, b);
      if (hint === DECREASING) {
        this.reverseRange(a, b);
        pivot = (b - 1) - (pivot - a);
        hint = INCREASING;
      }
      if (wasBalanced && wasPartitioned && hint === INCREASING && this.partialInsertionSort(a, b)) return;
      if (a > 0 && !this.less(a - 1, pivot)) { a = this.partitionEqual(a, b, pivot); continue; }
      const [mid, already] = this.partition(a, b, pivot);
      wasPartitioned = already;
      const leftLen = mid - a, rightLen = b - mid, threshold = Math.trunc(length / 8);
      if (leftLen < rightLen) { wasBalanced = leftLen >= threshold; this.pdqsort(a, mid, limit); a = mid + 1; }
      else { wasBalanced = rightLen >= threshold; this.pdqsort(mid + 1, b, limit); b = mid; }
    }
  }

  partition(a: number, b: number, pivot: number): [number, boolean] {
    this.swap(a, pivot);
    let i = a + 1, j = b - 1;
    while (i <= j && this.less(i, a)) i++;
    while (i <= j && !this.less(j, a)) j--;
    if (i > j) { this.swap(j, a); return [j, true]; }
    this.swap(i, j); i++; j--;
    for (;;) {
      while (i <= j && this.less(i, a)) i++;
      while (i <= j && !this.less(j, a)) j--;
      if (i > j) break;
      this.swap(i, j); i++; j--;
    }
    this.swap(j, a);
    return [j, false];
  }

  partitionEqual(a: number, b: number, pivot: number): number {
    this.swap(a, pivot);
    let i = a + 1, j = b - 1;
    for (;;) {
      while (i <= j && !this.less(a, i)) i++;
      while (i <= j && this.less(a, j)) j--;
      if (i > j) break;
      this.swap(i, j); i++; j--;
    }
    return i;
  }

  partialInsertionSort(a: number, b: number): boolean {
    let i = a + 1;
    for (let step = 0; step < 5; step++) {
      while (i < b && !this.less(i, i - 1)) i++;
      if (i === b) return true;
      if (b - a < 50) return false;
      this.swap(i, i - 1);
      // Go shifts down to index 1 (not to `a`) here; kept as is.
      if (i - a >= 2) for (let j = i - 1; j >= 1; j--) { if (!this.less(j, j - 1)) break; this.swap(j, j - 1); }
      if (b - i >= 2) for (let j = i + 1; j < b; j++) { if (!this.less(j, j - 1)) break; this.swap(j, j - 1); }
    }
    return false;
  }

  breakPatterns(a: number, b: number): void {
    const length = b - a;
    if (length < 8) return;
    // Rare path (after an unbalanced partition): 64-bit xorshift seeded with the length, as Go does.
    let r = BigInt(length);
    const mask64 = (1n << 64n) - 1n;
    const modulus = 2 ** (Math.floor(Math.log2(length)) + 1);
    const idx = a + Math.trunc(length / 4) * 2;
    for (let k = 0; k < 3; k++) {
      r ^= (r << 13n) & mask64; r ^= r >> 17n; r ^= (r << 5n) & mask64;
      let other = Number(r & BigInt(modulus - 1));
      if (other >= length) other -= length;
      this.swap(idx - 1 + k, a + other);
    }
  }

  choosePivot(a: number, b: number): [number, number] {
    const l = b - a;
    const swaps = { n: 0 };
    let i = a + Math.trunc(l / 4), j = a + Math.trunc(l / 4) * 2, k = a + Math.trunc(l / 4) * 3;
    if (l >= 8) {
      if (l >= 50) { i = this.median(i - 1, i, i + 1, swaps); j = this.median(j - 1, j, j + 1, swaps); k = this.median(k - 1, k, k + 1, swaps); }
      j = this.median(i, j, k, swaps);
    }
    return [j, swaps.n === 0 ? INCREASING : swaps.n === 12 ? DECREASING : UNKNOWN];
  }

  median(a: number, b: number, c: number, swaps: { n: number }): number {
    if (this.less(b, a)) { swaps.n++; [a, b] = [b, a]; }
    if (this.less(c, b)) { swaps.n++; [b, c] = [c, b]; }
    if (this.less(b, a)) { swaps.n++; [a, b] = [b, a]; }
    return b;
  }

  reverseRange(a: number, b: number): void {
    for (let i = a, j = b - 1; i < j; i++, j--) this.swap(i, j);
  }
}

const UNKNOWN = 0, INCREASING = 1, DECREASING = 2;

/** Sorts `data` in place exactly as Go's `sort.Sort` would with this `less`. */
export function goSort<T>(data: T[], less: Less<T>): void {
  const n = data.length;
  if (n <= 1) return;
  new Sorter(data, less).pdqsort(0, n, Math.floor(Math.log2(n)) + 1);
}
