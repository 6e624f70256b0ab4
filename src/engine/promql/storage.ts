/**
 * The evaluator's view of selected data: each selector's series read once from the `Querier` into flat
 * arrays — or, when the querier holds them encoded, decoded when first read (`decoded-series.ts`) — with
 * stale markers flagged separately (V8 may canonicalise NaN payloads in plain arrays), then looked up per
 * step by binary search. Mirrors `vectorSelectorSingle` and `matrixIterSlice` of 2.42,
 * whose windows are closed on both sides: `[t - range, t]`.
 */
import type { FetchedSeries, Labels, Matcher, Querier } from '../tsdb/api.ts';
import { DeferredStoredSeries, staleFlags, type DecodedSeriesBound } from './decoded-series.ts';
import type { SampleAllocator } from '../tsdb/packed-series.ts';
import { VAL_NONE } from '../tsdb/api.ts';
import { compareLabels } from './labels.ts';

export interface StoredSeries {
  readonly labels: Labels;
  readonly t: Float64Array;
  readonly v: Float64Array;
  /** 1 where the sample is a stale marker; null when the series has none (the common case). */
  readonly stale: Uint8Array | null;
  /** Count of samples; t/v may be longer. */
  readonly n: number;
  /** The evaluation will not read this series again soon: decoded samples may be let go (see decoded-series.ts). */
  done?(): void;
}

/**
 * A series that can hand out its samples as arrays (the in-memory querier does), skipping the cursor; or,
 * when they are still encoded, a function that decodes them.
 */
interface ArraySeries { arrays(): { t: Float64Array; v: Float64Array }; deferred(): ((alloc: SampleAllocator) => FetchedSeries) | null }

/**
 * The series of one selector; series still encoded are decoded when first read, within `bound` (without one,
 * at once).
 */
export function readSeries(q: Querier, matchers: readonly Matcher[], bound: DecodedSeriesBound | null = null): StoredSeries[] {
  const set = q.select(true, null, matchers);
  const out: StoredSeries[] = [];
  let cur = null;
  while (set.next()) {
    const s = set.at();
    const deferred = bound !== null ? (s as Partial<ArraySeries>).deferred?.call(s) : null;
    if (deferred) { out.push(new DeferredStoredSeries(s.labels, deferred, bound!)); continue; }
    const direct = (s as Partial<ArraySeries>).arrays;
    if (direct) {
      const { t, v } = direct.call(s);
      out.push({ labels: s.labels, t, v, stale: staleFlags(v, t.length), n: t.length });
      continue;
    }
    cur = s.iterator(cur);
    let cap = 64, n = 0;
    let t = new Float64Array(cap), v = new Float64Array(cap);
    while (cur.next() !== VAL_NONE) {
      if (n === cap) {
        cap *= 2;
        const t2 = new Float64Array(cap); t2.set(t); t = t2;
        const v2 = new Float64Array(cap); v2.set(v); v = v2;
      }
      t[n] = cur.t; v[n] = cur.v; n++;
    }
    out.push({ labels: s.labels, t, v, stale: staleFlags(v, n), n });
  }
  out.sort((a, b) => compareLabels(a.labels, b.labels));
  return out;
}

/** Index of the last sample with `t <= ts`, or -1. */
export function lastAtOrBefore(s: StoredSeries, ts: number): number {
  const t = s.t;
  let lo = 0, hi = s.n - 1, ans = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (t[mid] <= ts) { ans = mid; lo = mid + 1; } else hi = mid - 1;
  }
  return ans;
}

/** Index of the first sample with `t >= ts` (n when none). */
export function firstAtOrAfter(s: StoredSeries, ts: number): number {
  const t = s.t;
  let lo = 0, hi = s.n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (t[mid] < ts) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/**
 * The instant-vector lookup: the newest sample in `[ref - lookback, ref]`, unless it is a stale marker.
 * Returns its index or -1.
 */
export function sampleAt(s: StoredSeries, ref: number, lookback: number): number {
  const i = lastAtOrBefore(s, ref);
  if (i < 0 || s.t[i] < ref - lookback || (s.stale !== null && s.stale[i] === 1)) return -1;
  return i;
}

/**
 * The samples of one series in one step's range: `t[s..s+n)`, `v[s..s+n)`. Without stale markers it points
 * into the series' own arrays (no copy); otherwise the non-stale samples are copied to scratch buffers.
 */
export class Window {
  t: ArrayLike<number> = [];
  v: ArrayLike<number> = [];
  s = 0;
  n = 0;
  private bt: number[] = [];
  private bv: number[] = [];

  private cur: StoredSeries | null = null;
  private lo = 0;
  private hi = 0;
  private lastMint = -Infinity;

  load(ser: StoredSeries, mint: number, maxt: number): void {
    // Read once: a deferred series' arrays are getters (decoded on first read).
    const t = ser.t, v = ser.v, sn = ser.n, stale = ser.stale;
    let lo: number, hi: number;
    if (ser === this.cur && mint >= this.lastMint) {
      // Steps move forward: slide the previous bounds instead of searching again.
      lo = this.lo; hi = this.hi;
      while (lo < sn && t[lo] < mint) lo++;
      if (hi < lo) hi = lo;
    } else {
      lo = firstAtOrAfter(ser, mint);
      hi = lo;
    }
    while (hi < sn && t[hi] <= maxt) hi++;
    while (hi > lo && t[hi - 1] > maxt) hi--;
    this.cur = ser; this.lo = lo; this.hi = hi; this.lastMint = mint;
    if (stale === null) { this.t = t; this.v = v; this.s = lo; this.n = hi - lo; return; }
    let n = 0;
    for (let i = lo; i < hi; i++) {
      if (stale[i] === 1) continue;
      this.bt[n] = t[i]; this.bv[n] = v[i]; n++;
    }
    this.t = this.bt; this.v = this.bv; this.s = 0; this.n = n;
  }

  loadArrays(t: readonly number[], v: readonly number[], mint: number, maxt: number): void {
    let lo = 0, hi = t.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (t[mid] < mint) lo = mid + 1; else hi = mid; }
    hi = lo;
    while (hi < t.length && t[hi] <= maxt) hi++;
    this.t = t; this.v = v; this.s = lo; this.n = hi - lo;
  }

  /** The values as a fresh array (for functions that sort). */
  values(): number[] {
    const out = new Array<number>(this.n);
    for (let i = 0; i < this.n; i++) out[i] = this.v[this.s + i];
    return out;
  }
}
