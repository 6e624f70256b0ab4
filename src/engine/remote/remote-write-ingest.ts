/**
 * The remote-write receiver's path from a decompressed `WriteRequest` to the sample sink, with no object
 * per sample: the request is decoded into reused columns (`WriteRequestView`), each series is resolved
 * through the series cache (a known one by its raw label bytes), and the samples go to the sink in the
 * same `SampleColumns` form, with the same series handles, as a scrape's (one append, hence one WAL record
 * per shard, per request).
 */
import type { SampleSink } from '../scrape/sample-sink.ts';
import { SampleColumns } from '../scrape/sample-columns.ts';
import { readWriteRequest, WriteRequestView } from './write-request-reader.ts';
import { RemoteWriteSeries, type RemoteSeries } from './remote-write-series.ts';

const NONE: RemoteSeries = Object.freeze({ labels: Object.freeze([]), handle: null });

export class RemoteWriteIngest {
  private readonly view = new WriteRequestView();
  private readonly cols = new SampleColumns();
  private readonly series: RemoteWriteSeries;
  /** Scratch: the resolved series of the request being ingested, by series index. */
  private readonly resolved: RemoteSeries[] = [];

  constructor(private readonly sink: SampleSink) {
    this.series = new RemoteWriteSeries((labels) => sink.seriesHandle?.(labels) ?? null);
  }

  /** Series the cache holds (for tests and figures). */
  get cachedSeries(): number { return this.series.size; }

  /**
   * Decodes `raw` and hands its samples to the sink; returns the sink's promise (null when there were no
   * samples). Everything up to the sink call runs synchronously, so the scratch columns are free again on
   * return. Throws, before anything is stored, InvalidArgumentError for a malformed message and
   * `TSDB_INVALID_SAMPLE` for a label set Prometheus refuses; the whole request is then refused, as
   * Prometheus rolls it back.
   */
  ingest(raw: Uint8Array, nowMs: number): Promise<unknown> | null {
    const view = this.view, cols = this.cols, resolved = this.resolved;
    try {
      readWriteRequest(raw, view);
      for (let i = 0; i < view.seriesCount; i++) resolved[i] = NONE; // (fill would not lengthen the array)
      // Every sample's series first, so that a refused label set refuses the request before anything is
      // appended. Only series with samples: Prometheus never builds the others (their labels go unchecked).
      const sidx = view.sampleSeries, ts = view.ts, vs = view.vs;
      for (let k = 0; k < view.sampleCount; k++) {
        const i = sidx[k];
        if (resolved[i] === NONE) resolved[i] = this.series.resolve(view, i, nowMs);
      }
      if (view.sampleCount === 0) return null;
      for (let k = 0; k < view.sampleCount; k++) {
        const s = resolved[sidx[k]];
        cols.push(s.labels, s.handle, ts[k], vs[k]);
      }
      return this.sink.appendColumns ? this.sink.appendColumns(cols) : this.sink.append(cols.toSamples());
    } finally {
      resolved.fill(NONE, 0, view.seriesCount);
      cols.clear();
      view.clear();
      this.series.sweep(nowMs);
    }
  }
}
