/**
 * Selected series packed for thread hops. A shard worker answers a select with its series' label sets
 * interned into one symbol table and their samples as the XOR chunks they are stored in (about 1.3 bytes a
 * sample where decoded samples took 16); the main thread forwards those replies untouched to the evaluating
 * worker (the typed arrays are transferred), which decodes one series at a time as the evaluation reaches it
 * (`SelectedSeries`), as Prometheus's evaluator walks chunk iterators. A 30-day range query over 1,600 series
 * had put 0.7 GB of decoded samples in flight between the threads (docs/benchmarks.md, issue 11).
 */
import type { FetchedSeries, Label, Labels } from './api.ts';
import { compareLabels, labelsKey } from './labels.ts';
import { SelectPacker } from './select-packer.ts';
import { sortedUnionBy } from './sorted-union.ts';
import { decodeXorInRange } from './xor-chunk.ts';

/**
 * One worker's selected series: series i has the label pairs `refs[lOff[i]..lOff[i+1])` (name and value
 * symbol ids alternating) and the chunks `[cOff[i], cOff[i+1])`; chunk j is the XOR chunk
 * `data[bStart[j], bEnd[j])` (stored in the order the worker read them: block by block, not series by
 * series). A series' chunks are in time order, do not overlap and carry no deleted samples (the worker re-encodes a series that needed merging); samples outside `[mint, maxt]` are dropped
 * when decoded. `sorted` says the series are in label order with no label set repeated (one TSDB).
 */
export interface PackedSelect {
  symbols: string[];
  refs: Uint32Array;
  lOff: Uint32Array;
  cOff: Uint32Array;
  bStart: Uint32Array;
  bEnd: Uint32Array;
  data: Uint8Array;
  mint: number;
  maxt: number;
  sorted: boolean;
}

/** Decoded series packed (their samples encoded as chunks): a storage without chunks, and tests. */
export function packSelect(got: readonly FetchedSeries[], sorted: boolean, mint = -Infinity, maxt = Infinity): PackedSelect {
  const p = new SelectPacker();
  for (const s of got) {
    p.series(s.labels);
    p.samples(s.t, s.v, s.t.length);
    p.endSeries();
  }
  return p.done(mint, maxt, sorted);
}

/** One reply's series `i`: where its chunks are. */
interface Part { p: PackedSelect; i: number }

/**
 * Where `n` decoded samples go: `t` and `v` from index `at` on. An evaluation hands out slices of larger
 * arrays (`DecodedSeriesBound`): two arrays (and a word alias for the decoder) per series cost more than
 * decoding a short series.
 */
export type SampleAllocator = (n: number) => { t: Float64Array; v: Float64Array; at: number };
const fresh: SampleAllocator = (n) => ({ t: new Float64Array(n), v: new Float64Array(n), at: 0 });

/**
 * One series of a query's selection: its label set, and its samples decoded from the replies' chunks when
 * asked for (each call decodes afresh; the evaluator bounds how many decoded series it keeps). Parts from
 * several workers or selector ranges are merged in part order, the earlier part winning a timestamp tie.
 */
export class SelectedSeries {
  constructor(readonly labels: Labels, readonly parts: Part[]) {}

  /** The samples in `[mint, maxt]` of every part, ascending, one per timestamp (in `alloc`'s room for one part). */
  samples(alloc: SampleAllocator = fresh): FetchedSeries {
    if (this.parts.length === 1) return decodePart(this.labels, this.parts[0], alloc);
    return mergeSamples(this.parts.map((x) => decodePart(this.labels, x, fresh)));
  }
}

function decodePart(labels: Labels, { p, i }: Part, alloc: SampleAllocator): FetchedSeries {
  const data = p.data, bStart = p.bStart;
  let cap = 0;
  for (let j = p.cOff[i]; j < p.cOff[i + 1]; j++) cap += (data[bStart[j]] << 8) | data[bStart[j] + 1]; // xorCount
  const { t, v, at } = alloc(cap);
  const mint = p.mint, maxt = p.maxt;
  let n = at;
  for (let j = p.cOff[i]; j < p.cOff[i + 1]; j++) {
    n = decodeXorInRange(data.subarray(bStart[j], p.bEnd[j]), t, v, n, mint, maxt);
  }
  return { labels, t: t.subarray(at, n), v: v.subarray(at, n) };
}

function labelsOf(p: PackedSelect, i: number): Labels {
  const labels: Label[] = new Array((p.lOff[i + 1] - p.lOff[i]) >> 1);
  for (let j = p.lOff[i], k = 0; j < p.lOff[i + 1]; j += 2, k++) labels[k] = { name: p.symbols[p.refs[j]], value: p.symbols[p.refs[j + 1]] };
  return labels;
}

/** The series of one reply, not yet decoded. */
function seriesOf(p: PackedSelect): SelectedSeries[] {
  const out: SelectedSeries[] = new Array(p.lOff.length - 1);
  for (let i = 0; i < out.length; i++) out[i] = new SelectedSeries(labelsOf(p, i), [{ p, i }]);
  return out;
}

/** The series of one reply, decoded (tests, and readers that want every sample at once). */
export function unpackSelect(p: PackedSelect): FetchedSeries[] {
  return seriesOf(p).map((s) => s.samples()).filter((s) => s.t.length > 0);
}

const joinParts = (x: SelectedSeries, y: SelectedSeries): SelectedSeries => new SelectedSeries(x.labels, [...x.parts, ...y.parts]);

/**
 * Every worker's reply for one selector, as one sorted list with one series per label set (a series can
 * have data on two workers, e.g. an imported block on worker 0 and live samples on its owner).
 */
export function mergeSelected(replies: readonly PackedSelect[]): SelectedSeries[] {
  const lists: SelectedSeries[][] = [];
  let allSorted = true;
  for (const r of replies) {
    if (r.lOff.length <= 1) continue;
    lists.push(seriesOf(r));
    allSorted &&= r.sorted;
  }
  if (lists.length === 0) return [];
  // Replies that are each sorted with distinct label sets (one TSDB per worker, the usual case) merge in one
  // pass: a key string per series, a map and a sort cost more than the rest of the merge.
  if (allSorted) return lists.length === 1 ? lists[0] : sortedUnionBy(lists, (x, y) => compareLabels(x.labels, y.labels), joinParts);
  return groupByLabelSet(lists, joinParts).sort((a, b) => compareLabels(a.labels, b.labels));
}

/**
 * One series per label set over several selections, each with distinct label sets (a selector fetched for
 * several ranges), parts in list order.
 */
export function mergeSelections(lists: readonly SelectedSeries[][]): SelectedSeries[] {
  return lists.length === 1 ? lists[0] : groupByLabelSet(lists, joinParts);
}

/** One entry per label set over `lists`, in first-seen order; entries with equal label sets combined in list order. */
function groupByLabelSet<T extends { labels: Labels }>(lists: readonly (readonly T[])[], combine: (a: T, b: T) => T): T[] {
  const byKey = new Map<string, T>();
  for (const list of lists) {
    for (const s of list) {
      const k = labelsKey(s.labels);
      const old = byKey.get(k);
      byKey.set(k, old ? combine(old, s) : s);
    }
  }
  return [...byKey.values()];
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

/** One series per label set; samples of the same series fetched for different ranges are united (the earlier list wins a tie). */
export function mergeSeries(lists: FetchedSeries[][]): FetchedSeries[] {
  return lists.length === 1 ? lists[0] : groupByLabelSet(lists, (a, b) => mergeSamples([a, b]));
}
