/**
 * Selected series packed for thread hops. A shard worker answers a select with its series' label sets
 * interned into one symbol table and their samples in two flat arrays; the main thread forwards those
 * replies untouched to the evaluating worker, which unpacks and merges them (the typed arrays are
 * transferred, so the samples are never re-encoded or copied on the HTTP thread).
 */
import type { FetchedSeries, Label } from './api.ts';
import { compareLabels, labelsKey } from './labels.ts';
import { sortedUnionBy } from './sorted-union.ts';

/**
 * One worker's selected series: series i has the label pairs `refs[lOff[i]..lOff[i+1])` (name and value
 * symbol ids alternating) and the samples `[offsets[i], offsets[i+1])` of `t` and `v`. `sorted` says the
 * series are in label order with no label set repeated (they came from one TSDB).
 */
export interface PackedSelect {
  symbols: string[];
  refs: Uint32Array;
  lOff: Uint32Array;
  offsets: Uint32Array;
  t: Float64Array;
  v: Float64Array;
  sorted: boolean;
}

export function packSelect(got: readonly FetchedSeries[], sorted: boolean): PackedSelect {
  const ids = new Map<string, number>();
  const symbols: string[] = [];
  const sym = (s: string): number => {
    let id = ids.get(s);
    if (id === undefined) { id = symbols.length; symbols.push(s); ids.set(s, id); }
    return id;
  };
  let pairs = 0, n = 0;
  for (let i = 0; i < got.length; i++) { pairs += got[i].labels.length; n += got[i].t.length; }
  const refs = new Uint32Array(pairs * 2), lOff = new Uint32Array(got.length + 1), offsets = new Uint32Array(got.length + 1);
  const flat = contiguous(got, n);
  const t = flat ? flat[0] : new Float64Array(n), v = flat ? flat[1] : new Float64Array(n);
  let r = 0;
  for (let i = 0; i < got.length; i++) {
    const s = got[i];
    for (let j = 0; j < s.labels.length; j++) { refs[r++] = sym(s.labels[j].name); refs[r++] = sym(s.labels[j].value); }
    lOff[i + 1] = r;
    if (!flat) { t.set(s.t, offsets[i]); v.set(s.v, offsets[i]); }
    offsets[i + 1] = offsets[i] + s.t.length;
  }
  return { symbols, refs, lOff, offsets, t, v, sorted };
}

/**
 * When the series' samples are consecutive views of one pair of arrays (as `fetchSeries` returns them), the
 * views spanning all of them, so nothing is copied; otherwise null.
 */
function contiguous(got: readonly FetchedSeries[], n: number): [Float64Array, Float64Array] | null {
  if (got.length === 0) return null;
  const t0 = got[0].t, v0 = got[0].v;
  if (!(t0 instanceof Float64Array) || !(v0 instanceof Float64Array)) return null;
  let tEnd = t0.byteOffset, vEnd = v0.byteOffset;
  for (let i = 0; i < got.length; i++) {
    const s = got[i];
    if (s.t.buffer !== t0.buffer || s.v.buffer !== v0.buffer || s.t.byteOffset !== tEnd || s.v.byteOffset !== vEnd) return null;
    tEnd += s.t.byteLength; vEnd += s.v.byteLength;
  }
  return [new Float64Array(t0.buffer, t0.byteOffset, n), new Float64Array(v0.buffer, v0.byteOffset, n)];
}

/** The series of one reply; samples are views into its flat arrays. */
export function unpackSelect(p: PackedSelect): FetchedSeries[] {
  const t = asF64(p.t), v = asF64(p.v);
  const out: FetchedSeries[] = new Array(p.offsets.length - 1);
  for (let i = 0; i < out.length; i++) {
    const labels: Label[] = new Array((p.lOff[i + 1] - p.lOff[i]) >> 1);
    for (let j = p.lOff[i], k = 0; j < p.lOff[i + 1]; j += 2, k++) labels[k] = { name: p.symbols[p.refs[j]], value: p.symbols[p.refs[j + 1]] };
    out[i] = { labels, t: t.subarray(p.offsets[i], p.offsets[i + 1]), v: v.subarray(p.offsets[i], p.offsets[i + 1]) };
  }
  return out;
}

/** A decoder may hand typed arrays back as byte views; samples are read as Float64Array (NaN bits kept). */
function asF64(x: Float64Array | Uint8Array): Float64Array {
  if (x instanceof Float64Array) return x;
  return new Float64Array(x.buffer.slice(x.byteOffset, x.byteOffset + x.byteLength));
}

/**
 * Every worker's reply for one selector, as one sorted list with one series per label set (a series can
 * have data on two workers, e.g. an imported block on worker 0 and live samples on its owner).
 */
export function mergeSelected(replies: readonly PackedSelect[]): FetchedSeries[] {
  let only: PackedSelect | null = null, nonEmpty = 0;
  for (const r of replies) if (r.offsets.length > 1) { only = r; nonEmpty++; }
  if (nonEmpty === 0) return [];
  if (nonEmpty === 1 && only!.sorted) return unpackSelect(only!);
  if (replies.every((r) => r.sorted || r.offsets.length <= 1)) return mergeSortedReplies(replies);
  const byKey = new Map<string, FetchedSeries[]>();
  for (const r of replies) {
    for (const s of unpackSelect(r)) {
      const key = labelsKey(s.labels);
      const list = byKey.get(key);
      if (list) list.push(s); else byKey.set(key, [s]);
    }
  }
  const out: FetchedSeries[] = [];
  for (const list of byKey.values()) out.push(list.length === 1 ? list[0] : mergeSamples(list));
  return out.sort((a, b) => compareLabels(a.labels, b.labels));
}


/**
 * Replies that are each sorted with distinct label sets (one TSDB per worker, the usual case) merged in one
 * pass: a key string per series, a map and a sort cost more than the rest of the merge. A label set on
 * several workers gets its samples merged in reply order, as the keyed path does.
 */
function mergeSortedReplies(replies: readonly PackedSelect[]): FetchedSeries[] {
  const lists = replies.filter((r) => r.offsets.length > 1).map(unpackSelect);
  return sortedUnionBy(lists, (x, y) => compareLabels(x.labels, y.labels), (x, y) => mergeSamples([x, y]));
}

/**
 * Merges one series' samples from several sources (each ascending in time): ascending time, the earlier source
 * wins on a tie. A k-way merge over cursors, with no per-sample allocation (sources are few: workers or ranges).
 */
export function mergeSamples(list: FetchedSeries[]): FetchedSeries {
  let n = 0;
  for (let i = 0; i < list.length; i++) n += list[i].t.length;
  const t = new Float64Array(n), v = new Float64Array(n);
  const pos = new Int32Array(list.length);
  let k = 0;
  for (;;) {
    let best = -1, bestT = Infinity;
    for (let i = 0; i < list.length; i++) {
      const p = pos[i];
      if (p < list[i].t.length && list[i].t[p] < bestT) { best = i; bestT = list[i].t[p]; }
    }
    if (best < 0) break;
    // Invariant: output is strictly ascending; a timestamp already written came from an earlier source.
    if (k === 0 || t[k - 1] !== bestT) { t[k] = bestT; v[k] = list[best].v[pos[best]]; k++; }
    pos[best]++;
  }
  return { labels: list[0].labels, t: t.subarray(0, k), v: v.subarray(0, k) };
}

/** One series per label set; samples of the same series fetched for different ranges are united. */
export function mergeSeries(lists: FetchedSeries[][]): FetchedSeries[] {
  if (lists.length === 1) return lists[0];
  const byKey = new Map<string, FetchedSeries>();
  for (const list of lists) {
    for (const s of list) {
      const k = labelsKey(s.labels);
      const old = byKey.get(k);
      byKey.set(k, old ? unite(old, s) : s);
    }
  }
  return [...byKey.values()];
}

function unite(a: FetchedSeries, b: FetchedSeries): FetchedSeries {
  const t = new Float64Array(a.t.length + b.t.length), v = new Float64Array(t.length);
  let i = 0, j = 0, n = 0;
  while (i < a.t.length || j < b.t.length) {
    if (j >= b.t.length || (i < a.t.length && a.t[i] < b.t[j])) { t[n] = a.t[i]; v[n++] = a.v[i++]; }
    else if (i >= a.t.length || b.t[j] < a.t[i]) { t[n] = b.t[j]; v[n++] = b.v[j++]; }
    else { t[n] = a.t[i]; v[n++] = a.v[i++]; j++; }
  }
  return { labels: a.labels, t: t.subarray(0, n), v: v.subarray(0, n) };
}
