/**
 * The head: series keyed by their sorted label set, numbered with refs, indexed by label-pair postings, each
 * with one open XOR chunk in memory and its closed chunks (up to 120 samples each; a chunk is also cut at every
 * chunk-range boundary so that block cutting never splits a chunk) in the head chunk files. Ordering rules are Prometheus's `memSeries.appendable`.
 */
import type { Label, Labels } from './api.ts';
import type { ChunkMeta, Interval, SeriesSource } from './chunk-meta.ts';
import { addInterval } from './chunk-meta.ts';
import { labelsHash } from './labels.ts';
import { LabelSetMap } from './label-set-map.ts';
import { StringTable } from '../model/string-table.ts';
import type { HeadChunkFiles } from './head-chunks.ts';
import { LabelIndex } from './postings.ts';
import { XOR_MAX_SAMPLES } from './xor-chunk.ts';
import { ChunkSlab, SlabXorAppender } from './chunk-slab.ts';

/** Append statuses; the refusals' texts are the registry's `TSDB_OUT_OF_ORDER`, `TSDB_DUPLICATE_SAMPLE`, `TSDB_OUT_OF_BOUNDS`. */
export const APPEND_OK = 0, APPEND_DUP_IGNORED = 1, ERR_OUT_OF_ORDER = 2, ERR_DUPLICATE = 3, ERR_OUT_OF_BOUNDS = 4;

/** Bound of the head's string table (see `Head.interned`): a few MB at most. */
const INTERN_MAX = 1 << 16;

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);

/** Slot size a new open chunk starts with: its first sample takes up to 20 bytes. */
const FIRST_SLOT_BYTES = 32;

const EMPTY_CHUNK = new Uint8Array(2);

/**
 * The open chunk as a query sees it: its bytes are copied on first use only (listings never need them). By
 * then the chunk may have grown (the copy has the newer samples too, as an appender's bytes would), moved to
 * a larger slot, or been closed into the head chunk files: it is found again by its series and start time.
 */
class OpenChunkView implements ChunkMeta {
  readonly maxt: number;
  private data: Uint8Array | null = null;
  constructor(private readonly head: Head, private readonly s: MemSeries, readonly mint: number) { this.maxt = s.maxT; }
  get bytes(): Uint8Array { return this.data ??= this.head.chunkBytesAt(this.s, this.mint); }
}

/** A closed head chunk as a query sees it: its bytes are read from the head chunk files on first use. */
class ClosedChunkView implements ChunkMeta {
  private data: Uint8Array | null = null;
  constructor(private readonly files: HeadChunkFiles, readonly mint: number, readonly maxt: number, private readonly ref: number) {}
  get bytes(): Uint8Array { return this.data ??= this.files.read(this.ref); }
}

export class MemSeries {
  /**
   * The closed chunks, flat: `mint, maxt, ref` per chunk (ref into the head chunk files). Three doubles per
   * chunk instead of an object and a byte array on the heap.
   */
  closed: number[] = [];
  /**
   * The open chunk: its slot in the head's `ChunkSlab` (-1 when there is none) and the state of its XOR
   * writer (bits written, sample count, last time delta, value window as `leading << 8 | trailing`); its last
   * time and value are `maxT` and `lastHi`/`lastLo`. Fields rather than an appender object with a byte array
   * of its own: see chunk-slab.ts.
   */
  chunkAt = -1;
  chunkBits = 0;
  chunkCount = 0;
  chunkTDelta = 0;
  chunkWindow = 0;
  appMint = 0;
  appNextAt = 0;
  maxT = -Infinity;
  /** The last value's words as int32 (`| 0`): small integers in V8, where uint32 words would be boxed. */
  lastHi = 0;
  lastLo = 0;
  constructor(readonly ref: number, readonly labels: Labels, readonly hash: number) {}

  get closedCount(): number { return this.closed.length / 3; }
  get hasOpenChunk(): boolean { return this.chunkAt >= 0; }
}

export class Head implements SeriesSource {
  readonly index = new LabelIndex();
  /** Every series by ref (iteration order: creation). */
  readonly byRef = new Map<number, MemSeries>();
  /** Series by label set (no key string per series). */
  private readonly byLabels = new LabelSetMap<MemSeries>();
  readonly tombstones = new Map<number, Interval[]>();
  private readonly strings = new StringTable(INTERN_MAX);
  /** The open chunks' bytes, and the appender that writes them. */
  readonly slab = new ChunkSlab();
  private readonly appender = new SlabXorAppender(this.slab);
  nextRef = 1;
  minTime = Infinity;
  maxTime = -Infinity;
  /** Samples before this are refused ("out of bounds"): the max time of the newest block. */
  minValidTime = -Infinity;

  constructor(readonly chunkRangeMs: number, readonly chunkFiles: HeadChunkFiles) {}

  get numSeries(): number { return this.byRef.size; }

  /** The series with labels `ls` (sorted, non-empty values), if any. */
  seriesOf(ls: Labels, hash = labelsHash(ls)): MemSeries | undefined { return this.byLabels.get(ls, hash); }

  /** The series with the flat labels `[name, value, …]`, if any. */
  seriesOfFlat(flat: readonly string[]): MemSeries | undefined { return this.byLabels.getFlat(flat); }

  /** Returns the series for `ls` (sorted, non-empty values), creating it with a new ref if needed. */
  getOrCreate(ls: Labels): { series: MemSeries; created: boolean } {
    const hash = labelsHash(ls);
    const s = this.seriesOf(ls, hash);
    if (s !== undefined) return { series: s, created: false };
    return { series: this.create(this.nextRef, ls, hash), created: true };
  }

  /** Creates a series with a given ref (WAL replay); returns the existing one for a known label set. */
  create(ref: number, ls: Labels, hash = labelsHash(ls)): MemSeries {
    const had = this.seriesOf(ls, hash);
    if (had !== undefined) return had;
    const s = new MemSeries(ref, this.interned(ls), hash);
    this.byLabels.add(s, hash);
    this.byRef.set(ref, s);
    this.index.add(ref, ls);
    if (ref >= this.nextRef) this.nextRef = ref + 1;
    return s;
  }

  /**
   * `ls` with its label objects shared with the head's other series where possible. Labels arrive fresh for
   * every series (decoded from a worker message or the WAL), while most pairs repeat across series
   * (`__name__`, `job`, `instance`, a status code): a pair some series already carries is replaced by that
   * series' own `Label` object, found through the postings (no table of its own), which saves an object of
   * some 40 bytes per repeated label. Label objects are immutable, so sharing them is safe. Names of pairs
   * seen for the first time go through the bounded string table; their values are kept as given, so unique
   * values (a per-series id) do not fill it.
   */
  private interned(ls: Labels): Labels {
    const out: Label[] = new Array(ls.length);
    for (let i = 0; i < ls.length; i++) {
      const l = ls[i];
      out[i] = this.sharedLabel(l.name, l.value) ?? { name: this.strings.intern(l.name), value: l.value };
    }
    return out;
  }

  /** The `Label` object of `name=value` held by a series that carries it, if any. */
  private sharedLabel(name: string, value: string): Label | undefined {
    const ref = this.index.anyRef(name, value);
    if (ref < 0) return undefined;
    const ls = this.byRef.get(ref)?.labels;
    if (ls === undefined) return undefined;
    for (let i = 0; i < ls.length; i++) if (ls[i].name === name) return ls[i];
    return undefined;
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
    return (U32[1] | 0) === s.lastHi && (U32[0] | 0) === s.lastLo ? APPEND_DUP_IGNORED : ERR_DUPLICATE;
  }

  /** Appends after `appendable` said APPEND_OK. */
  appendUnchecked(s: MemSeries, t: number, v: number): void {
    if (s.chunkAt < 0 || s.chunkCount >= XOR_MAX_SAMPLES || t >= s.appNextAt) {
      this.closeOpen(s);
      s.chunkAt = this.slab.alloc(FIRST_SLOT_BYTES);
      s.chunkBits = 16;
      s.chunkCount = 0;
      s.chunkTDelta = 0;
      s.chunkWindow = 0xff00;
      s.appMint = t;
      s.appNextAt = (Math.floor(t / this.chunkRangeMs) + 1) * this.chunkRangeMs;
    }
    const a = this.appender;
    a.resumeAt(s.chunkAt, s.chunkBits, s.chunkCount, s.maxT, s.chunkTDelta, s.lastHi, s.lastLo, s.chunkWindow >>> 8, s.chunkWindow & 0xff);
    a.append(t, v);
    s.chunkAt = a.addr;
    s.chunkBits = a.bits;
    s.chunkCount = a.count;
    s.chunkTDelta = a.tDelta;
    s.chunkWindow = (a.leading << 8) | a.trailing;
    s.maxT = t;
    F64[0] = v;
    s.lastHi = U32[1] | 0;
    s.lastLo = U32[0] | 0;
    if (t < this.minTime) this.minTime = t;
    if (t > this.maxTime) this.maxTime = t;
  }

  /** Checked append; returns an APPEND_* / ERR_* code. */
  append(s: MemSeries, t: number, v: number): number {
    const code = this.appendable(s, t, v, this.appendableMinValidTime());
    if (code === APPEND_OK) this.appendUnchecked(s, t, v);
    return code;
  }

  /** Moves the open chunk of `s` to the head chunk files. */
  closeOpen(s: MemSeries): void {
    if (s.chunkAt < 0) return;
    const ref = this.chunkFiles.write(s.ref, s.appMint, s.maxT, this.slab.view(s.chunkAt, (s.chunkBits + 7) >>> 3));
    s.closed.push(s.appMint, s.maxT, ref);
    this.slab.release(s.chunkAt);
    s.chunkAt = -1;
  }

  /** A copy of the open chunk's bytes. */
  private openChunkBytes(s: MemSeries): Uint8Array {
    return this.slab.copy(s.chunkAt, (s.chunkBits + 7) >>> 3);
  }

  /**
   * The bytes of the chunk of `s` that starts at `mint`, open or closed since (an `OpenChunkView` read after
   * appends); an empty chunk when it has been truncated away.
   */
  chunkBytesAt(s: MemSeries, mint: number): Uint8Array {
    if (s.chunkAt >= 0 && s.appMint === mint) return this.openChunkBytes(s);
    const c = s.closed;
    for (let i = 0; i < c.length; i += 3) if (c[i] === mint) return this.chunkFiles.read(c[i + 2]);
    return EMPTY_CHUNK;
  }

  /** The chunks of `s` ending before `maxt` (all when omitted), the open one included, with their bytes. */
  chunksWithBytes(s: MemSeries, maxt = Infinity): { mint: number; maxt: number; bytes: Uint8Array }[] {
    const out = [];
    const c = s.closed;
    for (let i = 0; i < c.length; i += 3) if (c[i + 1] < maxt) out.push({ mint: c[i], maxt: c[i + 1], bytes: this.chunkFiles.read(c[i + 2]) });
    if (s.chunkAt >= 0 && s.maxT < maxt) out.push({ mint: s.appMint, maxt: s.maxT, bytes: this.openChunkBytes(s) });
    return out;
  }

  labelsOf(ref: number): Labels {
    return this.byRef.get(ref)?.labels ?? [];
  }

  chunksOf(ref: number, mint: number, maxt: number, out: ChunkMeta[]): void {
    const s = this.byRef.get(ref);
    if (s === undefined) return;
    const c = s.closed;
    for (let i = 0; i < c.length; i += 3) if (c[i + 1] >= mint && c[i] <= maxt) out.push(new ClosedChunkView(this.chunkFiles, c[i], c[i + 1], c[i + 2]));
    if (s.chunkAt >= 0 && s.maxT >= mint && s.appMint <= maxt) out.push(new OpenChunkView(this, s, s.appMint));
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
    for (const s of this.byRef.values()) {
      if (s.chunkAt >= 0 && s.maxT < mint) this.closeOpen(s);
      let drop = 0;
      while (drop < s.closed.length && s.closed[drop + 1] < mint) drop += 3;
      if (drop > 0) s.closed = s.closed.slice(drop);
      if (s.closed.length === 0 && s.chunkAt < 0) removed.push(s.ref);
    }
    this.chunkFiles.truncateBefore(mint);
    for (const ref of removed) this.removeSeries(ref);
    for (const [ref, ivs] of this.tombstones) {
      const kept = ivs.filter((iv) => iv[1] >= mint);
      if (kept.length === 0) this.tombstones.delete(ref); else this.tombstones.set(ref, kept);
    }
    this.minTime = Math.max(this.minTime, mint);
    if (this.byRef.size === 0) { this.minTime = Infinity; this.maxTime = -Infinity; }
    return removed;
  }

  private removeSeries(ref: number): void {
    const s = this.byRef.get(ref);
    if (s === undefined) return;
    this.byRef.delete(ref);
    this.byLabels.delete(s, s.hash);
    this.index.remove(ref, s.labels);
    this.tombstones.delete(ref);
  }

  numChunks(): number {
    let n = 0;
    for (const s of this.byRef.values()) n += s.closedCount + (s.chunkAt >= 0 ? 1 : 0);
    return n;
  }
}
