/**
 * The remote-write receiver's series cache: the raw label bytes of a TimeSeries (as `WriteRequestView`
 * gives them) → the series' id in the receiver's `SeriesTable` (its label set as bytes, and the sink's ref).
 * A sender sends the same series again and again, encoded the same way, so a known series costs one hash
 * and one byte comparison, and no label string, label object, sort or shard hash is made for it
 * (Prometheus's scrape cache, applied to remote write). Label sets are checked and normalised once, when
 * first seen; nothing per series stays on the V8 heap.
 *
 * Entries not seen for `IDLE_MS` (to the minute) are dropped (checked every `SWEEP_MS`), so a sender's churned series do
 * not stay on the main thread; one that comes back is decoded again.
 */
import type { Label } from '../tsdb/api.ts';
import { compareUtf8 } from '../tsdb/labels.ts';
import { InvalidArgumentError } from '../errors.ts';
import { ByteKeyTable, hashBytes } from '../codec/byte-key-table.ts';
import { readSeriesLabels, type WriteRequestView } from './write-request-reader.ts';
import { SeriesTable } from '../scrape/series-table.ts';
import { grown } from '../codec/typed-grow.ts';

const IDLE_MS = 10 * 60_000;
const SWEEP_MS = 60_000;
const MINUTE_MS = 60_000;

export class RemoteWriteSeries {
  /** Raw label bytes → key id; per key id the series id. The key's `user` int is when it was last sent, in minutes. */
  private keys = new ByteKeyTable();
  private keySeries = new Int32Array(1024);
  /** The series, by label set; `seen` is when each was last sent, in minutes. */
  readonly table = new SeriesTable();
  private nextSweepMs = 0;
  /** Scratch of `decode` (not re-entrant). */
  private readonly flat: string[] = [];

  get size(): number { return this.keys.size; }

  /**
   * The series id of `view`'s series `i`, seen at `nowMs`. Throws InvalidArgumentError for undecodable label
   * fields and `TSDB_INVALID_SAMPLE` for a label set Prometheus refuses (empty, or a name twice).
   */
  resolve(view: WriteRequestView, i: number, nowMs: number): number {
    const minute = Math.floor(nowMs / MINUTE_MS);
    const from = view.keyStart[i], to = view.keyEnd[i];
    let sid: number;
    if (from < 0) sid = this.decode(view, i); // labels interleaved with samples: no stable key
    else {
      const b = view.buf, hash = hashBytes(b, from, to);
      let id = this.keys.find(b, from, to, hash);
      if (id < 0) {
        sid = this.decode(view, i);
        id = this.keys.insert(b, from, to, hash);
        if (id === this.keySeries.length) this.keySeries = grown(this.keySeries);
        this.keySeries[id] = sid;
      } else sid = this.keySeries[id];
      // Kept beside the key: no second cache miss.
      this.keys.setUser(id, minute);
    }
    this.table.setSeen(sid, minute);
    return sid;
  }

  /**
   * Drops the series idle for `IDLE_MS`; cheap to call per request (sweeps at most every `SWEEP_MS`). Series
   * ids change: call it only when no columns of this table are waiting to be taken in by the sink.
   */
  sweep(nowMs: number): void {
    if (nowMs < this.nextSweepMs) return;
    this.nextSweepMs = nowMs + SWEEP_MS;
    const keys = this.keys, table = this.table, oldest = Math.floor((nowMs - IDLE_MS) / MINUTE_MS);
    let idle = 0;
    for (let sid = 0; sid < table.size; sid++) if (table.seen(sid) < oldest) idle++;
    if (idle === 0) return;
    // A kept key's series was sent with it, so it is kept too.
    const sremap = table.compact((sid) => table.seen(sid) >= oldest);
    const n = keys.size;
    const remap = keys.compact((id) => keys.user(id) >= oldest);
    const series = new Int32Array(Math.max(1024, keys.size));
    for (let id = 0; id < n; id++) if (remap[id] >= 0) series[remap[id]] = sremap[this.keySeries[id]];
    this.keySeries = series;
  }

  private decode(view: WriteRequestView, i: number): number {
    const flat = this.flat;
    readSeriesLabels(view, i, flat);
    try {
      return this.table.intern(normalise(flat));
    } finally {
      flat.length = 0;
    }
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
    const l = { name: flat[j], value: flat[j + 1] };
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
