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
import { SeriesColumns } from './series-columns.ts';
import { RefTable } from './ref-table.ts';

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
 * a larger slot, been closed into the head chunk files, or its series left the head (its column slot may
 * belong to another series by then): it is found again by its series ref and start time.
 */
class OpenChunkView implements ChunkMeta {
  private data: Uint8Array | null = null;
  constructor(private readonly head: Head, private readonly ref: number, readonly mint: number, readonly maxt: number) {}
  get bytes(): Uint8Array { return this.data ??= this.head.chunkBytesAt(this.ref, this.mint); }
}

/** A closed head chunk as a query sees it: its bytes are read from the head chunk files on first use. */
class ClosedChunkView implements ChunkMeta {
  private data: Uint8Array | null = null;
  constructor(private readonly files: HeadChunkFiles, readonly mint: number, readonly maxt: number, private readonly ref: number) {}
  get bytes(): Uint8Array { return this.data ??= this.files.read(this.ref); }
}

/**
 * Series are slots of `cols` (series-columns.ts): the hot path passes a slot number, never a series object.
 * A slot is valid while its series is in the head; `slotOf` finds it from the series ref.
 */
export class Head implements SeriesSource {
  readonly index = new LabelIndex();
  /** The series' state, by slot. */
  readonly cols = new SeriesColumns();
  /** Every series' slot by ref. */
  private readonly byRef = new RefTable((slot) => this.cols.ref[slot]);
  /** Series slots by label set (no key string per series). */
  private readonly byLabels = new LabelSetMap<number>((slot) => this.cols.labelsAt(slot));
  readonly tombstones = new Map<number, Interval[]>();
  private readonly strings = new StringTable(INTERN_MAX);
  /** The open chunks' bytes, and the appender that writes them. */
  readonly slab = new ChunkSlab();
  private readonly appender = new SlabXorAppender(this.slab);
  nextRef = 1;
  minTime = Infinity;
  maxTime = -Infinity;
  readonly refsInLabelOrder = false;
  /** Samples before this are refused ("out of bounds"): the max time of the newest block. */
  minValidTime = -Infinity;
  /**
   * Counts since the head was opened, for `prometheus_tsdb_head_*_total`. As in Prometheus, series and chunks
   * made by WAL replay count; samples count when an append is logged (`Tsdb.append`), not when replayed, and
   * refused ones when an append refuses them.
   */
  readonly totals = {
    samplesAppended: 0, seriesCreated: 0, seriesRemoved: 0, chunksCreated: 0, chunksRemoved: 0, outOfOrderRefused: 0, outOfBoundsRefused: 0,
    /** Appends naming a series by a ref the head no longer has (the sender resends its labels), as Prometheus counts them. */
    seriesNotFound: 0,
  };

  constructor(readonly chunkRangeMs: number, readonly chunkFiles: HeadChunkFiles) {}

  get numSeries(): number { return this.byRef.size; }

  /** The slot of the series with labels `ls` (sorted, non-empty values), or -1. */
  seriesOf(ls: Labels, hash = labelsHash(ls)): number { return this.byLabels.get(ls, hash) ?? -1; }

  /** The slot of the series with the flat labels `[name, value, …]`, or -1. */
  seriesOfFlat(flat: readonly string[]): number { return this.byLabels.getFlat(flat) ?? -1; }

  /** The slot of the series with ref `ref`, or -1. */
  slotOf(ref: number): number { return ref >= 0 ? this.byRef.get(ref) : -1; }

  /**
   * The slots of every series, in slot order (cold paths: block cut, checkpoint, snapshot). Series created
   * while it is consumed may or may not be visited; removing the one just visited is allowed.
   */
  *slots(): Generator<number> {
    const cols = this.cols;
    for (let slot = 0; slot < cols.end; slot++) if (cols.inUse(slot)) yield slot;
  }

  /** The ref of the series in `slot`. */
  refAt(slot: number): number { return this.cols.ref[slot]; }

  /** The label set of the series in `slot`. */
  labelsAt(slot: number): Labels { return this.cols.labelsAt(slot); }

  /** Returns the slot of the series `ls` (sorted, non-empty values), creating it with a new ref if needed. */
  getOrCreate(ls: Labels): { series: number; created: boolean } {
    const hash = labelsHash(ls);
    const s = this.seriesOf(ls, hash);
    if (s >= 0) return { series: s, created: false };
    return { series: this.create(this.nextRef, ls, hash), created: true };
  }

  /** Creates a series with a given ref (WAL replay); returns the existing one's slot for a known label set. */
  create(ref: number, ls: Labels, hash = labelsHash(ls)): number {
    const had = this.seriesOf(ls, hash);
    if (had >= 0) return had;
    const slot = this.cols.alloc(ref, this.interned(ls), hash);
    this.byLabels.add(slot, hash);
    this.byRef.add(slot);
    this.index.add(ref, ls);
    if (ref >= this.nextRef) this.nextRef = ref + 1;
    this.totals.seriesCreated++;
    return slot;
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
    const slot = this.slotOf(this.index.anyRef(name, value));
    if (slot < 0) return undefined;
    const ls = this.cols.labelsAt(slot);
    for (let i = 0; i < ls.length; i++) if (ls[i].name === name) return ls[i];
    return undefined;
  }

  /** The lowest timestamp an append may carry now. */
  appendableMinValidTime(): number {
    const byHead = this.maxTime === -Infinity ? -Infinity : this.maxTime - this.chunkRangeMs / 2;
    return Math.max(this.minValidTime, byHead);
  }

  /** Checks a sample for the series in `slot` without appending: one of the APPEND_* / ERR_* codes. */
  appendable(slot: number, t: number, v: number, minValid: number): number {
    if (t < minValid) return ERR_OUT_OF_BOUNDS;
    const maxT = this.cols.maxT[slot];
    if (t > maxT) return APPEND_OK;
    if (t < maxT) return ERR_OUT_OF_ORDER;
    F64[0] = v;
    return (U32[1] | 0) === this.cols.lastHi[slot] && (U32[0] | 0) === this.cols.lastLo[slot] ? APPEND_DUP_IGNORED : ERR_DUPLICATE;
  }

  /** Appends to the series in `slot` after `appendable` said APPEND_OK. */
  appendUnchecked(slot: number, t: number, v: number): void {
    const c = this.cols;
    if (c.chunkAt[slot] < 0 || c.chunkCount[slot] >= XOR_MAX_SAMPLES || t >= c.appNextAt[slot]) {
      this.closeOpen(slot);
      this.totals.chunksCreated++;
      c.chunkAt[slot] = this.slab.alloc(FIRST_SLOT_BYTES);
      c.chunkBits[slot] = 16;
      c.chunkCount[slot] = 0;
      c.chunkTDelta[slot] = 0;
      c.chunkWindow[slot] = 0xff00;
      c.appMint[slot] = t;
      c.appNextAt[slot] = (Math.floor(t / this.chunkRangeMs) + 1) * this.chunkRangeMs;
    }
    const a = this.appender;
    const w = c.chunkWindow[slot];
    a.resumeAt(c.chunkAt[slot], c.chunkBits[slot], c.chunkCount[slot], c.maxT[slot], c.chunkTDelta[slot], c.lastHi[slot], c.lastLo[slot], w >>> 8, w & 0xff);
    a.append(t, v);
    c.chunkAt[slot] = a.addr;
    c.chunkBits[slot] = a.bits;
    c.chunkCount[slot] = a.count;
    c.chunkTDelta[slot] = a.tDelta;
    c.chunkWindow[slot] = (a.leading << 8) | a.trailing;
    c.maxT[slot] = t;
    F64[0] = v;
    c.lastHi[slot] = U32[1] | 0;
    c.lastLo[slot] = U32[0] | 0;
    if (t < this.minTime) this.minTime = t;
    if (t > this.maxTime) this.maxTime = t;
  }

  /** Checked append to the series in `slot`; returns an APPEND_* / ERR_* code. */
  append(slot: number, t: number, v: number): number {
    const code = this.appendable(slot, t, v, this.appendableMinValidTime());
    if (code === APPEND_OK) this.appendUnchecked(slot, t, v);
    return code;
  }

  /** Whether the series in `slot` has an open chunk. */
  hasOpenChunk(slot: number): boolean { return this.cols.chunkAt[slot] >= 0; }

  /** Moves the open chunk of the series in `slot` to the head chunk files. */
  closeOpen(slot: number): void {
    const c = this.cols;
    const at = c.chunkAt[slot];
    if (at < 0) return;
    const ref = this.chunkFiles.write(c.ref[slot], c.appMint[slot], c.maxT[slot], this.slab.view(at, (c.chunkBits[slot] + 7) >>> 3));
    (c.closed[slot] ??= []).push(c.appMint[slot], c.maxT[slot], ref);
    this.slab.release(at);
    c.chunkAt[slot] = -1;
  }

  /** A copy of the open chunk's bytes. */
  private openChunkBytes(slot: number): Uint8Array {
    return this.slab.copy(this.cols.chunkAt[slot], (this.cols.chunkBits[slot] + 7) >>> 3);
  }

  /**
   * The bytes of the chunk of series `ref` that starts at `mint`, open or closed since (an `OpenChunkView`
   * read after appends); an empty chunk when it has been truncated away or the series left the head.
   */
  chunkBytesAt(ref: number, mint: number): Uint8Array {
    const slot = this.slotOf(ref);
    if (slot < 0) return EMPTY_CHUNK;
    if (this.cols.chunkAt[slot] >= 0 && this.cols.appMint[slot] === mint) return this.openChunkBytes(slot);
    const c = this.cols.closed[slot];
    if (c !== null) for (let i = 0; i < c.length; i += 3) if (c[i] === mint) return this.chunkFiles.read(c[i + 2]);
    return EMPTY_CHUNK;
  }

  /** The chunks of the series in `slot` ending before `maxt` (all when omitted), the open one included, with their bytes. */
  chunksWithBytes(slot: number, maxt = Infinity): { mint: number; maxt: number; bytes: Uint8Array }[] {
    const out = [];
    const c = this.cols.closed[slot];
    if (c !== null) for (let i = 0; i < c.length; i += 3) if (c[i + 1] < maxt) out.push({ mint: c[i], maxt: c[i + 1], bytes: this.chunkFiles.read(c[i + 2]) });
    if (this.cols.chunkAt[slot] >= 0 && this.cols.maxT[slot] < maxt) out.push({ mint: this.cols.appMint[slot], maxt: this.cols.maxT[slot], bytes: this.openChunkBytes(slot) });
    return out;
  }

  labelsOf(ref: number): Labels {
    const slot = this.slotOf(ref);
    return slot < 0 ? [] : this.cols.labelsAt(slot);
  }

  chunksOf(ref: number, mint: number, maxt: number, out: ChunkMeta[]): void {
    const slot = this.slotOf(ref);
    if (slot < 0) return;
    const cols = this.cols;
    const c = cols.closed[slot];
    if (c !== null) for (let i = 0; i < c.length; i += 3) if (c[i + 1] >= mint && c[i] <= maxt) out.push(new ClosedChunkView(this.chunkFiles, c[i], c[i + 1], c[i + 2]));
    if (cols.chunkAt[slot] >= 0 && cols.maxT[slot] >= mint && cols.appMint[slot] <= maxt) out.push(new OpenChunkView(this, ref, cols.appMint[slot], cols.maxT[slot]));
  }

  deletedOf(ref: number): readonly Interval[] | undefined {
    return this.tombstones.get(ref);
  }

  addTombstone(ref: number, iv: Interval): void {
    if (this.slotOf(ref) < 0) return;
    this.tombstones.set(ref, addInterval(this.tombstones.get(ref) ?? [], iv));
  }

  /**
   * Drops every chunk that ends before `mint` (it now lives in a block) and the series left empty, and
   * raises the head's min time. Returns the refs of the removed series.
   */
  truncate(mint: number): number[] {
    const removed: number[] = [];
    const cols = this.cols;
    for (let slot = 0; slot < cols.end; slot++) {
      if (!cols.inUse(slot)) continue;
      if (cols.chunkAt[slot] >= 0 && cols.maxT[slot] < mint) this.closeOpen(slot);
      const c = cols.closed[slot];
      let drop = 0;
      if (c !== null) while (drop < c.length && c[drop + 1] < mint) drop += 3;
      if (drop > 0) cols.closed[slot] = drop === c!.length ? null : c!.slice(drop);
      this.totals.chunksRemoved += drop / 3;
      if (cols.closed[slot] === null && cols.chunkAt[slot] < 0) removed.push(cols.ref[slot]);
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
    const slot = this.slotOf(ref);
    if (slot < 0) return;
    const ls = this.cols.labelsAt(slot);
    this.byRef.delete(ref);
    this.byLabels.delete(slot, this.cols.hash[slot]);
    this.index.remove(ref, ls);
    this.tombstones.delete(ref);
    this.cols.free(slot);
    this.totals.seriesRemoved++;
  }

  numChunks(): number {
    let n = 0;
    for (const slot of this.slots()) n += this.cols.closedCount(slot) + (this.cols.chunkAt[slot] >= 0 ? 1 : 0);
    return n;
  }
}
