/**
 * Selected series whose samples are decoded when the evaluation first reads them, and a bound on how many
 * decoded samples one evaluation keeps. The evaluator reads a selector's series one after the other (a vector
 * selector's steps, a range function's windows), so holding every decoded series to the end of the query was
 * what made a 30-day range query hold 16 bytes for each of its 69 M samples (docs/benchmarks.md, issue 11);
 * the selection itself stays as its XOR chunks (~1.3 bytes a sample). A series dropped from the bound is
 * decoded again if read again — and from then on the evaluation keeps every series it decodes: an expression
 * that reads the selection once per step (`timestamp(x)` walks every series at each step) would otherwise
 * decode the whole selection at every step.
 */
import type { FetchedSeries, Labels } from '../tsdb/api.ts';
import type { SampleAllocator } from '../tsdb/packed-series.ts';
import type { StoredSeries } from './storage.ts';
import { isStaleNaN } from './value.ts';

/** Decoded samples an evaluation keeps by default: 64 MB of them. */
export const DECODED_SAMPLES_BUDGET = 4_000_000;

interface Decoded { t: Float64Array; v: Float64Array; stale: Uint8Array | null; n: number }

/** Samples per array the bound decodes series into (1 MB for times and values); a longer series gets its own. */
export const ARENA_SAMPLES = 65_536;

/** The decoded series of one evaluation, oldest first; the oldest are dropped while the total is over budget. */
export class DecodedSeriesBound {
  private held: DeferredStoredSeries[] = [];
  private first = 0;
  private total = 0;
  /** Samples decoded by first reads (what the query's statistics count as loaded). */
  loaded = 0;
  /**
   * Series are decoded into slices of shared arrays, filled in order and never written again: a dropped
   * series' slice is garbage once its array's other slices are.
   */
  private arenaT: Float64Array | null = null;
  private arenaV: Float64Array | null = null;
  private arenaUsed = 0;
  /**
   * A series too long for the shared arrays gets arrays of its own; the last pair handed out, and the pair of
   * a series let go (`letGo`), which the next long series reuses. Over 30 days a range function reads ~170,000
   * samples a series, one series after the other: 2.8 MB of fresh arrays per series, garbage at the next,
   * left glibc's arenas holding ~130 MB after the query (docs/benchmarks.md, issue 11).
   */
  private own: { t: Float64Array; v: Float64Array } | null = null;
  private spare: { t: Float64Array; v: Float64Array } | null = null;

  constructor(private budget = DECODED_SAMPLES_BUDGET) {}

  /** Room for `n` decoded samples (`SampleAllocator`). */
  readonly alloc: SampleAllocator = (n) => {
    if (n > ARENA_SAMPLES / 4) {
      const reused = this.spare !== null && this.spare.t.length >= n ? this.spare : null;
      this.spare = null;
      this.own = reused ?? { t: new Float64Array(n), v: new Float64Array(n) };
      return { t: this.own.t, v: this.own.v, at: 0 };
    }
    if (this.arenaT === null || this.arenaUsed + n > ARENA_SAMPLES) {
      this.arenaT = new Float64Array(ARENA_SAMPLES);
      this.arenaV = new Float64Array(ARENA_SAMPLES);
      this.arenaUsed = 0;
    }
    const at = this.arenaUsed;
    this.arenaUsed += n;
    return { t: this.arenaT, v: this.arenaV!, at };
  };

  /**
   * `s` has just been decoded (`n` samples; `again` when it had been dropped before); drops the oldest others
   * while over budget.
   */
  hold(s: DeferredStoredSeries, n: number, again: boolean): void {
    if (again) this.budget = Infinity;
    this.held.push(s);
    this.total += n;
    while (this.total > this.budget && this.held.length - this.first > 1) {
      const old = this.held[this.first];
      this.held[this.first++] = undefined as never;
      this.total -= old.release();
    }
    if (this.first > 1024 && this.first * 2 > this.held.length) { this.held = this.held.slice(this.first); this.first = 0; }
  }

  /**
   * Lets go of `s`'s samples now if it is the series decoded last (`DeferredStoredSeries.done`: a series-major
   * pass is through with it); otherwise it stays for the bound to drop in turn.
   */
  letGo(s: DeferredStoredSeries): boolean {
    if (this.held.length === this.first || this.held[this.held.length - 1] !== s) return false;
    this.held.pop();
    // The evaluation reads nothing of a series it let go: its own arrays are free for the next long one.
    if (this.own !== null && s.samplesIn(this.own.t)) { this.spare = this.own; this.own = null; }
    this.total -= s.release();
    return true;
  }
}

/** A selected series decoded on first read (and again after the bound dropped it). */
export class DeferredStoredSeries implements StoredSeries {
  private d: Decoded | null = null;
  private counted = false;
  /** Let go by `done`: the next decode is a new pass, not a re-read that the bound failed to keep. */
  private finished = false;

  constructor(readonly labels: Labels, private readonly decode: (alloc: SampleAllocator) => FetchedSeries, private readonly bound: DecodedSeriesBound) {}

  get t(): Float64Array { return (this.d ?? this.load()).t; }
  get v(): Float64Array { return (this.d ?? this.load()).v; }
  get stale(): Uint8Array | null { return (this.d ?? this.load()).stale; }
  get n(): number { return (this.d ?? this.load()).n; }

  /** Whether the decoded samples lie in `arr` (a view of it, or it). */
  samplesIn(arr: Float64Array): boolean { return this.d !== null && this.d.t.buffer === arr.buffer; }

  /** Forgets the decoded samples (they are decoded again when read); returns how many there were. */
  release(): number {
    const n = this.d?.n ?? 0;
    this.d = null;
    return n;
  }

  /**
   * The evaluation is through with this series for now (a range function reads each series' windows for
   * every step, then the next series): its samples go at once instead of staying in the bound while later
   * series are decoded — over 30 days that was up to the whole budget of samples no step would read again,
   * as Prometheus's evaluator holds one series' samples at a time here.
   */
  done(): void {
    if (this.d !== null && this.bound.letGo(this)) this.finished = true;
  }

  private load(): Decoded {
    const { t, v } = this.decode(this.bound.alloc);
    const d: Decoded = { t, v, stale: staleFlags(v, t.length), n: t.length };
    this.d = d;
    const again = this.counted && !this.finished;
    this.finished = false;
    if (!this.counted) { this.counted = true; this.bound.loaded += d.n; }
    this.bound.hold(this, d.n, again);
    return d;
  }
}

/** 1 where a sample is a stale marker; null when the series has none (the common case). */
export function staleFlags(v: Float64Array, n: number): Uint8Array | null {
  let flags: Uint8Array | null = null;
  for (let i = 0; i < n; i++) {
    const x = v[i];
    if (x === x || !isStaleNaN(x)) continue;
    flags ??= new Uint8Array(n);
    flags[i] = 1;
  }
  return flags;
}
