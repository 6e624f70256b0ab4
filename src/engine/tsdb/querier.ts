/**
 * One `Querier` over any number of series sources (the head and the blocks): series with the same label set
 * in several sources are merged into one, chunks are read lazily in time order, tombstoned samples are
 * skipped and samples are clipped to the querier's `[mint, maxt]`.
 */
import type { FetchedSeries, Labels, Matcher, Querier, SampleCursor, Series, SeriesSet, SelectHints } from './api.ts';
import { VAL_FLOAT, VAL_NONE } from './api.ts';
import type { ChunkMeta, Interval, SeriesSource } from './chunk-meta.ts';
import { isDeleted } from './chunk-meta.ts';
import { compareLabels, labelsKey } from './labels.ts';
import { ListSeriesSet } from './list-series-set.ts';
import { mergeTwo, sortedUnion } from './sorted-union.ts';
import { ReadStop } from '../read-stop.ts';
import { decodeXor, decodeXorInRange, xorCount } from './xor-chunk.ts';

/** One chunk plus the deletions that apply to it. */
interface ChunkRef { c: ChunkMeta; del: readonly Interval[] | undefined }

/** A select's time range, shared by its series (a timestamp field is a heap number of its own in each object). */
interface TimeRange { readonly mint: number; readonly maxt: number }

export class MergedSeries implements Series {
  /** `chunks` comes sized to its contents (a pushed-to empty array takes room for 17). */
  constructor(readonly labels: Labels, private readonly range: TimeRange, public chunks: ChunkRef[]) {}

  /** Whether the chunks can be read one after the other as they are: none overlaps another or has deletions. */
  plain(): boolean {
    for (const r of this.chunks) if (r.del !== undefined) return false;
    return !overlapping(this.chunks);
  }

  iterator(reuse: SampleCursor | null): SampleCursor {
    if (reuse instanceof ChunksCursor) { reuse.reset(this.chunks, this.range.mint, this.range.maxt); return reuse; }
    return new ChunksCursor(this.chunks, this.range.mint, this.range.maxt);
  }
}

/** Walks chunks in time order; when chunks overlap (e.g. a backfilled block over the head) it merges them. */
export class ChunksCursor implements SampleCursor {
  t = NaN;
  v = NaN;
  private ts = new Float64Array(128);
  private vs = new Float64Array(128);
  private i = 0;
  private n = 0;
  private ci = 0;
  private del: readonly Interval[] | undefined;
  private chunks!: ChunkRef[];
  private mint = 0;
  private maxt = 0;
  private done = false;

  constructor(chunks: ChunkRef[], mint: number, maxt: number) { this.reset(chunks, mint, maxt); }

  reset(chunks: ChunkRef[], mint: number, maxt: number): void {
    this.mint = mint; this.maxt = maxt; this.i = 0; this.n = 0; this.ci = 0; this.done = false;
    this.del = undefined;
    if (overlapping(chunks)) this.loadMerged(chunks);
    else this.chunks = chunks;
  }

  next(): number {
    for (;;) {
      if (this.done) return VAL_NONE;
      if (this.i >= this.n) {
        if (this.ci >= this.chunks.length) { this.done = true; this.t = NaN; this.v = NaN; return VAL_NONE; }
        this.load(this.chunks[this.ci++]);
        continue;
      }
      const t = this.ts[this.i];
      if (t > this.maxt) { this.done = true; return VAL_NONE; }
      const k = this.i++;
      if (t < this.mint || isDeleted(this.del, t)) continue;
      this.t = t;
      this.v = this.vs[k];
      return VAL_FLOAT;
    }
  }

  seek(tMs: number): number {
    if (!this.done && this.n > 0 && this.i > 0 && this.t >= tMs) return VAL_FLOAT;
    while (this.ci < this.chunks.length && this.chunks[this.ci].c.maxt < tMs && this.i >= this.n) this.ci++;
    while (this.next() === VAL_FLOAT) if (this.t >= tMs) return VAL_FLOAT;
    return VAL_NONE;
  }

  private load(r: ChunkRef): void {
    const b = r.c.bytes;
    const cnt = xorCount(b);
    if (cnt > this.ts.length) { this.ts = new Float64Array(cnt); this.vs = new Float64Array(cnt); }
    this.n = decodeXor(b, this.ts, this.vs);
    this.i = 0;
    this.del = r.del;
  }

  /** Decodes every chunk, keeps the first sample seen for each timestamp, and serves the result as one chunk. */
  private loadMerged(chunks: ChunkRef[]): void {
    const ts: number[] = [], src: [number, number][] = [];
    const vals: Float64Array[] = [];
    for (const r of chunks) {
      const b = r.c.bytes;
      const cnt = xorCount(b);
      const t = new Float64Array(cnt), v = new Float64Array(cnt);
      decodeXor(b, t, v);
      vals.push(v);
      for (let k = 0; k < cnt; k++) if (!isDeleted(r.del, t[k])) { ts.push(t[k]); src.push([vals.length - 1, k]); }
    }
    const order = ts.map((_, k) => k).sort((a, b) => ts[a] - ts[b] || a - b);
    this.ts = new Float64Array(order.length); this.vs = new Float64Array(order.length);
    let n = 0;
    for (const k of order) {
      if (n > 0 && this.ts[n - 1] === ts[k]) continue;
      this.ts[n] = ts[k];
      this.vs[n] = vals[src[k][0]][src[k][1]];
      n++;
    }
    this.n = n;
    this.chunks = [];
  }
}

/**
 * Puts in `out` (emptied first) the chunks of series `ref` of `src` that overlap `[mint, maxt]`, less those a
 * single tombstone interval covers entirely (as Prometheus's block series set drops them); returns the
 * series' deletions.
 */
export function liveChunksOf(src: SeriesSource, ref: number, mint: number, maxt: number, out: ChunkMeta[]): readonly Interval[] | undefined {
  out.length = 0;
  src.chunksOf(ref, mint, maxt, out);
  const del = src.deletedOf(ref);
  if (del === undefined) return undefined;
  let k = 0;
  for (const c of out) {
    let covered = false;
    for (const iv of del) if (iv[0] <= c.mint && iv[1] >= c.maxt) { covered = true; break; }
    if (!covered) out[k++] = c;
  }
  out.length = k;
  return del;
}

function isSorted(list: readonly MergedSeries[]): boolean {
  for (let i = 1; i < list.length; i++) if (compareLabels(list[i - 1].labels, list[i].labels) >= 0) return false;
  return true;
}

/**
 * Two label-sorted lists (each with distinct label sets) as one; an equal label set keeps a's labels and gets
 * b's chunks appended to its own array in place (every series here was made by this select). A new array per
 * merge (`concat`) made a select over n blocks allocate n²/2 chunk slots per series — 65,000 per series over
 * 30 days of 2 h blocks, short-lived arrays the shard worker's small young generation promoted
 * (docs/benchmarks.md, issue 11).
 */
function mergeSorted(a: MergedSeries[], b: MergedSeries[]): MergedSeries[] {
  return mergeTwo(a, b, (x, y) => compareLabels(x.labels, y.labels), appendChunks);
}

function appendChunks(x: MergedSeries, y: MergedSeries): MergedSeries {
  const cs = x.chunks;
  for (let i = 0; i < y.chunks.length; i++) cs.push(y.chunks[i]);
  return x;
}

/**
 * Puts each series' chunks in time order. Only series whose chunks came out of order are sorted: merged sources
 * list a series' chunks source by source, which is almost always time order already, and `Array.prototype.sort`
 * allocates its work space on every call (the largest allocation of an instant query's select: two chunks of
 * each of its 500 series, one in the last block and one in the next).
 */
function sortChunks(list: readonly MergedSeries[]): void {
  for (let i = 0; i < list.length; i++) {
    const cs = list[i].chunks;
    for (let j = 1; j < cs.length; j++) {
      if (cs[j].c.mint < cs[j - 1].c.mint) { cs.sort(byMint); break; }
    }
  }
}

const byMint = (a: ChunkRef, b: ChunkRef): number => a.c.mint - b.c.mint;
const byLabels = (a: MergedSeries, b: MergedSeries): number => compareLabels(a.labels, b.labels);

function overlapping(chunks: ChunkRef[]): boolean {
  for (let i = 1; i < chunks.length; i++) if (chunks[i].c.mint <= chunks[i - 1].c.maxt) return true;
  return false;
}

/** `refs` of `src` in the label order of their series (as they are already unless `src.refsInLabelOrder` is false). */
function inLabelOrder(src: SeriesSource, refs: Uint32Array): Uint32Array {
  if (src.refsInLabelOrder) return refs;
  const labels = Array.from(refs, (r) => src.labelsOf(r));
  const perm = labels.map((_, k) => k).sort((a, b) => compareLabels(labels[a], labels[b]));
  return Uint32Array.from(perm, (k) => refs[k]);
}

export class MultiSourceQuerier implements Querier {
  constructor(private readonly sources: readonly SeriesSource[], private readonly mint: number, private readonly maxt: number) {}

  select(_sorted: boolean, hints: SelectHints | null, ms: readonly Matcher[]): SeriesSet {
    const mint = hints ? Math.max(this.mint, hints.startMs) : this.mint;
    const maxt = hints ? Math.min(this.maxt, hints.endMs) : this.maxt;
    return new ListSeriesSet(this.collect(ms, mint, maxt));
  }

  /**
   * Series (merged across sources, sorted by labels) that have at least one chunk in range; once `stop` says so
   * (checked every 256 series: deadline passed, client gone, shutdown) it throws, so an abandoned query stops.
   */
  collect(ms: readonly Matcher[], mint: number, maxt: number, stop: ReadStop = ReadStop.NEVER): MergedSeries[] {
    // Each source's series, then one series per label set. Lists in label order (blocks list series in label
    // order by construction; other sources' lists are checked — comparing every neighbour cost a shard worker
    // 3% of an instant query's select) are merged as they come by comparing label sets, so each source's series
    // objects and label sets die young (a 30-day select over 360 blocks held 180,000 of them per shard worker
    // to its end). From the first list out of order on, lists are kept and merged by a key string per series at
    // the end (that cost more than everything else in a select).
    let merged: MergedSeries[] | null = null;
    const rest: MergedSeries[][] = [];
    const tmp: ChunkMeta[] = [];
    const range: TimeRange = { mint, maxt };
    for (const src of this.sources) {
      if (src.maxTime < mint || src.minTime > maxt) continue;
      const refs = src.index.select(ms).toUint32Array();
      const list: MergedSeries[] = [];
      for (let i = 0; i < refs.length; i++) {
        if ((i & 255) === 0) stop.check(SELECT_PHASE);
        const del = liveChunksOf(src, refs[i], mint, maxt, tmp);
        if (tmp.length === 0) continue;
        const chunks: ChunkRef[] = new Array(tmp.length);
        for (let k = 0; k < tmp.length; k++) chunks[k] = { c: tmp[k], del };
        list.push(new MergedSeries(src.labelsOf(refs[i]), range, chunks));
      }
      if (list.length === 0) continue;
      if (rest.length === 0 && (src.refsInLabelOrder || isSorted(list))) merged = merged === null ? list : mergeSorted(merged, list);
      else rest.push(list);
    }
    let out: MergedSeries[];
    if (rest.length === 0) {
      if (merged === null) return [];
      out = merged;
    } else if (merged === null && rest.length === 1) {
      out = rest[0].sort(byLabels);
    } else {
      const lists = merged === null ? rest : [merged, ...rest];
      const byKey = new Map<string, MergedSeries>();
      for (const list of lists) {
        for (const s of list) {
          const key = labelsKey(s.labels);
          const old = byKey.get(key);
          if (old) old.chunks = old.chunks.concat(s.chunks); else byKey.set(key, s);
        }
      }
      out = [...byKey.values()].sort(byLabels);
    }
    sortChunks(out);
    return out;
  }

  /**
   * `collect`'s series one at a time, for a pass over every series that keeps none of them (compaction): the
   * sources' series are walked side by side in label order, so only the current label set's chunks are held
   * (`collect` over a compaction's inputs held every chunk of them at once — 389,000 over 30 days of blocks).
   */
  *stream(ms: readonly Matcher[], mint: number, maxt: number): Generator<MergedSeries> {
    const range: TimeRange = { mint, maxt };
    const srcs = this.sourcesIn(mint, maxt);
    const refs = srcs.map((src) => inLabelOrder(src, src.index.select(ms).toUint32Array()));
    const pos = new Int32Array(srcs.length);
    const heads = srcs.map((src, i) => (refs[i].length ? src.labelsOf(refs[i][0]) : null));
    const tmp: ChunkMeta[] = [];
    for (;;) {
      let min: Labels | null = null;
      for (const h of heads) if (h !== null && (min === null || compareLabels(h, min) < 0)) min = h;
      if (min === null) return;
      const chunks: ChunkRef[] = [];
      for (let i = 0; i < srcs.length; i++) {
        const h = heads[i];
        if (h === null || (h !== min && compareLabels(h, min) !== 0)) continue;
        const del = liveChunksOf(srcs[i], refs[i][pos[i]], mint, maxt, tmp);
        for (const c of tmp) chunks.push({ c, del });
        const next = ++pos[i];
        heads[i] = next < refs[i].length ? srcs[i].labelsOf(refs[i][next]) : null;
      }
      if (chunks.length === 0) continue;
      for (let j = 1; j < chunks.length; j++) if (chunks[j].c.mint < chunks[j - 1].c.mint) { chunks.sort(byMint); break; }
      yield new MergedSeries(min, range, chunks);
    }
  }

  /** Label sets of the series matching `ms` with data in range, sorted (no sample decoding). */
  seriesLabels(ms: readonly Matcher[], mint: number, maxt: number): Labels[] {
    return this.collect(ms, mint, maxt).map((s) => s.labels);
  }

  /**
   * With matchers, the names of the series selected in range (Prometheus's API selects series with hints
   * for this); without, every name of the sources overlapping the range (index level).
   */
  labelNames(ms: readonly Matcher[]): string[] {
    const set = new Set<string>();
    if (ms.length) {
      for (const s of this.collect(ms, this.mint, this.maxt)) for (const l of s.labels) set.add(l.name);
    } else {
      for (const src of this.inRange()) for (const n of src.index.labelNames(null)) set.add(n);
    }
    return [...set].sort();
  }

  labelValues(name: string, ms: readonly Matcher[]): string[] {
    const lists: string[][] = [];
    for (const src of this.inRange()) lists.push(src.index.labelValues(name, ms.length ? src.index.select(ms) : null));
    return sortedUnion(lists);
  }

  close(): void {}

  /** The sources with data in `[mint, maxt]`, in the order their series are merged (blocks, then the head). */
  sourcesIn(mint: number, maxt: number): SeriesSource[] {
    return this.sources.filter((s) => !(s.maxTime < mint || s.minTime > maxt));
  }

  private inRange(): SeriesSource[] {
    return this.sourcesIn(this.mint, this.maxt);
  }
}

/**
 * Reads the selected series into parallel arrays (what crosses the worker boundary). Series whose chunks do
 * not overlap (the common case) are decoded chunk by chunk straight into the output and filtered in place;
 * overlapping ones go through the merging cursor.
 */
export function fetchSeries(q: MultiSourceQuerier, ms: readonly Matcher[], mint: number, maxt: number, stop: ReadStop = ReadStop.NEVER): FetchedSeries[] {
  const sel = q.collect(ms, mint, maxt, stop);
  // Every series decodes into one pair of flat arrays and gets views of its part: `packSelect` then sends
  // those arrays as they are instead of copying each series again.
  let cap = 0;
  for (let i = 0; i < sel.length; i++) for (const r of sel[i].chunks) cap += xorCount(r.c.bytes);
  const t = new Float64Array(cap), v = new Float64Array(cap);
  const out: FetchedSeries[] = [];
  let cur: SampleCursor | null = null;
  let n = 0;
  for (let i = 0; i < sel.length; i++) {
    if ((i & 255) === 0) stop.check(SELECT_PHASE);
    const s = sel[i];
    const start = n;
    if (overlapping(s.chunks)) {
      cur = s.iterator(cur);
      while (cur.next() === VAL_FLOAT) { t[n] = cur.t; v[n] = cur.v; n++; }
    } else {
      for (const r of s.chunks) n = decodeFiltered(r, t, v, n, mint, maxt);
    }
    if (n === start) continue;
    out.push({ labels: s.labels, t: t.subarray(start, n), v: v.subarray(start, n) });
  }
  return out;
}

/** Decodes one chunk at `t[n]`/`v[n]`, keeps the samples in `[mint, maxt]` and not deleted; returns the new end. */
function decodeFiltered(r: ChunkRef, t: Float64Array, v: Float64Array, n: number, mint: number, maxt: number): number {
  const end = decodeXorInRange(r.c.bytes, t, v, n, mint, maxt);
  if (r.del === undefined) return end;
  let k = n;
  for (let i = n; i < end; i++) {
    if (isDeleted(r.del, t[i])) continue;
    if (k !== i) { t[k] = t[i]; v[k] = v[i]; } // typed-array to typed-array copies keep NaN payloads
    k++;
  }
  return k;
}

/**
 * Selects run in the shard workers, apart from the query's own deadline and cancellation on the main thread:
 * without the checks a select the client has given up on would keep the worker (and the document requests
 * queued behind it) busy to its end.
 */
export const SELECT_PHASE = 'expanding series';
