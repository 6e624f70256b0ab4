/**
 * One scrape's (or one remote-write request's) samples as reused columns instead of one `{labels, t, v}`
 * object per sample: per sample the series' id in the producer's `SeriesTable`, and typed time and value
 * columns (a staleness marker's NaN payload survives in a Float64Array). A sink that knows the table sends
 * known series by ref and needs no label object at all; `toSamples` decodes the object form for the others.
 */
import type { Label } from '../tsdb/api.ts';
import type { IngestSample } from './sample-sink.ts';
import type { SeriesTable } from './series-table.ts';
import { grown } from '../codec/typed-grow.ts';

export class SampleColumns {
  n = 0;
  sids = new Int32Array(256);
  ts = new Float64Array(256);
  vs = new Float64Array(256);

  /** `table` holds the series the ids refer to (the producer's, for the columns' life). */
  constructor(readonly table: SeriesTable) {}

  push(sid: number, t: number, v: number): void {
    const i = this.n;
    if (i === this.ts.length) this.grow();
    this.sids[i] = sid;
    this.ts[i] = t;
    this.vs[i] = v;
    this.n = i + 1;
  }

  clear(): void { this.n = 0; }

  /** Sample `i`'s label set, decoded (fresh objects). */
  labels(i: number): Label[] { return this.table.labels(this.sids[i]); }

  /**
   * The object form, for sinks without `appendColumns` (tests, remote write queues). Labels are decoded once
   * per series of the call, and samples of the same series share the array.
   */
  toSamples(): IngestSample[] {
    const out: IngestSample[] = new Array(this.n);
    const decoded = new Map<number, Label[]>();
    for (let i = 0; i < this.n; i++) {
      const sid = this.sids[i];
      let labels = decoded.get(sid);
      if (labels === undefined) { labels = this.table.labels(sid); decoded.set(sid, labels); }
      out[i] = { labels, t: this.ts[i], v: this.vs[i] };
    }
    return out;
  }

  private grow(): void {
    this.sids = grown(this.sids);
    this.ts = grown(this.ts);
    this.vs = grown(this.vs);
  }
}
