/**
 * Selected series packed for thread hops. A shard worker answers a select with its series' label sets
 * interned into one symbol table and their samples as the XOR chunks they are stored in (about 1.3 bytes a
 * sample where decoded samples took 16); the main thread forwards those replies untouched to the evaluating
 * worker (the typed arrays are transferred), which decodes one series at a time as the evaluation reaches it
 * (`SelectedSeries`), as Prometheus's evaluator walks chunk iterators. A 30-day range query over 1,600 series
 * had put 0.7 GB of decoded samples in flight between the threads (docs/benchmarks.md, issue 11).
 */
import type { FetchedSeries, Label, Labels } from './api.ts';
import { VAL_FLOAT } from './api.ts';
import { compareLabels, labelsKey } from './labels.ts';
import { SELECT_PHASE, type MergedSeries } from './querier.ts';
import { ReadStop } from '../read-stop.ts';
import { sortedUnionBy } from './sorted-union.ts';
import { decodeXor, XOR_MAX_SAMPLES, XorAppender, xorCount } from './xor-chunk.ts';

/**
 * One worker's selected series: series i has the label pairs `refs[lOff[i]..lOff[i+1])` (name and value
 * symbol ids alternating) and the chunks `[cOff[i], cOff[i+1])`; chunk j is the XOR chunk
 * `data[bOff[j], bOff[j+1])`. A series' chunks are in time order, do not overlap and carry no deleted
 * samples (the worker re-encodes a series that needed merging); samples outside `[mint, maxt]` are dropped
 * when decoded. `sorted` says the series are in label order with no label set repeated (one TSDB).
 */
export interface PackedSelect {
  symbols: string[];
  refs: Uint32Array;
  lOff: Uint32Array;
  cOff: Uint32Array;
  bOff: Uint32Array;
  data: Uint8Array;
  mint: number;
  maxt: number;
  sorted: boolean;
}

/** Address space a packer reserves for its chunk bytes (a reply past it fails the select). */
const MAX_PACKED_BYTES = 2 ** 31;

/**
 * Where a select's chunk bytes are packed while they fit (`SelectPacker.data`), reused by every select of the
 * thread: its pages stay committed. Not re-entrant (a packer runs from start to `done` synchronously).
 */
const smallPackBytes = new Uint8Array(64 * 1024);

/** Samples per chunk when a series is (re-)encoded: the count field allows 65,535; this keeps the bit writer small. */
const PACK_CHUNK_SAMPLES = 1024;

/** Builds a PackedSelect: labels interned, chunk bytes appended to one growing buffer. */
class SelectPacker {
  private readonly ids = new Map<string, number>();
  private readonly symbols: string[] = [];
  private refs: number[] = [];
  private lOff: number[] = [0];
  private cOff: number[] = [0];
  private bOff: number[] = [0];
  /**
   * The chunk bytes: first in this thread's `smallPackBytes`, copied out at their length when the select is
   * done; once they outgrow it, in a resizable buffer that grows in place and is handed over at its final
   * length — a buffer doubled by copying, then cut to length by one more copy, touched three to four times the
   * bytes it sent, and on this machine a first-touched page costs ~15 µs (packing a 30-day select of 35 MB
   * took ~33,000 page faults, docs/benchmarks.md, issue 11). Only address space is reserved up front, but
   * reserving 2 GB, committing pages and giving them back at the end cost an instant query's select (a few
   * tens of KB) a tenth of its time in mmap, madvise and page faults.
   */
  private buf: ArrayBuffer | null = null;
  private data = smallPackBytes;
  private len = 0;
  private readonly enc = new XorAppender(256);

  series(labels: Labels): void {
    for (let j = 0; j < labels.length; j++) { this.refs.push(this.sym(labels[j].name)); this.refs.push(this.sym(labels[j].value)); }
    this.lOff.push(this.refs.length);
  }

  /** Appends one chunk of the current series (bytes copied: block chunks are views of reused read windows). */
  chunk(b: Uint8Array): void {
    const need = this.len + b.length;
    if (need > this.data.length) this.grow(need);
    this.data.set(b, this.len);
    this.len += b.length;
    this.bOff.push(this.len);
  }

  /** Encodes `n` decoded samples as chunks of the current series. */
  samples(t: ArrayLike<number>, v: ArrayLike<number>, n: number): void {
    const a = this.enc;
    for (let i = 0; i < n; i += PACK_CHUNK_SAMPLES) {
      // The appender writes into its own buffer (grown as needed), zeroed again after each chunk is copied out.
      a.resume(a.buf, 0, a.buf.length, 16, 0, 0, 0, 0, 0, 0xff, 0);
      for (let k = i; k < Math.min(n, i + PACK_CHUNK_SAMPLES); k++) a.append(t[k], v[k]);
      const b = a.bytes();
      this.chunk(b);
      a.buf.fill(0, 0, b.length + 1);
    }
  }

  endSeries(): void { this.cOff.push(this.bOff.length - 1); }

  done(mint: number, maxt: number, sorted: boolean): PackedSelect {
    return {
      symbols: this.symbols, refs: Uint32Array.from(this.refs), lOff: Uint32Array.from(this.lOff), cOff: Uint32Array.from(this.cOff),
      bOff: Uint32Array.from(this.bOff), data: this.finalData(), mint, maxt, sorted,
    };
  }

  /** Room for `need` chunk bytes: the reserved buffer from the first time they outgrow `smallPackBytes`. */
  private grow(need: number): void {
    if (need > MAX_PACKED_BYTES) throw new RangeError(`a select's chunks exceed ${MAX_PACKED_BYTES} bytes`);
    const size = Math.min(MAX_PACKED_BYTES, Math.max(need, 2 * this.data.length));
    if (this.buf === null) {
      this.buf = new ArrayBuffer(size, { maxByteLength: MAX_PACKED_BYTES });
      const data = new Uint8Array(this.buf);
      data.set(this.data.subarray(0, this.len));
      this.data = data;
    } else {
      this.buf.resize(size);
    }
  }

  /** The chunk bytes as one view spanning its whole buffer (transferred as it is, see `owning` in codec/msgpack). */
  private finalData(): Uint8Array {
    if (this.buf === null) return this.data.slice(0, this.len);
    this.buf.resize(this.len);
    return new Uint8Array(this.buf, 0, this.len);
  }

  private sym(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) { id = this.symbols.length; this.symbols.push(s); this.ids.set(s, id); }
    return id;
  }
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

/**
 * A shard's selected series (`MultiSourceQuerier.collect`) packed as they are stored: a chunk inside
 * `[mint, maxt]` of a series whose chunks neither overlap nor have deletions is copied as it is; one that
 * reaches past either end is decoded and its samples in range encoded again — an instant query's 5-minute
 * window takes a few samples of each series' 120-sample chunk, and the query thread (one, where the shard
 * workers are two) would otherwise decode whole chunks (the instant `rate` over 1,000 series took 34.7 against
 * 24.3 ms when it did, docs/benchmarks.md, issue 11). Any other series is read through the merging cursor
 * (deletions applied, `[mint, maxt]` kept) and encoded again.
 */
export function packCollected(sel: readonly MergedSeries[], mint: number, maxt: number, sorted: boolean, stop: ReadStop = ReadStop.NEVER): PackedSelect {
  const p = new SelectPacker();
  let t = new Float64Array(XOR_MAX_SAMPLES), v = new Float64Array(XOR_MAX_SAMPLES);
  let cur = null;
  // Reading the chunks is most of a long select: it stops as the series listing does (every 256 series, and
  // once even when nothing matched, so a stopped read never answers as if it had finished).
  stop.check(SELECT_PHASE);
  for (let i = 0; i < sel.length; i++) {
    if ((i & 255) === 255) stop.check(SELECT_PHASE);
    const s = sel[i];
    p.series(s.labels);
    if (s.plain()) {
      for (const r of s.chunks) {
        const c = r.c, b = c.bytes;
        if (c.mint >= mint && c.maxt <= maxt) { p.chunk(b); continue; }
        const cnt = xorCount(b);
        if (cnt > t.length) { t = new Float64Array(cnt); v = new Float64Array(cnt); }
        decodeXor(b, t, v);
        let k = 0;
        for (let x = 0; x < cnt; x++) {
          if (t[x] < mint || t[x] > maxt) continue;
          if (k !== x) { t[k] = t[x]; v[k] = v[x]; } // typed-array copies keep NaN payloads (stale markers)
          k++;
        }
        if (k > 0) p.samples(t, v, k);
      }
    } else {
      let n = 0;
      cur = s.iterator(cur);
      while (cur.next() === VAL_FLOAT) {
        if (n === t.length) { const t2 = new Float64Array(n * 2); t2.set(t); t = t2; const v2 = new Float64Array(t2.length); v2.set(v); v = v2; }
        t[n] = cur.t; v[n] = cur.v; n++;
      }
      p.samples(t, v, n);
    }
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
  const data = p.data, bOff = p.bOff;
  let cap = 0;
  for (let j = p.cOff[i]; j < p.cOff[i + 1]; j++) cap += (data[bOff[j]] << 8) | data[bOff[j] + 1]; // xorCount
  const { t, v, at } = alloc(cap);
  const mint = p.mint, maxt = p.maxt;
  let n = at;
  for (let j = p.cOff[i]; j < p.cOff[i + 1]; j++) {
    const cnt = decodeXor(data.subarray(bOff[j], bOff[j + 1]), t, v, n);
    let k = n;
    for (let x = n; x < n + cnt; x++) {
      const tx = t[x];
      if (tx < mint || tx > maxt) continue;
      if (k !== x) { t[k] = tx; v[k] = v[x]; } // typed-array copies keep NaN payloads (stale markers)
      k++;
    }
    n = k;
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
