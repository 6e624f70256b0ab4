/**
 * Where ingested samples go. The server passes its TSDB client (which routes series to the shard that
 * owns them); tests pass an in-memory sink. Resolving means the samples are durable in the WAL.
 */
import type { Labels } from '../tsdb/api.ts';
import type { SampleColumns } from './sample-columns.ts';

export interface IngestSample { labels: Labels; t: number; v: number }

/** Samples the storage refused, by reason (a sink may resolve with these; the scrape loop counts them). */
export interface RefusedSamples { outOfOrder: number; duplicate: number; outOfBounds: number }

export interface SampleSink {
  /**
   * Takes in `samples` before returning (copies what it keeps): callers may empty or reuse the array once
   * the call has returned, before the promise settles. The scrape loop does, so that a scrape's sample
   * objects die young instead of being promoted to the old generation while the WAL write is awaited.
   */
  append(samples: IngestSample[]): Promise<RefusedSamples | void>;
  /**
   * The columnar form of `append` (series by id in the producer's `SeriesTable`), with the same contract: the
   * producer reuses the columns once the call has returned. A sink that knows the table keeps its per-series
   * state (the TSDB client's refs) in the table's columns rather than in objects of its own. Optional:
   * producers fall back to `append(columns.toSamples())`.
   */
  appendColumns?(columns: SampleColumns): Promise<RefusedSamples | void>;
}
