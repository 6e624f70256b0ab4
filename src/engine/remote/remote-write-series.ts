/**
 * The remote-write receiver's series cache: the raw label bytes of a TimeSeries (as `WriteRequestView`
 * gives them) → the series' label set and the sink's handle for it. A sender sends the same series again
 * and again, encoded the same way, so a known series costs one hash and one byte comparison, and no label
 * string, label object, sort or shard hash is made for it (Prometheus's scrape cache, applied to remote
 * write). Label sets are checked and normalised once, when first seen.
 *
 * Entries not seen for `IDLE_MS` (to the minute) are dropped (checked every `SWEEP_MS`), so a sender's churned series do
 * not stay on the main thread; one that comes back is decoded again.
 */
import type { Label, Labels } from '../tsdb/api.ts';
import { compareUtf8 } from '../tsdb/labels.ts';
import { InvalidArgumentError } from '../errors.ts';
import { ByteKeyTable, hashBytes } from '../codec/byte-key-table.ts';
import { readSeriesLabels, type WriteRequestView } from './write-request-reader.ts';
import { StringTable } from '../model/string-table.ts';
import { RepeatInterner } from '../model/repeat-interner.ts';
import { LabelPairTable } from '../scrape/label-pairs.ts';

/** A series the receiver knows: its sorted label set (frozen) and the sink's handle (`SampleSink.seriesHandle`). */
export interface RemoteSeries { readonly labels: Labels; readonly handle: unknown }

/**
 * The cache keeps a label set per series on the main thread; as the scrape loop does, names are one copy
 * each, values shared by several series (a metric name, a job) one copy each, and their pairs one Label
 * object each. Bounded; process-wide for the receiver (the scrape loop keeps its own).
 */
const NAMES = new StringTable(1 << 14);
const VALUES = new RepeatInterner(1 << 16);
const PAIRS = new LabelPairTable(1 << 16);

const IDLE_MS = 10 * 60_000;
const SWEEP_MS = 60_000;
const MINUTE_MS = 60_000;

export class RemoteWriteSeries {
  private readonly keys = new ByteKeyTable();
  private series: RemoteSeries[] = [];
  private nextSweepMs = 0;
  /** Scratch of `decode` (not re-entrant). */
  private readonly flat: string[] = [];

  /** `handleOf` makes the sink's handle for a new label set (null when the sink keeps none). */
  constructor(private readonly handleOf: (labels: Labels) => unknown) {}

  get size(): number { return this.keys.size; }

  /**
   * The series of `view`'s series `i`, seen at `nowMs`. Throws InvalidArgumentError for undecodable label
   * fields and `TSDB_INVALID_SAMPLE` for a label set Prometheus refuses (empty, or a name twice).
   */
  resolve(view: WriteRequestView, i: number, nowMs: number): RemoteSeries {
    const from = view.keyStart[i], to = view.keyEnd[i];
    if (from < 0) return this.decode(view, i); // labels interleaved with samples: no stable key
    const b = view.buf, hash = hashBytes(b, from, to);
    let id = this.keys.find(b, from, to, hash);
    if (id < 0) {
      const s = this.decode(view, i);
      id = this.keys.insert(b, from, to, hash);
      this.series[id] = s;
    }
    // When it was last sent, in minutes (the sweep's resolution), kept beside the key: no second cache miss.
    this.keys.setUser(id, Math.floor(nowMs / MINUTE_MS));
    return this.series[id];
  }

  /** Drops the series idle for `IDLE_MS`; cheap to call per request (sweeps at most every `SWEEP_MS`). */
  sweep(nowMs: number): void {
    if (nowMs < this.nextSweepMs) return;
    this.nextSweepMs = nowMs + SWEEP_MS;
    const keys = this.keys, n = keys.size, oldest = Math.floor((nowMs - IDLE_MS) / MINUTE_MS);
    let idle = 0;
    for (let id = 0; id < n; id++) if (keys.user(id) < oldest) idle++;
    if (idle === 0) return;
    const remap = keys.compact((id) => keys.user(id) >= oldest);
    const series: RemoteSeries[] = new Array(keys.size);
    for (let id = 0; id < n; id++) if (remap[id] >= 0) series[remap[id]] = this.series[id];
    this.series = series;
  }

  private decode(view: WriteRequestView, i: number): RemoteSeries {
    const flat = this.flat;
    readSeriesLabels(view, i, flat);
    const labels = Object.freeze(normalise(flat));
    flat.length = 0;
    return { labels, handle: this.handleOf(labels) };
  }
}

/**
 * As Prometheus 2.42 builds a remote-written label set: sorted by name (senders need not sort), empty values
 * dropped; an empty set and a repeated name are refused as invalid samples (a 500 there, as here).
 */
function normalise(flat: string[]): Label[] {
  const out: Label[] = [];
  let sorted = true;
  for (let j = 0; j < flat.length; j += 2) {
    if (flat[j + 1] === '') continue;
    const name = NAMES.intern(flat[j]), value = VALUES.intern(flat[j + 1]);
    const l = VALUES.has(value) ? PAIRS.pair(name, value) : { name, value };
    if (out.length > 0 && compareUtf8(out[out.length - 1].name, l.name) >= 0) sorted = false;
    out.push(l);
  }
  if (!sorted) out.sort((a, b) => compareUtf8(a.name, b.name));
  for (let j = 1; j < out.length; j++) {
    if (out[j].name === out[j - 1].name) throw InvalidArgumentError.of('TSDB_INVALID_SAMPLE', [`label name "${out[j].name}" is not unique`]);
  }
  if (out.length === 0) throw InvalidArgumentError.of('TSDB_INVALID_SAMPLE', ['empty labelset']);
  return out;
}
