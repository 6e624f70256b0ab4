/**
 * An in-memory `Querier` over `FetchedSeries` (the samples a query needs, fetched from the shards) or over
 * samples appended by tests. Series are kept sorted by label set; selection filters by matchers only (the
 * data was already cut to the query's time ranges when it was fetched).
 */
import type { FetchedSeries, Labels, Matcher, Querier, SampleCursor, SelectHints, Series, SeriesSet } from './api.ts';
import { VAL_FLOAT, VAL_NONE } from './api.ts';
import { labelsKey } from './labels.ts';
import { ListSeriesSet } from './list-series-set.ts';
import type { SampleAllocator } from './packed-series.ts';

class ArraySampleCursor implements SampleCursor {
  private i = -1;
  constructor(private s: FetchedSeries) {}
  reset(s: FetchedSeries): this { this.s = s; this.i = -1; return this; }
  get t(): number { return this.s.t[this.i]; }
  get v(): number { return this.s.v[this.i]; }
  next(): number { return ++this.i < this.s.t.length ? VAL_FLOAT : VAL_NONE; }
  seek(tMs: number): number {
    if (this.i < 0) this.i = 0;
    while (this.i < this.s.t.length && this.s.t[this.i] < tMs) this.i++;
    return this.i < this.s.t.length ? VAL_FLOAT : VAL_NONE;
  }
}

/**
 * A series whose samples stay encoded until asked for (`SelectedSeries`: the chunks a query selected); each
 * call decodes them afresh.
 */
export interface DeferredSeries { readonly labels: Labels; samples(alloc?: SampleAllocator): FetchedSeries }

type HeldSeries = FetchedSeries | DeferredSeries;

const isDeferred = (s: HeldSeries): s is DeferredSeries => typeof (s as DeferredSeries).samples === 'function';
const decoded = (s: HeldSeries): FetchedSeries => (isDeferred(s) ? s.samples() : s);

class ArraySeries implements Series {
  constructor(private readonly data: HeldSeries) {}
  get labels(): Labels { return this.data.labels; }
  /** The samples as arrays, so readers that can take them skip the cursor. */
  arrays(): { t: Float64Array; v: Float64Array } { const d = decoded(this.data); return { t: d.t as Float64Array, v: d.v as Float64Array }; }
  /** For still encoded samples, their decoder, so a reader can decode them when it needs them. */
  deferred(): ((alloc: SampleAllocator) => FetchedSeries) | null { const d = this.data; return isDeferred(d) ? (alloc) => d.samples(alloc) : null; }
  iterator(reuse: SampleCursor | null): SampleCursor {
    const d = decoded(this.data);
    return reuse instanceof ArraySampleCursor ? reuse.reset(d) : new ArraySampleCursor(d);
  }
}


function matchesAll(ls: Labels, matchers: readonly Matcher[]): boolean {
  for (const m of matchers) {
    let v = '';
    for (const l of ls) if (l.name === m.name) { v = l.value; break; }
    if (!m.matches(v)) return false;
  }
  return true;
}

function compareLabels(a: Labels, b: Labels): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i].name !== b[i].name) return a[i].name < b[i].name ? -1 : 1;
    if (a[i].value !== b[i].value) return a[i].value < b[i].value ? -1 : 1;
  }
  return a.length - b.length;
}

export class MemQuerier implements Querier {
  private readonly byKey = new Map<string, HeldSeries>();
  private sorted: HeldSeries[] | null = null;
  /** Appended samples not yet merged into `byKey` (tests load series incrementally). */
  private pending = new Map<string, { labels: Labels; t: Float64Array; v: Float64Array; n: number }>();

  constructor(series: readonly HeldSeries[] = []) {
    for (const s of series) this.byKey.set(labelsKey(s.labels), s);
  }

  /** Adds one sample (labels sorted by name). Samples of one series must come in increasing time order per load. */
  append(labels: Labels, t: number, v: number): void {
    const k = labelsKey(labels);
    let p = this.pending.get(k);
    if (!p) { p = { labels, t: new Float64Array(16), v: new Float64Array(16), n: 0 }; this.pending.set(k, p); }
    if (p.n === p.t.length) {
      const t2 = new Float64Array(p.n * 2); t2.set(p.t); p.t = t2;
      const v2 = new Float64Array(p.n * 2); v2.set(p.v); p.v = v2;
    }
    p.t[p.n] = t; p.v[p.n] = v; p.n++;
    this.sorted = null;
  }

  private flush(): void {
    for (const [k, p] of this.pending) {
      const held = this.byKey.get(k);
      const old = held && decoded(held);
      const n0 = old ? old.t.length : 0, n1 = p.n;
      // Values stay in Float64Arrays throughout: plain JS double arrays may canonicalise the stale-NaN payload.
      const t = new Float64Array(n0 + n1), v = new Float64Array(n0 + n1);
      if (old) { t.set(old.t); v.set(old.v); }
      t.set(p.t.subarray(0, n1), n0); v.set(p.v.subarray(0, n1), n0);
      const idx = Array.from({ length: n0 + n1 }, (_, i) => i).sort((a, b) => t[a] - t[b] || a - b);
      const ts = new Float64Array(idx.length), vs = new Float64Array(idx.length);
      let n = 0;
      for (const i of idx) {
        if (n > 0 && ts[n - 1] === t[i]) { vs[n - 1] = v[i]; continue; } // a later write of the same timestamp wins
        ts[n] = t[i]; vs[n] = v[i]; n++;
      }
      this.byKey.set(k, { labels: p.labels, t: ts.subarray(0, n), v: vs.subarray(0, n) });
    }
    this.pending.clear();
  }

  private all(): HeldSeries[] {
    if (this.pending.size) this.flush();
    if (!this.sorted) this.sorted = [...this.byKey.values()].sort((a, b) => compareLabels(a.labels, b.labels));
    return this.sorted;
  }

  select(_sorted: boolean, hints: SelectHints | null, matchers: readonly Matcher[]): SeriesSet {
    const out: Series[] = [];
    for (const s of this.all()) {
      if (!matchesAll(s.labels, matchers)) continue;
      if (hints && !hasSampleIn(decoded(s), hints.startMs, hints.endMs)) continue;
      out.push(new ArraySeries(s));
    }
    return new ListSeriesSet(out);
  }

  labelNames(matchers: readonly Matcher[]): string[] {
    const names = new Set<string>();
    for (const s of this.all()) if (matchesAll(s.labels, matchers)) for (const l of s.labels) names.add(l.name);
    return [...names].sort();
  }

  labelValues(name: string, matchers: readonly Matcher[]): string[] {
    const vals = new Set<string>();
    for (const s of this.all()) {
      if (!matchesAll(s.labels, matchers)) continue;
      for (const l of s.labels) if (l.name === name) vals.add(l.value);
    }
    return [...vals].sort();
  }

  close(): void {}
}

function hasSampleIn(s: FetchedSeries, mint: number, maxt: number): boolean {
  for (let i = 0; i < s.t.length; i++) if (s.t[i] >= mint && s.t[i] <= maxt) return true;
  return false;
}
