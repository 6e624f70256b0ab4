/**
 * One scrape's samples as reused columns instead of one `{labels, t, v}` object per sample: at 100,000
 * series a second those objects were most of the main thread's young-generation garbage. Per sample the
 * series' labels, the sink's handle for the series (see `SampleSink.seriesHandle`; null when it has none),
 * and typed time and value columns (a staleness marker's NaN payload survives in a Float64Array).
 */
import type { Labels } from '../tsdb/api.ts';
import type { IngestSample } from './sample-sink.ts';

export class SampleColumns {
  n = 0;
  readonly labels: Labels[] = [];
  readonly handles: unknown[] = [];
  ts = new Float64Array(256);
  vs = new Float64Array(256);

  push(labels: Labels, handle: unknown, t: number, v: number): void {
    const i = this.n;
    if (i === this.ts.length) this.grow();
    this.labels[i] = labels;
    this.handles[i] = handle;
    this.ts[i] = t;
    this.vs[i] = v;
    this.n = i + 1;
  }

  /** Empties the columns, dropping the references to series (an evicted series must not stay alive here). */
  clear(): void {
    this.labels.fill(EMPTY, 0, this.n);
    this.handles.fill(null, 0, this.n);
    this.n = 0;
  }

  /** The object form, for sinks without `appendColumns` (tests, remote write queues). */
  toSamples(): IngestSample[] {
    const out: IngestSample[] = new Array(this.n);
    for (let i = 0; i < this.n; i++) out[i] = { labels: this.labels[i], t: this.ts[i], v: this.vs[i] };
    return out;
  }

  private grow(): void {
    const ts = new Float64Array(this.ts.length * 2), vs = new Float64Array(this.vs.length * 2);
    ts.set(this.ts);
    vs.set(this.vs);
    this.ts = ts;
    this.vs = vs;
  }
}

/** Placeholder for cleared slots: keeps the labels column's elements kind (arrays) stable. */
const EMPTY: Labels = Object.freeze([]);
