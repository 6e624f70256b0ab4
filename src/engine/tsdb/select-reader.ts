/**
 * A shard worker's select for the query path, read source by source (block after block) and packed series by
 * series (`PackedSelect`). A chunk's bytes are copied into the reply as its block is read, and what the
 * packing needs of it afterwards — its series, time range, where its bytes are, its deletions — is one row of
 * typed columns. Listing every chunk first as objects (`MultiSourceQuerier.collect`) held an object chain of
 * about 160 bytes per chunk until the select was packed: 180,000 chunks and ~60 MB of live heap per worker
 * for 30 days of 2 h blocks, and V8 let the heap grow to twice that (docs/benchmarks.md, issue 11). Reading
 * each block's chunk file front to back also replaces a walk of every block per series.
 */
import type { Labels, Matcher } from './api.ts';
import { VAL_FLOAT } from './api.ts';
import type { ChunkMeta, Interval } from './chunk-meta.ts';
import { compareLabels } from './labels.ts';
import type { PackedSelect } from './packed-series.ts';
import { ChunksCursor, liveChunksOf, SELECT_PHASE, type MultiSourceQuerier } from './querier.ts';
import { ReadStop } from '../read-stop.ts';
import { SelectPacker } from './select-packer.ts';
import { readingThroughSharedWindows } from './read-ahead.ts';
import { decodeXorInRange, XOR_MAX_SAMPLES, xorCount } from './xor-chunk.ts';

/** Where a chunk's bytes were put: in the reply, or (reaching past the select's range, to be cut) in `Scratch`. */
const IN_REPLY = 0, IN_SCRATCH = 1;

/**
 * The select's chunks, one row each: series id, the stored chunk's time range, its bytes `[start, end)` in
 * the reply or the scratch area, and the index of its series' deletions (-1: none).
 */
class ChunkRows {
  n = 0;
  sid = new Int32Array(256);
  mint = new Float64Array(256);
  maxt = new Float64Array(256);
  start = new Uint32Array(256);
  end = new Uint32Array(256);
  del = new Int32Array(256);
  area = new Uint8Array(256);

  add(sid: number, mint: number, maxt: number, start: number, end: number, del: number, area: number): void {
    if (this.n === this.sid.length) this.grow();
    const k = this.n++;
    this.sid[k] = sid; this.mint[k] = mint; this.maxt[k] = maxt; this.start[k] = start; this.end[k] = end; this.del[k] = del; this.area[k] = area;
  }

  private grow(): void {
    const n = this.sid.length * 2;
    const sid = new Int32Array(n); sid.set(this.sid); this.sid = sid;
    const mint = new Float64Array(n); mint.set(this.mint); this.mint = mint;
    const maxt = new Float64Array(n); maxt.set(this.maxt); this.maxt = maxt;
    const start = new Uint32Array(n); start.set(this.start); this.start = start;
    const end = new Uint32Array(n); end.set(this.end); this.end = end;
    const del = new Int32Array(n); del.set(this.del); this.del = del;
    const area = new Uint8Array(n); area.set(this.area); this.area = area;
  }
}

/** Bytes of chunks that reach past the select's range, until they are cut; per thread, shrunk back after a large select. */
const SCRATCH_KEPT_BYTES = 1024 * 1024;
let scratch = new Uint8Array(64 * 1024);
let scratchLen = 0;

function toScratch(b: Uint8Array): number {
  const at = scratchLen;
  if (at + b.length > scratch.length) {
    const grown = new Uint8Array(Math.max(at + b.length, scratch.length * 2));
    grown.set(scratch.subarray(0, at));
    scratch = grown;
  }
  scratch.set(b, at);
  scratchLen = at + b.length;
  return at;
}

/** The select's series: label sets by id, and the ids in label order. */
class SeriesTable {
  readonly labels: Labels[] = [];
  order: number[] = [];

  /** Adds one source's series (distinct label sets) and returns their ids by position in `list`. */
  merge(list: readonly Labels[], inLabelOrder: boolean): Int32Array {
    const ids = new Int32Array(list.length);
    let perm: number[] | null = null;
    if (!inLabelOrder) {
      for (let i = 1; i < list.length; i++) {
        if (compareLabels(list[i - 1], list[i]) >= 0) { perm = list.map((_, k) => k).sort((a, b) => compareLabels(list[a], list[b])); break; }
      }
    }
    const old = this.order, out: number[] = [];
    let i = 0;
    for (let j = 0; j < list.length; j++) {
      const lj = perm === null ? j : perm[j];
      let c = 1;
      while (i < old.length && (c = compareLabels(this.labels[old[i]], list[lj])) < 0) out.push(old[i++]);
      if (i < old.length && c === 0) { ids[lj] = old[i]; out.push(old[i++]); continue; }
      ids[lj] = this.labels.length;
      out.push(this.labels.length);
      this.labels.push(list[lj]);
    }
    while (i < old.length) out.push(old[i++]);
    this.order = out;
    return ids;
  }
}

/**
 * The series of `queriers` (one per TSDB the worker holds) matching `ms` with chunks in `[mint, maxt]`, packed:
 * per TSDB in label order, one series per label set. A series' chunks that neither overlap nor have deletions
 * go as stored, cut to the range when they reach past it; any other series is read through the merging
 * cursor (deletions applied, first sample of a timestamp kept) and encoded again. Stops as
 * `MultiSourceQuerier.collect` does (`stop` every 256 series, and once even when nothing matched).
 */
export function readSelection(queriers: readonly MultiSourceQuerier[], ms: readonly Matcher[], mint: number, maxt: number, stop: ReadStop = ReadStop.NEVER): PackedSelect {
  const p = new SelectPacker();
  let withSeries = 0;
  stop.check(SELECT_PHASE);
  try {
    // Each chunk is copied (into the reply or the scratch area) before the next is read, and each index entry
    // decoded: one window for the chunk files and one for the indexes will do.
    readingThroughSharedWindows(() => { for (const q of queriers) if (readOne(q, ms, mint, maxt, stop, p)) withSeries++; });
  } finally {
    scratchLen = 0;
    if (scratch.length > SCRATCH_KEPT_BYTES) scratch = new Uint8Array(64 * 1024);
  }
  return p.done(mint, maxt, withSeries <= 1);
}

/** One TSDB's part of `readSelection`; whether it had any series. */
function readOne(q: MultiSourceQuerier, ms: readonly Matcher[], mint: number, maxt: number, stop: ReadStop, p: SelectPacker): boolean {
  const rows = new ChunkRows();
  const table = new SeriesTable();
  const dels: (readonly Interval[])[] = [];
  const tmp: ChunkMeta[] = [];
  const local: Labels[] = [];
  for (const src of q.sourcesIn(mint, maxt)) {
    const refs = src.index.select(ms).toUint32Array();
    const first = rows.n;
    local.length = 0;
    for (let i = 0; i < refs.length; i++) {
      if ((i & 255) === 0) stop.check(SELECT_PHASE);
      const del = liveChunksOf(src, refs[i], mint, maxt, tmp);
      if (tmp.length === 0) continue;
      const li = local.length;
      local.push(src.labelsOf(refs[i]));
      let d = -1;
      if (del !== undefined) { d = dels.length; dels.push(del); }
      for (let k = 0; k < tmp.length; k++) {
        const c = tmp[k], b = c.bytes;
        const inRange = c.mint >= mint && c.maxt <= maxt;
        const at = inRange ? p.store(b) : toScratch(b);
        rows.add(li, c.mint, c.maxt, at, at + b.length, d, inRange ? IN_REPLY : IN_SCRATCH);
      }
    }
    if (local.length === 0) continue;
    const ids = table.merge(local, src.refsInLabelOrder);
    for (let k = first; k < rows.n; k++) rows.sid[k] = ids[rows.sid[k]];
  }
  if (table.order.length === 0) return false;
  packSeries(table, rows, dels, mint, maxt, stop, p);
  return true;
}

/** Lists each series' chunks in label order, chunks in time order (rows of one series keep their read order on ties). */
function packSeries(table: SeriesTable, rows: ChunkRows, dels: readonly (readonly Interval[])[], mint: number, maxt: number, stop: ReadStop, p: SelectPacker): void {
  const order = table.order, ns = order.length, n = rows.n;
  const rank = new Int32Array(table.labels.length);
  for (let r = 0; r < ns; r++) rank[order[r]] = r;
  // Rows grouped by series rank (a counting sort, stable), then each group put in time order.
  const first = new Int32Array(ns + 1);
  for (let k = 0; k < n; k++) first[rank[rows.sid[k]] + 1]++;
  for (let r = 0; r < ns; r++) first[r + 1] += first[r];
  const fill = first.slice(0, ns);
  const byRank = new Int32Array(n);
  for (let k = 0; k < n; k++) byRank[fill[rank[rows.sid[k]]]++] = k;
  let t = new Float64Array(XOR_MAX_SAMPLES), v = new Float64Array(XOR_MAX_SAMPLES);
  for (let r = 0; r < ns; r++) {
    if ((r & 255) === 255) stop.check(SELECT_PHASE);
    const a = first[r], b = first[r + 1];
    sortByMint(byRank, a, b, rows.mint);
    let plain = true;
    for (let x = a; x < b && plain; x++) {
      const k = byRank[x];
      if (rows.del[k] >= 0 || (x > a && rows.mint[k] <= rows.maxt[byRank[x - 1]])) plain = false;
    }
    p.series(table.labels[order[r]]);
    if (plain) {
      for (let x = a; x < b; x++) {
        const k = byRank[x];
        if (rows.area[k] === IN_REPLY) { p.chunkAt(rows.start[k], rows.end[k]); continue; }
        const bytes = scratch.subarray(rows.start[k], rows.end[k]);
        const cnt = xorCount(bytes);
        if (cnt > t.length) { t = new Float64Array(cnt); v = new Float64Array(cnt); }
        const kept = decodeXorInRange(bytes, t, v, 0, mint, maxt);
        if (kept > 0) p.samples(t, v, kept);
      }
    } else {
      const chunks = [];
      for (let x = a; x < b; x++) {
        const k = byRank[x];
        const bytes = rows.area[k] === IN_REPLY ? p.storedView(rows.start[k], rows.end[k]) : scratch.subarray(rows.start[k], rows.end[k]);
        chunks.push({ c: { mint: rows.mint[k], maxt: rows.maxt[k], bytes }, del: rows.del[k] < 0 ? undefined : dels[rows.del[k]] });
      }
      const cur = new ChunksCursor(chunks, mint, maxt);
      let m = 0;
      while (cur.next() === VAL_FLOAT) {
        if (m === t.length) { const t2 = new Float64Array(m * 2); t2.set(t); t = t2; const v2 = new Float64Array(t2.length); v2.set(v); v = v2; }
        t[m] = cur.t; v[m] = cur.v; m++;
      }
      p.samples(t, v, m);
    }
    p.endSeries();
  }
}

/** Stable insertion sort of `idx[a, b)` by `key[idx[i]]` (a series' rows are almost always in time order already). */
function sortByMint(idx: Int32Array, a: number, b: number, key: Float64Array): void {
  for (let i = a + 1; i < b; i++) {
    const k = idx[i], m = key[k];
    if (key[idx[i - 1]] <= m) continue;
    let j = i - 1;
    while (j >= a && key[idx[j]] > m) { idx[j + 1] = idx[j]; j--; }
    idx[j + 1] = k;
  }
}
