/**
 * The in-memory head: series keyed by their sorted label set, numbered with refs, indexed by label-pair
 * postings, each holding XOR chunks of up to 120 samples (a chunk is also cut at every chunk-range boundary so
 * that block cutting never splits a chunk). Ordering rules are Prometheus's `memSeries.appendable`.
 */
import type { Labels } from './api.ts';
import type { ChunkMeta, Interval, SeriesSource } from './chunk-meta.ts';
import { addInterval } from './chunk-meta.ts';
import { labelsKey } from './labels.ts';
import { LabelIndex } from './postings.ts';
import { XOR_MAX_SAMPLES, XorAppender } from './xor-chunk.ts';

/** Append statuses; the refusals' texts are the registry's `TSDB_OUT_OF_ORDER`, `TSDB_DUPLICATE_SAMPLE`, `TSDB_OUT_OF_BOUNDS`. */
export const APPEND_OK = 0, APPEND_DUP_IGNORED = 1, ERR_OUT_OF_ORDER = 2, ERR_DUPLICATE = 3, ERR_OUT_OF_BOUNDS = 4;

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);

/** The open chunk as a query sees it: its bytes are copied on first use only (listings never need them). */
class OpenChunkView implements ChunkMeta {
  readonly maxt: number;
  private data: Uint8Array | null = null;
  constructor(private readonly app: XorAppender, readonly mint: number) { this.maxt = app.t; }
  get bytes(): Uint8Array { return this.data ??= this.app.bytes().slice(); }
}

export class MemSeries {
  readonly chunks: ChunkMeta[] = [];
  app: XorAppender | null = null;
  appMint = 0;
  appNextAt = 0;
  maxT = -Infinity;
  lastHi = 0;
  lastLo = 0;
  constructor(readonly ref: number, readonly labels: Labels, readonly key: string) {}

  /** Moves the open chunk to the closed list. */
  closeOpen(): void {
    if (this.app === null) return;
    this.chunks.push({ mint: this.appMint, maxt: this.app.t, bytes: this.app.bytes().slice() });
    this.app = null;
  }

  sampleCount(): number {
    let n = this.app?.count ?? 0;
    for (const c of this.chunks) n += (c.bytes[0] << 8) | c.bytes[1];
    return n;
  }
}

export class Head implements SeriesSource {
  readonly index = new LabelIndex();
  readonly byKey = new Map<string, MemSeries>();
  readonly byRef = new Map<number, MemSeries>();
  readonly tombstones = new Map<number, Interval[]>();
  nextRef = 1;
  minTime = Infinity;
  maxTime = -Infinity;
  /** Samples before this are refused ("out of bounds"): the max time of the newest block. */
  minValidTime = -Infinity;

  constructor(readonly chunkRangeMs: number) {}

  get numSeries(): number { return this.byKey.size; }

  /** Returns the series for `ls` (sorted, non-empty values), creating it with a new ref if needed. */
  getOrCreate(ls: Labels, key = labelsKey(ls)): { series: MemSeries; created: boolean } {
    const s = this.byKey.get(key);
    if (s !== undefined) return { series: s, created: false };
    return { series: this.create(this.nextRef, ls, key), created: true };
  }

  /** Creates a series with a given ref (WAL replay); returns the existing one for a known label set. */
  create(ref: number, ls: Labels, key = labelsKey(ls)): MemSeries {
    const had = this.byKey.get(key);
    if (had !== undefined) return had;
    const s = new MemSeries(ref, ls, key);
    this.byKey.set(key, s);
    this.byRef.set(ref, s);
    this.index.add(ref, ls);
    if (ref >= this.nextRef) this.nextRef = ref + 1;
    return s;
  }

  /** The lowest timestamp an append may carry now. */
  appendableMinValidTime(): number {
    const byHead = this.maxTime === -Infinity ? -Infinity : this.maxTime - this.chunkRangeMs / 2;
    return Math.max(this.minValidTime, byHead);
  }

  /** Checks a sample without appending: one of the APPEND_* / ERR_* codes. */
  appendable(s: MemSeries, t: number, v: number, minValid: number): number {
    if (t < minValid) return ERR_OUT_OF_BOUNDS;
    if (t > s.maxT) return APPEND_OK;
    if (t < s.maxT) return ERR_OUT_OF_ORDER;
    F64[0] = v;
    return U32[1] === s.lastHi && U32[0] === s.lastLo ? APPEND_DUP_IGNORED : ERR_DUPLICATE;
  }

  /** Appends after `appendable` said APPEND_OK. */
  appendUnchecked(s: MemSeries, t: number, v: number): void {
    if (s.app === null || s.app.count >= XOR_MAX_SAMPLES || t >= s.appNextAt) {
      s.closeOpen();
      s.app = new XorAppender();
      s.appMint = t;
      s.appNextAt = (Math.floor(t / this.chunkRangeMs) + 1) * this.chunkRangeMs;
    }
    s.app.append(t, v);
    s.maxT = t;
    F64[0] = v;
    s.lastHi = U32[1];
    s.lastLo = U32[0];
    if (t < this.minTime) this.minTime = t;
    if (t > this.maxTime) this.maxTime = t;
  }

  /** Checked append; returns an APPEND_* / ERR_* code. */
  append(s: MemSeries, t: number, v: number): number {
    const code = this.appendable(s, t, v, this.appendableMinValidTime());
    if (code === APPEND_OK) this.appendUnchecked(s, t, v);
    return code;
  }

  labelsOf(ref: number): Labels {
    return this.byRef.get(ref)?.labels ?? [];
  }

  chunksOf(ref: number, mint: number, maxt: number, out: ChunkMeta[]): void {
    const s = this.byRef.get(ref);
    if (s === undefined) return;
    for (const c of s.chunks) if (c.maxt >= mint && c.mint <= maxt) out.push(c);
    if (s.app !== null && s.app.t >= mint && s.appMint <= maxt) out.push(new OpenChunkView(s.app, s.appMint));
  }

  deletedOf(ref: number): readonly Interval[] | undefined {
    return this.tombstones.get(ref);
  }

  addTombstone(ref: number, iv: Interval): void {
    if (!this.byRef.has(ref)) return;
    this.tombstones.set(ref, addInterval(this.tombstones.get(ref) ?? [], iv));
  }

  /**
   * Drops every chunk that ends before `mint` (it now lives in a block) and the series left empty, and
   * raises the head's min time. Returns the refs of the removed series.
   */
  truncate(mint: number): number[] {
    const removed: number[] = [];
    for (const s of this.byKey.values()) {
      if (s.app !== null && s.app.t < mint) s.closeOpen();
      let drop = 0;
      while (drop < s.chunks.length && s.chunks[drop].maxt < mint) drop++;
      if (drop > 0) s.chunks.splice(0, drop);
      if (s.chunks.length === 0 && s.app === null) removed.push(s.ref);
    }
    for (const ref of removed) this.removeSeries(ref);
    for (const [ref, ivs] of this.tombstones) {
      const kept = ivs.filter((iv) => iv[1] >= mint);
      if (kept.length === 0) this.tombstones.delete(ref); else this.tombstones.set(ref, kept);
    }
    this.minTime = Math.max(this.minTime, mint);
    if (this.byKey.size === 0) { this.minTime = Infinity; this.maxTime = -Infinity; }
    return removed;
  }

  private removeSeries(ref: number): void {
    const s = this.byRef.get(ref);
    if (s === undefined) return;
    this.byRef.delete(ref);
    this.byKey.delete(s.key);
    this.index.remove(ref, s.labels);
    this.tombstones.delete(ref);
  }

  numChunks(): number {
    let n = 0;
    for (const s of this.byKey.values()) n += s.chunks.length + (s.app !== null ? 1 : 0);
    return n;
  }
}
