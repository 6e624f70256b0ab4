/**
 * The evaluator's view of selected data: each selector's series read once from the `Querier` into flat
 * arrays (stale markers flagged separately, since V8 may canonicalise NaN payloads in plain arrays), then
 * looked up per step by binary search. Mirrors `vectorSelectorSingle` and `matrixIterSlice` of 2.42,
 * whose windows are closed on both sides: `[t - range, t]`.
 */
import type { Labels, Matcher, Querier } from '../tsdb/api.ts';
import { VAL_NONE } from '../tsdb/api.ts';
import { isStaleNaN } from './value.ts';
import { compareLabels } from './labels.ts';

export interface StoredSeries {
  readonly labels: Labels;
  readonly t: Float64Array;
  readonly v: Float64Array;
  readonly stale: Uint8Array;
  /** Count of samples; t/v may be longer. */
  readonly n: number;
}

export function readSeries(q: Querier, matchers: readonly Matcher[]): StoredSeries[] {
  const set = q.select(true, null, matchers);
  const out: StoredSeries[] = [];
  let cur = null;
  while (set.next()) {
    const s = set.at();
    cur = s.iterator(cur);
    let cap = 64, n = 0;
    let t = new Float64Array(cap), v = new Float64Array(cap), st = new Uint8Array(cap);
    while (cur.next() !== VAL_NONE) {
      if (n === cap) {
        cap *= 2;
        const t2 = new Float64Array(cap); t2.set(t); t = t2;
        const v2 = new Float64Array(cap); v2.set(v); v = v2;
        const s2 = new Uint8Array(cap); s2.set(st); st = s2;
      }
      const val = cur.v;
      t[n] = cur.t; v[n] = val; st[n] = isStaleNaN(val) ? 1 : 0;
      n++;
    }
    out.push({ labels: s.labels, t, v, stale: st, n });
  }
  out.sort((a, b) => compareLabels(a.labels, b.labels));
  return out;
}

/** Index of the last sample with `t <= ts`, or -1. */
export function lastAtOrBefore(s: StoredSeries, ts: number): number {
  let lo = 0, hi = s.n - 1, ans = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (s.t[mid] <= ts) { ans = mid; lo = mid + 1; } else hi = mid - 1;
  }
  return ans;
}

/** Index of the first sample with `t >= ts` (n when none). */
export function firstAtOrAfter(s: StoredSeries, ts: number): number {
  let lo = 0, hi = s.n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s.t[mid] < ts) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/**
 * The instant-vector lookup: the newest sample in `[ref - lookback, ref]`, unless it is a stale marker.
 * Returns its index or -1.
 */
export function sampleAt(s: StoredSeries, ref: number, lookback: number): number {
  const i = lastAtOrBefore(s, ref);
  if (i < 0 || s.t[i] < ref - lookback || s.stale[i] === 1) return -1;
  return i;
}

/** Reusable window buffers for range functions. */
export class Window {
  t: number[] = [];
  v: number[] = [];
  n = 0;
  /** Loads the non-stale samples of `s` in `[mint, maxt]`. */
  load(s: StoredSeries, mint: number, maxt: number): void {
    this.n = 0;
    for (let i = firstAtOrAfter(s, mint); i < s.n && s.t[i] <= maxt; i++) {
      if (s.stale[i] === 1) continue;
      this.t[this.n] = s.t[i]; this.v[this.n] = s.v[i]; this.n++;
    }
  }
  loadArrays(t: readonly number[], v: readonly number[], mint: number, maxt: number): void {
    this.n = 0;
    let lo = 0, hi = t.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (t[mid] < mint) lo = mid + 1; else hi = mid; }
    for (let i = lo; i < t.length && t[i] <= maxt; i++) { this.t[this.n] = t[i]; this.v[this.n] = v[i]; this.n++; }
  }
}
