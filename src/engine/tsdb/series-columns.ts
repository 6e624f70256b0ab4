/**
 * The head's per-series state as columns indexed by a slot number, instead of one object per series. A
 * `MemSeries` object with fourteen fields cost ~136 bytes plus a 16-byte box for each of its three
 * timestamp fields (V8 boxes doubles that are not small integers) and an empty array for its closed chunks:
 * ~230 bytes per series (heap snapshot of 100k series). Here the numbers sit in typed arrays (64 bytes a
 * slot) and only the label set and the closed-chunk list (null while empty) are JS values.
 *
 * Slots of removed series are reused (a free stack), so a slot identifies a series only while the series is
 * in the head: anything that outlives a head truncation (a query's chunk view) holds the series ref, which is
 * never reused, and finds the slot again through the head.
 */
import type { Labels } from './api.ts';

const INITIAL_SLOTS = 64;
/** The typed columns, by element type: `grow` widens them all. */
const F64_COLUMNS = ['ref', 'maxT', 'appMint', 'appNextAt', 'chunkTDelta'] as const;
const I32_COLUMNS = ['hash', 'chunkAt', 'chunkBits', 'chunkCount', 'chunkWindow', 'lastHi', 'lastLo'] as const;

export class SeriesColumns {
  /** Series ref (a uint64 in the WAL; exact below 2^53). */
  ref: Float64Array = new Float64Array(INITIAL_SLOTS);
  /** Label-set hash (`labelsHash`). */
  hash: Int32Array = new Int32Array(INITIAL_SLOTS);
  /** Time of the last sample (-Infinity before the first). */
  maxT: Float64Array = new Float64Array(INITIAL_SLOTS);
  /** Start time of the open chunk, and the chunk-range boundary at which it is cut. */
  appMint: Float64Array = new Float64Array(INITIAL_SLOTS);
  appNextAt: Float64Array = new Float64Array(INITIAL_SLOTS);
  /**
   * The open chunk: its slot in the head's `ChunkSlab` (-1 when there is none) and its XOR writer's state
   * (bits written, sample count, last time delta, value window as `leading << 8 | trailing`).
   */
  chunkAt: Int32Array = new Int32Array(INITIAL_SLOTS);
  chunkBits: Int32Array = new Int32Array(INITIAL_SLOTS);
  chunkCount: Int32Array = new Int32Array(INITIAL_SLOTS);
  /** A double: a delta between samples may exceed the int32 range (24.8 days). */
  chunkTDelta: Float64Array = new Float64Array(INITIAL_SLOTS);
  chunkWindow: Int32Array = new Int32Array(INITIAL_SLOTS);
  /** The last value's float64 bits, high and low word. */
  lastHi: Int32Array = new Int32Array(INITIAL_SLOTS);
  lastLo: Int32Array = new Int32Array(INITIAL_SLOTS);
  /** The label set; `null` marks a free slot. */
  labels: (Labels | null)[] = new Array<Labels | null>(INITIAL_SLOTS).fill(null);
  /** The closed chunks, flat `mint, maxt, ref` per chunk (ref into the head chunk files); null while none. */
  closed: (number[] | null)[] = new Array<number[] | null>(INITIAL_SLOTS).fill(null);

  private freeSlots: number[] = [];
  /** Slots handed out so far (free ones included): the columns' used length. */
  private top = 0;

  /** Slots in use. */
  get size(): number { return this.top - this.freeSlots.length; }

  /** A slot for a new series, its state reset (no chunk, no sample). */
  alloc(ref: number, labels: Labels, hash: number): number {
    const slot = this.freeSlots.length > 0 ? this.freeSlots.pop()! : this.top++;
    if (slot >= this.ref.length) this.grow();
    this.ref[slot] = ref;
    this.hash[slot] = hash;
    this.maxT[slot] = -Infinity;
    this.appMint[slot] = 0;
    this.appNextAt[slot] = 0;
    this.chunkAt[slot] = -1;
    this.chunkBits[slot] = 0;
    this.chunkCount[slot] = 0;
    this.chunkTDelta[slot] = 0;
    this.chunkWindow[slot] = 0;
    this.lastHi[slot] = 0;
    this.lastLo[slot] = 0;
    this.labels[slot] = labels;
    this.closed[slot] = null;
    return slot;
  }

  /** Frees `slot` (its open chunk already released by the caller); it may be handed out again. */
  free(slot: number): void {
    this.labels[slot] = null;
    this.closed[slot] = null;
    this.freeSlots.push(slot);
  }

  /** Slots handed out are below this (some may be free). */
  get end(): number { return this.top; }

  /** Whether `slot` (below `end`) holds a series. */
  inUse(slot: number): boolean { return this.labels[slot] !== null; }

  /** The label set of the series in `slot`, which must be in use. */
  labelsAt(slot: number): Labels { return this.labels[slot]!; }

  /** Number of closed chunks of `slot`. */
  closedCount(slot: number): number { return (this.closed[slot]?.length ?? 0) / 3; }

  private grow(): void {
    const n = this.ref.length * 2;
    for (const k of F64_COLUMNS) { const b = new Float64Array(n); b.set(this[k]); this[k] = b; }
    for (const k of I32_COLUMNS) { const b = new Int32Array(n); b.set(this[k]); this[k] = b; }
    const labels = new Array<Labels | null>(n).fill(null), closed = new Array<number[] | null>(n).fill(null);
    for (let i = 0; i < this.top; i++) { labels[i] = this.labels[i]; closed[i] = this.closed[i]; }
    this.labels = labels;
    this.closed = closed;
  }
}
