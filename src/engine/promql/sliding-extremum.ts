/**
 * `max_over_time`/`min_over_time` over a range query's windows in O(samples) instead of O(samples × window
 * length / step): a monotonic deque of sample indices (Prometheus's loop rescans every window, which a 1h
 * window at a 60s step makes 60 times the data). Same answer as 2.42's `if v > max || IsNaN(max)` scan: the
 * largest (smallest) non-NaN value, the earliest of equal ones (so -0 vs 0 keeps the first), NaN when every
 * value is NaN.
 */
export class SlidingExtremum {
  private idx = new Int32Array(256);
  private head = 0;
  private tail = 0;
  /** Next sample index not yet offered to the deque; `lo` of the previous window. */
  private next = 0;
  private lo = 0;

  constructor(private readonly isMax: boolean) {}

  /** Starts a new series of at most `n` samples. */
  reset(n: number): void {
    if (this.idx.length < n) this.idx = new Int32Array(Math.max(n, this.idx.length * 2));
    this.head = 0; this.tail = 0; this.next = 0; this.lo = 0;
  }

  /** The extremum of `v[lo..hi)`; windows of one series must not move backwards between resets. */
  at(v: ArrayLike<number>, lo: number, hi: number): number {
    if (lo < this.lo || hi < this.next) { this.head = 0; this.tail = 0; this.next = lo; }
    this.lo = lo;
    if (this.next < lo) this.next = lo;
    const idx = this.idx, isMax = this.isMax;
    let tail = this.tail;
    for (let i = this.next; i < hi; i++) {
      const x = v[i];
      if (x !== x) continue; // NaN never becomes the answer while another value exists
      // Invariant: deque values are non-increasing (max) / non-decreasing (min); equal values stay, oldest first.
      while (tail > this.head && (isMax ? v[idx[tail - 1]] < x : v[idx[tail - 1]] > x)) tail--;
      idx[tail++] = i;
    }
    this.tail = tail;
    this.next = hi;
    while (this.head < tail && idx[this.head] < lo) this.head++;
    return this.head < tail ? v[idx[this.head]] : NaN;
  }
}
