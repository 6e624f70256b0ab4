/**
 * Where ingested samples go. The server passes its TSDB client (which routes series to the shard that
 * owns them); tests pass an in-memory sink. Resolving means the samples are durable in the WAL.
 */
import type { Labels } from '../tsdb/api.ts';

export interface IngestSample { labels: Labels; t: number; v: number }

export interface SampleSink {
  append(samples: IngestSample[]): Promise<unknown>;
}

