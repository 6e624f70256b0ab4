/**
 * The remote-write receiver's path from a decompressed `WriteRequest` to the sample sink, with no object
 * per sample: the request is decoded into reused columns (`WriteRequestView`), each series is resolved
 * through the series cache (a known one by its raw label bytes), and the samples go to the sink in the
 * same `SampleColumns` form as a scrape's, over the cache's `SeriesTable` (one append, hence one WAL record
 * per shard, per request).
 */
import type { SampleSink } from '../scrape/sample-sink.ts';
import { SampleColumns } from '../scrape/sample-columns.ts';
import { readWriteRequest, WriteRequestView } from './write-request-reader.ts';
import { RemoteWriteSeries } from './remote-write-series.ts';

export class RemoteWriteIngest {
  private readonly view = new WriteRequestView();
  private readonly series = new RemoteWriteSeries();
  private readonly cols = new SampleColumns(this.series.table);
  /** Scratch: the resolved series id of each series of the request being ingested (-1: not resolved). */
  private resolved = new Int32Array(256).fill(-1);

  constructor(private readonly sink: SampleSink) {}

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
    const view = this.view, cols = this.cols;
    try {
      readWriteRequest(raw, view);
      if (this.resolved.length < view.seriesCount) this.resolved = new Int32Array(view.seriesCount * 2).fill(-1);
      const resolved = this.resolved;
      // Every sample's series first, so that a refused label set refuses the request before anything is
      // appended. Only series with samples: Prometheus never builds the others (their labels go unchecked).
      const sidx = view.sampleSeries, ts = view.ts, vs = view.vs;
      for (let k = 0; k < view.sampleCount; k++) {
        const i = sidx[k];
        if (resolved[i] < 0) resolved[i] = this.series.resolve(view, i, nowMs);
      }
      if (view.sampleCount === 0) return null;
      for (let k = 0; k < view.sampleCount; k++) cols.push(resolved[sidx[k]], ts[k], vs[k]);
      return this.sink.appendColumns ? this.sink.appendColumns(cols) : this.sink.append(cols.toSamples());
    } finally {
      this.resolved.fill(-1, 0, view.seriesCount);
      cols.clear();
      view.clear();
      this.series.sweep(nowMs);
    }
  }
}
